#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Handles survive ganesha restarts: handles saved by a client before a clean stop, and before a
# crash (SIGKILL), still name the same objects afterwards (GETATTR, READ, WRITE, READDIR,
# READLINK, LOOKUP); a file removed while the server was down gives STALE.
# DONTCACHE also: the handle key file (Handle_Key_File) is created 0600 on first start and kept
# unchanged across restarts; with a new key, every old handle is refused (BADHANDLE/STALE).
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_handles
conf=$IT_WORK/ganesha.conf

# Phase A: the default configuration (no key file named): clean stop and restart.
echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$conf"
it_start "$conf" "$IT_WORK/ganesha-a1.log"
it_run it_handles -e "$IT_EXP" save "$IT_WORK/handles-a.txt" || it_die "could not save handles"
gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
rm -f "$IT_EXP/h/doomed"
it_start "$conf" "$IT_WORK/ganesha-a2.log"
it_run it_handles -e "$IT_EXP" check "$IT_WORK/handles-a.txt"
it_check_alive "old handles after a clean restart"

# Phase B: crash (SIGKILL) and restart, with an explicit key file for DONTCACHE.
gsh_stop
rm -rf "$IT_EXP/h"
key=$IT_WORK/keys/export1.key
mkdir -p "$IT_WORK/keys"
echo "$IT_EXP|1|$(it_fsal_body "Handle_Key_File = $key;")" | it_conf "$conf"
it_start "$conf" "$IT_WORK/ganesha-b1.log"
if it_is_dontcache; then
  if [ -f "$key" ]; then
    mode=$(stat -c %a "$key")
    [ "$mode" = 600 ] && it_pass "key file created with mode 600" ||
      it_fail "key file $key has mode $mode, want 600"
    [ -s "$key" ] && it_pass "key file is not empty" || it_fail "key file $key is empty"
    sum1=$(sha256sum < "$key")
  else
    it_fail "Handle_Key_File $key was not created on first start"
  fi
fi
it_run it_handles -e "$IT_EXP" save "$IT_WORK/handles-b.txt" || it_die "could not save handles"
gsh_kill
rm -f "$IT_EXP/h/doomed"
it_start "$conf" "$IT_WORK/ganesha-b2.log"
it_run it_handles -e "$IT_EXP" check "$IT_WORK/handles-b.txt"
it_check_alive "old handles after a crash and restart"
if it_is_dontcache && [ -f "$key" ]; then
  [ "$(sha256sum < "$key")" = "${sum1:-}" ] && it_pass "key file unchanged by the restart" ||
    it_fail "key file $key changed across a restart"
fi
gsh_stop

# Phase C (DONTCACHE): a new secret invalidates every handle MACed with the old one.
if it_is_dontcache; then
  echo "$IT_EXP|1|$(it_fsal_body "Handle_Key_File = $IT_WORK/keys/other.key;")" | it_conf "$conf"
  it_start "$conf" "$IT_WORK/ganesha-c.log"
  it_run it_handles -e "$IT_EXP" stale "$IT_WORK/handles-b.txt"
  it_check_alive "handles under a new key"
  [ "$(sha256sum < "$IT_WORK/keys/other.key")" != "${sum1:-}" ] &&
    it_pass "the new key file holds a different secret" ||
    it_fail "the new key file holds the same secret as the old one"
else
  it_skip_part "phase C (key change) applies to DONTCACHE only: not run for $DC_TEST_FSAL"
fi
