#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Removing one of two exports that share objects, under I/O, under valgrind memcheck (issue 16;
# ASan cannot run inside ganesha: it dlopens FSALs with RTLD_DEEPBIND, see fault_valgrind.sh).
# One ext4: export 1 = M/one, export 2 = M/two. Writers through export 2 make two/s/s_*
# (their engine files open in export 2's engine export), which are then hard-linked as
# one/s/s_*: one MDCACHE object each, seen through both exports. Export 1 reads them (through
# the engine files export 2 opened); writers on both exports at once; DBus RemoveExport of
# export 2 while they run; then the shared files are read and written through export 1
# (still through those engine files); export 2 is added back (DBus AddExport) and writes them
# again while export 1's block is reloaded (SIGHUP) under its writers; every
# acknowledged-durable byte of every writer is checked on the disk (ft_verify -l). (Nested exports share objects too, but an NFSv3 client
# of the outer one cannot LOOKUP into the inner one's junction: ganesha answers ACCES.)
# Then the other order (issue 37): files written through export 1, linked into export 2's tree
# and read through it, export 1 removed, read again through export 2, with ganesha 6.5's fd
# reaper running every second (MDCACHE block below): it closes each file's global fd starting
# from the export that fd names. Before the fix that was the export whose request made the
# object, unreferenced: after a RemoveExport (export 2's at step 2 already) the reaper used the
# freed export (6.5: ganesha aborted in init_op_context right after RemoveExport 2).
# PASS: export 1's writers saw no error, nothing acknowledged was lost, ganesha shut down
# cleanly, and valgrind found no invalid access at all and no definitely-lost block in the
# module.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the module's export teardown; FSAL_VFS has its own"
command -v valgrind >/dev/null || it_skip "valgrind not installed (scripts/setup.sh installs it)"
M=$IT_WORK/m rec=$IT_WORK/rec
mkdir -p "$rec"
it_loop_ext4 "$IT_WORK/disk.img" 768M "$M" || it_die "cannot make the ext4 export"
mkdir -p "$M/one/s" "$M/two"
# under valgrind, with ganesha 6.5's fd reaper every second closing every idle global fd
# (step 7)
it_vg_two_exports "$M" "" --leak-check=full --show-leak-kinds=definite \
  --errors-for-leak-kinds=definite
nfs1=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$M/one")
nfs2=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$M/two")

# 1. files written through export 2 (kept: their engine files stay open in its engine export)
out=$("$DC_FT_BIN/ft_writer" "${nfs2[@]}" -r "$rec" -n 3 -d s -P s -L $((1 << 20)) -c $((256 << 10)) \
      -C -t 120 2>&1 | tail -1)
it_log "export 2 writers: $out"
echo "$out" | grep -q 'commit_errors=0 write_errors=0' || it_fail "export 2's first writers: $out"
for i in 0 1 2; do ln "$M/two/s/s_$i" "$M/one/s/s_$i" || it_die "cannot link s_$i"; done
shared_read() { # shared_read WHEN: each s_i read through export 1 matches the disk
  local i
  for i in 0 1 2; do
    rm -f "$IT_WORK/back.$i"
    timeout -k 2 120 nfs-cp "$(it_url "$M/one/s/s_$i")" "$IT_WORK/back.$i" >/dev/null 2>&1 &&
      cmp -s "$IT_WORK/back.$i" "$M/two/s/s_$i" &&
      it_pass "s_$i (made through export 2) read through export 1 $1" ||
      it_fail "s_$i could not be read through export 1 $1"
  done
}
shared_read "while both exist"

# 2. writers on both exports, export 2 removed while they run
"$DC_FT_BIN/ft_writer" "${nfs1[@]}" -r "$rec" -n 3 -d t -P t -t 25 -L $((64 << 20)) -b 262144 \
  -c $((512 << 10)) -C > "$IT_WORK/w1.out" 2>&1 &
w1=$!
IT_EXTRA_PIDS+=("$w1")
"$DC_FT_BIN/ft_writer" "${nfs2[@]}" -r "$rec" -n 3 -d u -P u -t 25 -L $((64 << 20)) -b 262144 \
  -x 5 -c $((512 << 10)) -C > "$IT_WORK/w2.out" 2>&1 &
w2=$!
IT_EXTRA_PIDS+=("$w2")
sleep 2
kill -0 "$w1" 2>/dev/null && kill -0 "$w2" 2>/dev/null &&
  it_pass "writers on both exports running when export 2 is removed" ||
  it_fail "a writer ended before the removal: the scenario did not remove an export under I/O"
reply=$(timeout -k 2 60 dbus-send --system --print-reply --reply-timeout=50000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.RemoveExport \
  uint16:2 2>&1) && it_pass "RemoveExport 2 answered" || it_fail "RemoveExport 2: $reply"
timeout -k 2 60 dbus-send --system --print-reply --dest=org.ganesha.nfsd \
  /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.ShowExports > "$IT_WORK/exports.txt" 2>&1
grep -q "$M/two" "$IT_WORK/exports.txt" && it_fail "export 2 is still listed after RemoveExport"

# shared_write OFFSET WHAT NFS-ARGS...: 256 KiB more of each shared file at OFFSET, committed
shared_write() {
  local off=$1 what=$2 out; shift 2
  out=$("$DC_FT_BIN/ft_writer" "$@" -r "$rec" -n 3 -d s -P s -a -L $((256 << 10)) -o "$off" \
        -C -t 60 2>&1 | tail -1)
  it_log "$what: $out"
  echo "$out" | grep -q 'commit_errors=0 write_errors=0' && it_pass "$what" ||
    it_fail "$what: $out"
}

# 3. the shared files through export 1, while export 1's writers go on: read back, append
shared_read "after RemoveExport 2"
shared_write $((1 << 20)) "export 2's files written and committed through export 1" "${nfs1[@]}"
wait "$w1"; wait "$w2"
it_log "export 1 writers: $(tail -1 "$IT_WORK/w1.out")"
it_log "export 2 writers (removed under them): $(tail -1 "$IT_WORK/w2.out")"
tail -1 "$IT_WORK/w1.out" | grep -q 'commit_errors=0 write_errors=0' &&
  it_pass "export 1's writers saw no error across the removal" ||
  it_fail "export 1's writers: $(tail -1 "$IT_WORK/w1.out")"

# 4. export 2 added back (DBus AddExport) and export 1's FSAL block reloaded (SIGHUP), with
# writers on both: the shared files go on through both
"$DC_FT_BIN/ft_writer" "${nfs1[@]}" -r "$rec" -n 2 -d t2 -P t2 -t 20 -L $((32 << 20)) -b 262144 \
  -c $((512 << 10)) -C > "$IT_WORK/w3.out" 2>&1 &
w3=$!
IT_EXTRA_PIDS+=("$w3")
reply=$(timeout -k 2 60 dbus-send --system --print-reply --reply-timeout=50000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.AddExport \
  string:"$IT_WORK/ganesha.conf" string:"EXPORT(Export_Id=2)" 2>&1) &&
  it_pass "AddExport 2 answered" || it_fail "AddExport 2: $reply"
shared_write $((2 << 20)) "the shared files written and committed through the re-added export 2" \
  "${nfs2[@]}"
sed -i "s#Handle_Key_File = $IT_WORK/k1;#Handle_Key_File = $IT_WORK/k1; Max_Inflight_Bytes = 8388608;#" \
  "$IT_WORK/ganesha.conf"
kill -HUP "$GSH_PID"
for _ in $(seq 300); do
  grep -q "export 1: reload: applied: Max_Inflight_Bytes" "$IT_LOG" && break
  sleep 0.1
done
grep -q "export 1: reload: applied: Max_Inflight_Bytes 268435456 -> 8388608" "$IT_LOG" &&
  it_pass "SIGHUP applied export 1's new Max_Inflight_Bytes under I/O" ||
  it_fail "no reload line for export 1 after SIGHUP"
shared_read "after AddExport 2 and a reload"
wait "$w3"
tail -1 "$IT_WORK/w3.out" | grep -q 'commit_errors=0 write_errors=0' &&
  it_pass "export 1's writers saw no error across AddExport and the reload" ||
  it_fail "export 1's writers across AddExport/SIGHUP: $(tail -1 "$IT_WORK/w3.out")"

# 5. every acknowledged-durable byte on the disk
durable_ok() {
  [ "$(it_kv mismatched_bytes "$1")" = 0 ] && [ "$(it_kv false_success_commits "$1")" = 0 ] &&
    [ "$(it_kv false_success_stable "$1")" = 0 ] && [ "$(it_kv errors "$1")" = 0 ] &&
    [ "$(it_kv durable_bytes "$1")" -gt 0 ]
}
vline=$("$DC_FT_BIN/ft_verify" -l "$M/two" "$rec"/s_*.rec "$rec"/u_*.rec 2>&1 | tail -1)
it_log "export 2's records: $vline"
durable_ok "$vline" && it_pass "nothing acknowledged through export 2 was lost" ||
  it_fail "export 2's records: $vline"
vline=$("$DC_FT_BIN/ft_verify" -l "$M/one" "$rec"/t_*.rec "$rec"/t2_*.rec 2>&1 | tail -1)
it_log "export 1's records: $vline"
durable_ok "$vline" && it_pass "nothing acknowledged through export 1 was lost" ||
  it_fail "export 1's records: $vline"

# 6. the survivor still serves, then a clean shutdown and valgrind's verdict
timeout -k 2 60 nfs-ls "$(it_url "$M/one/t")" > /dev/null 2>&1 &&
  it_pass "export 1 still lists t/" || it_fail "export 1 does not list t/ any more"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died"

# 7. the other order (issue 37): files written through export 1 (their objects made by export 1's
# requests, so on 6.5 their global fds name export 1), linked into export 2's tree and read
# through export 2; export 1 removed while export 2 still shows them; read through export 2
# again (reopening the global fd) and the fd reaper left to close them, several times. Before
# the fix the reaper used export 1's freed export (invalid reads, or a call through its
# zeroed ops).
mkdir -p "$M/two/r"
out=$("$DC_FT_BIN/ft_writer" "${nfs1[@]}" -r "$rec" -n 3 -d r -P r -L $((512 << 10)) \
      -c $((256 << 10)) -C -t 60 2>&1 | tail -1)
it_log "export 1 writers (step 7): $out"
echo "$out" | grep -q 'commit_errors=0 write_errors=0' && it_pass "files written through export 1" ||
  it_fail "export 1's writers (step 7): $out"
for i in 0 1 2; do ln "$M/one/r/r_$i" "$M/two/r/r_$i" || it_die "cannot link r_$i"; done
read2() { # read2 WHEN: each r_i read through export 2 matches the disk
  local i
  for i in 0 1 2; do
    rm -f "$IT_WORK/back2.$i"
    timeout -k 2 120 nfs-cp "$(it_url "$M/two/r/r_$i")" "$IT_WORK/back2.$i" >/dev/null 2>&1 &&
      cmp -s "$IT_WORK/back2.$i" "$M/one/r/r_$i" &&
      it_pass "r_$i (made through export 1) read through export 2 $1" ||
      it_fail "r_$i could not be read through export 2 $1"
  done
}
read2 "while both exist"
reply=$(timeout -k 2 60 dbus-send --system --print-reply --reply-timeout=50000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.RemoveExport \
  uint16:1 2>&1) && it_pass "RemoveExport 1 answered" || it_fail "RemoveExport 1: $reply"
for round in 1 2 3; do
  read2 "after RemoveExport 1 (round $round)"
  sleep 4 # the reaper (every second) closes the global fds the reads opened
  kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died after RemoveExport 1 (round $round)"
done
timeout -k 2 60 nfs-ls "$(it_url "$M/two/r")" > /dev/null 2>&1 &&
  it_pass "export 2 still lists r/ after RemoveExport 1" || it_fail "export 2 does not list r/"
it_vg_stop
report=$(it_vg_report) || it_die "valgrind report incomplete (shutdown clean=$IT_VG_CLEAN)"
it_log "$report"
[ -s "$IT_WORK/ours.txt" ] && head -80 "$IT_WORK/ours.txt" >&2
[ "$(it_kv invalid_module "$report")" = 0 ] && [ "$(it_kv leaks_module "$report")" = 0 ] &&
  it_pass "valgrind: no invalid access, no leak in the module ($report)" ||
  it_fail "valgrind: $report (module frames above)"
[ "$(it_kv invalid_total "$report")" = 0 ] &&
  it_pass "valgrind: no invalid access anywhere (ganesha's fd reaper included)" ||
  it_fail "valgrind: invalid accesses outside the module's frames: $report"
[ "$IT_VG_CLEAN" = yes ] && it_pass "clean shutdown" || it_fail "ganesha did not shut down within 180 s"
