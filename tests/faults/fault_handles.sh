#!/usr/bin/env bash
# Hostile handles (issue 5 item 4): 100,000 random, truncated, oversized and forged (valid
# handle, one byte of the MAC tag or body flipped) handles through GETATTR/READ/WRITE/LOOKUP/
# COMMIT against a live server: every one answered BADHANDLE/STALE, normal GETATTR+READ
# answered correctly after every 1000, plus 2000 handles longer than 64 bytes over a raw
# socket (GARBAGE_ARGS); the server is still up at the end.
# Usage: fault_handles.sh [BUILD_DIR]   env: FT_FSAL=DONTCACHE|VFS FT_HANDLES=N
[ "${GSH_IN_NS:-}" = 1 ] || exec "$(dirname "$0")/../lib/in-ns.sh" "$0" "$@"
set -u
. "$(dirname "$0")/../faults/ftcommon.sh"
ft_init handles "${1:-}"
ft_need_module
ft_loop_ext4 "$FT_WORK/disk.img" 256M "$FT_WORK/exp" || ft_result FAIL "cannot make the ext4 export"
ft_start "$FT_WORK/exp"
out=$("$FT_BIN/ft_handles" "${FT_NFS[@]}" -N "${FT_HANDLES:-100000}" -S "$RANDOM$RANDOM" 2>&1)
rc=$?
echo "$out" >&2
line=$(echo "$out" | grep '^ft_handles:' | tail -n1)
kill -0 "$GSH_PID" 2>/dev/null || ft_result FAIL "ganesha died: $line"
gsh_stop || ft_result FAIL "ganesha did not stop cleanly after the hostile handles"
[ $rc = 0 ] || ft_result FAIL "$line"
ft_result PASS "handles_rejected=$(ft_kv rejected "$line")/$(ft_kv sent "$line") badhandle=$(ft_kv badhandle "$line") stale=$(ft_kv stale "$line") normal_checks_ok=$(ft_kv normal_checks "$line") raw_oversized_rejected=$(ft_kv raw_oversized_rejected "$line") secs=$(ft_kv secs "$line")"
