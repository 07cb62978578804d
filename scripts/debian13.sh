#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Runs a command inside the Debian 13 root (scripts/setup.sh --ganesha 6 builds it), as
# root, in a private mount namespace and, by default, a private network namespace with
# loopback up (the tests/lib/in-ns.sh style). Inside the root:
#   /src    the repository (bind mount), the working directory
#   /build  the build directory (bind mount; created if missing)
#   /proc, /dev, and a fresh tmpfs at /run (also the namespace's /run, as in in-ns.sh)
# Everything is unmounted when the namespace goes away.
#
# usage: scripts/debian13.sh [--build DIR] [--net] [--] CMD [ARGS...]
#   --build DIR  host directory mounted at /build (default: build-debian13 in the repo)
#   --net        keep the host's network (e.g. for apt-get); default: private network
# Example: scripts/debian13.sh --build /work/build-13 sh -c \
#            'cmake -S /src -B /build -DDC_GANESHA=6.5 && cmake --build /build -j2'
# Environment: DC_DEBIAN13_ROOT (default third_party/debian13-root).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
root=${DC_DEBIAN13_ROOT:-$top/third_party/debian13-root}
build=$top/build-debian13
net=0
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift ;;
    --net) net=1 ;;
    --) shift; break ;;
    -h|--help) sed -n '3,17p' "$0"; exit 0 ;;
    -*) echo "debian13.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
[ $# -gt 0 ] || { echo "debian13.sh: no command (see --help)" >&2; exit 2; }
[ -f "$root/.dc-debian13-root" ] || {
  echo "debian13.sh: no Debian 13 root in $root: run scripts/setup.sh --ganesha 6" >&2
  exit 2; }
mkdir -p "$build"
build=$(cd "$build" && pwd)

if [ "${DC_DEB13_IN_NS:-}" != 1 ]; then
  ns=(-m --propagation private)
  [ $net = 1 ] || ns+=(-n)
  exec env DC_DEB13_IN_NS=1 unshare "${ns[@]}" bash "$0" --build "$build" \
    $([ $net = 1 ] && echo --net) -- "$@"
fi

# Inside the private namespace(s).
[ $net = 1 ] || ip link set lo up
mount -t tmpfs tmpfs /run
mkdir -p "$root/src" "$root/build" "$root/run"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --bind /run "$root/run"
mount --bind "$top" "$root/src"
# third_party may be a symlink (a git worktree sharing another checkout's): its
# target goes at the path the link names inside the root, where /src/third_party
# then resolves.
if [ -L "$top/third_party" ]; then
  l=$(readlink "$top/third_party")
  case $l in /*) in_root=$l ;; *) in_root=$(realpath -m "/src/$l") ;; esac
  mkdir -p "$root$in_root"
  mount --bind "$(readlink -f "$top/third_party")" "$root$in_root"
fi
mount --bind "$build" "$root/build"
exec chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  /bin/sh -c 'cd /src && exec "$@"' sh "$@"
