#!/usr/bin/env bash
# Lost write-back data outlives ganesha's cache (issue 5: no error is swallowed). The export
# is a small loop-mounted ext4 that the test fills, leaving 1 MiB; MDCACHE keeps at most 20
# entries. Phases:
#   fail     1 writer, UNSTABLE, no COMMIT, until 3 WRITEs failed with NOSPC
#   before   a COMMIT of the file must fail (the acknowledged data is remembered lost)
#   evict    READDIRPLUS of 300 other files: ganesha evicts the file's handle; the module
#            must keep its engine file (log: "engine file kept")
#   after    2 COMMITs through the same NFS handle (a new ganesha handle adopts the kept
#            engine file, log: "adopts"): both must still fail
#   rewrite  space freed, the file rewritten whole and committed: must succeed
# Then every acknowledged byte is read back through NFS: zero false successes.
# Usage: fault_evict.sh [BUILD_DIR]   env: FT_FSAL=DONTCACHE|VFS (VFS is expected to FAIL)
[ "${GSH_IN_NS:-}" = 1 ] || exec "$(dirname "$0")/../lib/in-ns.sh" "$0" "$@"
set -u
. "$(dirname "$0")/../faults/ftcommon.sh"
ft_init evict "${1:-}"
ft_need_module
mnt=$FT_WORK/exp rec=$FT_WORK/rec
mkdir -p "$rec"
ft_loop_ext4 "$FT_WORK/disk.img" 32M "$mnt" -m 0 || ft_result FAIL "cannot make the ext4 export"
mkdir "$mnt/many"
for i in $(seq 300); do : > "$mnt/many/f$i"; done
FT_CONF_EXTRA='MDCACHE { Entries_HWMark = 20; LRU_Run_Interval = 1; }'
ft_start "$mnt"
log=$(ft_gsh_log)
W=("$FT_BIN/ft_writer" "${FT_NFS[@]}" -r "$rec" -n 1 -P victim -b 65536 -q 1)
mark() { echo "M $1" >> "$rec/victim_0.rec"; }

avail=$(df -k --output=avail "$mnt" | tail -1)
fallocate -l $(((avail - 1024) * 1024)) "$mnt/fill" || ft_result FAIL "cannot fill the filesystem"
sync -f "$mnt"

out=$("${W[@]}" -L $((8 << 20)) -s 0 -c 0 -x 3 2>&1 | tail -1)
ft_log "fail: $out"
[ "$(ft_kv write_errors "$out")" -ge 1 ] && [ "$(ft_kv acked_bytes "$out")" -gt 0 ] ||
  ft_result FAIL "no WRITE failed with NOSPC after acknowledged ones: $out"

mark before
out=$("${W[@]}" -a -K 1 2>&1 | tail -1)
ft_log "before: $out"
[ "$(ft_kv commit_errors "$out")" = 1 ] || ft_result FAIL "COMMIT after the failed WRITEs succeeded: $out"

n=$(timeout 60 nfs-ls "nfs://127.0.0.1$mnt/many?version=3&nfsport=$GSH_NFS_PORT&mountport=$GSH_MNT_PORT" 2>&1 | wc -l)
ft_log "evict: listed $n files"
if [ "$FT_FSAL" = DONTCACHE ]; then
  for i in $(seq 50); do grep -q 'engine file kept' "$log" && break; sleep 0.1; done
  grep -q 'engine file kept' "$log" || ft_result FAIL "the file's handle was not evicted (listed $n files)"
else
  sleep 2   # FSAL_VFS logs nothing on eviction: give the LRU its run
fi

mark after
out=$("${W[@]}" -a -K 2 2>&1 | tail -1)
ft_log "after: $out"
adopted=$(grep -c 'adopts its kept engine file' "$log")
[ "$(ft_kv commit_errors "$out")" = 2 ] ||
  ft_result FAIL "COMMIT after the handle was evicted forgot the lost data: $out (adopted=$adopted)"

rm -f "$mnt/fill"
sync -f "$mnt"
mark rewrite
out=$("${W[@]}" -a -L $((8 << 20)) -s 0 -c $((1 << 20)) -C 2>&1 | tail -1)
ft_log "rewrite: $out"
[ "$(ft_kv write_errors "$out")" = 0 ] && [ "$(ft_kv final_commits_ok "$out")" = 1 ] ||
  ft_result FAIL "rewrite after freeing space did not commit: $out"

vline=$("$FT_BIN/ft_verify" "${FT_NFS[@]}" "$rec"/*.rec 2>&1 | tail -1)
ft_log "verify: $vline"
fs=$(( $(ft_kv false_success_commits "$vline") + $(ft_kv false_success_stable "$vline") ))
kill -0 "$GSH_PID" 2>/dev/null || ft_result FAIL "ganesha died"
[ "$fs" = 0 ] && [ "$(ft_kv errors "$vline")" = 0 ] || ft_result FAIL "false successes: $vline"
ft_result PASS "write_errors_injected=yes commit_before_evict=failed evicted=yes adopted=$adopted commits_after_evict=failed rewrite=committed false_successes=0"
