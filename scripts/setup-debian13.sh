#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Builds the Debian 13 (trixie) root the project uses for nfs-ganesha 6.5 (scripts/setup.sh
# --ganesha 6 runs it after the host setup). Idempotent: a stamp file in the root says it is
# complete; remove the root (third_party/debian13-root) to build it again.
#   - debootstrap (installed on the host if missing) from the Debian archive the host's apt
#     uses (/etc/apt/sources.list.d/debian.sources), into third_party/debian13-root;
#   - inside it: nfs-ganesha 6.5, nfs-ganesha-vfs, nfs-ganesha-mem (bench/run.sh's FSAL_MEM
#     ceiling), rpcbind, libnfs-utils and the module's
#     build dependencies; /etc/mtab -> /proc/self/mounts (ganesha 6.5 reads it);
#   - the 6.5 source package (a trixie deb-src line in the root), extracted into
#     third_party/nfs-ganesha-6.5 (headers; its debian/ directory too when it arrives).
# Environment: DC_DEBIAN13_ROOT (default third_party/debian13-root), DC_DEBIAN_MIRROR
# (default: the first URI of the host's main Debian archive).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=${DC_DEBIAN13_ROOT:-$top/third_party/debian13-root}
dest=$top/third_party/nfs-ganesha-6.5
stamp=$root/.dc-debian13-root
export DEBIAN_FRONTEND=noninteractive

pkgs=(nfs-ganesha nfs-ganesha-vfs nfs-ganesha-mem rpcbind libnfs-utils
      build-essential cmake pkg-config libntirpc-dev liburcu-dev libkrb5-dev
      libnfs-dev libcunit1-dev procps iproute2 util-linux e2fsprogs
      libdbus-1-dev
      binutils gdb valgrind file)

t0=$(date +%s)
step() { echo "setup-debian13: $* (+$(($(date +%s) - t0))s)"; }

# every package of the list installed in the root (a list that grew installs the new ones)
root_has_pkgs() {
  [ "$(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${Status}\n' "${pkgs[@]}" 2>/dev/null |
       grep -c ' installed$')" = ${#pkgs[@]} ]
}
if [ -f "$stamp" ] && [ -f "$dest/src/include/fsal_api.h" ] && root_has_pkgs; then
  echo "setup-debian13: ok (root $root, ganesha 6.5 headers in $dest; already built)"
  exit 0
fi

. "$top/scripts/debroot.sh"
debroot_mirror
debroot_debootstrap_tool
in_root() { debroot_in "$root" "$@"; }

if [ ! -x "$root/usr/bin/apt-get" ] || [ ! -f "$root/.dc-debootstrap" ]; then
  step "debootstrap trixie from $mirror"
  debroot_bootstrap trixie "$root" "$root.debootstrap.log"
  rm -f "$root.debootstrap.log"
  touch "$root/.dc-debootstrap"
fi

step "apt sources, policy-rc.d"
debroot_sources "$root" trixie "deb deb-src"

step "apt-get install in the root"
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends "${pkgs[@]}" > "$root/tmp/apt.log" 2>&1 || {
  tail -n 20 "$root/tmp/apt.log" >&2
  echo "setup-debian13: apt-get install failed in the root" >&2; exit 1; }
# ganesha 6.5 finds an export's filesystem in /etc/mtab.
ln -sf /proc/self/mounts "$root/etc/mtab"
in_root ganesha.nfsd -v 2>/dev/null | head -n 2 || true

if [ ! -f "$dest/src/include/fsal_api.h" ]; then
  step "apt-get source --download-only nfs-ganesha"
  rm -rf "$root/tmp/src"
  mkdir -p "$root/tmp/src"
  # The command may fail on one part (e.g. debian.tar.xz 404): check for the tarball.
  in_root sh -c 'cd /tmp/src && apt-get source --download-only nfs-ganesha' \
    > "$root/tmp/src.log" 2>&1 || true
  tarball=$(ls "$root"/tmp/src/nfs-ganesha_6.5*.orig.tar.* 2>/dev/null | head -n1 || true)
  if [ -z "$tarball" ]; then
    tail -n 20 "$root/tmp/src.log" >&2
    echo "setup-debian13: could not fetch the nfs-ganesha 6.5 source package" >&2
    exit 1
  fi
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -xf "$tarball" -C "$dest" --strip-components=1
  debtar=$(ls "$root"/tmp/src/nfs-ganesha_6.5*.debian.tar.* 2>/dev/null | head -n1 || true)
  [ -z "$debtar" ] || tar -xf "$debtar" -C "$dest"
  rm -rf "$root/tmp/src"
  [ -f "$dest/src/include/fsal_api.h" ] || {
    echo "setup-debian13: unexpected source layout in $tarball" >&2; exit 1; }
fi

touch "$stamp"
step "done"
echo "setup-debian13: ok (root $root, ganesha 6.5 headers in $dest)"
