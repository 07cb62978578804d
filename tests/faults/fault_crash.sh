#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Crash durability (issue 5 item 1): 16 libnfs writers under load (UNSTABLE writes + COMMITs
# + DATA_SYNC/FILE_SYNC writes, each keeping a record of what was acknowledged); ganesha is
# SIGKILLed at a random moment; after a restart every acknowledged byte must read back
# identical through NFS and the NFSv3 write verifier must have changed. Repeated over
# FT_KILLS kill points (5); earlier rounds' data is re-verified after every restart.
# Usage: fault_crash.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS FT_KILLS=N
. "$(dirname "$0")/../lib/harness.sh"

kills=${FT_KILLS:-5}
it_loop_ext4 "$IT_WORK/disk.img" 1G "$IT_WORK/exp" || it_die "cannot make the ext4 export"
it_serve "$IT_WORK/exp"
rec=$IT_WORK/rec
mkdir -p "$rec"
survived=0 acked_total=0 durable=0 under_load=0
for k in $(seq "$kills"); do
  "$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -n 16 -d c -P "r$k" -r "$rec" -t 60 -W $((8 << 20)) \
    -b 65536 -q 4 -s 10 -c $((1 << 20)) -S "$k$RANDOM" > "$IT_WORK/writer.$k.out" 2>&1 &
  wpid=$!
  IT_EXTRA_PIDS=("$wpid")
  # random kill point 1.5 .. 5.4 s after the writers started
  delay=$((15 + RANDOM % 40))
  sleep "$((delay / 10)).$((delay % 10))"
  if kill -0 "$wpid" 2>/dev/null; then under_load=$((under_load + 1)); fi
  it_log "kill point $k at ${delay}00 ms"
  gsh_kill
  for _ in $(seq 600); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$wpid" 2>/dev/null; then
    kill "$wpid"; wait "$wpid"
    it_die "kill point $k: writers did not notice the server died within 60 s"
  fi
  wait "$wpid"; wrc=$?; IT_EXTRA_PIDS=()
  wline=$(grep '^ft_writer:' "$IT_WORK/writer.$k.out")
  it_log "$wline"
  [ -n "$wline" ] && [ $wrc = 0 ] || { cat "$IT_WORK/writer.$k.out" >&2; it_die "kill point $k: writer failed"; }
  acked_total=$((acked_total + $(it_kv acked_bytes "$wline")))
  it_serve "$IT_WORK/exp"
  vout=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" -V "$rec"/*.rec 2>&1)
  vrc=$?
  vline=$(echo "$vout" | grep '^ft_verify:')
  it_log "$vline"
  if [ $vrc != 0 ]; then
    echo "$vout" | grep -v '^phase' | head -20 >&2
    it_die "kill point $k: acknowledged data lost or verifier unchanged: $vline"
  fi
  durable=$(it_kv durable_bytes "$vline")
  survived=$((survived + 1))
done
gsh_stop
[ "$under_load" -ge 1 ] || it_die "writers had stopped before every kill point"
it_pass "kill_points_survived=$survived/$kills under_load=$under_load acked_bytes=$acked_total durable_bytes_verified=$durable verifier_changed_every_restart=yes"
