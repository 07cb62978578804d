#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Makes (once) a CLEAN Debian root of a release: debootstrap --variant=minbase, the release's
# apt sources (main, -updates, -security) and package lists, nothing else. The package test
# (tests/integration/package.sh) installs the .deb into an overlay over it, so the root itself
# stays clean and is built once per machine (CI: once per run).
#   third_party/clean-<suite>          the root (a stamp .dc-clean-root says it is complete)
#   third_party/clean-<suite>.archives  apt's downloaded .debs, shared by the test's overlays
#   third_party/clean-<suite>.lock      held while the root is made or updated, and by a test
#                                       while its apt-get uses the archives
# Prints the root's path as the last line.
#
# usage: scripts/clean-root.sh bookworm|trixie|4.3|6.5 [--refresh]
#   --refresh  apt-get update in the root even if its lists are recent (default: when older
#              than a day)
# Environment: DC_CLEAN_ROOT_DIR (default third_party), DC_DEBIAN_MIRROR (default: the first
# URI of the host's main Debian archive; scripts/debroot.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-}
refresh=0
[ "${2:-}" = --refresh ] && refresh=1
case $suite in
  4.3|bookworm|12) suite=bookworm ;;
  6.5|trixie|13) suite=trixie ;;
  *) echo "usage: scripts/clean-root.sh bookworm|trixie|4.3|6.5 [--refresh]" >&2; exit 2 ;;
esac
base=${DC_CLEAN_ROOT_DIR:-$top/third_party}
root=$base/clean-$suite
stamp=$root/.dc-clean-root
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
step() { echo "clean-root: $suite: $* (+$(($(date +%s) - t0))s)" >&2; }

. "$top/scripts/debroot.sh"
in_root() { debroot_in "$root" "$@"; }

mkdir -p "$base"
# one at a time per root (concurrent test runs share it)
exec 8> "$root.lock"
flock -w 900 8 || { echo "clean-root: $root.lock busy for 15 min" >&2; exit 1; }

if [ ! -f "$stamp" ]; then
  debroot_mirror
  debroot_debootstrap_tool
  step "debootstrap --variant=minbase $suite from $mirror"
  debroot_bootstrap "$suite" "$root" "$root.log"
  debroot_sources "$root" "$suite" deb
  refresh=1
fi
if [ $refresh = 0 ] &&
   [ -z "$(find "$root/var/lib/apt/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null |
           head -n 1)" ]; then
  refresh=1
fi
if [ $refresh = 1 ]; then
  step "apt-get update"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  in_root apt-get update -qq > "$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2; echo "clean-root: apt-get update failed" >&2; exit 1; }
  rm -f "$root.log"
  # debootstrap's own .debs: not part of a clean system
  in_root apt-get clean
  touch "$stamp"
fi
mkdir -p "$root.archives/partial"
step "ready"
echo "$root"
