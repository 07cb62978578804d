#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# README command 1 (the main job): install dependencies, build, then start
# ganesha with FSAL_DONTCACHE (each write mode) and stock FSAL_VFS on scratch
# exports in a private namespace and memory cgroup, run the quick benchmark
# and print the comparison table. Every server runs with the malloc
# environment the package's systemd drop-in gives nfs-ganesha.service
# (config/systemd/dontcache-malloc.conf), FSAL_VFS too; the vfs-shipped mode
# is FSAL_VFS with glibc's defaults, so the table gives each module mode's
# ratio against FSAL_VFS under the same malloc environment and against
# FSAL_VFS as shipped, per scenario, from one run: 9 scenarios x 5 modes x 2
# reps of 3 s, about 9-10 minutes on 2 cores (one repetition of the 45 runs
# took 269 s on the bench host; --reps 3, bench/run.sh --quick's default, about
# 14 minutes), plus the two ceilings in the same rounds (FSAL_MEM in every
# scenario, the disk's O_DIRECT rate in every write scenario; bench/README.md
# "The ceilings"): an estimated 11-12 minutes in all, --no-ceilings leaves
# them out. Extra arguments go to bench/run.sh (e.g. --reps 3,
# --as-shipped; drop --quick by running bench/run.sh directly for a full run).
# tests/integration/bench_main.sh runs the same scenario list and modes in a
# short form.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
BUILD_DIR=$build bash "$top/scripts/build.sh"
exec bash "$top/bench/run.sh" --quick --reps 2 --module "$build/FSAL_DONTCACHE/libfsaldontcache.so" "$@"
