#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Memory safety of the module inside ganesha (issue 5 item 6). ganesha.nfsd runs under
# valgrind memcheck (RTLD_DEEPBIND rules out ASan there) with the DONTCACHE module; a short
# NFSv3 workload: MKDIR/CREATE/WRITE (UNSTABLE, DATA_SYNC, FILE_SYNC)/COMMIT/READ/READDIR/
# LOOKUP/REMOVE/RMDIR, bad requests and a few thousand hostile handles; then a clean
# SIGTERM shutdown. PASS: no invalid read/write/free and no definitely-lost block whose
# stack has a frame of libfsaldontcache.so (ganesha's own reports are counted, not judged).
# Usage: fault_valgrind.sh [BUILD_DIR]
. "$(dirname "$0")/../lib/harness.sh"
command -v valgrind >/dev/null ||
  it_skip "valgrind not installed (scripts/setup.sh installs it)"
mnt=$IT_WORK/exp rec=$IT_WORK/rec
mkdir -p "$rec"
it_loop_ext4 "$IT_WORK/disk.img" 256M "$mnt" || it_die "cannot make the ext4 export"
echo "pre-existing" > "$mnt/old_file"; mkdir -p "$mnt/old_dir/sub"
GSH_WRAPPER="valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite
  --errors-for-leak-kinds=definite --undef-value-errors=no --num-callers=40
  --log-file=$IT_WORK/vg.%p.log"
GSH_START_TRIES=${GSH_START_TRIES:-1800}
export GSH_START_TRIES
it_serve "$mnt"
it_log "ganesha up under valgrind"
ok=1
out=$("$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -r "$rec" -n 4 -d vgdir -P v -L $((2 << 20)) -s 20 \
      -c $((512 << 10)) -C -t 120 2>&1)
it_log "write: $(echo "$out" | tail -1)"
echo "$out" | grep -q 'commit_errors=0 write_errors=0' || { ok=0; it_log "writer failed: $out"; }
u="nfs://127.0.0.1$mnt?version=3&nfsport=$GSH_NFS_PORT&mountport=$GSH_MNT_PORT"
n=$(timeout 120 nfs-ls "nfs://127.0.0.1$mnt/vgdir?version=3&nfsport=$GSH_NFS_PORT&mountport=$GSH_MNT_PORT" 2>&1 | wc -l)
it_log "readdir vgdir: $n entries"; [ "$n" -ge 4 ] || ok=0
timeout 120 nfs-ls -R "$u" > /dev/null 2>&1 || { ok=0; it_log "nfs-ls -R failed"; }
vline=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" -u "$rec"/*.rec 2>&1 | tail -1)
it_log "read+remove: $vline"
[ "$(it_kv mismatched_bytes "$vline")" = 0 ] && [ "$(it_kv unlinked "$vline")" = 4 ] || ok=0
bout=$("$DC_FT_BIN/ft_badreq" "${IT_NFS[@]}" "${IT_ZERO_READ[@]}" 2>&1 | tail -1)
it_log "$bout"
hout=$("$DC_FT_BIN/ft_handles" "${IT_NFS[@]}" -N 3000 -O 100 2>&1 | tail -1)
it_log "$(echo "$hout" | cut -c1-160)"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died under valgrind"
# clean shutdown (slow under valgrind): valgrind writes its leak report at exit
it_vg_stop
clean=$IT_VG_CLEAN
report=$(it_vg_report) || it_die "valgrind report incomplete (shutdown clean=$clean)"
it_log "$report"
[ -s "$IT_WORK/ours.txt" ] && head -60 "$IT_WORK/ours.txt" >&2
vg=$(ls "$IT_WORK"/vg.*.log | head -1)
errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$vg" | tail -1)
sum="$report valgrind_errors=$errs shutdown_clean=$clean workload_ok=$ok"
[ "$(it_kv invalid_module "$report")" = 0 ] && [ "$(it_kv leaks_module "$report")" = 0 ] ||
  it_die "$sum (module frames above)"
[ $ok = 1 ] || it_die "workload failed under valgrind: $sum"
[ $clean = yes ] || it_die "ganesha did not shut down within 180 s of SIGTERM: $sum"
it_pass "$sum"
