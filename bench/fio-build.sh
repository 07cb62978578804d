#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/fio-build.sh: Debian's own fio source package built with its libnfs engine (Debian's
# binary package is configured without libnfs) into build-fio/fio, for bench/fio.sh.
# Needs deb-src entries (scripts/setup.sh adds them for ganesha's headers) and libnfs-dev.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dst=$top/build-fio
[ -x "$dst/fio" ] && "$dst/fio" --enghelp=nfs >/dev/null 2>&1 && exit 0
export DEBIAN_FRONTEND=noninteractive
dpkg -s libnfs-dev pkg-config >/dev/null 2>&1 ||
  apt-get install -y -q libnfs-dev pkg-config >/dev/null
src=$dst/src
rm -rf "$src"; mkdir -p "$src"
# the upstream tarball is all that is needed (as scripts/setup.sh does for ganesha's)
(cd "$src" && apt-get source --download-only -q fio >/dev/null 2>&1 || true)
tarball=$(ls "$src"/fio_*.orig.tar.* 2>/dev/null | head -n 1 || true)
[ -n "$tarball" ] || { echo "fio-build.sh: could not fetch Debian's fio source package (deb-src entries?)" >&2; exit 1; }
d=$src/fio
mkdir -p "$d" && tar -xf "$tarball" -C "$d" --strip-components=1
(cd "$d" && ./configure --enable-libnfs > "$dst/configure.log" 2>&1 &&
  grep -q '^NFS engine *yes' "$dst/configure.log" && make -j"$(nproc)" > "$dst/make.log" 2>&1) ||
  { echo "fio-build.sh: fio did not build with libnfs ($dst/configure.log, make.log)" >&2; exit 1; }
cp "$d/fio" "$dst/fio"
"$dst/fio" --enghelp=nfs >/dev/null 2>&1 || { echo "fio-build.sh: $dst/fio has no nfs engine" >&2; exit 1; }
echo "fio-build.sh: $dst/fio ($("$dst/fio" --version), nfs engine)"
