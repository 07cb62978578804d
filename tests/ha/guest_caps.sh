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
#            the module's threads (dcio-pool/flush*, dc-stats) holds it, effective or
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
#   go to the engine's pool, engine_pace_write; the export's stats must show it), pool
#   (Worker_Write_Max = 0: every WRITE on the engine's pwritev2 pool), direct (Write_Mode =
#   direct, Worker_Write_Max = 0).
#   fallback (where the fallback really happens; DONTCACHE only) export 6 of the
#            same two ganesha starts, default parameters (Write_Mode = dontcache), on an ext4
#            whose device can be made to fail writeback (caps.sh eiofs: its image on a tmpfs
#            in the guest, 4 KiB loop requests, as tests/faults/fault_eio.sh on the host;
#            the image has no dmsetup, and none is needed):
#     kernel   asked directly (perl syscall): pwritev2 with RWF_DONTCACHE EOPNOTSUPP,
#              cachestat(2) ENOSYS (6.1 has neither)
#     log      each of run 1's five exports says once that it falls back (at start by its
#              path, or at run time as "export-ID: the filesystem refused"); /srv/fallback's
#              line names the probe's refused RWF_DONTCACHE write at start, write path
#              dropbehind, and "writeback kick inline: no RWF_DONTCACHE writes on this
#              filesystem" (the kick probe, the module's only cachestat call, is not made;
#              no "cachestat of the probe" line)
#     data     it_io rw 16: 1 MiB UNSTABLE WRITEs + COMMIT and FILE_SYNC, read back equal
#     errors   ft_writer: 2 x 4 MiB committed; the device made to fail (eiofail: 2 MiB of
#              room); 2 writers overwrite 8 MiB each with a COMMIT every 1 MiB: COMMITs
#              answer the writeback error; the device repaired (eiook), COMMITs without
#              writing: those over lost ranges still fail (the kept error), those of the
#              files written before answer OK; the lost files rewritten whole commit
#     stats    /run/dc-fallback.json: "fallback":true, dontcache_write_supported false,
#              every write issued dropbehind (none RWF_DONTCACHE), DONTNEED calls, lost
#              ranges reported, errors counted
#     verify   after run 1, the device detached and attached again (caps.sh eioremount,
#              fsck -n), run 2 serves it: ft_verify reads every acknowledged-durable byte
#              back through NFS from the device: zero false successes
#   No speed is measured in the guest (TCG: it would mean nothing).
# Before the module dropped CAP_SYS_RESOURCE on its threads the engine paths wrote past
# the quota and into root's reserve (OK instead of DQUOT/NOSPC), the threads check found
# every one of the module's threads holding it, and test_dcio_caps failed. Kernel 6.1 has no
# RWF_DONTCACHE: every export runs as dropbehind (expected; the fallback part checks it). A
# module that believed RWF_DONTCACHE works there (the probe's answer taken as yes) fails the
# fallback part's log and stats checks. Against VFS (DC_TEST_FSAL=VFS) only the default
# path runs, on stock FSAL_VFS (the reference answers). Under ganesha 6.5 (--ganesha 6) the
# guest is Debian 13's (scripts/ha-guest-image.sh trixie; kernel 6.12: no RWF_DONTCACHE
# either, but cachestat(2)). Skipped (77) when qemu, the image or the boot is missing
# (HA_BOOT_SECS).
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
  it_need_prog it_io ft_writer ft_verify
  command -v jq > /dev/null || it_die "jq is not installed (the fallback part reads the export's stats with it)"
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

# conf FILE, then "NAME|ID|FSAL body" lines on stdin
conf() {
  local f=$1 n id body
  {
    echo "NFS_CORE_PARAM { NFS_Port = 2049; MNT_Port = 20048; NLM_Port = 32803;"
    echo "  Rquota_Port = 875; Protocols = 3; Enable_UDP = false; }"
    echo "NFSV4 { Graceless = true; }"
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

# The fallback where it really happens (issue 44): export "fallback" on the eiofs ext4
FB=/srv/fallback FBREC=$IT_WORK/fbrec
# fb_w ARGS: ft_writer on the fallback export, its summary line
fb_w() {
  timeout -k 5 180 "$DC_FT_BIN/ft_writer" -H "$ip" -p 2049 -M 20048 -e "$FB" -r "$FBREC" \
    -q 4 "$@" 2>&1 | tail -n1
}
fb_mark() { local f; for f in "$FBREC"/"$1"_*.rec; do echo "M $2" >> "$f"; done; }
fb_n() { it_kv "$1" "$2" | grep -x '[0-9][0-9]*' || echo -1; }

# fallback_serve (run 1): the kernel's own answers; data written, COMMITted and read back;
# writeback failing under acknowledged UNSTABLE WRITEs and the error kept for the COMMITs;
# the export's stats
fallback_serve() {
  local out line n ce we js t0=$SECONDS
  gc 30 kernel "$FB"
  it_log "fallback: $GOUT"
  # Debian 12's 6.1 has neither RWF_DONTCACHE nor cachestat (ENOSYS); Debian 13's 6.12
  # (the guest under --ganesha 6) has cachestat (EBADF on fd -1) but not RWF_DONTCACHE
  local cs_want=errno38 cs_what="no cachestat(2) (ENOSYS)"
  if [ -n "${GSH_ROOT:-}" ]; then cs_want=errno9 cs_what="cachestat(2) (EBADF on fd -1)"; fi
  if [ "$(it_kv pwritev2_plain "$GOUT")" = 4096 ] &&
     [ "$(it_kv pwritev2_dontcache "$GOUT")" = errno95 ] &&
     [ "$(it_kv cachestat "$GOUT")" = "$cs_want" ]; then
    it_pass "fallback: the guest's kernel $(it_kv kernel "$GOUT") refuses RWF_DONTCACHE (pwritev2: EOPNOTSUPP) and has $cs_what"
  else
    it_fail "fallback: the guest's kernel is not the one this part is for (RWF_DONTCACHE: EOPNOTSUPP, cachestat: $cs_want wanted): $GOUT"
  fi
  # it_io rw: 16 MiB of 1 MiB UNSTABLE WRITEs, COMMIT (the WRITE's verifier), read back and
  # compared; the same with FILE_SYNC
  out=$(timeout -k 5 180 "$DC_IT_BIN/it_io" -H "$ip" -p 2049 -M 20048 -e "$FB" rw 16 2>&1)
  if [ $? = 0 ] && echo "$out" | grep -q '# it_io rw: [1-9][0-9]* checks, 0 failed'; then
    it_pass "fallback: 16 MiB UNSTABLE + COMMIT and 16 MiB FILE_SYNC read back equal ($(echo "$out" | tail -n1 | sed 's/^# //'))"
  else
    it_fail "fallback: it_io rw 16: $(echo "$out" | grep -E 'FAIL|not ok|# it_io' | head -n 4 | tr '\n' ' ')"
  fi
  # the kept-error rule as tests/faults/fault_eio.sh checks it on the host, smaller
  mkdir -p "$FBREC"
  line=$(fb_w -n 2 -P pre -L $((4 * MiB)) -s 10 -c $MiB -C)
  it_log "fallback pre: $line"
  if [ "$(fb_n commit_errors "$line")" = 0 ] && [ "$(fb_n write_errors "$line")" = 0 ] &&
     [ "$(fb_n final_commits_ok "$line")" = 2 ]; then
    it_pass "fallback: 2 x 4 MiB written and committed on the working device"
  else
    it_fail "fallback: the writes before the failure did not commit cleanly: $line"
  fi
  fb_mark pre pre-done
  # (about a second alone; a loaded CI host once starved the TCG guest past 60 s here, the
  # command's work done and its answer late)
  gc 180 eiofail fallback 2048 || it_fail "fallback: cannot make the device fail: $GOUT"
  it_log "fallback: $GOUT"
  line=$(fb_w -n 2 -P f -L $((8 * MiB)) -s 10 -c $MiB -x 20 -t 60)
  it_log "fallback failing: $line"
  ce=$(fb_n commit_errors "$line") we=$(fb_n write_errors "$line")
  if [ "$ce" -gt 0 ]; then
    it_pass "fallback: writeback failed behind acknowledged WRITEs: $ce COMMITs answered an error ($we WRITEs)"
  else
    it_fail "fallback: the device failed and no COMMIT said so: $line"
  fi
  gc 30 eiook fallback || it_fail "fallback: cannot grow the device's tmpfs again: $GOUT"
  fb_mark f recovered
  fb_mark pre recovered
  line=$(fb_w -n 2 -P f -a -K 3)
  it_log "fallback recovered: $line"
  ce=$(fb_n commit_errors "$line")
  if [ "$ce" -gt 0 ]; then
    it_pass "fallback: the device works again and $ce of $(( ce + $(fb_n commits_ok "$line") )) COMMITs over the lost ranges still fail (kept error)"
  else
    it_fail "fallback: after the device recovered the COMMITs over lost data answered OK: $line"
  fi
  line=$(fb_w -n 2 -P pre -a -K 2)
  it_log "fallback recovered (pre files): $line"
  if [ "$(fb_n commit_errors "$line")" = 0 ] && [ "$(fb_n commits_ok "$line")" -gt 0 ]; then
    it_pass "fallback: and the $(it_kv commits_ok "$line") COMMITs of the files written before the failure answer OK"
  else
    it_fail "fallback: COMMITs of the files written before the failure failed: $line"
  fi
  fb_mark f rewrite
  line=$(fb_w -n 2 -P f -a -L $((8 * MiB)) -s 0 -c $MiB -C)
  it_log "fallback rewrite: $line"
  if [ "$(fb_n final_commits_ok "$line")" = 2 ]; then
    it_pass "fallback: the lost files rewritten whole commit again"
  else
    it_fail "fallback: the rewritten files did not commit: $line"
  fi
  sleep 2 # Stats_Interval_Ms (1 s)
  hag_cmd "$g" 30 "cat /run/dc-fallback.json"
  js=$(cat "$HAG_OUT")
  it_log "fallback stats: $js"
  out=$(echo "$js" | jq -r '.engine | "fallback=\(.fallback) dontcache_write_supported=\(.dontcache_write_supported) dontcache_read_supported=\(.dontcache_read_supported) write_mode=\(.write_mode) dropbehind_ops=\(.writes.dropbehind.ops) issued_dontcache=\(.writes.dontcache.issued_bytes) issued_dropbehind=\(.writes.dropbehind.issued_bytes) dontneed_calls=\(.flusher.dontneed_calls) lost_range_reports=\(.group_commit.lost_range_reports) errors=\(.errors | to_entries | map("\(.key):\(.value)") | join(","))"' 2>&1)
  if [ "$(it_kv fallback "$out")" = true ] && [ "$(it_kv dontcache_write_supported "$out")" = false ] &&
     [ "$(it_kv write_mode "$out")" = dontcache ] && [ "$(fb_n dropbehind_ops "$out")" -gt 0 ] &&
     [ "$(it_kv issued_dontcache "$out")" = 0 ] &&
     [ "$(fb_n issued_dropbehind "$out")" -gt 0 ] && [ "$(fb_n dontneed_calls "$out")" -gt 0 ] &&
     [ "$(fb_n lost_range_reports "$out")" -gt 0 ] && [ -n "$(it_kv errors "$out")" ]; then
    it_pass "fallback: its stats: $out"
  else
    it_fail "fallback: its stats (fallback true, no RWF_DONTCACHE issued, written back and dropped, the loss reported, wanted): $out"
  fi
  t_fb=$((t_fb + SECONDS - t0))
}

# fallback_log LOG (run 1's): each export said once that it falls back, with the reason
fallback_log() {
  local log=$1 n c bad= line
  # at start (by path) or at run time (the engine's "export-ID: the filesystem refused")
  for n in default:1 paced:2 pool:3 direct:4 fallback:6; do
    c=$(grep -E 'does not support RWF_DONTCACHE|falling back|fall(s|en)? back|refused a RWF_DONTCACHE' "$log" |
        grep -v 'stats: *{' | grep -cF -e "/srv/${n%:*} " -e "/srv/${n%:*}:" -e "export-${n#*:}:")
    [ "$c" = 1 ] || bad+=" /srv/${n%:*}:$c"
  done
  if [ -z "$bad" ]; then
    it_pass "fallback: each of the 5 exports says once in the log that it falls back"
  else
    it_fail "fallback: log lines saying an export falls back (1 each wanted):$bad"
  fi
  line=$(grep -F "/srv/fallback does not support RWF_DONTCACHE" "$log" | head -n1)
  it_log "fallback: the log says: ${line#*DONTCACHE export }"
  if [[ $line == *"falling back to buffered writes with coalesced drop-behind; write path dropbehind (fallback from dontcache: the filesystem refused the probe's RWF_DONTCACHE write at start)"* ]] &&
     [[ $line == *"writeback kick inline: no RWF_DONTCACHE writes on this filesystem"* ]] &&
     ! grep -q 'cachestat of the probe' "$log"; then
    it_pass "fallback: the log names the probe's refused RWF_DONTCACHE write at start, the dropbehind write path and no writeback kick probe (no cachestat called)"
  else
    it_fail "fallback: the log line for /srv/fallback: ${line:-none}"
  fi
}

# fallback_verify (run 2, after the device was attached again): every acknowledged-durable
# byte read back through NFS from the device (tests/faults/ft_verify)
fallback_verify() {
  local vout vline fs t0=$SECONDS
  vout=$(timeout -k 5 180 "$DC_FT_BIN/ft_verify" -H "$ip" -p 2049 -M 20048 -e "$FB" -v "$FBREC"/*.rec 2>&1)
  echo "$vout" | grep -E 'FALSE|MISSING' | head -n 10 >&2
  echo "$vout" | grep -E '^phase' | sed 's/^/  fallback verify: /' >&2
  vline=$(echo "$vout" | grep '^ft_verify:')
  fs=$(( $(fb_n false_success_commits "$vline") + $(fb_n false_success_stable "$vline") ))
  if [ "$fs" = 0 ] && [ "$(fb_n errors "$vline")" = 0 ] && [ "$(fb_n durable_bytes "$vline")" -gt 0 ]; then
    it_pass "fallback: every acknowledged-durable byte read back from the device: $(it_kv durable_bytes "$vline") bytes in $(it_kv files "$vline") files, 0 false successes ($(it_kv commits_failed "$vline") COMMITs failed)"
  else
    it_fail "fallback: ft_verify: $vline"
  fi
  t_fb=$((t_fb + SECONDS - t0))
}
t_fb=0

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
    it_fail "unit: test_dcio_caps failed in the guest (exit $rc): $(grep -E 'calls with|pool write|Failed|^ +asserts' "$HAG_OUT" | head -n 3 | tr -s ' ')"
  fi
  t_unit=$((SECONDS - t0))
  run1=(default paced pool direct)
else
  t_unit=0
  run1=(default)
fi

t0=$SECONDS
for n in "${run1[@]}"; do
  it_is_dontcache || [ $n = default ] || continue
  gc 120 fs "$n" || it_die "cannot make the quota ext4 $n in the guest: $GOUT"
done
if it_is_dontcache; then
  t1=$SECONDS
  gc 120 eiofs fallback 2 8 || it_die "cannot make the ext4 of the fallback export: $GOUT"
  t_fb=$((SECONDS - t1))
fi
{
  echo "default|1|"
  it_is_dontcache && {
    echo "paced|2|"
    echo "pool|3|Bench { Worker_Write_Max = 0; }"
    echo "direct|4|Write_Mode = direct; Bench { Worker_Write_Max = 0; }"
    echo "fallback|6|"
  }
} | conf "$share/run1.conf"
gc 150 up /host/run1.conf || it_die "ganesha did not start in the guest: $GOUT"
if it_is_dontcache; then
  grep -q 'engine started: .*thread pool' "$share/ganesha.log" ||
    it_fail "pool: the engine did not start its pool: $(grep -m1 'engine started' "$share/ganesha.log")"
fi
grep -q 'CAP_SYS_RESOURCE was successfully removed' "$share/ganesha.log" &&
  it_log "ganesha dropped CAP_SYS_RESOURCE on its main thread: $(grep -m1 'currently set capabilities' "$share/ganesha.log" | sed 's/.*: //')"
it_is_dontcache && check_threads "run 1"
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
  check_path pool
  check_path direct
  fallback_serve
  gc 60 down || it_log "ganesha down: $GOUT"
  cp "$share/ganesha.log" "$IT_WORK/ganesha.run1.log"
  t1=$SECONDS
  fallback_log "$IT_WORK/ganesha.run1.log"
  gc 60 eioremount fallback || it_fail "fallback: cannot attach the device again: $GOUT"
  it_log "fallback: device attached again ($GOUT)"
  t_fb=$((t_fb + SECONDS - t1))
  printf '%s\n' "fallback|6|" | conf "$share/run2.conf"
  gc 150 up /host/run2.conf || it_die "ganesha did not start again in the guest: $GOUT"
  fallback_verify
fi
gc 60 down || it_log "ganesha down: $GOUT"
t_paths=$((SECONDS - t0))
echo "figures: fsal=$DC_TEST_FSAL accel=$HAG_ACCEL boot_s=$t_boot unit_s=$t_unit ganesha_and_fs_s=$t_setup paths_s=$t_paths fallback_s=$t_fb total_s=$((SECONDS - t_start))"
