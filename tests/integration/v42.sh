#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# NFSv4.2 over the FSAL under test with the raw client it_v42 (libnfs has no NFSv4.2):
# DEALLOCATE reads back as zeros, ALLOCATE keeps data and reserves blocks, SEEK finds holes,
# data and unflushed data, hostile ALLOCATE/DEALLOCATE offsets and lengths are refused with
# INVAL/FBIG and change nothing on disk, a uid that may not write is refused, user xattrs round
# trip and are refused like writes; SEEK as uid 1000 through its write-only open of a root 0622
# file and through root's read stateid of a root 0600 file is ACCESS (issue 36: the kernel server
# checks read access for SEEK; ganesha answers a SEEK with the anonymous stateid itself, asking no
# FSAL, and that answer must reveal nothing). Stock FSAL_VFS (DC_TEST_FSAL=VFS) must pass the same
# checks, except that it answers NOTSUPP to every xattr operation and checks no permission for
# SEEK (those SEEK answers are printed, not checked: a skipped part).
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_v42

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
xattr=supported
it_is_dontcache || xattr=notsupp
it_run it_v42 -e "$IT_EXP" -l "$IT_EXP" -p "$GSH_NFS_PORT" -u 1000 -x "$xattr" -f "$DC_TEST_FSAL"
it_is_dontcache ||
  it_skip_part "SEEK permission as uid 1000 (stock FSAL_VFS checks none: it answers where the data is)"
it_check_alive "the NFSv4.2 operations"
if it_is_dontcache && grep -q 'Invoking unsupported FSAL operation' "$IT_LOG"; then
  it_fail "ganesha logged an unsupported FSAL operation: $(grep -m1 'Invoking unsupported' "$IT_LOG")"
fi
