#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Hostile NFSv4.1 OPENs sent raw (ft_hostile4 on tests/lib/nfs4c), issue 17:
#   item 2   OPEN for write, OPEN CREATE UNCHECKED4 (with and without size 0) and an open
#            upgrade to write of an append-only (chattr +a) and of an immutable (chattr +i)
#            0666 file: NFS4ERR_PERM as root and as uid 1000 (the kernel's open(O_RDWR) and
#            FSAL_VFS refuse them with EPERM); an OPEN for READ is allowed;
#   item 4a  OPEN CREATE UNCHECKED4 size 0 of a root-owned 0644 file whose name ganesha never
#            looked up (so the FSAL's open2 gets it by name) as uid 1000: NFS4ERR_ACCESS;
# nothing changes on disk (size, mode, owner, times, flags, content).
# Stock VFS (--fsal VFS) passes the same, except that it truncates the never-looked-up file on
# an OPEN for READ with size 0 and answers OK (printed as "# VFS changed it anyway").
# Usage: fault_hostile4.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_hostile4
command -v chattr >/dev/null || it_skip "no chattr (e2fsprogs)"

echo "$IT_EXP|1|$(it_fsal_body_files 1)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
rc=0
out=$("$DC_FT_BIN/ft_hostile4" -p "$GSH_NFS_PORT" -e "$IT_EXP" -l "$IT_EXP" -u 1000 -f "$DC_TEST_FSAL" 2>&1) || rc=$?
echo "$out" >&2
# never leave an immutable file behind (the scratch tree is removed at exit)
chattr -a -i "$IT_EXP/h4/append" "$IT_EXP/h4/immutable" 2>/dev/null
line=$(echo "$out" | grep '^ft_hostile4:' | tail -n1)
[ $rc = 77 ] && it_skip "$(echo "$out" | grep -m1 SKIP)"
it_check_alive "the hostile OPENs"
[ $rc = 0 ] && it_pass "$line" ||
  it_fail "ft_hostile4 exited $rc: $(echo "$out" | grep -m3 '^not ok' | tr '\n' ';') $line"
gsh_stop || it_fail "ganesha did not stop cleanly"
