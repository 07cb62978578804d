#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The Debian packages build, pass lintian, install with apt from a local repository, upgrade,
# and are removed and purged, in a CLEAN Debian root of their release where nothing else of
# the project was ever installed:
#   4.3 (the host run)                            +g43 packages, bookworm
#   6.5 (GSH_ROOT set: tests/run.sh --ganesha 6)  +g65 packages, trixie
# 1. scripts/package.sh REL --previous on this tree: dpkg-buildpackage in the cached build root
#    of the release (lintian clean, or package.sh fails), versions N-1 (<ver>~prev+gNN) and N
#    (<ver>+gNN), with the .dsc, the -dbgsym package and a flat apt repository;
# 2. the clean root (scripts/clean-root.sh: debootstrap --variant=minbase, cached in
#    third_party/clean-<suite>), used through an overlay so it stays clean, with one more apt
#    source: the local repository, [trusted=yes];
# 3. a repository holding only N-1: `apt-get install nfs-ganesha-dontcache` installs it and
#    its dependencies (nfs-ganesha from the Debian archive) in one step; that root's
#    ganesha.nfsd, with a plain `FSAL { Name = DONTCACHE; }` export and no Plugins_Dir, loads
#    the packaged module, serves a 4 MiB write, and creates the export's handle key in the
#    default directory /var/lib/nfs/ganesha/dontcache;
# 4. the repository with N: apt upgrades; /etc/ganesha (with an administrator's ganesha.conf)
#    and the handle key keep their bytes; ganesha with N serves the file written under N-1
#    and nfs-cp / nfs-cat / nfs-ls; dontcache-stat runs, its manual page is installed;
#    `man -w ganesha-dontcache-config` finds the root's page, which renders without a
#    warning and documents every user-facing parameter; the systemd drop-in for
#    nfs-ganesha.service (glibc's malloc thresholds) is installed, byte for byte the source's
#    config/systemd/dontcache-malloc.conf, beside the nfs-ganesha.service it extends;
# 5. `apt-get remove`: the module and the drop-in go, the key and /etc stay; `apt-get purge`:
#    the key directory goes too, /etc/ganesha (nfs-ganesha's) stays, nfs-ganesha stays
#    installed.
# Prints "time: STEP Ns" for each step. apt's downloads are kept in
# third_party/clean-<suite>.archives (a second run installs without downloading).
# Environment: DC_PACKAGE_RELEASE (4.3 or 6.5; default from GSH_ROOT), DC_PACKAGE_OUT (a
# directory `scripts/package.sh REL --previous --out DIR` filled: used instead of building).
# Two package builds with lintian and a 58-package apt-get install take 100-160 s on 2 busy
# cores with the roots cached, and making a build root the first time 110-165 s more
# (scripts/test.sh makes the roots beside the project's build; 6.5's run, beside 4.3's, may
# reach this scenario while its root is still being made and wait for it: 300 s in all once,
# and 605 s on a host running at half speed, where making the roots took 1460 s instead of
# 758 s and a 720 s bound cut the scenario off with seconds of its work left):
# run.sh timeout: 1200

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

# ---- 1. the packages
repo=$IT_WORK/repo
if [ -n "${DC_PACKAGE_OUT:-}" ]; then
  repo=$(readlink -f "$DC_PACKAGE_OUT")
  [ -f "$repo/Packages" ] || it_die "DC_PACKAGE_OUT=$DC_PACKAGE_OUT: no Packages file there"
else
  TMPDIR=$IT_WORK host_net bash "$IT_TOP/scripts/package.sh" "$rel" --previous --no-setup \
    --out "$repo" > "$IT_WORK/package.log" 2>&1 ||
    { grep -v '^ *$' "$IT_WORK/package.log" | tail -n 40
      it_die "scripts/package.sh $rel --previous failed (lintian, or the build)"; }
  sed -n 's/^package.sh: /package| /p; s/^took: /package| took: /p' "$IT_WORK/package.log"
  grep '^lintian' "$IT_WORK/package.log"
  it_pass "dpkg-buildpackage and lintian (errors and warnings fail it) on $suite"
fi
lap "package.sh (build root, 2 versions, lintian)"
deb= prev_deb=
for f in "$repo"/nfs-ganesha-dontcache_*+"$tag"_amd64.deb; do
  [ -f "$f" ] || continue
  case $f in *~prev+*) prev_deb=$f ;; *) deb=$f ;; esac
done
[ -f "$deb" ] && [ -f "$prev_deb" ] || it_die "no N and N-1 packages in $repo"
name=$(basename "$deb")
ver=$(dpkg-deb -f "$deb" Version) prev_ver=$(dpkg-deb -f "$prev_deb" Version)
dpkg --compare-versions "$prev_ver" lt "$ver" && it_pass "versions $prev_ver < $ver" ||
  it_fail "$prev_ver does not sort before $ver"
[ -f "$repo/nfs-ganesha-dontcache_$ver.dsc" ] && it_pass "source package nfs-ganesha-dontcache_$ver.dsc" ||
  it_fail "no .dsc for $ver"
dep=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $dep"
[[ $dep == *"nfs-ganesha (>= $rel), nfs-ganesha (<< $next)"* ]] &&
  it_pass "depends on ganesha $rel exactly" || it_fail "Depends lacks nfs-ganesha (>= $rel), (<< $next)"
[[ $dep == *libdbus-1-3* ]] && it_pass "depends on libdbus-1-3 (dpkg-shlibdeps)" ||
  it_fail "Depends lacks libdbus-1-3 (dpkg-shlibdeps not run?)"
[[ $dep == *liburing* ]] && it_fail "Depends names liburing: the module links it again" ||
  it_pass "no liburing dependency (io_uring removed)"
fsal_so=/usr/lib/x86_64-linux-gnu/ganesha/libfsaldontcache.so
doc=/usr/share/doc/nfs-ganesha-dontcache
example=$doc/examples/ganesha.conf
man=/usr/share/man/man1/dontcache-stat.1.gz
man8=/usr/share/man/man8/ganesha-dontcache-config.8.gz
dropin=/usr/lib/systemd/system/nfs-ganesha.service.d/dontcache-malloc.conf
dpkg-deb -c "$deb" > "$IT_WORK/contents.txt" || it_die "dpkg-deb -c $deb failed"
for f in "$fsal_so" /usr/bin/dontcache-stat "$example" "$doc/README.md.gz" "$doc/copyright" \
         "$doc/changelog.gz" "$man" "$man8" "$dropin" "$doc/examples/ganesha-tuning.conf" \
         "$doc/design.md.gz" "$doc/RESULTS.md.gz"; do
  grep -q " \.$f\$" "$IT_WORK/contents.txt" && it_pass "$name has $f" || it_fail "$name lacks $f"
done
dbg=$repo/nfs-ganesha-dontcache-dbgsym_${ver}_amd64.deb
[ -f "$dbg" ] && [ "$(dpkg-deb -c "$dbg" | grep -c '/usr/lib/debug/.build-id/.*\.debug$')" -ge 1 ] &&
  it_pass "debug symbols in $(basename "$dbg")" || it_fail "no -dbgsym package with a .debug file"
# the N-1 view of the repository: what was published before N
repo_prev=$IT_WORK/repo-prev
mkdir -p "$repo_prev"
cp "$repo"/*"_${prev_ver}_amd64.deb" "$repo_prev/"
(cd "$repo_prev" && dpkg-scanpackages -m . /dev/null 2>/dev/null > Packages) ||
  it_die "dpkg-scanpackages in $repo_prev failed"

# ---- 2. the clean root, an overlay over it for this run, the local repository as a source
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
# As Debian's container images do: dpkg does not fsync every file it unpacks (the root is
# thrown away; apt-get install took 35 s with the fsyncs, 14 s without, here).
echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/dc-test-unsafe-io"
mkdir -p "$root/srv/dc-repo"
echo "deb [trusted=yes] file:/srv/dc-repo ./" > "$root/etc/apt/sources.list.d/dc-local.list"
cur_repo=$repo_prev
# in_root CMD...: CMD in the root with the host's network, /proc, /dev, a private /run, the
# shared apt archive and the repository ($cur_repo at /srv/dc-repo); those mounts go with the
# command's own mount namespace.
in_root() {
  host_net unshare -m --propagation private sh -c '
    r=$1 a=$2 p=$3; shift 3
    mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" &&
      mount -t tmpfs tmpfs "$r/run" && mount --bind "$a" "$r/var/cache/apt/archives" &&
      mount --bind "$p" "$r/srv/dc-repo" &&
      exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"' sh "$root" "$clean.archives" "$cur_repo" "$@"
}
# apt-get update of the local repository alone (the Debian lists are the clean root's)
local_update() {
  # the lists of the previous view go first: apt 3 (trixie) reused the N-1 view's Packages
  # against the N view's Release ("Hash Sum mismatch") when both came in one second
  rm -f "$root"/var/lib/apt/lists/*dc-repo* "$root"/var/lib/apt/lists/partial/*dc-repo*
  in_root apt-get update -o Dir::Etc::SourceList=/etc/apt/sources.list.d/dc-local.list \
    -o Dir::Etc::SourceParts=- -o APT::Get::List-Cleanup=0 > "$IT_WORK/update.log" 2>&1 ||
    { cat "$IT_WORK/update.log"; it_die "apt-get update of the local repository failed"; }
}
# apt_locked LOG ARGS...: apt-get ARGS with the shared archive directory (one apt-get at a
# time, under scripts/clean-root.sh's lock)
apt_locked() {
  local log=$1 rc; shift
  exec 7> "$clean.lock"
  flock -w 300 7 || it_die "$clean.lock busy for 5 min"
  in_root apt-get "$@" > "$log" 2>&1
  rc=$?
  exec 7>&-
  return $rc
}
status() { in_root dpkg-query -W -f='${Version} ${Status}' "$1" 2>/dev/null; }
local_update
lap "overlay, local repository (N-1)"

# ---- 3. N-1 with apt in one step, then served
apt_locked "$IT_WORK/apt.log" install -y nfs-ganesha-dontcache
rc=$?
grep -E '^([0-9]+ upgraded|Need to get|Fetched|Setting up (nfs-ganesha|libdbus|libntirpc))' \
  "$IT_WORK/apt.log" | sed 's/^/apt| /'
[ $rc = 0 ] && grep -q "^Setting up nfs-ganesha-dontcache ($prev_ver)" "$IT_WORK/apt.log" &&
  it_pass "apt-get install nfs-ganesha-dontcache: $prev_ver with its dependencies" ||
  { tail -n 30 "$IT_WORK/apt.log"; it_die "apt-get install nfs-ganesha-dontcache failed (exit $rc)"; }
lap "apt-get install (N-1)"
gver=$(status nfs-ganesha)
echo "installed| nfs-ganesha $gver"
[[ $gver == $rel*" install ok installed" ]] && it_pass "nfs-ganesha ${gver%% *} from Debian" ||
  it_fail "nfs-ganesha is '${gver:-missing}', not $rel"
in_root apt-cache policy nfs-ganesha | sed -n 's/^ *[0-9]\{3\} \(http[^ ]*\) .*/policy| nfs-ganesha from \1/p' | sort -u
# the root knows no other package source than the Debian archive and the local repository
others=$(cat "$root"/etc/apt/sources.list.d/*.sources "$root"/etc/apt/sources.list 2>/dev/null |
         sed -n 's/^URIs: *//p' | tr ' ' '\n' | grep -v '^http://deb.debian.org/debian' | grep -v '^$' || true)
[ -z "$others" ] || it_log "apt sources besides deb.debian.org: $others (DC_DEBIAN_MIRROR)"
[ -f "$root$fsal_so" ] && [ -f "$root$example" ] &&
  it_pass "module at $fsal_so, example at $example" || it_fail "installed files missing"

# that root's ganesha, no Plugins_Dir, a plain DONTCACHE export (default Handle_Key_File)
GSH_ROOT=$root
GSH_PLUGINS_DIR=
echo "$IT_EXP|1|Name = DONTCACHE;" | it_conf "$IT_WORK/ganesha.conf"
# ganesha 4.3 has no Allow_Set_Io_Flusher_Fail (6.5 needs it in a root without that privilege)
[ $rel = 6.5 ] || sed -i '/Allow_Set_Io_Flusher_Fail/d' "$IT_WORK/ganesha.conf"
grep -qi Plugins_Dir "$IT_WORK/ganesha.conf" && it_die "config unexpectedly names Plugins_Dir"
serve() { # VERSION
  it_start "$IT_WORK/ganesha.conf" "$IT_WORK/ganesha-$1.log"
  grep -q "$root$fsal_so" "/proc/$GSH_PID/maps" && it_pass "ganesha $rel mapped the packaged module ($1)" ||
    it_fail "ganesha did not load $fsal_so (maps: $(grep -o '/[^ ]*fsal[^ ]*' "/proc/$GSH_PID/maps" | sort -u | tr '\n' ' '))"
}
serve "$prev_ver"
head -c 4M /dev/urandom > "$IT_WORK/data.bin"
timeout -k 2 30 nfs-cp "$IT_WORK/data.bin" "$(it_url "$IT_EXP/data.bin")" > /dev/null &&
  cmp -s "$IT_WORK/data.bin" "$IT_EXP/data.bin" &&
  it_pass "$prev_ver: 4 MiB written over NFSv3 (on disk, equal)" || it_fail "$prev_ver: nfs-cp of 4 MiB failed"
it_check_alive "serving from $prev_ver"
gsh_stop || it_fail "ganesha did not stop cleanly"
keydir=/var/lib/nfs/ganesha/dontcache
key=$keydir/export-1.key
[ -f "$root$key" ] && [ "$(stat -c %a "$root$key")" = 600 ] &&
  it_pass "handle key $key made by the module (0600)" || it_die "no handle key at $key"
# the administrator's configuration: nfs-ganesha's conffile, edited, and a file of theirs
cp "$IT_WORK/ganesha.conf" "$root/etc/ganesha/ganesha.conf"
echo "# the administrator's notes" > "$root/etc/ganesha/local-notes.conf"
sums() { (cd "$root" && find etc/ganesha "${keydir#/}" -type f -print0 2>/dev/null | sort -z |
          xargs -0 sha256sum); }
sums > "$IT_WORK/sums.before"
sed 's/^/sums| /' "$IT_WORK/sums.before"
lap "served (N-1)"

# ---- 4. upgrade to N
cur_repo=$repo
local_update
apt_locked "$IT_WORK/upgrade.log" install -y --only-upgrade nfs-ganesha-dontcache
rc=$?
grep -E '^(Unpacking|Setting up) nfs-ganesha-dontcache|^[0-9]+ upgraded' "$IT_WORK/upgrade.log" | sed 's/^/apt| /'
[ $rc = 0 ] && grep -q "^Unpacking nfs-ganesha-dontcache ($ver) over ($prev_ver)" "$IT_WORK/upgrade.log" &&
  [ "$(status nfs-ganesha-dontcache)" = "$ver install ok installed" ] &&
  it_pass "upgraded $prev_ver -> $ver with apt" ||
  { tail -n 20 "$IT_WORK/upgrade.log"; it_die "upgrade to $ver failed (exit $rc)"; }
sums | cmp -s - "$IT_WORK/sums.before" && it_pass "upgrade kept /etc/ganesha and the handle key (same bytes)" ||
  it_fail "upgrade changed /etc/ganesha or the key: $(sums | diff "$IT_WORK/sums.before" - | tr '\n' ' ')"
lap "apt upgrade (N)"
serve "$ver"
timeout -k 2 30 nfs-cp "$(it_url "$IT_EXP/data.bin" 4)" "$IT_WORK/back.bin" > /dev/null &&
  cmp -s "$IT_WORK/data.bin" "$IT_WORK/back.bin" &&
  it_pass "$ver: the 4 MiB written under $prev_ver read back over NFSv4, equal" ||
  it_fail "$ver: nfs-cp read of the file written before the upgrade failed or differs"
echo hello > "$IT_WORK/hello.txt"
timeout -k 2 30 nfs-cp "$IT_WORK/hello.txt" "$(it_url "$IT_EXP/hello.txt" 4)" > /dev/null &&
  [ "$(timeout -k 2 30 nfs-cat "$(it_url "$IT_EXP/hello.txt")")" = hello ] &&
  it_pass "nfs-cp (v4) / nfs-cat (v3)" || it_fail "nfs-cp / nfs-cat failed"
timeout -k 2 30 nfs-ls "$(it_url "$IT_EXP" 4)" | grep -q hello.txt &&
  it_pass "nfs-ls lists the export" || it_fail "nfs-ls failed"
it_check_alive "serving from $ver"
gsh_stop || it_fail "ganesha did not stop cleanly"
# dontcache-stat: its usage line (exit 2) with its interpreter and jq there; its manual page
in_root sh -c 'command -v jq >/dev/null && dontcache-stat 2>&1; echo "exit $?"' > "$IT_WORK/stat.log" 2>&1
grep -q '^usage: dontcache-stat' "$IT_WORK/stat.log" && grep -q '^exit 2$' "$IT_WORK/stat.log" &&
  it_pass "dontcache-stat runs (jq installed with it)" ||
  it_fail "dontcache-stat does not run: $(tr '\n' ' ' < "$IT_WORK/stat.log")"
[ -f "$root$man" ] && it_pass "manual page $man installed" || it_fail "no $man"
# ganesha-dontcache-config(8): man (the host's man-db: a minbase root has none) finds the
# root's page by name, and it renders without a groff warning (as lintian checks it) and
# names every user-facing parameter (the man page's table: the FSAL block's nine and the
# DONTCACHE block's Stats_Interval_Ms)
mp=$(timeout 20 man -M "$root/usr/share/man" -w ganesha-dontcache-config 2>&1)
[ "$mp" = "$root$man8" ] && it_pass "man -w ganesha-dontcache-config: $man8" ||
  it_fail "man -w ganesha-dontcache-config in the root: '$mp' (want $root$man8)"
LC_ALL=C.UTF-8 timeout 20 man --warnings -E UTF-8 -l -Tutf8 -Z "$root$man8" \
  > /dev/null 2> "$IT_WORK/man8.err"
LC_ALL=C.UTF-8 MANWIDTH=80 timeout 20 man -l "$root$man8" > "$IT_WORK/man8.txt" 2>&1
missing=
for p in Write_Mode Read_Mode Cache_Budget_Bytes Max_Inflight_Bytes Stable_Reply_Ms \
         Handle_Key_File Handle_Key_Create Stats_File Prometheus_File Stats_Interval_Ms; do
  grep -q "^ *$p(" "$IT_WORK/man8.txt" || missing+=" $p"
done
[ -s "$IT_WORK/man8.txt" ] && [ ! -s "$IT_WORK/man8.err" ] && [ -z "$missing" ] &&
  it_pass "ganesha-dontcache-config(8) renders without warnings, one entry per parameter" ||
  it_fail "ganesha-dontcache-config(8): warnings '$(head -c 300 "$IT_WORK/man8.err")', missing:${missing:- none}"
# the malloc drop-in: where systemd reads nfs-ganesha.service's drop-ins, as shipped
cmp -s "$root$dropin" "$IT_TOP/config/systemd/dontcache-malloc.conf" &&
  grep -q '^Environment=MALLOC_MMAP_THRESHOLD_=[0-9]* MALLOC_TRIM_THRESHOLD_=[0-9]*$' "$root$dropin" &&
  { [ -f "$root/usr/lib/systemd/system/nfs-ganesha.service" ] ||
    [ -f "$root/lib/systemd/system/nfs-ganesha.service" ]; } &&
  it_pass "systemd drop-in $dropin installed beside nfs-ganesha.service" ||
  it_fail "drop-in $dropin: $(ls -l "$root$dropin" 2>&1), nfs-ganesha.service: $(ls "$root"/{usr/,}lib/systemd/system/nfs-ganesha.service 2>&1 | tr '\n' ' ')"
lap "served (N)"

# ---- 5. remove keeps the keys, purge removes them
# under the archive's lock too: apt-get remove and purge take the shared archive directory's
# lock like install does, and one run beside the guest image's install (scripts/ha-guest-image.sh,
# made meanwhile from the same clean root) failed it ("Could not get lock
# /var/cache/apt/archives/lock"), so node_crash found no guest
apt_locked "$IT_WORK/remove.log" remove -y nfs-ganesha-dontcache ||
  { tail -n 20 "$IT_WORK/remove.log"; it_die "apt-get remove failed"; }
st=$(status nfs-ganesha-dontcache)
echo "status| after remove: $st"
[ ! -e "$root$fsal_so" ] && [ ! -e "$root$dropin" ] && [[ $st == *" deinstall ok config-files" ]] &&
  it_pass "apt-get remove: module and drop-in gone, package in config-files state" ||
  it_fail "after apt-get remove: '$st', module $(ls "$root$fsal_so" 2>&1), drop-in $(ls "$root$dropin" 2>&1)"
sums | cmp -s - "$IT_WORK/sums.before" && it_pass "remove kept /etc/ganesha and the handle key" ||
  it_fail "remove changed /etc/ganesha or the key: $(sums | diff "$IT_WORK/sums.before" - | tr '\n' ' ')"
apt_locked "$IT_WORK/purge.log" purge -y nfs-ganesha-dontcache ||
  { tail -n 20 "$IT_WORK/purge.log"; it_die "apt-get purge failed"; }
st=$(status nfs-ganesha-dontcache)
echo "status| after purge: ${st:-(unknown to dpkg)}"
[ ! -e "$root$keydir" ] && [[ -z $st || $st == *" not-installed" ]] &&
  it_pass "apt-get purge: $keydir removed, package gone" ||
  it_fail "after apt-get purge: '$st', $keydir $(ls -A "$root$keydir" 2>&1 | tr '\n' ' ')"
(cd "$root" && find etc/ganesha -type f -print0 | sort -z | xargs -0 sha256sum) |
  cmp -s - <(grep ' etc/ganesha/' "$IT_WORK/sums.before") &&
  [[ $(status nfs-ganesha) == *" install ok installed" ]] &&
  it_pass "purge left /etc/ganesha (same bytes) and nfs-ganesha installed" ||
  it_fail "purge touched /etc/ganesha or nfs-ganesha"
lap "remove, purge"
echo "time: total $(( ($(now_ms) - T0) / 1000 ))s"
