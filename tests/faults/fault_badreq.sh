#!/usr/bin/env bash
# Bad requests (issue 5 item 4): WRITE/READ/COMMIT on a directory (ISDIR/INVAL), WRITEs past
# the filesystem's maximum file size (FBIG) and past 2^63 (FBIG/INVAL), a WRITE whose count
# exceeds its data (INVAL), zero-length WRITEs (OK, count 0, size unchanged), READs at/past/
# across EOF (eof, right bytes); the file is intact and normal I/O works afterwards.
# Against ganesha 6.5 (GSH_ROOT) no zero-length READ is sent: 6.5 itself crashes on one, with
# any FSAL (its nfs3_read answers it without calling the FSAL, writing through a NULL iovec;
# stock FSAL_VFS crashes the same way).
# Usage: fault_badreq.sh [BUILD_DIR]   env: FT_FSAL=DONTCACHE|VFS
[ "${GSH_IN_NS:-}" = 1 ] || exec "$(dirname "$0")/../lib/in-ns.sh" "$0" "$@"
set -u
. "$(dirname "$0")/../faults/ftcommon.sh"
ft_init badreq "${1:-}"
ft_need_module
ft_loop_ext4 "$FT_WORK/disk.img" 256M "$FT_WORK/exp" || ft_result FAIL "cannot make the ext4 export"
ft_start "$FT_WORK/exp"
[ ${#FT_ZERO_READ[@]} = 0 ] ||
  ft_log "ganesha 6.5: no zero-length READ (ganesha 6.5 crashes on it before any FSAL is called)"
out=$("$FT_BIN/ft_badreq" "${FT_NFS[@]}" "${FT_ZERO_READ[@]}" 2>&1)
rc=$?
echo "$out" >&2
line=$(echo "$out" | grep '^ft_badreq:' | tail -n1)
kill -0 "$GSH_PID" 2>/dev/null || ft_result FAIL "ganesha died: $line"
gsh_stop || ft_result FAIL "ganesha did not stop cleanly"
[ $rc = 0 ] || ft_result FAIL "$(echo "$out" | grep '^not ok' | head -3 | tr '\n' ';') $line"
ft_result PASS "checks=$(ft_kv checks "$line") passed=$(ft_kv passed "$line")"
