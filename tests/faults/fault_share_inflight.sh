#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A stateless NFSv3 WRITE holds its share reservation until it ends (issue 17 item 4): the
# export is a loop ext4 that ft_busy freezes (FIFREEZE) so that an NFSv3 WRITE of a file
# blocks inside the server; while it is in flight an NFSv4.1 OPEN of the file for READ with
# deny WRITE must be NFS4ERR_SHARE_DENIED (FSAL_VFS holds the reservation until its write
# returns; the module gave it back when the WRITE was handed to its engine, and granted the
# OPEN). After the thaw the WRITE answers OK, the same OPEN is granted (nothing left behind),
# an NFSv3 WRITE beside it is refused and one after its CLOSE works.
# Usage: fault_share_inflight.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_busy
command -v fsfreeze >/dev/null || it_skip "no fsfreeze (util-linux)"
mnt=$IT_WORK/frz
it_loop_ext4 "$IT_WORK/frz.img" 64M "$mnt" -m 0 || it_die "cannot make the ext4 export"
it_serve "$mnt"
rc=0
out=$(timeout -k 5 120 "$DC_FT_BIN/ft_busy" "${IT_NFS[@]}" sharedeny -l "$mnt" victim 2>&1) || rc=$?
fsfreeze -u "$mnt" 2>/dev/null # never leave it frozen (the program thaws it itself)
echo "$out" >&2
line=$(echo "$out" | grep '^sharedeny:' | tail -n1)
it_check_alive "OPENs beside an in-flight NFSv3 WRITE"
[ $rc = 0 ] && it_pass "$line" ||
  it_fail "ft_busy sharedeny exited $rc: $(echo "$out" | grep -m3 '^not ok' | tr '\n' ';') $line"
