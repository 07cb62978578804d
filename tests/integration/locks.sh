#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Byte-range locks the server's kernel sees (issue 42 item 4): an NFS client's lock is an open
# file description lock on the server's file, as FSAL_VFS makes it, so that a local process
# (Samba, a local user) sees the clients' locks and they see its. Over NLM 4 (it_locks, with
# rpc.statd for ganesha's SM_MON) and NFSv4.1 (it_locks4), each on its own file: the client's
# lock seen by a local F_OFD_GETLK and refusing a local F_SETLK; a local lock refusing the
# client's TEST/LOCKT and LOCK with the holder's range; unlocks releasing both sides; the lock
# kept while ganesha's fd reaper (every second) runs on the global fds and the module's engine
# files that stateless WRITEs opened. Before the fix the module took no kernel lock: the local
# F_OFD_GETLK saw nothing and the client's LOCK beside a local lock was granted. Stock
# FSAL_VFS passes the same but for TEST/LOCKT beside a local lock, which it answers as free
# (printed, that part skipped).
# Usage: locks.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_locks it_locks4

IT_CONF_EXTRA='MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }'
ulimit -n 1024
# ganesha monitors every NLM client through the local rpc.statd (SM_MON) before it grants
# its first lock: one for this namespace, its state in the scratch tree
command -v rpc.statd >/dev/null || it_skip "no rpc.statd (nfs-common): ganesha grants no NLM lock without it"
mkdir -p "$IT_WORK/statd/sm" "$IT_WORK/statd/sm.bak"
it_serve "$IT_EXP"
rpc.statd -F -L -P "$IT_WORK/statd" >"$IT_WORK/statd.log" 2>&1 &
IT_EXTRA_PIDS+=($!)
for _ in $(seq 50); do rpcinfo -p 127.0.0.1 2>/dev/null | grep -q status && break; sleep 0.1; done
rpcinfo -p 127.0.0.1 2>/dev/null | grep -q status || it_die "rpc.statd did not register: $(cat "$IT_WORK/statd.log")"

stock=()
it_is_dontcache || stock=(-s)
for prog in it_locks it_locks4; do
  it_run -t 120 "$prog" -H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -N $((GSH_NFS_PORT + 2)) \
    -e "$IT_EXP" -d "$IT_EXP" -n "$prog.lk" -g "$GSH_PID" "${stock[@]}" >"$IT_WORK/$prog.out" && ok=1 || ok=0
  cat "$IT_WORK/$prog.out"
  [ $ok = 1 ] && it_pass "$prog: $(tail -1 "$IT_WORK/$prog.out" | sed 's/^# //')"
  grep -q '^# STOCK:' "$IT_WORK/$prog.out" &&
    it_skip_part "$prog: stock VFS answers TEST/LOCKT beside a local lock as free (printed)"
done
it_check_alive "client and local locks"
