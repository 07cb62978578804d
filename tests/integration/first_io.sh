#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Concurrent first I/O on files ganesha has no open fd for (created on the server's own
# filesystem, not through NFS): 16 writers with 32 WRITEs in flight each start on such files
# at once, in 8 rounds. Ganesha then finds the object lock held by another worker and asks
# the module for a temporary fd (fsal_reopen_obj's EBUSY path), which crashed ganesha when
# the module passed no fd to fill. PASS: the server stays up, every WRITE and COMMIT
# succeeds and every committed byte reads back through NFS.
# Usage: first_io.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
mnt=$IT_WORK/exp rec=$IT_WORK/rec
mkdir -p "$mnt" "$rec"
# ganesha's fd reaper runs every second and, above 10 open files (1% of 1024), closes every
# global fd it can: files are also reopened (first I/O again) while WRITEs are in flight
IT_CONF_EXTRA='MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }'
ulimit -n 1024
it_serve "$mnt"
rounds=${FT_FIRST_IO_ROUNDS:-8}
for r in $(seq "$rounds"); do
  for i in $(seq 0 15); do echo "round $r" > "$mnt/r${r}_$i"; done
  out=$("$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -r "$rec" -n 16 -q 32 -b 16384 -P "r$r" \
        -L $((4 << 20)) -s 10 -c $((256 << 10)) -C 2>&1)
  line=$(echo "$out" | tail -1)
  kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died in round $r: $line"
  echo "$line" | grep -q 'commit_errors=0 write_errors=0' && [ "$(it_kv final_commits_ok "$line")" = 16 ] ||
    it_die "round $r: $line"
done
vline=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" "$rec"/*.rec 2>&1 | tail -1)
it_log "verify: $vline"
[ "$(it_kv mismatched_bytes "$vline")" = 0 ] && [ "$(it_kv errors "$vline")" = 0 ] ||
  it_die "committed data did not read back: $vline"
it_pass "rounds=$rounds files=$((rounds * 16)) server_up=yes $(echo "$vline" | grep -o 'durable_bytes=[0-9]*')"
