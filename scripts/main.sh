#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# README command 1 (the main job): install dependencies, build, then start
# ganesha with FSAL_DONTCACHE (each write mode) and stock FSAL_VFS on scratch
# exports in a private namespace and memory cgroup, run the quick benchmark
# and print the comparison table. Extra arguments go to bench/run.sh
# (e.g. drop --quick by running bench/run.sh directly for a full run).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
BUILD_DIR=$build bash "$top/scripts/build.sh"
exec bash "$top/bench/run.sh" --quick --module "$build/FSAL_DONTCACHE/libfsaldontcache.so" "$@"
