#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Hostile handles (issue 5 item 4): 100,000 random, truncated, oversized and forged (valid
# handle, one byte of the MAC tag or body flipped) handles through GETATTR/READ/WRITE/LOOKUP/
# COMMIT against a live server: every one answered BADHANDLE/STALE, normal GETATTR+READ
# answered correctly after every 1000, plus 2000 handles longer than 64 bytes over a raw
# socket (GARBAGE_ARGS); the server is still up at the end.
# Usage: fault_handles.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS FT_HANDLES=N
. "$(dirname "$0")/../lib/harness.sh"
it_loop_ext4 "$IT_WORK/disk.img" 256M "$IT_WORK/exp" || it_die "cannot make the ext4 export"
it_serve "$IT_WORK/exp"
out=$("$DC_FT_BIN/ft_handles" "${IT_NFS[@]}" -N "${FT_HANDLES:-100000}" -S "$RANDOM$RANDOM" 2>&1)
rc=$?
echo "$out" >&2
line=$(echo "$out" | grep '^ft_handles:' | tail -n1)
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died: $line"
gsh_stop || it_die "ganesha did not stop cleanly after the hostile handles"
[ $rc = 0 ] || it_die "$line"
it_pass "handles_rejected=$(it_kv rejected "$line")/$(it_kv sent "$line") badhandle=$(it_kv badhandle "$line") stale=$(it_kv stale "$line") normal_checks_ok=$(it_kv normal_checks "$line") raw_oversized_rejected=$(it_kv raw_oversized_rejected "$line") secs=$(it_kv secs "$line")"
