#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# NFSv4 opens give their fds back: 300 files written and closed over NFSv4 (ganesha's fd reaper
# does not count NFSv4 opens) leave ganesha's open-fd count near where it started, and the data
# is intact. Over NFSv3 the same files read back (the global opens are the reaper's to close).
. "$(dirname "$0")/../lib/harness.sh"

it_fsal_body_dc() { it_fsal_body "$(it_is_dontcache && echo "Stats_File = $IT_WORK/stats.json;")"; }
echo "$IT_EXP|1|$(it_fsal_body_dc)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

fds() { ls "/proc/$GSH_PID/fd" | wc -l; }
before=$(fds)
ok=0
for i in $(seq 300); do
  echo "v4 file $i" > "$IT_WORK/src"
  timeout -k 5 30 nfs-cp "$IT_WORK/src" "$(it_url "$IT_EXP/f$i" 4)" >/dev/null 2>&1 && ok=$((ok + 1))
done
[ $ok = 300 ] && it_pass "300 files written over NFSv4" || it_fail "only $ok of 300 NFSv4 writes worked"
after=$(fds)
it_log "ganesha fds: $before before, $after after"
[ $((after - before)) -lt 50 ] && it_pass "fds after 300 NFSv4 open/write/close: $before -> $after" ||
  it_fail "ganesha holds $((after - before)) more fds after 300 closed NFSv4 files"
bad=0
for i in $(seq 300); do [ "$(cat "$IT_EXP/f$i" 2>/dev/null)" = "v4 file $i" ] || bad=$((bad + 1)); done
[ $bad = 0 ] && it_pass "all 300 files hold their data" || it_fail "$bad files differ"
it_check_alive "300 NFSv4 files"
