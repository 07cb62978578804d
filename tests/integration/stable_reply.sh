#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Stable_Reply_Ms (issue 19): UNSTABLE WRITEs answered FILE_SYNC when the module flushed them
# before answering. 8 NFSv3 writers (ft_writer, every WRITE sent UNSTABLE, COMMIT every 1 MiB)
# against an export with Stable_Reply_Ms = 1000: UNSTABLE WRITEs come back FILE_SYNC on the
# wire (ft_writer's promoted count, recorded as durable "S" lines), the stats count them
# (stable_reply.joined/durable), and ft_verify finds every byte acknowledged durable, those
# included. The same run with the parameter left out (0): no WRITE promoted, nothing joined.
# A reload to 0 stops it (applied at once, named in the reload summary).
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "Stable_Reply_Ms is FSAL_DONTCACHE's"
command -v jq >/dev/null || it_skip "jq is not installed"
it_need_prog ft_writer ft_verify

run() { # run TAG MS: serve, write, stop, verify; sets PROMOTED JOINED DURABLE
  local tag=$1 ms=$2 dir=$IT_WORK/exp-$1 out
  mkdir -p "$dir" "$IT_WORK/rec-$tag"
  IT_CONF_EXTRA="DONTCACHE { Stats_Interval_Ms = 200; }"
  it_serve "$dir" "Stable_Reply_Ms = $ms;"
  out=$(it_run -t 120 ft_writer "${IT_NFS[@]}" -r "$IT_WORK/rec-$tag" -n 8 -q 4 \
        -b 262144 -L $((4 * 1024 * 1024)) -s 0 -c 1048576 -C -S 7)
  it_log "$tag: $out"
  PROMOTED=$(it_kv promoted "$out")
  gsh_stop || it_fail "$tag: ganesha exited non-zero on SIGTERM"
  JOINED=$(jq -r '.engine.stable_reply.joined' "$IT_WORK/export-1.stats.json")
  DURABLE=$(jq -r '.engine.stable_reply.durable' "$IT_WORK/export-1.stats.json")
  it_log "$tag: promoted $PROMOTED, stats joined $JOINED durable $DURABLE"
  it_run -t 120 ft_verify -l "$dir" "$IT_WORK/rec-$tag"/*.rec >/dev/null &&
    it_pass "$tag: every acknowledged-durable byte read back"
  rm -f "$IT_WORK/export-1.stats.json"
}

run on 1000
[ "${PROMOTED:-0}" -gt 0 ] && it_pass "on: $PROMOTED UNSTABLE WRITEs answered FILE_SYNC" ||
  it_fail "on: no UNSTABLE WRITE was answered FILE_SYNC"
[ "${DURABLE:-0}" -ge "${PROMOTED:-0}" ] && [ "${JOINED:-0}" -ge "${DURABLE:-0}" ] &&
  it_pass "on: stats joined $JOINED >= durable $DURABLE >= promoted $PROMOTED" ||
  it_fail "on: stats joined $JOINED durable $DURABLE, promoted $PROMOTED"
grep -q 'Stable_Reply_Ms=1000' "$IT_WORK"/ganesha.*.log && it_pass "on: the start line names Stable_Reply_Ms=1000" ||
  it_fail "on: no start line with Stable_Reply_Ms=1000"

run off 0
[ "${PROMOTED:-1}" = 0 ] && [ "${JOINED:-1}" = 0 ] && it_pass "off: no WRITE promoted, none joined" ||
  it_fail "off: promoted $PROMOTED, joined $JOINED"

# a reload turns it off at once
dir=$IT_WORK/exp-reload
mkdir -p "$dir"
it_serve "$dir" "Stable_Reply_Ms = 1000;"
sed -i 's/Stable_Reply_Ms = 1000;/Stable_Reply_Ms = 0;/' "$IT_WORK/ganesha.conf"
kill -HUP "$GSH_PID"
for i in $(seq 100); do grep -q 'reload: applied' "$IT_LOG" && break; sleep 0.1; done
grep -q 'reload: applied:.*Stable_Reply_Ms 1000 -> 0' "$IT_LOG" && it_pass "reload: Stable_Reply_Ms 1000 -> 0 applied" ||
  it_fail "reload: no summary applying Stable_Reply_Ms 1000 -> 0: $(grep -m1 'reload' "$IT_LOG")"
out=$(it_run -t 60 ft_writer "${IT_NFS[@]}" -r "$IT_WORK/rec-reload" -n 2 -q 2 -b 65536 \
      -L 1048576 -s 0 -c 0 -C -S 9)
[ "$(it_kv promoted "$out")" = 0 ] && it_pass "reload: no WRITE promoted afterwards" ||
  it_fail "reload: $(it_kv promoted "$out") WRITEs promoted after Stable_Reply_Ms = 0"
gsh_stop || it_fail "reload: ganesha exited non-zero on SIGTERM"
