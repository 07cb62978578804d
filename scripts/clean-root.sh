#!/usr/bin/env bash
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
# URI of the host's main Debian archive, as scripts/setup-debian13.sh).
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

in_root() {
  unshare -m --propagation private sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
      mount -t tmpfs tmpfs "$root/run" && exec chroot "$root" "$@"' sh "$root" "$@"
}

mkdir -p "$base"
# one at a time per root (concurrent test runs share it)
exec 8> "$root.lock"
flock -w 900 8 || { echo "clean-root: $root.lock busy for 15 min" >&2; exit 1; }

if [ ! -f "$stamp" ]; then
  mirror=${DC_DEBIAN_MIRROR:-}
  if [ -z "$mirror" ]; then
    mirror=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' \
             /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  fi
  mirror=${mirror:-http://deb.debian.org/debian}
  security=${mirror%/debian}/debian-security
  [ "$security" != "$mirror/debian-security" ] || security=http://deb.debian.org/debian-security
  if ! command -v debootstrap >/dev/null; then
    step "installing debootstrap on the host"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  step "debootstrap --variant=minbase $suite from $mirror"
  rm -rf "$root"
  unshare -m --propagation private \
    debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$root.log" 2>&1 || {
    tail -n 20 "$root.log" >&2
    echo "clean-root: debootstrap failed (log $root.log)" >&2; exit 1; }
  rm -f "$root/etc/apt/sources.list"
  cat > "$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # A container's convention: maintainer scripts do not start services (there is no init).
  printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
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
