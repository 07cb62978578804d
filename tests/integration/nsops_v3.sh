#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Every NFSv3 namespace operation (issue 2, item 2) through the FSAL under test: results and
# error statuses, raw and high-level libnfs API, as root and as an unprivileged AUTH_SYS user.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_nsops

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
strict=; it_is_dontcache && strict=-D
# ext4 caps files at 16 TiB: a write at 2^62 must give EFBIG from the filesystem itself.
fbig=; [ "$(stat -f -c %T "$IT_EXP")" = ext2/ext3 ] && fbig=-F
[ -n "$fbig" ] || it_skip_part "export is on $(stat -f -c %T "$IT_EXP"), not ext4: the filesystem-level EFBIG check"
it_run it_nsops -e "$IT_EXP" -u 4242 $strict $fbig
it_check_alive "the namespace operations"
# Names like "../outside.PID" at the export root must not create anything outside the export.
outside=$(find "$IT_WORK" -maxdepth 1 -name 'outside.*' | head -n 3)
if [ -n "$outside" ]; then
  if it_is_dontcache; then it_fail "a client created files outside the export: $outside"
  else it_log "note: $DC_TEST_FSAL let a client create $outside outside the export (not required of it)"; fi
  rm -rf "$IT_WORK"/outside.*
fi
# Nothing the test made is left behind on the server's disk.
left=$(find "$IT_EXP" -mindepth 1 | head -n 5)
[ -z "$left" ] || it_fail "files left in the export: $left"
