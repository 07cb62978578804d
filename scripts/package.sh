#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Builds the Debian source package and binary packages of the module for one ganesha release
# with dpkg-buildpackage, inside a build root of that release, runs lintian on them there, and
# makes OUT a local apt repository of them. Prints the .deb's path as the last line.
#   4.3  Debian 12 (bookworm): nfs-ganesha-dontcache_<ver>+g43_amd64.deb
#   6.5  Debian 13 (trixie):   nfs-ganesha-dontcache_<ver>+g65_amd64.deb
# <ver> is debian/changelog's top version; the +g43/+g65 changelog entry is generated here (in a
# copy of the tree), so the packages of the two releases never share a version.
#
# The build root, third_party/build-<suite>, is the clean root of scripts/clean-root.sh (which
# this runs) plus build-essential, the Build-Depends of debian/control and lintian: made once
# per machine, and again when the Build-Depends change (a stamp keeps their checksum) or after
# a week (Debian's updates: the copy is made after clean-root.sh's daily apt-get update). Each build
# runs in an overlay over it, without network, so it stays as made. Debian ships no ganesha
# headers: third_party/nfs-ganesha-<release> (scripts/setup.sh) is bound read-only at
# /usr/src/nfs-ganesha-<release> in the build root and passed as GANESHA_SRC (debian/rules).
#
# lintian (errors, warnings, informational and pedantic tags shown) must report no error and
# no warning that is not overridden (debian/*lintian-overrides; each override needs its
# reason in a comment above it, or package.sh refuses to build).
#
# OUT gets the .dsc, .tar.xz, .buildinfo, .changes and .debs (with the -dbgsym package),
# build.log and lintian.txt, and Packages/Release for apt:  deb [trusted=yes] file:OUT ./
#
# usage: scripts/package.sh 4.3|6.5 [--out DIR] [--previous] [--no-setup] [--root-only]
#   --out DIR    where the packages and the repository go (default out/packages/<suite>)
#   --previous   also build the version before, <ver>~prev+g43 (binaries only, from the same
#                build), into OUT: what tests/integration/package.sh upgrades from
#   --no-setup   do not run scripts/setup.sh (the ganesha headers are known to be there)
#   --root-only  only make the build root (if it is missing or stale) and print its path
#                (scripts/test.sh makes both while the project builds)
# Environment: DC_PACKAGE_VERSION (default: debian/changelog's top version),
# DC_CLEAN_ROOT_DIR (where the clean and build roots live, default third_party), TMPDIR
# (the build's scratch tree, default /var/tmp).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rel=
out=
prev=0
setup=1
root_only=0
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift ;;
    --previous) prev=1 ;;
    --no-setup) setup=0 ;;
    --root-only) root_only=1 setup=0 ;;
    -h|--help) sed -n '3,33p' "$0"; exit 0 ;;
    4.3|4) rel=4.3 ;;
    6.5|6) rel=6.5 ;;
    *) echo "package.sh: unknown argument $1 (4.3 or 6.5, see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$rel" ] || { echo "usage: scripts/package.sh 4.3|6.5 [--out DIR] [--previous] [--no-setup] [--root-only]" >&2; exit 2; }
case $rel in
  4.3) suite=bookworm tag=g43 ;;
  6.5) suite=trixie tag=g65 ;;
esac
out=${out:-$top/out/packages/$suite}
if [ $root_only = 0 ]; then
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
fi
base=${DC_CLEAN_ROOT_DIR:-$top/third_party}
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
step() { echo "package.sh: $rel: $* (+$(($(date +%s) - t0))s)" >&2; }

if [ $setup = 1 ]; then
  step "setup"
  if [ $rel = 4.3 ]; then bash "$top/scripts/setup.sh" >&2
  else bash "$top/scripts/setup.sh" --ganesha 6 >&2; fi
fi
hdr=$(readlink -f "$top/third_party/nfs-ganesha-$rel" 2>/dev/null || true)
[ $root_only = 1 ] || { [ -n "$hdr" ] && [ -f "$hdr/src/include/fsal_api.h" ]; } || {
  echo "package.sh: no ganesha $rel source in third_party/nfs-ganesha-$rel:" \
       "run scripts/setup.sh$([ $rel = 6.5 ] && echo ' --ganesha 6')" >&2; exit 1; }
[ $root_only = 1 ] || command -v dpkg-scanpackages >/dev/null || {
  echo "package.sh: dpkg-scanpackages missing (dpkg-dev; scripts/setup.sh)" >&2; exit 1; }
[ $root_only = 1 ] || git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || {
  echo "package.sh: $top is not a git checkout (the source package is its files)" >&2; exit 1; }

# every lintian override says why: a comment line above it (and above the overrides that
# follow it without a blank line)
for f in "$top"/debian/*lintian-overrides "$top"/debian/source/lintian-overrides; do
  [ -f "$f" ] || continue
  bad=$(awk '/^[ \t]*$/ { ok = 0; next } /^#/ { ok = 1; next }
             !ok { print FILENAME ":" FNR ": " $0 }' "$f")
  [ -z "$bad" ] || { echo "package.sh: lintian override without a reason (a # comment above it):" >&2
                     echo "$bad" >&2; exit 1; }
done
ver=${DC_PACKAGE_VERSION:-$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)}
case $ver in *+g*) echo "package.sh: version $ver already has a +g tag" >&2; exit 1 ;; esac
full=$ver+$tag
prev_full=$ver~prev+$tag

work=$(mktemp -d "${TMPDIR:-/var/tmp}/dc-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- the build root (once; under its lock, from the clean root under the clean root's lock)
clean=$(bash "$top/scripts/clean-root.sh" "$suite" | tail -n 1)
broot=$base/build-$suite
bstamp=$broot/.dc-build-root
extra=(lintian)
want=$({ sed -n '/^Build-Depends:/,/^[A-Z]/p' "$top/debian/control"; echo "${extra[*]}"; } |
       sha256sum | cut -c1-16)
exec 6> "$broot.lock"
flock -w 900 6 || { echo "package.sh: $broot.lock busy for 15 min" >&2; exit 1; }
if [ "$(cat "$bstamp" 2>/dev/null)" != "$want" ] ||
   [ -z "$(find "$bstamp" -mtime -7 2>/dev/null)" ]; then
  step "build root $broot: copy of $clean, then the Build-Depends and lintian"
  exec 7> "$clean.lock"
  flock -w 900 7 || { echo "package.sh: $clean.lock busy for 15 min" >&2; exit 1; }
  rm -rf "$broot"
  cp -a "$clean" "$broot"
  rm -f "$broot/.dc-clean-root"
  mkdir -p "$broot/tmp/dc-src/debian"
  cp "$top/debian/control" "$top/debian/changelog" "$broot/tmp/dc-src/debian/"
  cp -L /etc/resolv.conf "$broot/etc/resolv.conf" 2>/dev/null || true
  unshare -m --propagation private sh -c '
    r=$1 a=$2
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      mount -t tmpfs tmpfs "$r/run" && mount --bind "$a" "$r/var/cache/apt/archives" &&
      exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 sh -c "
          apt-get build-dep -y --no-install-recommends /tmp/dc-src &&
          apt-get install -y --no-install-recommends $3"' sh "$broot" "$clean.archives" "${extra[*]}" \
    > "$work/build-root.log" 2>&1 || {
    tail -n 30 "$work/build-root.log" >&2
    echo "package.sh: installing the Build-Depends in $broot failed" >&2; exit 1; }
  exec 7>&-
  rm -rf "$broot/tmp/dc-src"
  echo "$want" > "$bstamp"
fi
if [ $root_only = 1 ]; then
  step "build root ready"
  echo "$broot"
  exit 0
fi
# (shared from here: other builds may use the root at the same time, none may remake it)
flock -s 6

# ---- the source tree: the checkout's files (tracked and untracked, not ignored; not
# third_party, which a worktree may have as a symlink) plus the changelog entry of this release
step "source tree $full"
src=$work/upper/build/nfs-ganesha-dontcache
mkdir -p "$src" "$work/ovl" "$work/root"
git -C "$top" ls-files -z -co --exclude-standard |
  while IFS= read -r -d '' f; do
    case $f in third_party|third_party/*) continue ;; esac
    [ -e "$top/$f" ] && printf '%s\0' "$f"
  done |
  tar -C "$top" --null --no-recursion -T - -cf - | tar -C "$src" -xf -
# The entry's date: the last commit's, later than the previous entry's (reproducible).
prev_ts=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Timestamp)
ts=$(git -C "$top" log -1 --format=%ct)
[ "$ts" -gt "$prev_ts" ] || ts=$((prev_ts + 1))
maint=$(sed -n 's/^Maintainer: *//p' "$top/debian/control")
entry() { # VERSION TEXT
  printf '%s\n\n  * %s\n\n -- %s  %s\n\n' \
    "nfs-ganesha-dontcache ($1) $suite; urgency=medium" "$2" "$maint" \
    "$(LC_ALL=C date -u -R -d "@$ts")"
}
{ entry "$full" "Build for Debian $([ $suite = bookworm ] && echo 12 || echo 13) ($suite), nfs-ganesha $rel."
  cat "$top/debian/changelog"; } > "$src/debian/changelog"

# ---- dpkg-buildpackage and lintian in an overlay over the build root, no network
step "dpkg-buildpackage in an overlay over $broot"
# shellcheck disable=SC2016
inner='set -e
t=$(date +%s)
took() { echo "took: $1 $(($(date +%s) - t))s" >&2; t=$(date +%s); }
cd /build/nfs-ganesha-dontcache
dpkg-buildpackage -us -uc >&2
took "dpkg-buildpackage (source and binaries)"
echo "lintian $(lintian --version | sed "s/^Lintian v//") on nfs-ganesha-dontcache_${FULL}_amd64.changes:" >&2
# (as nobody: lintian unpacks what it checks and advises against root)
chmod -R a+rX /build
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp \
  lintian --fail-on error,warning --display-info --pedantic \
  "../nfs-ganesha-dontcache_${FULL}_amd64.changes" > ../lintian.txt 2>&1 && rc=0 || rc=$?
sed "s/^/lintian| /" ../lintian.txt >&2
[ -s ../lintian.txt ] || echo "lintian| (nothing to report)" >&2
[ $rc = 0 ] || { echo "lintian failed (exit $rc)" >&2; exit 1; }
took lintian
if [ "$PREV" = 1 ]; then
  # the version before: same build (-nc), binaries only, its own changelog entry on top
  sed -i "1s/(${FULL})/(${PREV_FULL})/" debian/changelog
  dpkg-buildpackage -b -nc -us -uc >&2
  took "dpkg-buildpackage -b -nc (the version before)"
fi'
unshare -m -n --propagation private sh -c '
  w=$1 b=$2 h=$3 rel=$4; shift 4
  mount -t overlay overlay -o "lowerdir=$b,upperdir=$w/upper,workdir=$w/ovl" "$w/root" &&
    mount -t proc proc "$w/root/proc" && mount --rbind /dev "$w/root/dev" &&
    mount -t tmpfs tmpfs "$w/root/run" && mount -t tmpfs tmpfs "$w/root/tmp" &&
    mkdir -p "$w/root/usr/src/nfs-ganesha-$rel" &&
    mount --bind -o ro "$h" "$w/root/usr/src/nfs-ganesha-$rel" &&
    exec chroot "$w/root" "$@"' sh "$work" "$broot" "$hdr" "$rel" \
  /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    GANESHA_SRC=/usr/src/nfs-ganesha-$rel DEB_BUILD_OPTIONS=parallel=2 \
    FULL="$full" PREV_FULL="$prev_full" PREV=$prev \
    nice -n 10 sh -c "$inner" > "$work/build.log" 2>&1 || {
  grep -v '^lintian| ' "$work/build.log" | tail -n 40 >&2; grep '^lintian' "$work/build.log" >&2 || true
  echo "package.sh: dpkg-buildpackage or lintian failed in the $suite build root" >&2; exit 1; }
grep -E '^(lintian|took: |dpkg-deb: building)' "$work/build.log" >&2 || true
flock -u 6

# ---- OUT: the packages and a flat apt repository of them
step "apt repository in $out"
res=$work/upper/build
files=("$res"/nfs-ganesha-dontcache_"$full".dsc "$res"/nfs-ganesha-dontcache_"$full".tar.*
       "$res"/nfs-ganesha-dontcache*_"$full"_amd64.* "$res"/lintian.txt "$work/build.log")
[ $prev = 0 ] || files+=("$res"/nfs-ganesha-dontcache*_"$prev_full"_amd64.*)
cp "${files[@]}" "$out/"
(cd "$out" && dpkg-scanpackages -m . /dev/null 2>/dev/null > Packages && gzip -9nkf Packages &&
 { echo "Origin: nfs-ganesha-dontcache"; echo "Label: nfs-ganesha-dontcache ($suite)"
   echo "Codename: $suite"; echo "Architectures: amd64"
   echo "Date: $(LC_ALL=C date -u -R)"; echo "SHA256:"
   for f in Packages Packages.gz; do
     echo " $(sha256sum "$f" | cut -d' ' -f1) $(stat -c %s "$f") $f"; done; } > Release)
deb=$out/nfs-ganesha-dontcache_${full}_amd64.deb
[ -f "$deb" ] || { echo "package.sh: no $deb" >&2; exit 1; }
dep=$(dpkg-deb -f "$deb" Depends)
case $dep in
  *"nfs-ganesha (>= $rel)"*) ;;
  *) echo "package.sh: $deb depends on '$dep', not on ganesha $rel" >&2; exit 1 ;;
esac
step "$(basename "$deb"): Depends: $dep"
echo "$deb"
