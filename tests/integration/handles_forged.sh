#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Forged, truncated, oversized and garbage NFSv3 and NFSv4 handles get BADHANDLE or STALE and the server
# keeps answering (a normal GETATTR after each batch). For DONTCACHE, strict: every alteration
# of the module's MACed opaque part, and a handle of another export (own key) relabelled with
# this export's id (one with its own key file, one sharing this export's), are refused; stock VFS has no MAC, so for it those are only counted.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_handles it_fh4
exp2=$IT_WORK/export2
exp3=$IT_WORK/export3
mkdir -p "$exp2" "$exp3"
mkdir -p "$IT_WORK/keys"
{
  echo "$IT_EXP|1|$(it_fsal_body "Handle_Key_File = $IT_WORK/keys/e1.key;")"
  echo "$exp2|2|$(it_fsal_body "Handle_Key_File = $IT_WORK/keys/e2.key;")"
  echo "$exp3|3|$(it_fsal_body "Handle_Key_File = $IT_WORK/keys/e1.key;")"
} | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
strict=; it_is_dontcache && strict=-S
it_run it_handles -e "$IT_EXP" $strict -x "$exp2" forge
it_check_alive "forged NFSv3 handles"
# export 3 shares export 1's key file: the MAC is bound to the export, so its handles
# relabelled with export 1's id are refused all the same
it_run it_handles -e "$IT_EXP" $strict -x "$exp3" forge
it_check_alive "handles of an export sharing the key file"
it_run it_fh4 -e "$IT_EXP" $strict
it_check_alive "forged NFSv4 handles"
if it_is_dontcache; then
  [ -f "$IT_WORK/keys/e1.key" ] && [ -f "$IT_WORK/keys/e2.key" ] &&
    ! cmp -s "$IT_WORK/keys/e1.key" "$IT_WORK/keys/e2.key" &&
    it_pass "each export has its own key" || it_fail "per-export key files missing or equal"
fi
# The forged WRITE/SETATTR attempts did not touch any file on disk.
bad=$(find "$IT_EXP" "$exp2" -type f -newer "$IT_WORK/ganesha.conf" -perm -0777 | head -n 3)
[ -z "$bad" ] || it_fail "files changed through forged handles: $bad"
if ! it_is_dontcache; then
  # Stock VFS has no MAC: only the ganesha-level part applies to it; the strict checks (and
  # the consistent-header length forgeries, which abort VFS 4.3) did not run.
  it_skip_part "MAC checks are DONTCACHE-only: not run against $DC_TEST_FSAL"
fi
