#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The Debian package installs and serves in a CLEAN Debian root of its release, where nothing
# else of the project was ever installed:
#   4.3 (the host run)                     nfs-ganesha-dontcache_*+g43_amd64.deb in bookworm
#   6.5 (GSH_ROOT set: tests/run.sh --ganesha 6)  *+g65_amd64.deb in trixie
# 1. the .deb: DC_PACKAGE_DEB if given, else scripts/package.sh --no-setup on the build tree of
#    the module under test (DC_BUILD_DIR; for 6.5 the tree of DC_MODULE, built in the root);
# 2. the clean root: scripts/clean-root.sh (debootstrap --variant=minbase, cached in
#    third_party/clean-<suite> once per machine), used through an overlay so it stays clean;
# 3. dpkg -i must stop on the missing dependencies, then `apt-get -f install -y` must satisfy
#    them from the Debian archive alone (the root's only apt sources); the module must be at
#    /usr/lib/x86_64-linux-gnu/ganesha/libfsaldontcache.so, the example config in
#    /usr/share/doc/nfs-ganesha-dontcache/examples;
# 4. that root's ganesha.nfsd, with a plain `FSAL { Name = DONTCACHE; }` export and no
#    Plugins_Dir, loads the packaged module and serves the host's nfs-cp / nfs-cat / nfs-ls.
# Prints "time: STEP Ns" for each step. apt's downloads are kept in
# third_party/clean-<suite>.archives (a second run installs without downloading).
# Environment: DC_PACKAGE_RELEASE (4.3 or 6.5; default from GSH_ROOT), DC_PACKAGE_DEB.

# The host's network namespace, for debootstrap and apt (the scenario itself runs in a private
# one): fd 9 survives the harness's re-execution into the namespace.
[ "${GSH_IN_NS:-}" = 1 ] || exec 9< /proc/self/ns/net
. "$(dirname "$0")/../lib/harness.sh"

it_is_dontcache || it_skip "the package applies to the DONTCACHE module only"
rel=${DC_PACKAGE_RELEASE:-}
[ -n "$rel" ] || { [ -n "${GSH_ROOT:-}" ] && rel=6.5 || rel=4.3; }
case $rel in
  4.3) suite=bookworm tag=g43 next=4.4 ;;
  6.5) suite=trixie tag=g65 next=6.6 ;;
  *) it_die "DC_PACKAGE_RELEASE must be 4.3 or 6.5 (got $rel)" ;;
esac
[ -e /proc/self/fd/9 ] || it_die "no handle on the host's network namespace (fd 9)"
host_net() { nsenter --net=/proc/self/fd/9 "$@"; }

now_ms() { date +%s%3N; }
T0=$(now_ms) T=$T0
lap() { local t; t=$(now_ms); echo "time: $1 $(( (t - T) / 1000 )).$(( (t - T) % 1000 / 100 ))s"; T=$t; }

# ---- 1. the package
if [ -n "${DC_PACKAGE_DEB:-}" ]; then
  deb=$(readlink -f "$DC_PACKAGE_DEB")
  [ -f "$deb" ] || it_die "DC_PACKAGE_DEB=$DC_PACKAGE_DEB: no such file"
else
  if [ $rel = 6.5 ] && [ -n "${DC_MODULE:-}" ]; then
    pkg_build=$(dirname "$(dirname "$IT_MODULE")")
  elif [ $rel = 6.5 ]; then
    pkg_build=$IT_TOP/build-package-6.5
  else
    pkg_build=$DC_BUILD_DIR
  fi
  bash "$IT_TOP/scripts/package.sh" "$rel" --build "$pkg_build" --no-setup --out "$IT_WORK" \
    > "$IT_WORK/package.log" 2>&1 ||
    { tail -n 30 "$IT_WORK/package.log"; it_die "scripts/package.sh $rel --build $pkg_build failed"; }
  deb=$(tail -n 1 "$IT_WORK/package.log")
fi
[ -f "$deb" ] || it_die "no package at '$deb'"
lap "package ($(basename "$deb"))"
name=$(basename "$deb")
[[ $name == nfs-ganesha-dontcache_*+${tag}_amd64.deb ]] && it_pass "package file $name" ||
  it_fail "package file $name is not nfs-ganesha-dontcache_<ver>+${tag}_amd64.deb"
dep=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $dep"
[[ $dep == *"nfs-ganesha (>= $rel), nfs-ganesha (<< $next)"* ]] &&
  it_pass "depends on ganesha $rel exactly" || it_fail "Depends lacks nfs-ganesha (>= $rel), (<< $next)"
[[ $dep == *liburing2* ]] && it_pass "depends on liburing2 (dpkg-shlibdeps)" ||
  it_fail "Depends lacks liburing2 (dpkg-shlibdeps not run?)"
fsal_so=/usr/lib/x86_64-linux-gnu/ganesha/libfsaldontcache.so
example=/usr/share/doc/nfs-ganesha-dontcache/examples/ganesha.conf
dpkg-deb -c "$deb" > "$IT_WORK/contents.txt" || it_die "dpkg-deb -c $deb failed"
for f in "$fsal_so" "$example" /usr/share/doc/nfs-ganesha-dontcache/README.md; do
  grep -q " \.$f\$" "$IT_WORK/contents.txt" && it_pass "$name has $f" || it_fail "$name lacks $f"
done

# ---- 2. the clean root, and an overlay over it for this run
clean=$(host_net bash "$IT_TOP/scripts/clean-root.sh" "$suite" 2> "$IT_WORK/clean-root.log" | tail -n 1)
[ -n "$clean" ] && [ -f "$clean/.dc-clean-root" ] ||
  { cat "$IT_WORK/clean-root.log"; it_die "scripts/clean-root.sh $suite failed"; }
lap "clean $suite root ($(sed -n 's/.*(+\([0-9]*\)s)$/\1/p' "$IT_WORK/clean-root.log" | tail -n 1)s in clean-root.sh)"
if [ -e "$clean/usr/lib/x86_64-linux-gnu/ganesha" ] || [ -e "$clean/var/lib/dpkg/info/nfs-ganesha.list" ]; then
  it_die "$clean is not clean: it has a ganesha"
fi
# The overlay's mount point lives outside IT_WORK: ganesha's paths (IT_WORK) are bound into it.
ovl=$IT_WORK/overlay
root=$(mktemp -d "$IT_BASE/dc-it.package-root.XXXXXX") || it_die "mktemp failed"
mkdir -p "$ovl/upper" "$ovl/work"
mount -t overlay overlay -o "lowerdir=$clean,upperdir=$ovl/upper,workdir=$ovl/work" "$root" ||
  it_die "cannot mount an overlay over $clean"
pkg_cleanup() {
  local rc=$?
  gsh_cleanup > /dev/null 2>&1
  umount "$root" 2> /dev/null || umount -l "$root" 2> /dev/null
  rmdir "$root" 2> /dev/null
  (exit $rc)
  it_cleanup
}
trap pkg_cleanup EXIT
# What a booted system has and a debootstrapped root lacks (ganesha 6.5 reads /etc/mtab).
ln -sf ../proc/self/mounts "$root/etc/mtab"
cp "$deb" "$root/tmp/"
# As Debian's container images do: dpkg does not fsync every file it unpacks (the root is
# thrown away; apt-get -f install took 35 s with the fsyncs, 14 s without, here).
echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/dc-test-unsafe-io"
# in_root CMD...: CMD in the root with the host's network, /proc, /dev, a private /run and
# the shared apt archive; those mounts go with the command's own mount namespace.
in_root() {
  host_net unshare -m --propagation private sh -c '
    r=$1 a=$2; shift 2
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      mount -t tmpfs tmpfs "$r/run" && mount --bind "$a" "$r/var/cache/apt/archives" &&
      exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"' sh "$root" "$clean.archives" "$@"
}
lap "overlay"

# ---- 3. dpkg -i (fails on dependencies), apt-get -f install (Debian satisfies them)
in_root dpkg -i "/tmp/$name" > "$IT_WORK/dpkg.log" 2>&1
rc=$?
grep -E 'dependency problems|depends on|not installed|not configured' "$IT_WORK/dpkg.log" | sed 's/^/dpkg| /'
[ $rc -ne 0 ] && grep -q "depends on nfs-ganesha" "$IT_WORK/dpkg.log" &&
  it_pass "dpkg -i stops on the missing nfs-ganesha (exit $rc)" ||
  { cat "$IT_WORK/dpkg.log"; it_fail "dpkg -i did not stop on the missing dependency (exit $rc)"; }
lap "dpkg -i"
# (the shared archive directory: one apt-get at a time, under scripts/clean-root.sh's lock)
exec 7> "$clean.lock"
flock -w 300 7 || it_die "$clean.lock busy for 5 min"
in_root apt-get -f install -y > "$IT_WORK/apt.log" 2>&1
rc=$?
exec 7>&-
grep -E '^([0-9]+ upgraded|Need to get|Fetched|Setting up (nfs-ganesha|liburing|libntirpc))' \
  "$IT_WORK/apt.log" | sed 's/^/apt| /'
# (apt "fixes" a dependency it cannot satisfy by removing the package: that is a failure)
[ $rc = 0 ] && grep -q '^Setting up nfs-ganesha-dontcache ' "$IT_WORK/apt.log" &&
  it_pass "apt-get -f install satisfied the dependencies" ||
  { tail -n 30 "$IT_WORK/apt.log"; it_die "apt-get -f install did not install the package (exit $rc)"; }
lap "apt-get -f install"
in_root dpkg-query -W -f='${Package} ${Version} ${Status}\n' nfs-ganesha-dontcache nfs-ganesha \
  > "$IT_WORK/query.log" 2>&1
sed 's/^/installed| /' "$IT_WORK/query.log"
gver=$(sed -n 's/^nfs-ganesha \([^ ]*\) install ok installed$/\1/p' "$IT_WORK/query.log")
[[ $gver == $rel* ]] && it_pass "nfs-ganesha $gver from Debian" || it_fail "nfs-ganesha is '${gver:-missing}', not $rel"
grep -q '^nfs-ganesha-dontcache .* install ok installed$' "$IT_WORK/query.log" &&
  it_pass "nfs-ganesha-dontcache configured" || it_fail "nfs-ganesha-dontcache not configured"
in_root apt-cache policy nfs-ganesha | sed -n 's/^ *[0-9]\{3\} \(http[^ ]*\) .*/policy| nfs-ganesha from \1/p' | sort -u
# the root knows no other package source than the Debian archive
others=$(cat "$root"/etc/apt/sources.list.d/*.sources "$root"/etc/apt/sources.list 2>/dev/null |
         sed -n 's/^URIs: *//p' | tr ' ' '\n' | grep -v '^http://deb.debian.org/debian' | grep -v '^$' || true)
[ -z "$others" ] || it_log "apt sources besides deb.debian.org: $others (DC_DEBIAN_MIRROR)"
[ -f "$root$fsal_so" ] && [ -f "$root$example" ] &&
  it_pass "module at $fsal_so, example at $example" || it_fail "installed files missing"
if grep -q ' \./usr/bin/dontcache-stat$' "$IT_WORK/contents.txt"; then
  # its usage line (exit 2) once its interpreter and jq are there
  in_root sh -c 'command -v jq >/dev/null && dontcache-stat 2>&1; echo "exit $?"' > "$IT_WORK/stat.log" 2>&1
  grep -q '^usage: dontcache-stat' "$IT_WORK/stat.log" && grep -q '^exit 2$' "$IT_WORK/stat.log" &&
    it_pass "dontcache-stat runs (jq installed with it)" ||
    it_fail "dontcache-stat does not run: $(tr '\n' ' ' < "$IT_WORK/stat.log")"
fi

# ---- 4. that root's ganesha, no Plugins_Dir, a plain DONTCACHE export
GSH_ROOT=$root
GSH_PLUGINS_DIR=
echo "$IT_EXP|1|Name = DONTCACHE;" | it_conf "$IT_WORK/ganesha.conf"
# ganesha 4.3 has no Allow_Set_Io_Flusher_Fail (6.5 needs it in a root without that privilege)
[ $rel = 6.5 ] || sed -i '/Allow_Set_Io_Flusher_Fail/d' "$IT_WORK/ganesha.conf"
grep -qi Plugins_Dir "$IT_WORK/ganesha.conf" && it_die "config unexpectedly names Plugins_Dir"
it_start "$IT_WORK/ganesha.conf"
lap "ganesha start"
grep -q "$root$fsal_so" "/proc/$GSH_PID/maps" && it_pass "ganesha $rel mapped the packaged $fsal_so" ||
  it_fail "ganesha did not load $fsal_so (maps: $(grep -o '/[^ ]*fsal[^ ]*' "/proc/$GSH_PID/maps" | sort -u | tr '\n' ' '))"
head -c 4M /dev/urandom > "$IT_WORK/data.bin"
echo hello > "$IT_WORK/hello.txt"
timeout -k 2 30 nfs-cp "$IT_WORK/data.bin" "$(it_url "$IT_EXP/data.bin")" > /dev/null &&
  timeout -k 2 30 nfs-cp "$(it_url "$IT_EXP/data.bin" 4)" "$IT_WORK/back.bin" > /dev/null &&
  cmp -s "$IT_WORK/data.bin" "$IT_WORK/back.bin" && cmp -s "$IT_WORK/data.bin" "$IT_EXP/data.bin" &&
  it_pass "4 MiB written over NFSv3, read back over NFSv4, equal (and on disk)" ||
  it_fail "nfs-cp write/read of 4 MiB through the packaged module failed or differs"
timeout -k 2 30 nfs-cp "$IT_WORK/hello.txt" "$(it_url "$IT_EXP/hello.txt" 4)" > /dev/null &&
  [ "$(timeout -k 2 30 nfs-cat "$(it_url "$IT_EXP/hello.txt")")" = hello ] &&
  it_pass "nfs-cp (v4) / nfs-cat (v3)" || it_fail "nfs-cp / nfs-cat failed"
timeout -k 2 30 nfs-ls "$(it_url "$IT_EXP" 4)" | grep -q hello.txt &&
  it_pass "nfs-ls lists the export" || it_fail "nfs-ls failed"
it_check_alive "serving from the packaged module"
lap "client I/O"
gsh_stop || it_fail "ganesha did not stop cleanly"
echo "time: total $(( ($(now_ms) - T0) / 1000 ))s"
