#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Two heads over one filesystem, a floating address, a process crash (issue 18): the pair of
# scripts/ha-pair.sh (config/ha as shipped: each head its own network+mount namespace with its
# own rpcbind, ganesha.nfsd -E from ganesha-epoch.sh, keepalived VRRP; one loop ext4 that both
# see) in this scenario's namespace, which is the client side.
#   shared   (the default: one Handle_Key_File on the shared filesystem, Handle_Key_Create =
#            false) ha_writer's NFSv3 writers (libnfs, autoreconnect) write and COMMIT through
#            the floating address; head A's ganesha is SIGKILLed mid-run and its keepalived
#            stopped; the address moves to B, the writers reconnect by themselves, go on with
#            the handles A gave them, see the COMMIT verifier change and resend what A had
#            not committed. Then ft_verify reads every acknowledged-durable byte of their
#            records from the shared filesystem: zero lost. Prints the address move, the
#            writers' longest stall and the bytes resent ("figures:" line).
#   node     (DONTCACHE only) the same with each head's default key path (on its own node):
#            after the failover every WRITE with A's handles is BADHANDLE on B. This is why
#            the heads must share the key. Nothing durable is lost there either.
#   health   (shared key) only head A's ganesha is SIGKILLed, its keepalived keeps running:
#            the health check of config/ha/keepalived.head-a.conf (an NFSv3 NULL to the
#            local ganesha every second, 2 failures) must give the address up; the writers
#            go on as in shared, nothing durable lost.
#   sameepoch both heads started with one -E (two heads started in the same second without
#            -E have that): ganesha's NFSv3 verifier, built from the epoch alone, is the same
#            on B, so the writers see no change and resend nothing that A had not committed.
#            With one kernel under both heads A's page cache survives and nothing is lost here;
#            after a node crash it would be. This is why each head needs its own -E (any
#            FSAL: the NFSv3 verifier is ganesha's).
# Against ganesha 6.5 (GSH_ROOT, tests/run.sh --ganesha 6) each head runs the root's
# ganesha.nfsd (HAP_ROOT of ha-pair.sh) with the module under test.
# Against VFS (DC_TEST_FSAL=VFS) the shared part runs with stock FSAL_VFS (no key: its
# handles are valid on any head); the node part does not apply.
# keepalived is installed if missing and apt-get can (DC_HA_NO_INSTALL=1: never); without it
# the scenario is skipped.
# Usage: tests/ha/failover_v3.sh [BUILD_DIR]   env: HA_SECS (writer run time, 10),
#   HA_VARIANTS (default "shared node health sameepoch": e.g. "shared" alone to measure)
# run.sh timeout: 360
# (about 75 s here for the four variants; scripts/test.sh runs another scenario beside it)
# (before the harness moves this script into a namespace without the host's network)
if [ "${GSH_IN_NS:-}" != 1 ] && ! command -v keepalived >/dev/null &&
   [ "${DC_HA_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null; then
  echo "[failover_v3] keepalived missing: apt-get install -y --no-install-recommends keepalived" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    -o DPkg::Lock::Timeout=120 keepalived 2>&1 | tail -n 3 >&2
fi
. "$(dirname "$0")/../lib/harness.sh"
HA_BIN=${DC_HA_BIN:-$DC_BUILD_DIR/tests/ha}
[ -x "$HA_BIN/ha_writer" ] || it_die "test program missing: $HA_BIN/ha_writer (build the tree first)"
it_need_prog ft_verify
command -v keepalived >/dev/null || it_skip "keepalived is not installed (apt-get install keepalived)"

. "$IT_TOP/scripts/ha-pair.sh"
HAP_ROOT=${GSH_ROOT:-}
secs=${HA_SECS:-10}
it_loop_ext4 "$IT_WORK/disk.img" 2G "$IT_WORK/srv" || it_die "cannot make the shared ext4"

# variant NAME KEYMODE [CRASH]: one pair up, writers, head A crashed mid-run, writers to the end,
# ledger checked; the pair down. Sets OUT_<NAME> (ha_writer's summary) and VRC_<NAME>
# (ft_verify's exit), VMOVE_<NAME> (ms from the kill to the address on B).
variant() {
  local name=$1 keymode=$2 crash=${3:-} fs=$IT_WORK/srv/$1 rec=$IT_WORK/rec.$1 wpid t0 t1 wrc vout
  mkdir -p "$fs" "$rec"
  hap_init "$IT_WORK/pair.$name" "$fs" "$IT_PLUGINS" "$DC_TEST_FSAL" "$keymode" ||
    it_die "$name: hap_init failed"
  if ! hap_up; then
    tail -n 20 "$IT_WORK/pair.$name"/*.log
    hap_down; it_die "$name: the pair did not come up"
  fi
  local i; IT_EXTRA_PIDS=()
  for ((i = ${#HAP_PIDS[@]} - 1; i >= 0; i--)); do IT_EXTRA_PIDS+=("${HAP_PIDS[$i]}"); done
  "$HA_BIN/ha_writer" -H "$HAP_VIP" -p "$HAP_NFS_PORT" -M "$HAP_MNT_PORT" -e "$fs/export" \
    -r "$rec" -n 4 -P "$name" -t "$secs" -b 65536 -W $((8 << 20)) -c $((1 << 20)) -x 5 -g 60 \
    > "$IT_WORK/writer.$name.out" 2>&1 &
  wpid=$!
  IT_EXTRA_PIDS=("$wpid" "${IT_EXTRA_PIDS[@]}")
  sleep $((secs / 3))
  kill -0 "$wpid" 2>/dev/null || { cat "$IT_WORK/writer.$name.out"; hap_down; it_die "$name: writers ended before the crash"; }
  t0=$(date +%s%3N)
  local how=", its keepalived stopped"
  [ "$crash" = ganesha ] && how=" only (keepalived left running)"
  it_log "$name: SIGKILL of head A's ganesha (pid ${HAP_GSH[a]})$how"
  hap_crash a $crash
  if hap_wait_vip b 15; then
    t1=$(date +%s%3N)
    printf -v "VMOVE_$name" %s $((t1 - t0))
    it_pass "$name: the address moved to head B $((t1 - t0)) ms after the crash"
  else
    it_fail "$name: the address did not move to head B within 15 s (on: $(hap_vip_head))"
    tail -n 20 "$IT_WORK/pair.$name"/keepalived.b.log
  fi
  for _ in $(seq $((secs * 10 + 900))); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$wpid" 2>/dev/null && { kill "$wpid"; it_fail "$name: writers still running $((secs + 90)) s after they started"; }
  wait "$wpid"; wrc=$?
  cat "$IT_WORK/writer.$name.out"
  printf -v "OUT_$name" %s "$(grep '^ha_writer: writers=' "$IT_WORK/writer.$name.out")"
  printf -v "WRC_$name" %s "$wrc"
  # the writers' longest wait ended when B answered: from the kill to there
  local se; se=$(it_kv stall_end_ms "$(grep '^ha_writer: writers=' "$IT_WORK/writer.$name.out")")
  [ -n "$se" ] && [ "$se" -gt "$t0" ] && printf -v "RESUME_$name" %s $((se - t0))
  vout=$("$DC_FT_BIN/ft_verify" -l "$fs/export" "$rec"/*.rec 2>&1)
  printf -v "VRC_$name" %s $?
  echo "$vout" | grep -v '^phase' | tail -n 5
  printf -v "VLINE_$name" %s "$(echo "$vout" | grep '^ft_verify:')"
  cp "$IT_WORK/pair.$name"/*.log "$IT_WORK/" 2>/dev/null
  for f in "$IT_WORK/pair.$name"/*.log; do mv "$IT_WORK/$(basename "$f")" "$IT_WORK/$name.$(basename "$f")" 2>/dev/null; done
  hap_down
  IT_EXTRA_PIDS=()
}

variants=" ${HA_VARIANTS:-shared node health sameepoch} "
want() { [[ $variants == *" $1 "* ]]; }

if want shared; then
  variant shared shared
  verf_shared=$(it_kv verifier_changes "$OUT_shared")
  line=$OUT_shared
  [ "$WRC_shared" = 0 ] &&
    it_pass "shared: every writer went on after the failover and ended with all its data committed under one verifier" ||
    it_fail "shared: ha_writer exited $WRC_shared: $line"
  [ "$(it_kv errors "$line")" = 0 ] &&
    it_pass "shared: no WRITE or COMMIT answered an error (A's handles valid on B)" ||
    it_fail "shared: $(it_kv errors "$line") errors ($(it_kv badhandle "$line") BADHANDLE) after the failover"
  [ "${VMOVE_shared:-}" ] && [ "$(it_kv verifier_changes "$line")" -gt 0 ] 2>/dev/null &&
    it_pass "shared: the writers saw the verifier change ($(it_kv verifier_changes "$line") times) and resent $(it_kv resent_bytes "$line") bytes" ||
    it_fail "shared: no verifier change seen: $line"
  [ "$VRC_shared" = 0 ] &&
    it_pass "shared: zero acknowledged-durable bytes lost: $VLINE_shared" ||
    it_fail "shared: acknowledged-durable data lost or unreadable: $VLINE_shared"
  echo "figures: fsal=$DC_TEST_FSAL variant=shared address_move_ms=${VMOVE_shared:-none} writers_resumed_after_kill_ms=${RESUME_shared:-none} max_stall_ms=$(it_kv max_stall_ms "$line") resent_bytes=$(it_kv resent_bytes "$line") acked_bytes=$(it_kv acked_bytes "$line") durable_bytes=$(it_kv durable_bytes "$VLINE_shared") lost_bytes=$(it_kv mismatched_bytes "$VLINE_shared")"

fi

if ! want node; then
  :
elif it_is_dontcache; then
  variant node node
  line=$OUT_node
  [ "$(it_kv badhandle "$line")" -gt 0 ] 2>/dev/null &&
    it_pass "node: with a key per node, A's handles are BADHANDLE on B ($(it_kv badhandle "$line") answers): the heads must share the key" ||
    it_fail "node: expected BADHANDLE after the failover with per-node keys: $line"
  [ "$VRC_node" = 0 ] &&
    it_pass "node: nothing acknowledged as durable was lost either: $VLINE_node" ||
    it_fail "node: acknowledged-durable data lost: $VLINE_node"
  echo "figures: fsal=$DC_TEST_FSAL variant=node address_move_ms=${VMOVE_node:-none} badhandle=$(it_kv badhandle "$line") acked_bytes=$(it_kv acked_bytes "$line")"
else
  echo "# node-key variant: DONTCACHE only ($DC_TEST_FSAL has no handle key: its handles are valid on any head)"
fi

if want health; then
  variant health shared ganesha
  line=$OUT_health
  [ -n "${VMOVE_health:-}" ] && [ "$WRC_health" = 0 ] && [ "$VRC_health" = 0 ] &&
    it_pass "health: keepalived's health check moved the address (${VMOVE_health} ms) and the writers went on, nothing durable lost" ||
    it_fail "health: writer exit $WRC_health, verify exit $VRC_health: $line"
  echo "figures: fsal=$DC_TEST_FSAL variant=health address_move_ms=${VMOVE_health:-none} writers_resumed_after_kill_ms=${RESUME_health:-none} max_stall_ms=$(it_kv max_stall_ms "$line") resent_bytes=$(it_kv resent_bytes "$line")"
fi

want sameepoch || exit 0
HAP_EPOCH=$("$IT_TOP/config/ha/ganesha-epoch.sh" 0) || it_die "ganesha-epoch.sh failed"
variant sameepoch shared
unset HAP_EPOCH
line=$OUT_sameepoch
[ "$(it_kv verifier_changes "$line")" = 0 ] && [ "$(it_kv resent_bytes "$line")" = 0 ] &&
  it_pass "sameepoch: one -E on both heads: the NFSv3 verifier did not change, nothing was resent (each head needs its own -E; with distinct ones the writers resent: ${verf_shared:-?} changes)" ||
  it_fail "sameepoch: expected no verifier change with one epoch on both heads: $line"
[ "$VRC_sameepoch" = 0 ] || it_fail "sameepoch: acknowledged-durable data lost: $VLINE_sameepoch"
echo "figures: fsal=$DC_TEST_FSAL variant=sameepoch address_move_ms=${VMOVE_sameepoch:-none} max_stall_ms=$(it_kv max_stall_ms "$line") verifier_changes=$(it_kv verifier_changes "$line") resent_bytes=$(it_kv resent_bytes "$line")"
