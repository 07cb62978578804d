#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# run.sh timeout: 600
# Capabilities and quotas for real (issue 42, items 1 and 3), in one qemu guest
# (tests/lib/guest.sh: Debian 12's kernel 6.1 with quota, root holding every capability,
# nfs-ganesha 4.3; the module under test copied in). This host cannot show either: its root
# has no CAP_SYS_RESOURCE (bounding set) and its kernel no CONFIG_QUOTA.
#   unit     test_dcio_caps (tests/unit) in the guest, where its CAP_SYS_RESOURCE checks can
#            fail: no data-changing syscall of the engine runs with it, on any path
#   threads  the running ganesha (it drops CAP_SYS_RESOURCE on its main thread after reading
#            the exports, "CAP_SYS_RESOURCE was successfully removed" in its log): none of
#            the module's threads (dcio-ring/pool/flush*, dc-stats) holds it, effective or
#            permitted
#   per path, each an export on an ext4 of its own (64 MiB, -m 50, the quota feature, uid
#   1000's block limit 16 MiB), NFSv3 from this side of the bridge (it_caller3, 1 MiB
#   UNSTABLE WRITEs then COMMIT):
#     quota    uid 1000 writes 32 MiB: DQUOT at a WRITE or the COMMIT (as FSAL_VFS answers),
#              the file is uid 1000's and its blocks are in uid 1000's usage (repquota), at
#              most the limit and one WRITE
#     reserve  uid 1001 writes 40 MiB: NOSPC, at most the user's share (df before, + 1 MiB)
#              on disk; root then writes 4 MiB into the reserve: OK
#   paths: default (the worker's thread), paced (a READ before every WRITE: over 64 KiB they
#   go to the engine's rings, engine_pace_write; the export's stats must show it), ring
#   (Worker_Write_Max = 0: io_uring personalities), direct (Write_Mode = direct,
#   Worker_Write_Max = 0), and after a restart with Use_Io_Uring = false, pool
#   (Worker_Write_Max = 0: the pwritev2 pool).
# Before the module dropped CAP_SYS_RESOURCE on its threads the engine paths wrote past
# the quota and into root's reserve (OK instead of DQUOT/NOSPC), the threads check found
# every one of the module's threads holding it, and test_dcio_caps failed. Kernel 6.1 has no RWF_DONTCACHE:
# the exports run as dropbehind (expected). Against VFS (DC_TEST_FSAL=VFS) only the default
# path runs, on stock FSAL_VFS (the reference answers). Under ganesha 6.5 (--ganesha 6) the
# guest is Debian 13's (scripts/ha-guest-image.sh trixie). Skipped (77) when qemu, the image
# or the boot is missing (HA_BOOT_SECS).
# Usage: tests/ha/guest_caps.sh [BUILD_DIR]
#   env: DC_MODULE (the module), DC_UNIT_BIN (where test_dcio_caps is; BUILD_DIR/tests/unit)
. "$(dirname "$0")/../lib/guest.sh"
# ganesha 6.5 (GSH_ROOT): the Debian 13 guest (kernel 6.12, nfs-ganesha 6.5) and the module
# built for it (DC_MODULE); test_dcio_caps is the host's (Debian 12) build, run there as well
[ "${GSH_IN_NS:-}" = 1 ] || hag_prepare "$([ -n "${GSH_ROOT:-}" ] && echo trixie || echo bookworm)"
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_caller3
DC_UNIT_BIN=${DC_UNIT_BIN:-$DC_BUILD_DIR/tests/unit}
if it_is_dontcache; then
  [ -x "$DC_UNIT_BIN/test_dcio_caps" ] || it_die "test_dcio_caps missing in $DC_UNIT_BIN (build the tree first)"
fi
HAG_BOOT_SECS=${HA_BOOT_SECS:-180}
t_start=$SECONDS
hag_setup "$IT_WORK/g"
g=caps ip=$HAG_NET.11 MiB=$((1024 * 1024))
share=$HAG_WORK/$g
mkdir -p "$share"
cp "$IT_TOP/tests/lib/guest-caps.sh" "$share/caps.sh"
if it_is_dontcache; then
  cp "$IT_MODULE" "$share/libfsaldontcache.so"
  cp "$DC_UNIT_BIN/test_dcio_caps" "$share/test_dcio_caps"
fi

# conf FILE USE_URING, then "NAME|ID|FSAL body" lines on stdin
conf() {
  local f=$1 uring=$2 n id body
  {
    echo "NFS_CORE_PARAM { NFS_Port = 2049; MNT_Port = 20048; NLM_Port = 32803;"
    echo "  Rquota_Port = 875; Protocols = 3; Enable_UDP = false; }"
    echo "NFSV4 { Graceless = true; }"
    it_is_dontcache && echo "DONTCACHE { Bench { Use_Io_Uring = $uring; } }"
    while IFS='|' read -r n id body; do
      echo "EXPORT { Export_Id = $id; Path = /srv/$n; Pseudo = /$n; Access_Type = RW;"
      echo "  Squash = No_Root_Squash; Protocols = 3; Transports = TCP; SecType = sys;"
      if it_is_dontcache; then
        echo "  FSAL { Name = DONTCACHE; Stats_File = /run/dc-$n.json; $body } }"
      else
        echo "  FSAL { Name = VFS; } }"
      fi
    done
  } > "$f"
}

# gc SECS ARGS: caps.sh ARGS in the guest; its output in $GOUT
gc() {
  local secs=$1; shift
  hag_cmd "$g" "$secs" "bash /host/caps.sh $*"
  local rc=$?
  GOUT=$(cat "$HAG_OUT" 2>/dev/null)
  return $rc
}
# c3 NAME UID [-r] fill FILE MiB: it_caller3's summary line
c3() {
  local n=$1 uid=$2; shift 2
  timeout -k 5 180 "$DC_IT_BIN/it_caller3" -H "$ip" -p 2049 -M 20048 -e "/srv/$n" \
    -u "$uid" -g "$uid" "$@" 2>&1 | tail -n1
}
st_of() { it_kv status "$1"; }

# check_path NAME [-r]: the quota, then the reserve, on export NAME
check_path() {
  local n=$1 opt=${2:-} line owner kib used avail got t0=$SECONDS
  line=$(c3 "$n" 1000 $opt fill quota 32)
  gc 60 file "$n" quota || it_log "$n: caps.sh file: $GOUT"
  owner=$(it_kv owner "$GOUT") kib=$(it_kv kib "$GOUT") used=$(it_kv used1000 "$GOUT")
  it_log "$n: uid 1000 32 MiB past a 16 MiB quota: $line; $GOUT"
  if [ "$(st_of "$line")" = DQUOT ]; then
    it_pass "$n: uid 1000 past its quota: DQUOT at the $(it_kv at "$line")"
  else
    it_fail "$n: uid 1000 past its 16 MiB quota: $line (the limit passed: CAP_SYS_RESOURCE?)"
  fi
  if [ "$owner" = 1000 ] && [ "$used" != none ] && [ "${kib:-0}" -gt 0 ] &&
     [ "$used" -ge "$kib" ] && [ "$used" -le $((16384 + 1024)) ]; then
    it_pass "$n: the blocks are uid 1000's ($used KiB used, the file $kib KiB)"
  else
    it_fail "$n: the charge: owner $owner, the file $kib KiB, uid 1000 uses $used KiB (limit 16384)"
  fi
  gc 60 avail "$n"; avail=$GOUT
  line=$(c3 "$n" 1001 $opt fill user 40)
  gc 60 file "$n" user
  got=$(( $(it_kv kib "$GOUT") * 1024 ))
  it_log "$n: uid 1001 40 MiB: $line; share $avail, on disk $got"
  if [ "$(st_of "$line")" = NOSPC ]; then
    it_pass "$n: uid 1001 past its share: NOSPC at the $(it_kv at "$line")"
  else
    it_fail "$n: uid 1001 wrote 40 MiB with a share of $avail bytes: $line (root's reserve taken)"
  fi
  if [ "$got" -le $((avail + MiB)) ]; then
    it_pass "$n: uid 1001 has at most its share on disk ($got <= $avail + 1 MiB)"
  else
    it_fail "$n: uid 1001 has $got bytes on disk, its share was $avail (root's reserve taken)"
  fi
  line=$(c3 "$n" 0 $opt fill root 4)
  if [ "$(st_of "$line")" = OK ]; then
    it_pass "$n: root writes 4 MiB into its reserve"
  else
    it_fail "$n: root cannot write into its reserve: $line"
  fi
  echo "# $n ($DC_TEST_FSAL): quota file $kib KiB, uid 1000 uses $used KiB; share $avail, uid 1001 on disk $got; $((SECONDS - t0)) s"
}

# check_threads RUN: no dcio-* thread of the running ganesha holds CAP_SYS_RESOURCE
check_threads() {
  gc 30 threads || { it_fail "$1: cannot read ganesha's threads: $GOUT"; return; }
  local last; last=$(echo "$GOUT" | tail -n1)
  it_log "$1: ganesha's threads (name CapEff CapPrm): $(echo "$GOUT" | head -n -1 | tr '\n' ';')"
  if [ "$(it_kv dcio_threads "$last")" -gt 0 ] 2>/dev/null && [ "$(it_kv dcio_resource "$last")" = 0 ]; then
    it_pass "$1: none of the module's $(it_kv dcio_threads "$last") threads holds CAP_SYS_RESOURCE (ganesha's own that do: $(it_kv others "$last"))"
  else
    it_fail "$1: the module's threads and CAP_SYS_RESOURCE: $last"
  fi
}

hag_boot "$g" "$ip" 768M || it_die "cannot start the guest"
hag_wait "$g"; rc=$?
[ $rc = 2 ] && it_skip "the guest did not boot within $HAG_BOOT_SECS s (accel $HAG_ACCEL; HA_BOOT_SECS raises it)"
[ $rc = 0 ] || it_die "the guest did not boot: $(tail -n 5 "$HAG_WORK/$g.console")"
t_boot=$((SECONDS - t_start))

if it_is_dontcache; then
  t0=$SECONDS
  hag_cmd "$g" 240 "cd /tmp && /host/test_dcio_caps"; rc=$?
  sed 's/^/  guest unit: /' "$HAG_OUT"
  if grep -q 'cannot fail here' "$HAG_OUT"; then
    it_fail "unit: the guest's root has no CAP_SYS_RESOURCE: test_dcio_caps could not fail there"
  elif [ $rc = 0 ]; then
    it_pass "unit: test_dcio_caps in the guest (every capability but where dropped): $(grep -E '^ +asserts' "$HAG_OUT" | tr -s ' ')"
  else
    it_fail "unit: test_dcio_caps failed in the guest (exit $rc): $(grep -E 'calls with|ring write|Failed|^ +asserts' "$HAG_OUT" | head -n 3 | tr -s ' ')"
  fi
  t_unit=$((SECONDS - t0))
  run1=(default paced ring direct)
else
  t_unit=0
  run1=(default)
fi

t0=$SECONDS
for n in "${run1[@]}" pool; do
  it_is_dontcache || [ $n = default ] || continue
  gc 120 fs "$n" || it_die "cannot make the quota ext4 $n in the guest: $GOUT"
done
{
  echo "default|1|"
  it_is_dontcache && {
    echo "paced|2|"
    echo "ring|3|Bench { Worker_Write_Max = 0; }"
    echo "direct|4|Write_Mode = direct; Bench { Worker_Write_Max = 0; }"
  }
} | conf "$share/run1.conf" true
gc 150 up /host/run1.conf || it_die "ganesha did not start in the guest: $GOUT"
grep -q 'CAP_SYS_RESOURCE was successfully removed' "$share/ganesha.log" &&
  it_log "ganesha dropped CAP_SYS_RESOURCE on its main thread: $(grep -m1 'currently set capabilities' "$share/ganesha.log" | sed 's/.*: //')"
it_is_dontcache && check_threads "io_uring"
t_setup=$((SECONDS - t0))
check_path default
if it_is_dontcache; then
  check_path paced -r
  hag_cmd "$g" 30 "cat /run/dc-paced.json"
  js=$(cat "$HAG_OUT")
  wops=$(echo "$js" | grep -o '"worker_writes":{"ops":[0-9]*' | grep -o '[0-9]*$')
  eops=$(echo "$js" | grep -o '"latency":{"write":{"count":[0-9]*' | grep -o '[0-9]*$')
  it_log "paced: the export's write count ${eops:-?}, on the worker's thread ${wops:-?}"
  if [ -n "$wops" ] && [ -n "$eops" ] && [ "$eops" -gt 0 ] && [ $((wops * 4)) -lt "$eops" ]; then
    it_pass "paced: $((eops - wops)) of $eops WRITEs went to the engine beside the READs"
  else
    it_fail "paced: the WRITEs beside READs did not take the engine: worker ${wops:-?} of ${eops:-?}"
  fi
  check_path ring
  check_path direct
  gc 60 down || it_log "ganesha down: $GOUT"
  cp "$share/ganesha.log" "$IT_WORK/ganesha.run1.log"
  echo "pool|5|Bench { Worker_Write_Max = 0; }" | conf "$share/run2.conf" false
  gc 150 up /host/run2.conf || it_die "ganesha (Use_Io_Uring = false) did not start in the guest: $GOUT"
  grep -q 'using a pwritev2 thread pool\|engine started: .*thread pool' "$share/ganesha.log" ||
    it_fail "pool: the engine did not start without io_uring: $(grep -m1 'engine started' "$share/ganesha.log")"
  check_threads "pool"
  check_path pool
fi
gc 60 down || it_log "ganesha down: $GOUT"
t_paths=$((SECONDS - t0))
echo "figures: fsal=$DC_TEST_FSAL accel=$HAG_ACCEL boot_s=$t_boot unit_s=$t_unit ganesha_and_fs_s=$t_setup paths_s=$t_paths total_s=$((SECONDS - t_start))"
