#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The NFSv4 write verifier clients see (issue 10 item 6), with ft_verf4 over one NFSv4.2
# session; in each part the verifier of every WRITE and COMMIT stays the same while nothing
# fails, before the fault and again after it ended:
#   nospc      a 48 MiB ext4 on a loop device (as fault_fullfs.sh) filled through NFS: ext4
#              refuses the WRITE itself (NOSPC), which loses nothing acknowledged, so the
#              verifier must stay and a COMMIT of the data acknowledged before the refused
#              WRITE answers OK with the WRITEs' verifier (ft_verf4 -x write);
#   writeback  ext4 on a loop device whose backing file lies on a tmpfs that is shrunk
#              under it (as fault_eio.sh: no journal, errors=continue, 4 KiB requests, the
#              victim's blocks punched out of the image so its overwrites need new tmpfs
#              pages); the loop device passes the tmpfs's ENOSPC on, so write-back fails
#              with NOSPC: acknowledged data is lost, so the verifier must change and no
#              COMMIT of the victim may answer OK with the verifier of the lost WRITEs
#              (ft_verf4 -x wb); the tmpfs is grown again before the last phase;
#   eio        the same with EIO: the loop device's backing file (on an ext4 of its own)
#              is made immutable (chattr +i), so every write the device gets fails with EIO
#              until chattr -i.
# Usage: fault_verf4.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS (VFS is expected to
# FAIL the writeback and eio parts: its verifier never changes, and its COMMITs after the
# one that reported a write-back error answer OK)
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_verf4

summary=()
verf4() { # PART ARGS...: runs ft_verf4 against the export $1 (second argument on)
  local part=$1; shift
  local out rc=0
  out=$(timeout -k 5 180 "$DC_FT_BIN/ft_verf4" -H 127.0.0.1 -p "$GSH_NFS_PORT" "$@" 2>&1) || rc=$?
  echo "# ---- $part: ft_verf4 $*"
  echo "$out"
  local line
  line=$(echo "$out" | grep '^ft_verf4:' | tail -n1)
  summary+=("$part: $(it_kv passed "$line")/$(it_kv checks "$line") checks v0=$(it_kv v0 "$line") v1=$(it_kv v1 "$line") failed_on=$(it_kv failed_on "$line") status=$(it_kv status "$line")")
  [ $rc -eq 0 ] || it_fail "$part: ft_verf4 exited $rc: ${line:-no summary}"
  it_alive || it_die "$part: ganesha died"
}

# nospc: a full ext4
nmnt=$IT_WORK/nospc
it_loop_ext4 "$IT_WORK/nospc.img" 48M "$nmnt" -m 0 || it_die "cannot make the ext4 export"
# room to give back once the filesystem is full
dd if=/dev/zero of="$nmnt/filler" bs=1M count=8 conv=fsync status=none || it_die "filler"
it_serve "$nmnt"
verf4 nospc -e "$nmnt" -x write -L $((256 << 20)) -t 60 \
  -R "rm -f '$nmnt/filler' && sync -f '$nmnt'"
gsh_stop || it_fail "nospc: ganesha did not stop cleanly"

# writeback: the device behind ext4 runs out of space
tmp=$IT_WORK/tmpfs wmnt=$IT_WORK/wb
it_tmpfs "$tmp" 512M
truncate -s 256M "$tmp/disk.img"
it_capped_ext4 "$tmp/disk.img" "$wmnt"
# the victim is written whole while the device works, then the tmpfs pages behind its blocks
# are given back: its overwrites are what fails (no extent or bitmap change, see fault_eio.sh)
dd if=/dev/zero of="$wmnt/victim" bs=1M count=32 conv=fsync status=none || it_die "prewrite"
sync -f "$wmnt"
bs=$(stat -f -c %S "$wmnt")
filefrag -v "$wmnt/victim" | awk -F'[:. ]+' '/^ *[0-9]+: /{print $5, $6}' |
  while read -r p0 p1; do
    fallocate -p -o $((p0 * bs)) -l $(((p1 - p0 + 1) * bs)) "$tmp/disk.img" || exit 1
  done || it_die "cannot punch the victim's blocks out of the image"
it_serve "$wmnt"
# after the clean phase: the tmpfs keeps ROOM KiB free
shrink="u=\$(df -k --output=used '$tmp' | tail -n1); mount -o remount,size=\$((u + ${FT_VERF4_ROOM_KB:-4096}))k '$tmp'"
verf4 writeback -e "$wmnt" -x wb -V victim -W $((32 << 20)) -L $((256 << 20)) -t 60 \
  -F "$shrink" -R "mount -o remount,size=2G '$tmp'"
gsh_stop || it_fail "writeback: ganesha did not stop cleanly"

# eio: the device behind ext4 fails every write
omnt=$IT_WORK/outer emnt=$IT_WORK/eio
it_loop_ext4 "$IT_WORK/outer.img" 160M "$omnt" -m 0 || it_die "cannot make the outer ext4"
img=$omnt/disk.img
truncate -s 128M "$img"
it_capped_ext4 "$img" "$emnt"
it_serve "$emnt"
verf4 eio -e "$emnt" -x wb -L $((256 << 20)) -t 60 -F "chattr +i '$img'" -R "chattr -i '$img'"
chattr -i "$img"
gsh_stop || it_fail "eio: ganesha did not stop cleanly"

[ "$IT_FAILED" = 0 ] && it_pass "${summary[*]}"
