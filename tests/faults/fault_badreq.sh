#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Bad requests (issue 5 item 4): WRITE/READ/COMMIT on a directory (ISDIR/INVAL), WRITEs past
# the filesystem's maximum file size (FBIG) and past 2^63 (FBIG/INVAL), a WRITE whose count
# exceeds its data (INVAL), zero-length WRITEs (OK, count 0, size unchanged), READs at/past/
# across EOF (eof, right bytes); the file is intact and normal I/O works afterwards.
# Against ganesha 6.5 (GSH_ROOT) no zero-length READ is sent: 6.5 itself crashes on one, with
# any FSAL (its nfs3_read answers it without calling the FSAL, writing through a NULL iovec;
# stock FSAL_VFS crashes the same way).
# Usage: fault_badreq.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_loop_ext4 "$IT_WORK/disk.img" 256M "$IT_WORK/exp" || it_die "cannot make the ext4 export"
it_serve "$IT_WORK/exp"
[ ${#IT_ZERO_READ[@]} = 0 ] ||
  it_log "ganesha 6.5: no zero-length READ (ganesha 6.5 crashes on it before any FSAL is called)"
out=$("$DC_FT_BIN/ft_badreq" "${IT_NFS[@]}" "${IT_ZERO_READ[@]}" 2>&1)
rc=$?
echo "$out" >&2
line=$(echo "$out" | grep '^ft_badreq:' | tail -n1)
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died: $line"
gsh_stop || it_die "ganesha did not stop cleanly"
[ $rc = 0 ] || it_die "$(echo "$out" | grep '^not ok' | head -3 | tr '\n' ';') $line"
it_pass "checks=$(it_kv checks "$line") passed=$(it_kv passed "$line")"
