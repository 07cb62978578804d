#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
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
# Usage: fault_fullfs.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
mnt=$IT_WORK/exp rec=$IT_WORK/rec
mkdir -p "$rec"
it_loop_ext4 "$IT_WORK/disk.img" 48M "$mnt" -m 0 || it_die "cannot make the ext4 export"
it_serve "$mnt"
W=("$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -r "$rec" -b 65536 -q 4)
mark() { local f; for f in "$rec"/"$1"_*.rec; do echo "M $2" >> "$f"; done; }

for p in keep filler; do
  out=$("${W[@]}" -n 1 -P "$p" -L $((8 << 20)) -s 10 -c $((1 << 20)) -C 2>&1)
  it_log "$p: $(echo "$out" | tail -1)"
  echo "$out" | grep -q 'commit_errors=0 write_errors=0' && [ "$(it_kv final_commits_ok "$out")" = 1 ] ||
    it_die "$p: could not write 8 MiB on an empty filesystem: $out"
done
it_log "filesystem: $(df -h --output=used,avail "$mnt" | tail -1)"

out=$("${W[@]}" -n 2 -P big -L $((64 << 20)) -s 10 -c $((1 << 20)) -x 10 -t 60 2>&1)
fline=$(echo "$out" | tail -1)
it_log "full: $fline"
nerr=$(( $(it_kv commit_errors "$fline") + $(it_kv write_errors "$fline") ))
# statuses of failed WRITEs and COMMITs
bad_status=$(cat "$rec"/big_*.rec | awk '$1=="E" && $4!=28 {print "WRITE:"$4} $1=="C" && $4!=0 && $4!=28 {print "COMMIT:"$4}' | sort | uniq -c | tr '\n' ' ')
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died on a full filesystem"

mark big freed
vout=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" -u "$rec"/filler_*.rec 2>&1)
[ "$(it_kv unlinked "$(echo "$vout" | tail -1)")" = 1 ] || it_die "could not remove the filler: $vout"
sleep 1
it_log "after REMOVE: $(df -h --output=used,avail "$mnt" | tail -1)"
out=$("${W[@]}" -n 1 -P after -L $((4 << 20)) -s 10 -c $((1 << 20)) -C 2>&1)
aline=$(echo "$out" | tail -1)
it_log "freed: $aline"

recs=("$rec"/keep_*.rec "$rec"/big_*.rec "$rec"/after_*.rec)
nv=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" "${recs[@]}" 2>&1 | grep '^ft_verify:')
it_log "via NFS: $nv"
alive=yes
gsh_stop || alive=no
umount "$mnt" && mount -t ext4 -o ro "$IT_LOOP_DEV" "$mnt" || it_die "remount"
vout=$("$DC_FT_BIN/ft_verify" -l "$mnt" -v "${recs[@]}" 2>&1)
echo "$vout" | grep -E 'FALSE|MISSING|^phase' | head -10 >&2
dv=$(echo "$vout" | grep '^ft_verify:')
it_log "from the device: $dv"
fsum() { echo $(( $(it_kv false_success_commits "$1") + $(it_kv false_success_stable "$1") )); }
sum="nospc_errors=$nerr other_statuses=[${bad_status}] false_successes=$(fsum "$dv") (nfs: $(fsum "$nv")) mismatched_bytes=$(it_kv mismatched_bytes "$dv") durable_bytes_checked=$(it_kv durable_bytes "$dv") after_free: commits_ok=$(it_kv commits_ok "$aline") commit_errors=$(it_kv commit_errors "$aline") write_errors=$(it_kv write_errors "$aline") server_up=$alive"
[ "$nerr" -gt 0 ] || it_die "the filesystem never filled: $sum"
[ -z "$bad_status" ] || it_die "failures other than NOSPC: $sum"
[ "$(fsum "$dv")" = 0 ] && [ "$(fsum "$nv")" = 0 ] && [ "$(it_kv mismatched_bytes "$dv")" = 0 ] &&
  [ "$(it_kv errors "$dv")" = 0 ] || it_die "$sum"
echo "$aline" | grep -q 'commit_errors=0 write_errors=0' && [ "$(it_kv final_commits_ok "$aline")" = 1 ] ||
  it_die "writes/COMMITs still fail after space was freed: $sum"
[ "$alive" = yes ] || it_die "$sum"
it_pass "$sum"
