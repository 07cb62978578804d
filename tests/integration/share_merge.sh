#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Share reservations survive MDCACHE's merge of two handles of one file (obj_ops->merge): for
# each of 400 new names, 4 NFSv4.1 clients OPEN CREATE UNCHECKED it at once (it_share), one
# for READ with deny WRITE, three for WRITE. When the OPENs race past MDCACHE's cache, the
# FSAL makes a second handle that MDCACHE throws away after merging it into the first: without
# a merge the share reservation of that open is lost. Checks: never both the deny-WRITE open
# and a WRITE open granted; after every CLOSE each name opens with deny BOTH, refuses a READ
# beside it and takes a WRITE open afterwards (no lost or underflowed counters). Stock FSAL_VFS
# (vfs_merge) must pass the same.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_share

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
it_run -t 60 it_share -e "$IT_EXP" -p "$GSH_NFS_PORT" -n "${IT_SHARE_NAMES:-400}" -c 4 \
  >"$IT_WORK/it_share.out" && ok=1 || ok=0
cat "$IT_WORK/it_share.out"
[ $ok = 1 ] && it_pass "share reservations across racing OPEN CREATEs: $(grep '^names=' "$IT_WORK/it_share.out")"
it_check_alive "racing OPEN CREATEs"
