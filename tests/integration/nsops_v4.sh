#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The main namespace operations over NFSv4 through the FSAL under test (mkdir, create, chunked
# writes, read back, setattr, symlink, link, rename, readdir, remove, rmdir, error statuses).
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_nsops_v4

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
it_run it_nsops_v4 -e "$IT_EXP" -u 4242
it_check_alive "the NFSv4 operations"
left=$(find "$IT_EXP" -mindepth 1 | head -n 5)
[ -z "$left" ] || it_fail "files left in the export: $left"
