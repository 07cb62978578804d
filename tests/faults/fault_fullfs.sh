#!/usr/bin/env bash
# Full disk (issue 5 item 2). Export: a 48 MiB ext4 on a loop device created by the test.
#   keep    8 MiB written and committed while there is room
#   filler  8 MiB written and committed
#   full    2 writers push 64 MiB each (UNSTABLE + COMMIT every 1 MiB, 10% stable) until each
#           saw 10 failures: every failure must be NFS3ERR_NOSPC (on WRITE or COMMIT)
#   freed   the filler is removed through NFS; a new 4 MiB file is written and committed:
#           every WRITE and COMMIT must succeed
# Every acknowledged byte (stable WRITE, or OK COMMIT with the WRITE's verifier) is then read
# back through NFS and, after ganesha stopped and the filesystem was remounted, from the
# device: zero false successes, "keep" intact.
# Usage: fault_fullfs.sh [BUILD_DIR]   env: FT_FSAL=DONTCACHE|VFS
[ "${GSH_IN_NS:-}" = 1 ] || exec "$(dirname "$0")/../lib/in-ns.sh" "$0" "$@"
set -u
. "$(dirname "$0")/../faults/ftcommon.sh"
ft_init fullfs "${1:-}"
ft_need_module
mnt=$FT_WORK/exp rec=$FT_WORK/rec
mkdir -p "$rec"
ft_loop_ext4 "$FT_WORK/disk.img" 48M "$mnt" -m 0 || ft_result FAIL "cannot make the ext4 export"
ft_start "$mnt"
W=("$FT_BIN/ft_writer" "${FT_NFS[@]}" -r "$rec" -b 65536 -q 4)
mark() { local f; for f in "$rec"/"$1"_*.rec; do echo "M $2" >> "$f"; done; }

for p in keep filler; do
  out=$("${W[@]}" -n 1 -P "$p" -L $((8 << 20)) -s 10 -c $((1 << 20)) -C 2>&1)
  ft_log "$p: $(echo "$out" | tail -1)"
  echo "$out" | grep -q 'commit_errors=0 write_errors=0' && [ "$(ft_kv final_commits_ok "$out")" = 1 ] ||
    ft_result FAIL "$p: could not write 8 MiB on an empty filesystem: $out"
done
ft_log "filesystem: $(df -h --output=used,avail "$mnt" | tail -1)"

out=$("${W[@]}" -n 2 -P big -L $((64 << 20)) -s 10 -c $((1 << 20)) -x 10 -t 60 2>&1)
fline=$(echo "$out" | tail -1)
ft_log "full: $fline"
nerr=$(( $(ft_kv commit_errors "$fline") + $(ft_kv write_errors "$fline") ))
# statuses of failed WRITEs and COMMITs
bad_status=$(cat "$rec"/big_*.rec | awk '$1=="E" && $4!=28 {print "WRITE:"$4} $1=="C" && $4!=0 && $4!=28 {print "COMMIT:"$4}' | sort | uniq -c | tr '\n' ' ')
kill -0 "$GSH_PID" 2>/dev/null || ft_result FAIL "ganesha died on a full filesystem"

mark big freed
vout=$("$FT_BIN/ft_verify" "${FT_NFS[@]}" -u "$rec"/filler_*.rec 2>&1)
[ "$(ft_kv unlinked "$(echo "$vout" | tail -1)")" = 1 ] || ft_result FAIL "could not remove the filler: $vout"
sleep 1
ft_log "after REMOVE: $(df -h --output=used,avail "$mnt" | tail -1)"
out=$("${W[@]}" -n 1 -P after -L $((4 << 20)) -s 10 -c $((1 << 20)) -C 2>&1)
aline=$(echo "$out" | tail -1)
ft_log "freed: $aline"

recs=("$rec"/keep_*.rec "$rec"/big_*.rec "$rec"/after_*.rec)
nv=$("$FT_BIN/ft_verify" "${FT_NFS[@]}" "${recs[@]}" 2>&1 | grep '^ft_verify:')
ft_log "via NFS: $nv"
alive=yes
gsh_stop || alive=no
umount "$mnt" && mount -t ext4 -o ro "$FT_LOOP_DEV" "$mnt" || ft_result FAIL "remount"
vout=$("$FT_BIN/ft_verify" -l "$mnt" -v "${recs[@]}" 2>&1)
echo "$vout" | grep -E 'FALSE|MISSING|^phase' | head -10 >&2
dv=$(echo "$vout" | grep '^ft_verify:')
ft_log "from the device: $dv"
fsum() { echo $(( $(ft_kv false_success_commits "$1") + $(ft_kv false_success_stable "$1") )); }
sum="nospc_errors=$nerr other_statuses=[${bad_status}] false_successes=$(fsum "$dv") (nfs: $(fsum "$nv")) mismatched_bytes=$(ft_kv mismatched_bytes "$dv") durable_bytes_checked=$(ft_kv durable_bytes "$dv") after_free: commits_ok=$(ft_kv commits_ok "$aline") commit_errors=$(ft_kv commit_errors "$aline") write_errors=$(ft_kv write_errors "$aline") server_up=$alive"
[ "$nerr" -gt 0 ] || ft_result FAIL "the filesystem never filled: $sum"
[ -z "$bad_status" ] || ft_result FAIL "failures other than NOSPC: $sum"
[ "$(fsum "$dv")" = 0 ] && [ "$(fsum "$nv")" = 0 ] && [ "$(ft_kv mismatched_bytes "$dv")" = 0 ] &&
  [ "$(ft_kv errors "$dv")" = 0 ] || ft_result FAIL "$sum"
echo "$aline" | grep -q 'commit_errors=0 write_errors=0' && [ "$(ft_kv final_commits_ok "$aline")" = 1 ] ||
  ft_result FAIL "writes/COMMITs still fail after space was freed: $sum"
[ "$alive" = yes ] || ft_result FAIL "$sum"
ft_result PASS "$sum"
