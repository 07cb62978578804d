#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The kept-file table's last bound (issue 42 item 9a): past DC_TOMB_FACTOR (16) x
# Kept_Files_Max entries in short form the oldest is dropped, and the NFSv4 write verifier
# changes first (efile.c, park()), so that no COMMIT that finds the entry gone answers OK
# with the verifier of a WRITE acknowledged before. The export is fault_evict.sh's ext4 on a
# loop device whose backing file is made immutable (every device write fails with EIO),
# MDCACHE keeps at most 20 entries, DONTCACHE { Bench { Kept_Files_Max = 1; } }: 1 kept
# engine file and 16 in short form, so the 18th failed file evicted drops one.
#   fail     the device fails; 18 NFSv3 writers (ft_writer), one file each, until each saw
#            a WRITE or COMMIT fail (write-back lost acknowledged data)
#   settle   the device works again; 2 COMMITs of each file (all fail: remembered), which
#            also take any error the kernel still held for their pages
#   across   ft_verf4 -x across over NFSv4.2: a steady verifier on verf_clean, one more
#            UNSTABLE WRITE of it (verifier VW), then READDIRPLUS of 300 other files until
#            ganesha evicted the 18 files' handles and the log says a memory "is dropped";
#            then a COMMIT of verf_clean must fail or answer a verifier other than VW.
#            Deleting the verifier change at the drop makes it answer VW (proven once).
# NFSv3's verifier is ganesha's own and never changes (efile.c's header comment).
# Usage: fault_evict_drop.sh [BUILD_DIR]   (FSAL_DONTCACHE's: FSAL_VFS keeps no memory)
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the kept-file table is FSAL_DONTCACHE's"
it_need_prog ft_writer ft_verf4
omnt=$IT_WORK/outer mnt=$IT_WORK/exp rec=$IT_WORK/rec
N=18
mkdir -p "$rec"
it_evict_ext4 "$omnt" "$mnt"
img=$omnt/disk.img
IT_CONF_EXTRA=$'MDCACHE { Entries_HWMark = 20; LRU_Run_Interval = 1; }\nDONTCACHE { Bench { Kept_Files_Max = 1; } }'
it_serve "$mnt"
log=$IT_LOG
W=("$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -r "$rec" -n $N -P d -b 65536 -q 1)

chattr +i "$img" || it_die "chattr +i"
out=$("${W[@]}" -L $((1 << 20)) -s 0 -c 65536 -x 1 2>&1 | tail -1)
it_log "fail: $out"
chattr -i "$img" || it_die "chattr -i"
[ "$(( $(it_kv write_errors "$out") + $(it_kv commit_errors "$out") ))" -ge $N ] ||
  it_die "not every writer saw a failure: $out"
out=$("${W[@]}" -a -K 2 2>&1 | tail -1)
it_log "settle: $out"
[ "$(it_kv commit_errors "$out")" = $((2 * N)) ] ||
  it_die "a COMMIT of a file whose write-back failed answered OK: $out"
kept0=$(grep -c 'engine file kept' "$log")
drop0=$(grep -c 'is dropped, the write verifier changed' "$log")

# the command ft_verf4 runs between its WRITE and its COMMIT: evict until a memory is dropped
cat > "$IT_WORK/evict.sh" <<EOS
for k in 1 2 3 4 5 6; do
  n=\$(timeout 60 nfs-ls "nfs://127.0.0.1$mnt/many?version=3&nfsport=$GSH_NFS_PORT&mountport=$GSH_MNT_PORT" 2>&1 | wc -l)
  for i in \$(seq 40); do
    [ "\$(grep -c 'is dropped, the write verifier changed' "$log")" -gt $drop0 ] && exit 0
    sleep 0.1
  done
  echo "# listing \$k (\$n names): \$(grep -c 'engine file kept' "$log") kept lines" >&2
done
exit 1
EOS
vout=$(timeout -k 5 300 "$DC_FT_BIN/ft_verf4" -H 127.0.0.1 -p "$GSH_NFS_PORT" -e "$mnt" \
  -x across -F "bash '$IT_WORK/evict.sh'" 2>&1)
echo "$vout"
line=$(echo "$vout" | grep '^ft_verf4:' | tail -n1)
kept=$(( $(grep -c 'engine file kept' "$log") - kept0 ))
buried=$(grep -c 'the whole file counts as lost' "$log")
dropped=$(( $(grep -c 'is dropped, the write verifier changed' "$log") - drop0 ))
it_log "across: $line (kept $kept, short form $buried, dropped $dropped)"
it_alive || it_die "ganesha died"
[ "$dropped" -ge 1 ] || it_die "no kept memory was dropped (kept $kept, short form $buried): the bound was not reached"
[ "$(it_kv failed "$line")" = 0 ] && [ -n "$line" ] ||
  it_die "a COMMIT across the drop answered the WRITE's verifier: $line"
it_pass "failed_files=$N kept=$kept short_form=$buried dropped=$dropped commit_across_drop=$(it_kv across "$line")"
