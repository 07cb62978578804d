#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A removed export's remembered losses do not keep its filesystem busy (issue 42 item 8d).
# The export is fault_evict's failing ext4 (no journal, errors=continue, 4 KiB device
# requests, on a loop device whose backing file is made immutable: EIO on every device
# write):
#   loss     1 writer, UNSTABLE, a COMMIT every 64 KiB, until 3 WRITEs or COMMITs failed;
#            the device recovers; a COMMIT of the file still fails (the loss is remembered)
#   remove   DBus RemoveExport of the export (the only one of that filesystem): its handles
#            go, the file's engine entry is kept for its lost data (log: "engine file kept")
#   umount   the filesystem, where ganesha sees it (inside GSH_ROOT for 6.5), must unmount
#            within 30 s: nothing of ganesha's stays open on it (before the fix the kept
#            entry held the file's engine fd, the export's root fd and the filesystem's
#            mount fd: "target is busy" until ganesha stopped)
#   re-add   the filesystem mounted again, DBus AddExport of the same export: a COMMIT of
#            the file through it still fails (what was lost is remembered, no false
#            success), until the file is rewritten and committed
# FSAL_DONTCACHE only (FSAL_VFS remembers nothing lost).
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the module's memory of lost write-back data"
omnt=$IT_WORK/outer mnt=$IT_WORK/exp rec=$IT_WORK/rec
mkdir -p "$rec"
it_loop_ext4 "$IT_WORK/outer.img" 96M "$omnt" -m 0 || it_die "cannot make the outer ext4"
img=$omnt/disk.img
truncate -s 64M "$img"
it_capped_ext4 "$img" "$mnt"
dev=$IT_LOOP_DEV
it_dbus_bus
echo "$mnt|1|$(it_fsal_body_files 1)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
it_dbus_wait_ganesha || it_die "ganesha does not own org.ganesha.nfsd"
log=$IT_LOG
nfs=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$mnt")
W=("$DC_FT_BIN/ft_writer" "${nfs[@]}" -r "$rec" -n 1 -P victim -b 65536 -q 1)
gmnt=${GSH_ROOT:-}$mnt # the mount ganesha's fds are on

# loss
chattr +i "$img" || it_die "chattr +i"
out=$("${W[@]}" -L $((8 << 20)) -s 0 -c 65536 -x 3 2>&1 | tail -1)
it_log "fail: $out"
[ "$(( $(it_kv write_errors "$out") + $(it_kv commit_errors "$out") ))" -ge 1 ] &&
  [ "$(it_kv acked_bytes "$out")" -gt 0 ] ||
  it_die "no WRITE or COMMIT failed after acknowledged WRITEs: $out"
chattr -i "$img" || it_die "chattr -i"
out=$("${W[@]}" -a -K 1 2>&1 | tail -1)
it_log "before: $out"
[ "$(it_kv commit_errors "$out")" = 1 ] && it_pass "the loss is remembered before the removal" ||
  it_die "COMMIT after the failed WRITEs succeeded: $out"

# remove
reply=$(timeout -k 2 60 dbus-send --system --print-reply --reply-timeout=50000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.RemoveExport \
  uint16:1 2>&1) && it_pass "RemoveExport 1 answered" || it_die "RemoveExport 1: $reply"

# umount
held() { # ganesha's fds on the export's filesystem
  local d f n=0
  d=$(stat -c %d "$mnt")
  for f in /proc/"$GSH_PID"/fd/*; do
    [ "$(stat -L -c %d "$f" 2>/dev/null)" = "$d" ] && n=$((n + 1))
  done
  echo $n
}
ok=0
for i in $(seq 30); do
  if err=$(umount "$gmnt" 2>&1); then ok=1; break; fi
  sleep 1
done
if [ $ok = 1 ]; then
  it_pass "the removed export's filesystem unmounts after RemoveExport (try $i)"
else
  it_log "ganesha still holds $(held) fds on it; log: $(grep -c 'engine file kept' "$log") kept"
  it_die "umount of the removed export's filesystem: $err"
fi
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died"

# re-add
mount -t ext4 -o errors=continue "$dev" "$gmnt" || it_die "cannot mount $dev again on $gmnt"
reply=$(timeout -k 2 60 dbus-send --system --print-reply --reply-timeout=50000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.AddExport \
  string:"$IT_WORK/ganesha.conf" string:"EXPORT(Export_Id=1)" 2>&1) &&
  it_pass "AddExport 1 answered" || it_die "AddExport 1: $reply"
out=$("${W[@]}" -a -K 1 2>&1 | tail -1)
it_log "after re-add: $out"
[ "$(it_kv commit_errors "$out")" = 1 ] &&
  it_pass "a COMMIT of the file through the re-added export still fails (no false success)" ||
  it_fail "COMMIT through the re-added export forgot the loss: $out"
for t in 1 2 3; do
  out=$("${W[@]}" -a -L $((8 << 20)) -s 0 -c $((1 << 20)) -C 2>&1 | tail -1)
  it_log "rewrite $t: $out"
  [ "$(it_kv write_errors "$out")" = 0 ] && [ "$(it_kv final_commits_ok "$out")" = 1 ] && break
done
[ "$(it_kv final_commits_ok "$out")" = 1 ] && it_pass "the rewritten file commits (try $t)" ||
  it_fail "the rewritten file does not commit: $out"
vline=$("$DC_FT_BIN/ft_verify" -l "$mnt" "$rec"/victim_*.rec 2>&1 | tail -1)
it_log "verify: $vline"
[ "$(it_kv false_success_commits "$vline")" = 0 ] && [ "$(it_kv mismatched_bytes "$vline")" = 0 ] &&
  it_pass "no false success, nothing acknowledged lost" || it_fail "records: $vline"
