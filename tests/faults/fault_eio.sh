#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# I/O errors, transient and lasting (issue 5 item 3). The export is ext4 (no journal,
# errors=continue) on a loop device whose backing file lies on a small tmpfs; the loop
# device's requests are capped at 4 KiB (max_sectors_kb) so a partly written request is an
# error, not a success. Phases (each record gets an "M <phase>" mark):
#   pre        2 writers, 4 MiB each, UNSTABLE + COMMITs, all acknowledged: must succeed
#   failing    4 writers, UNSTABLE (+10% stable) + COMMIT every 1 MiB until each saw 20
#              failures: the tmpfs fills, writeback fails, COMMITs must report it
#   recovered  the tmpfs is grown (device works again); 3 more COMMITs on every file,
#              writing nothing: a COMMIT covering lost data must still fail
#   rewrite    files f_0 and f_1 are rewritten whole and committed: must succeed now
# Then ganesha stops, the filesystem is unmounted, the loop device detached and re-attached
# and mounted again, and every byte the server acknowledged (stable WRITE or OK COMMIT with
# the WRITE's verifier) is compared with the device: a COMMIT/stable WRITE answered OK whose
# data is not on the device is a false success. PASS: failures were injected and reported,
# zero false successes on data acknowledged before/while the device failed and not rewritten
# since (phases pre, failing, recovered) and on the rewrite, the rewrite committed, the
# server stayed up.
# Usage: fault_eio.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS (VFS is expected to FAIL)
#   FT_EIO_WRITE: ft_writer's WRITE sizes (default "-b 65536"; fault_eio_kick.sh: every WRITE
#   1 MiB); FT_EIO_KICK=1: the DONTCACHE server must also have kicked some of them
#   (worker_writes.kicked > 0, Kick_Us_Per_MiB), so the error rule holds for kicked writes;
#   FT_EIO_FSAL: more FSAL parameters of the DONTCACHE export (fault_eio_kick_db.sh: dropbehind)
. "$(dirname "$0")/../lib/harness.sh"

tmp=$IT_WORK/tmpfs mnt=$IT_WORK/exp rec=$IT_WORK/rec
mkdir -p "$tmp" "$rec"
mount -t tmpfs -o size=512M tmpfs "$tmp" || it_die "mount tmpfs"
IT_MOUNTS+=("$tmp")
truncate -s 256M "$tmp/disk.img"
it_capped_ext4 "$tmp/disk.img" "$mnt"
dev=$IT_LOOP_DEV
it_log "tmpfs after mkfs: $(df -h --output=used,avail "$tmp" | tail -1)"

if it_is_dontcache; then it_serve "$mnt" ${FT_EIO_FSAL:-}; else it_serve "$mnt"; fi
read -r -a wsize <<< "${FT_EIO_WRITE:--b 65536}"
W=("$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -r "$rec" "${wsize[@]}" -q 4)
mark() { local f; for f in "$rec"/"$1"_*.rec; do echo "M $2" >> "$f"; done; }

# pre: committed before any failure
out=$("${W[@]}" -n 2 -P pre -L $((4 << 20)) -s 10 -c $((1 << 20)) -C 2>&1)
it_log "pre: $(echo "$out" | tail -1)"
echo "$out" | grep -q 'commit_errors=0 write_errors=0' &&
  [ "$(it_kv final_commits_ok "$out")" = 2 ] || it_die "pre phase did not commit cleanly: $out"
mark pre pre-done

# The failing phase's files are written whole (zeros) while the device works, and then the
# tmpfs pages behind their blocks are given back (holes punched in the image: the device reads
# the same zeros there). A write there needs a new tmpfs page again, so it is what fails once
# the tmpfs is full; ext4 changes no extent, bitmap or other metadata block for such an
# overwrite. (Writes into unwritten extents would need extent conversions, whose failure ext4
# 6.18 logs as "failed to convert unwritten extents" but does not report to fsync: data lost
# behind a successful fdatasync, which no server can see.)
for i in 0 1 2 3; do
  dd if=/dev/zero of="$mnt/f_$i" bs=1M count=32 conv=fsync status=none || it_die "prewrite"
done
sync -f "$mnt"
bs=$(stat -f -c %S "$mnt")
for i in 0 1 2 3; do
  filefrag -v "$mnt/f_$i" | awk -F'[:. ]+' '/^ *[0-9]+: /{print $5, $6}' |
  while read -r p0 p1; do
    fallocate -p -o $((p0 * bs)) -l $(((p1 - p0 + 1) * bs)) "$tmp/disk.img" || exit 1
  done || it_die "cannot punch the blocks of f_$i out of the image"
done
used=$(df -k --output=used "$tmp" | tail -1)
mount -o remount,size=$((used + ${FT_EIO_ROOM_KB:-16384}))k "$tmp" || it_die "cannot shrink the tmpfs"
it_log "tmpfs before failing: $(df -h --output=used,avail "$tmp" | tail -1)"

# failing: fill the tmpfs behind the device
out=$("${W[@]}" -n 4 -P f -L $((32 << 20)) -s 10 -c $((1 << 20)) -x 20 -t 60 2>&1)
fline=$(echo "$out" | tail -1)
it_log "failing: $fline"
it_log "tmpfs full: $(df -h --output=used,avail "$tmp" | tail -1)"
ferr=$(( $(it_kv commit_errors "$fline") + $(it_kv write_errors "$fline") ))
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died while the device failed"

# recovered: grow the tmpfs, COMMIT again without writing
mount -o remount,size=2G "$tmp" || it_die "cannot grow the tmpfs"
mark f recovered
mark pre recovered
out=$("${W[@]}" -n 4 -P f -a -K 3 2>&1)
rline=$(echo "$out" | tail -1)
it_log "recovered: $rline"
out=$("${W[@]}" -n 2 -P pre -a -K 2 2>&1)
it_log "recovered (pre files): $(echo "$out" | tail -1)"
[ "$(it_kv commit_errors "$out")" = 0 ] || it_die "COMMIT of the pre-failure files failed after recovery: $out"

# rewrite f_0 and f_1 whole: their COMMITs must succeed again
mark f rewrite
out=$("${W[@]}" -n 2 -P f -a -L $((32 << 20)) -s 0 -c $((1 << 20)) -C 2>&1)
wline=$(echo "$out" | tail -1)
it_log "rewrite: $wline"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died"
alive=yes
kicked=
if [ "${FT_EIO_KICK:-0}" = 1 ] && it_is_dontcache; then
  kicked=$(jq -r '.engine.worker_writes.kicked // 0' "$IT_WORK/export-1.stats.json" 2>/dev/null)
fi
gsh_stop || alive="no (exit status $?)"

# verify against the device itself
umount "$mnt" || it_die "umount"
losetup -d "$dev"
fsck_out=$(fsck.ext4 -n -f "$tmp/disk.img" 2>&1); fsck=$(echo "$fsck_out" | tail -1); [ "${FT_VERBOSE:-0}" = 1 ] && echo "$fsck_out" >&2
it_log "fsck -n: $fsck"
echo "$fsck_out" | grep -q 'still has errors' && fsck_clean=no || fsck_clean=yes
dev=$(losetup -f --show -r "$tmp/disk.img") || it_die "losetup again"
IT_LOOPS+=("$dev")
mount -t ext4 -o ro "$dev" "$mnt" || it_die "mount again"
vout=$("$DC_FT_BIN/ft_verify" -l "$mnt" -v "$rec"/*.rec 2>&1)
echo "$vout" | grep -E 'FALSE|MISSING' | head -10 >&2
echo "$vout" | grep -E '^phase|^ft_verify' >&2
if [ "${FT_VERBOSE:-0}" = 1 ]; then
  # what the device holds where the first false success was seen
  echo "$vout" | sed -n 's/.*FALSE SUCCESS: \([^ ]*\) .*write #[0-9]* \[\([0-9]*\),+\([0-9]*\)).*/\1 \2 \3/p' | head -3 |
  while read -r f off len; do
    echo "== $f at $off (+$len):" >&2
    dd if="$mnt/$f" bs=1 skip="$off" count=32 2>/dev/null | od -An -tx1 >&2
    filefrag -v "$mnt/$f" 2>/dev/null | tail -n +4 >&2
  done
fi
vline=$(echo "$vout" | grep '^ft_verify:')
ph() { echo "$vout" | grep "^phase $1:"; }
pm=$(ph main) pr=$(ph recovered) pw=$(ph rewrite)
# False successes on data acknowledged before/while the device failed and not rewritten
# since (phases "main" = pre + failing, and "recovered"), and on the rewrite.
fs=0
for l in "$pm" "$pr"; do
  fs=$((fs + $(it_kv false_success_commits "$l") + $(it_kv false_success_stable "$l")))
done
fw=$(( $(it_kv false_success_commits "$pw") + $(it_kv false_success_stable "$pw") ))
sum="errors_injected_reported=$ferr (failing phase: commits_failed=$(it_kv commits_failed "$pm") write_errors=$(it_kv write_errors "$pm")) false_successes=$fs (failing: commits=$(it_kv false_success_commits "$pm") stable=$(it_kv false_success_stable "$pm"); after recovery: commits=$(it_kv false_success_commits "$pr")) after_recovery: commits_ok=$(it_kv commits_ok "$pr") commits_failed=$(it_kv commits_failed "$pr") durable_bytes_checked=$(it_kv durable_bytes "$vline") lost_unacked_writes=$(it_kv lost_unacked_writes "$vline") rewrite: final_commits_ok=$(it_kv final_commits_ok "$wline")/2 false_successes_after_rewrite=$fw server_up=$alive fsck_clean=$fsck_clean${kicked:+ kicked_writes=$kicked}"
[ "$ferr" -gt 0 ] || it_die "no failure was injected (tmpfs never filled?): $sum"
[ "$(it_kv errors "$vline")" = 0 ] || it_die "verification errors: $vline"
[ "$fs" = 0 ] && [ "$fw" = 0 ] || it_die "$sum"
[ "$(it_kv final_commits_ok "$wline")" = 2 ] || it_die "rewritten data did not commit after recovery: $sum"
[ "$alive" = yes ] || it_die "$sum"
[ -z "$kicked" ] || [ "$kicked" -gt 0 ] || it_die "no WRITE was kicked (RWF_DONTCACHE on the worker): $sum"
it_pass "$sum"
