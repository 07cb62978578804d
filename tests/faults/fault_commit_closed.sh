#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# COMMITs of closed files open no fds (issue 17 item 5): 200 files are written over NFSv3
# (ft_busy files3), ganesha's fd reaper (every second, every global fd) closes them and their
# engine files, then every file is COMMITted. A COMMIT of a file whose engine file is closed
# must not open it again outside ganesha's fd accounting: before the fix each COMMIT reopened
# its engine file O_RDWR and on ganesha 6.5 nothing ever closed it (the reaper only visits
# open global fds), so ganesha's fd count grew with the number of files. PASS: ganesha's fds
# after the COMMITs (and 3 s later) are within 30 of the count before them, every COMMIT OK.
# Usage: fault_commit_closed.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_busy
n=${FT_COMMIT_CLOSED_FILES:-200}
IT_CONF_EXTRA='MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }'
ulimit -n 1024
it_serve "$IT_EXP"
fb() { "$DC_FT_BIN/ft_busy" "${IT_NFS[@]}" "$@"; }
fds() { ls "/proc/$GSH_PID/fd" | wc -l; }
base=$(fds)
out=$(fb files3 create -n "$n" cc 2>&1) || it_die "writing $n files failed: $out"
written=$(fds)
# the reaper closes them: back near the start within 30 s
for _ in $(seq 60); do [ "$(fds)" -le $((base + 15)) ] && break; sleep 0.5; done
closed=$(fds)
it_log "ganesha fds: $base at start, $written after writing $n files, $closed after the reaper"
[ "$closed" -le $((base + 15)) ] || it_die "the fd reaper did not close the $n files ($closed fds, $base at start)"
out=$(fb files3 commit -n "$n" cc 2>&1) && it_pass "$n COMMITs of closed files: $out" || it_fail "COMMITs failed: $out"
after=$(fds)
sleep 3
later=$(fds)
it_log "ganesha fds after the COMMITs: $after, 3 s later: $later"
[ $((after - closed)) -lt 30 ] && [ $((later - closed)) -lt 30 ] &&
  it_pass "fds after $n COMMITs of closed files: $closed -> $after -> $later" ||
  it_fail "ganesha holds $((later - closed)) more fds after $n COMMITs of closed files ($closed -> $after -> $later)"
it_check_alive "COMMITs of closed files"
