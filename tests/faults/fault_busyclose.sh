#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Closing the engine file of a busy file waits a bounded time (issue 17 item 3). 16 NFSv4.1
# clients write one file without pause (ft_busy writers4: 256 KiB UNSTABLE WRITEs) on an
# export with the least in-flight bound (Max_Inflight_Bytes = 1 MiB) and a long
# Inflight_Wait_Ms (60 s), so that WRITEs always wait for in-flight room inside the module;
# one NFSv3 WRITE opens the file's global fd, which ganesha's fd reaper (every second, every
# global fd) then closes; then 20 idle files are written over NFSv3. The reaper closes one
# fd after another in one thread: when the busy file's close waits as long as its WRITEs go
# on, the idle files' engine fds stay open. PASS: the idle files' fds are closed within
# FT_BUSYCLOSE_BOUND seconds (15) while the writers still run, the writers see no error.
# On ganesha 6.5 the reaper closes the busy file's global fd (an NFSv4 open does not keep
# it); on 4.3 MDCACHE's LRU skips an object its NFSv4 opens reference, so there the
# scenario only checks that the load leaves reclaim working.
# Usage: fault_busyclose.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_busy
secs=${FT_BUSYCLOSE_SECS:-25} bound=${FT_BUSYCLOSE_BOUND:-15}
nw=${FT_BUSYCLOSE_WRITERS:-16} wbytes=${FT_BUSYCLOSE_BYTES:-1048576}
IT_CONF_EXTRA='MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }'
ulimit -n 1024
it_serve "$IT_EXP" "Max_Inflight_Bytes = 1048576; Bench { Inflight_Wait_Ms = 60000; }"
fb() { "$DC_FT_BIN/ft_busy" "${IT_NFS[@]}" "$@"; }
idle_fds() { ls -l "/proc/$GSH_PID/fd" 2>/dev/null | grep -c '/idle_[0-9]*$'; }

fb writers4 -n "$nw" -t "$secs" -b "$wbytes" busy_0 >"$IT_WORK/writers.out" 2>&1 &
wpid=$!
IT_EXTRA_PIDS+=("$wpid")
sleep 3
kill -0 "$wpid" 2>/dev/null || it_die "the writers stopped early: $(tail -3 "$IT_WORK/writers.out")"
# a stateless WRITE of the busy file: its global fd opens (the reaper's to close)
fb files3 create -n 1 busy >/dev/null || it_fail "NFSv3 WRITE of the busy file failed"
sleep 2
t0=$(date +%s%N)
fb files3 create -n 20 idle >/dev/null || it_fail "NFSv3 writes of the idle files failed"
n0=$(idle_fds)
it_log "idle files' fds after their writes: $n0"
left=$n0 waited=0
while [ "$left" -gt 0 ] && [ "$waited" -lt $((bound * 10)) ]; do
  sleep 0.5; waited=$((waited + 5)); left=$(idle_fds)
done
ms=$((($(date +%s%N) - t0) / 1000000))
kill -0 "$wpid" 2>/dev/null && running=yes || running=no
it_log "idle fds left: $left after ${ms} ms (writers running: $running)"
[ "$running" = yes ] || it_fail "the writers ended before the check: lengthen FT_BUSYCLOSE_SECS"
[ "$left" = 0 ] && it_pass "the fd reaper closed the 20 idle files in ${ms} ms under the busy file's WRITEs" ||
  it_fail "$left of 20 idle files' fds still open after ${ms} ms: fd reclaim is stuck behind the busy file (bound ${bound} s)"
wait "$wpid"; wrc=$?
IT_EXTRA_PIDS=()
line=$(grep '^writers4:' "$IT_WORK/writers.out")
it_log "$line"
[ $wrc = 0 ] && [ "$(it_kv errors "$line")" = 0 ] && [ "$(it_kv writes "$line")" -gt 0 ] &&
  it_pass "busy writers: $line" || it_fail "busy writers failed (exit $wrc): $line $(grep -m3 'ft_busy:' "$IT_WORK/writers.out" | tr '\n' ';')"
it_check_alive "a busy file closed under load"
