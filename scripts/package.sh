#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Builds the Debian package of the module for one ganesha release and prints its path as the
# last line:
#   4.3  Debian 12 (the host): scripts/setup.sh, build on the host
#        -> out/packages/nfs-ganesha-dontcache_<ver>+g43_amd64.deb
#   6.5  Debian 13: scripts/setup.sh --ganesha 6 (the Debian 13 root), build inside that root
#        (scripts/debian13.sh) -> out/packages/nfs-ganesha-dontcache_<ver>+g65_amd64.deb
# The package (cpack -G DEB, the CPack part of CMakeLists.txt) depends on exactly the ganesha
# it was built against (nfs-ganesha (>= 4.3), nfs-ganesha (<< 4.4)) and on the libraries
# dpkg-shlibdeps finds in the release it was built in (liburing2, libc6). It installs the
# module into ganesha's FSAL directory (/usr/lib/x86_64-linux-gnu/ganesha) and the README and
# config/ganesha.conf (as examples/ganesha.conf) under /usr/share/doc/nfs-ganesha-dontcache,
# and scripts/dontcache-stat as /usr/bin/dontcache-stat when the tree has it (then jq too).
#
# usage: scripts/package.sh 4.3|6.5 [--build DIR] [--out DIR] [--no-setup]
#   --build DIR  build tree (default build-package-<release>; an existing tree configured for
#                the same ganesha is reused as it is configured, its build type included; for
#                6.5 it must be one configured in the root)
#   --out DIR    where the .deb goes (default out/packages)
#   --no-setup   do not run scripts/setup.sh (the dependencies/root are known to be there)
# Environment: DC_PACKAGE_VERSION (default 1.0.0: the module's version; the package's is
# <it>+g43 or +g65, so the two sort by ganesha release).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rel=
build=
out=$top/out/packages
setup=1
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --out) out=$2; shift ;;
    --no-setup) setup=0 ;;
    -h|--help) sed -n '3,21p' "$0"; exit 0 ;;
    4.3|4) rel=4.3 ;;
    6.5|6) rel=6.5 ;;
    *) echo "package.sh: unknown argument $1 (4.3 or 6.5, see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$rel" ] || { echo "usage: scripts/package.sh 4.3|6.5 [--build DIR] [--out DIR]" >&2; exit 2; }
build=${build:-$top/build-package-$rel}
mkdir -p "$build" "$out"
build=$(cd "$build" && pwd)
out=$(cd "$out" && pwd)
t0=$(date +%s)
step() { echo "package.sh: $rel: $* (+$(($(date +%s) - t0))s)" >&2; }

if [ $setup = 1 ]; then
  step "setup"
  if [ $rel = 4.3 ]; then
    bash "$top/scripts/setup.sh" >&2
  else
    bash "$top/scripts/setup.sh" --ganesha 6 >&2
  fi
fi

# The build and cpack, as a shell script run on the host (4.3) or inside the root (6.5), where
# the repository is SRC and the build tree BUILD. The tree is configured without the "build
# everything before installing" dependency (CMAKE_SKIP_INSTALL_ALL_DEPENDENCY, also in a tree
# that exists), so cpack needs only the module built, not the tests and the bench.
# shellcheck disable=SC2016
inner='set -e
src=$1 build=$2 rel=$3 ver=$4
args="-DDC_PACKAGE_VERSION=$ver -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON"
[ -f "$build/CMakeCache.txt" ] ||
  args="$args -DDC_GANESHA=$rel -DCMAKE_BUILD_TYPE=RelWithDebInfo"
cmake -S "$src" -B "$build" $args >&2
cmake --build "$build" -j"$(nproc)" --target fsaldontcache >&2
rm -rf "$build/package"
cd "$build" && cpack -G DEB -B "$build/package" >&2'
ver=${DC_PACKAGE_VERSION:-1.0.0}
step "build and cpack in $build"
if [ $rel = 4.3 ]; then
  have=$(ls /usr/lib/ganesha/libganesha_nfsd.so.* /usr/lib/x86_64-linux-gnu/libganesha_nfsd.so.* \
         2>/dev/null | grep -o '[0-9]*\.[0-9]*$' | head -n 1 || true)
  [ "$have" = 4.3 ] || {
    echo "package.sh: the host has ganesha '${have:-none}', not 4.3 (Debian 12's)" >&2; exit 1; }
  sh -c "$inner" sh "$top" "$build" "$rel" "$ver"
else
  bash "$top/scripts/debian13.sh" --build "$build" sh -c "$inner" sh /src /build "$rel" "$ver"
fi

debs=("$build"/package/nfs-ganesha-dontcache_*_amd64.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] ||
  { echo "package.sh: cpack made no single .deb in $build/package" >&2; exit 1; }
deb=${debs[0]}
dep=$(dpkg-deb -f "$deb" Depends)
case $dep in
  *"nfs-ganesha (>= $rel)"*) ;;
  *) echo "package.sh: $deb depends on '$dep', not on ganesha $rel" >&2; exit 1 ;;
esac
cp "$deb" "$out/"
step "$(basename "$deb"): Version $(dpkg-deb -f "$deb" Version), Depends: $dep"
echo "$out/$(basename "$deb")"
