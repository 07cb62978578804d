#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Installs every Debian package the project needs and fetches the nfs-ganesha 4.3
# source (headers only are used) into third_party/nfs-ganesha-4.3. Idempotent.
#
# usage: scripts/setup.sh [--ganesha 4|6]
#   --ganesha 4  (default) the host: Debian 12's nfs-ganesha 4.3, as described above
#   --ganesha 6  the host as above, then a Debian 13 (trixie) root with nfs-ganesha 6.5 in
#                third_party/debian13-root and the 6.5 headers in third_party/nfs-ganesha-6.5
#                (scripts/setup-debian13.sh)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/third_party/nfs-ganesha-4.3"
export DEBIAN_FRONTEND=noninteractive

ganesha=4
while [ $# -gt 0 ]; do
  case $1 in
    --ganesha) ganesha=${2:-}; shift ;;
    -h|--help) sed -n '3,11p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
case $ganesha in
  4|4.3) ganesha=4 ;;
  6|6.5) ganesha=6 ;;
  *) echo "setup: --ganesha takes 4 or 6 (got '$ganesha')" >&2; exit 2 ;;
esac

pkgs=(build-essential cmake pkg-config clang
      nfs-ganesha nfs-ganesha-vfs nfs-ganesha-mem rpcbind fio
      libntirpc-dev liburcu-dev libkrb5-dev libnfs-dev libnfs-utils
      libcunit1-dev gnuplot-nox jq e2fsprogs iproute2 util-linux dpkg-dev procps
      libdbus-1-dev dbus-daemon dbus-bin
      libclang-rt-14-dev valgrind strace curl prometheus-node-exporter file debootstrap
      clang-format xfsprogs quota python3-docutils dosfstools exfat-fuse exfatprogs nfs-common
      keepalived qemu-system-x86
      ceph-mon ceph-mgr ceph-osd ceph-common nfs-ganesha-rados-grace nfs-ganesha-ceph)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

need_src=0
[ -f "$dest/src/include/fsal_api.h" ] || need_src=1

if [ ${#missing[@]} -gt 0 ] || [ $need_src = 1 ]; then
  src_list=/etc/apt/sources.list.d/debian-src.sources
  if [ $need_src = 1 ] && [ ! -f "$src_list" ]; then
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src_list"
  fi
  apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Debian's nfs-ganesha postinst starts the service; the project runs its own servers.
if command -v systemctl >/dev/null && systemctl is-active -q nfs-ganesha 2>/dev/null; then
  systemctl stop nfs-ganesha || true
fi

if [ $need_src = 1 ]; then
  work=$(mktemp -d)
  # The debian.tar.xz part may 404: the orig tarball is all we need.
  (cd "$work" && apt-get source --download-only nfs-ganesha >/dev/null 2>&1 || true)
  tarball=$(ls "$work"/nfs-ganesha_4.3*.orig.tar.* 2>/dev/null | head -n1 || true)
  if [ -z "$tarball" ]; then
    echo "setup: could not fetch the nfs-ganesha 4.3 source package" >&2
    exit 1
  fi
  mkdir -p "$dest"
  tar -xf "$tarball" -C "$dest" --strip-components=1
  rm -rf "$work"
  [ -f "$dest/src/include/fsal_api.h" ] || { echo "setup: unexpected source layout in $tarball" >&2; exit 1; }
fi
echo "setup: ok (ganesha headers in $dest)"
if [ $ganesha = 6 ]; then
  exec bash "$top/scripts/setup-debian13.sh"
fi
