#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A close on a healthy export does not wait for another export's stalled device (issue 37
# item 6). Two exports, each an ext4 on a loop device whose image lies on an ext4 of its own
# (OA, OB); fsfreeze of OA (OB) stalls every write of export 1's (2's) device while its page
# cache still takes writes (freezing the export's own filesystem would first write its dirty
# data back; this kernel has no device-mapper to suspend a device). One flusher thread
# (Engine_Threads = 1), dropbehind writes, ganesha's fd reaper every second:
#  1. a_0 (export 1), b_0 and c_0 (export 2) made; OA and OB frozen; c_0 written: a flusher
#     pass takes it and waits on its writeback (stalled);
#  2. b_0 (export 2), then a_0 (export 1) written: both due while that pass waits;
#  3. OB thawed: the pass ends, the next one takes a_0 and b_0 together, a_0 first, and
#     waits on a_0's writeback (stalled for good);
#  4. the reaper closes idle global fds, b_0's among them (its engine file's close).
# Before the fix that close waited for the pass to hand b_0 back, i.e. for export 1's device:
# b_0's engine fd stayed open and (4.3) READs of b_0 hung. PASS, while OA is still frozen:
# b_0's engine fd closed within 10 s, b_0 read back and a new file written and committed
# through export 2 within 10 s each; the flusher stats show the set-up happened; after OA is
# thawed (always, in the exit trap, before ganesha is stopped) every acknowledged byte of
# every file is on disk (ft_verify).
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the module's flusher; FSAL_VFS has none"
command -v fsfreeze >/dev/null || it_skip "fsfreeze not installed"
it_need_prog ft_busy
bound=10
FROZEN=()
thaw_all() {
  local d
  for d in "${FROZEN[@]}"; do fsfreeze -u "$d" 2>/dev/null; done
  FROZEN=()
}
# thaw before the harness stops ganesha (a stalled device would hold its shutdown)
trap 'rc_=$?; thaw_all; (exit $rc_); it_cleanup' EXIT
freeze() { fsfreeze -f "$1" && FROZEN+=("$1"); }
thaw() {
  local d keep=()
  fsfreeze -u "$1"
  for d in "${FROZEN[@]}"; do [ "$d" = "$1" ] || keep+=("$d"); done
  FROZEN=("${keep[@]}")
}

OA=$IT_WORK/oa OB=$IT_WORK/ob A=$IT_WORK/a B=$IT_WORK/b
it_loop_ext4 "$IT_WORK/oa.img" 384M "$OA" || it_die "cannot make OA"
it_loop_ext4 "$IT_WORK/ob.img" 384M "$OB" || it_die "cannot make OB"
it_loop_ext4 "$OA/a.img" 256M "$A" || it_die "cannot make export 1's ext4"
it_loop_ext4 "$OB/b.img" 256M "$B" || it_die "cannot make export 2's ext4"
body="Write_Mode = dropbehind; Bench { Flush_File_Bytes = 1048576; Flush_Interval_Ms = 1000; }"
{ echo "$A|1|$(it_fsal_body_files 1 "$body")"
  echo "$B|2|$(it_fsal_body_files 2 "$body")"; } | it_conf "$IT_WORK/ganesha.conf"
{ echo 'DONTCACHE { Bench { Engine_Threads = 1; } }'
  echo 'MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }'; } \
  >> "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

rec=$IT_WORK/rec
mkdir -p "$rec"
# wr NAME DIR BYTES [ft_writer options]: BYTES more of DIR/NAME_0 (UNSTABLE, one COMMIT at the
# end: it waits while DIR's device is stalled), recorded in $rec
wr() {
  local name=$1 dir=$2 bytes=$3; shift 3
  timeout -k 2 300 "$DC_FT_BIN/ft_writer" -H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" \
    -e "$dir" -r "$rec" -n 1 -d "" -P "$name" -L "$bytes" -s 0 -c 0 -C -t 120 "$@" 2>&1 | tail -1
}
# wr_bg NAME DIR BYTES: the same in the background, output in wr.NAME.out, pid in wr_NAME
wr_bg() {
  wr "$1" "$2" "$3" -a -o 4096 > "$IT_WORK/wr.$1.out" &
  IT_EXTRA_PIDS+=($!)
  eval "wr_$1=$!"
}
ok_out() { echo "$1" | grep -q 'commit_errors=0 write_errors=0'; }
# the files made (and their objects cached) before the stall: only their data waits then
for f in a b c; do
  [ "$f" = a ] && d=$A || d=$B
  out=$(wr "$f" "$d" 4096)
  ok_out "$out" || it_die "cannot create ${f}_0: $out"
done
sync
# 1.
freeze "$OA" || it_die "cannot freeze OA"
freeze "$OB" || it_die "cannot freeze OB"
wr_bg c "$B" $((4 << 20))
sleep 2
# 2.
wr_bg b "$B" $((512 << 10))
sleep 0.3
wr_bg a "$A" $((512 << 10))
sleep 2
# passes,files of an export's flusher (its stats file, written every second)
fl_stats() {
  grep -o '"flusher":{"passes":[0-9]*,"files":[0-9]*' "$IT_WORK/export-$1.stats.json" |
    sed 's/.*"passes":\([0-9]*\),"files":\([0-9]*\)/\1 \2/'
}
# 3.
thaw "$OB"
wait "$wr_c"; wait "$wr_b"
ok_out "$(cat "$IT_WORK/wr.c.out")" && ok_out "$(cat "$IT_WORK/wr.b.out")" &&
  it_pass "c and b written through export 2 once OB thawed" ||
  it_fail "writing c or b through export 2: $(cat "$IT_WORK/wr.c.out" "$IT_WORK/wr.b.out")"
# 4. b's engine fd closed by ganesha's close (its fd reaper; MDCACHE's LRU on 4.3)
engine_fd_open() { ls -l "/proc/$GSH_PID/fd" 2>/dev/null | grep -q -- "$1\$"; }
t0=$SECONDS
while engine_fd_open "$B/b_0" && [ $((SECONDS - t0)) -lt $bound ]; do sleep 0.2; done
engine_fd_open "$B/b_0" &&
  it_fail "b's engine fd still open after ${bound} s: its close waits for export 1's stalled device" ||
  it_pass "b's engine fd closed within $((SECONDS - t0)) s while OA is frozen"
t0=$SECONDS
rm -f "$IT_WORK/back.b"
timeout -k 2 $bound nfs-cp "$(it_url "$B/b_0")" "$IT_WORK/back.b" > /dev/null 2>&1 &&
  cmp -s "$IT_WORK/back.b" "$B/b_0" &&
  it_pass "b read back through export 2 in $((SECONDS - t0)) s while OA is frozen" ||
  it_fail "b could not be read through export 2 within $bound s"
t0=$SECONDS
out=$(timeout -k 2 $bound "$DC_FT_BIN/ft_writer" -H 127.0.0.1 -p "$GSH_NFS_PORT" \
  -M "$GSH_MNT_PORT" -e "$B" -r "$rec" -n 1 -d "" -P d -L $((256 << 10)) -C -t $bound 2>&1 | tail -1)
ok_out "$out" && [ "$(it_kv acked_bytes "$out")" = $((256 << 10)) ] &&
  it_pass "a new file written and committed through export 2 in $((SECONDS - t0)) s while OA is frozen" ||
  it_fail "new I/O on export 2 did not finish within $bound s: $out"
kill -0 "$wr_a" 2>/dev/null && it_log "a's writer still waits on export 1 (OA frozen), as it may"

# 5. OA thawed: everything completes, nothing acknowledged lost
thaw "$OA"
wait "$wr_a"
ok_out "$(cat "$IT_WORK/wr.a.out")" && it_pass "a written through export 1 once OA thawed" ||
  it_fail "writing a through export 1: $(cat "$IT_WORK/wr.a.out")"
for x in "$A a" "$B b" "$B c" "$B d"; do
  set -- $x
  v=$("$DC_FT_BIN/ft_verify" -l "$1" "$rec/${2}_0.rec" 2>&1 | tail -1)
  [ "$(it_kv mismatched_bytes "$v")" = 0 ] && [ "$(it_kv errors "$v")" = 0 ] &&
    [ "$(it_kv false_success_commits "$v")" = 0 ] &&
    it_pass "${2}_0: every acknowledged byte on disk" || it_fail "${2}_0: $v"
done
# the set-up happened: export 2's files went through two passes (c alone, then b and c
# behind a), export 1's a through one
sleep 1.5
read -r p2 f2 <<< "$(fl_stats 2)"; read -r p1 f1 <<< "$(fl_stats 1)"
it_log "flusher: export 2 passes=$p2 files=$f2, export 1 passes=$p1 files=$f1"
[ "${p2:-0}" -ge 2 ] && [ "${f2:-0}" -ge 3 ] && [ "${p1:-0}" -ge 1 ] &&
  it_pass "b was in a pass behind a (export 2: $p2 passes, $f2 files; export 1: $p1)" ||
  it_fail "the scenario did not put b in a pass behind a (export 2: ${p2:-?} passes, ${f2:-?} files; export 1: ${p1:-?})"
it_check_alive "the stall"
