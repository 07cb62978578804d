#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Two heads active/active with ganesha's rados_cluster recovery backend (issue 18): one
# cluster-wide grace period in a RADOS object, NFSv4.1 reclaim on the restarted head while the
# other head enforces the grace period. A one-node RADOS (scripts/ha-rados.sh: mon, mgr, one
# memstore OSD, pool nfs-ganesha of size 1) runs on this scenario's side of the bridge of
# scripts/ha-pair.sh; both heads (each its own network+mount namespace, rpcbind, ganesha -E)
# have RecoveryBackend = rados_cluster and RADOS_KV { nodeid = a|b }, export one directory of
# one loop ext4 with one Handle_Key_File (Handle_Key_Create = false); no floating address:
# each head has clients of its own.
#   - `ganesha-rados-grace add a b` makes the grace db; both heads start, both are members,
#     the first grace period is lifted cluster-wide (dump: rec=0, no flags)
#   - clients on each head: NFSv3 writers (ha_writer, COMMITs, the ft_verify ledger) on A and
#     on B, an NFSv4.1 client on A (ha_reclaim hold) with a file open and written
#   - head A's ganesha is SIGKILLed; the cluster manager's step `ganesha-rados-grace start a`
#     starts a grace period (dump: rec != 0, a with N and E); head B sees it (RADOS watch)
#     and enforces it: its E flag is set and a new client's OPEN on B answers NFS4ERR_GRACE;
#     B's NFSv3 writers go on meanwhile
#   - head A starts again (new -E) and joins the grace period; its NFSv4.1 client connects
#     again as the same client, reclaims its open (OPEN CLAIM_PREVIOUS of the handle A gave
#     it before the crash), RECLAIM_COMPLETE, WRITEs with the reclaimed stateid and reads
#     both blocks back; a client A never had is refused a reclaim (not NFS4_OK) by A's
#     recovery db in RADOS
#   - the grace period is lifted cluster-wide (dump: rec=0) and a new OPEN on B is NFS4_OK
#   - A's NFSv3 writers reconnect to A by themselves, see the new verifier and resend; with
#     B's, ft_verify finds every acknowledged-durable byte (zero lost)
# Prints "figures:" (cluster up, kill to B enforcing, kill to A back, kill to reclaim, kill to
# grace lifted, stalls).
# Ceph is installed if missing and apt-get can (ceph-mon ceph-mgr ceph-osd ceph-common
# nfs-ganesha-rados-grace nfs-ganesha-ceph: the last has ganesha's libganesha_rados_recov.so;
# DC_HA_NO_INSTALL=1: never). Skipped (exit 77) when they are missing, against ganesha 6.5
# (GSH_ROOT: its root has no Ceph), or when the cluster does not come up within
# RADOS_UP_SECS (120).
# Usage: tests/ha/rados_cluster.sh [BUILD_DIR]   env: HA_SECS (writers' run time, 30)
# run.sh timeout: 420
# (about 120 s here, plus about 95 s when it has to install Ceph first)
RC_PKGS="ceph-mon ceph-mgr ceph-osd ceph-common nfs-ganesha-rados-grace nfs-ganesha-ceph"
RC_RECOV_LIB=/usr/lib/ganesha/libganesha_rados_recov.so
rc_missing() {
  local p
  for p in ceph-mon ceph-mgr ceph-osd ceph rados monmaptool ganesha-rados-grace; do
    command -v "$p" >/dev/null || { echo "$p"; return 0; }
  done
  [ -e "$RC_RECOV_LIB" ] || { echo "$RC_RECOV_LIB"; return 0; }
  return 1
}
# (before the harness moves this script into a namespace without the host's network)
if [ "${GSH_IN_NS:-}" != 1 ] && [ -z "${GSH_ROOT:-}" ] && rc_missing >/dev/null &&
   [ "${DC_HA_NO_INSTALL:-0}" != 1 ] && command -v apt-get >/dev/null; then
  echo "[rados_cluster] Ceph missing: apt-get install -y --no-install-recommends $RC_PKGS" >&2
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    -o DPkg::Lock::Timeout=120 $RC_PKGS 2>&1 | tail -n 3 >&2
fi
. "$(dirname "$0")/../lib/harness.sh"
[ -n "${GSH_ROOT:-}" ] &&
  it_skip "rados_cluster against ganesha 6.5 (GSH_ROOT) not done: its root has no Ceph libraries"
if miss=$(rc_missing); then
  it_skip "Ceph for rados_cluster is not installed ($miss missing; apt-get install $RC_PKGS)"
fi
HA_BIN=${DC_HA_BIN:-$DC_BUILD_DIR/tests/ha}
for p in ha_writer ha_reclaim; do
  [ -x "$HA_BIN/$p" ] || it_die "test program missing: $HA_BIN/$p (build the tree first)"
done
it_need_prog ft_verify

. "$IT_TOP/scripts/ha-pair.sh"
. "$IT_TOP/scripts/ha-rados.sh"
secs=${HA_SECS:-30}
[ "$secs" -ge 20 ] || secs=20
# stop the heads (they talk to RADOS on the way down), then RADOS, then the harness' cleanup
trap 'rc=$?; hap_down; rad_down; (exit $rc); it_cleanup' EXIT

it_loop_ext4 "$IT_WORK/disk.img" 1G "$IT_WORK/srv" || it_die "cannot make the shared ext4"
PAIR=$IT_WORK/pair
hap_init "$PAIR" "$IT_WORK/srv" "$IT_PLUGINS" "$DC_TEST_FSAL" shared || it_die "hap_init failed"
RADOS_DIR=$IT_WORK/rados
for h in a b; do
  # config/ha as shipped but with the clustered recovery backend (and a real grace period:
  # ha-pair's Graceless and local RecoveryRoot out); short leases keep the run short
  sed -i -e 's|RecoveryRoot = [^;]*; Graceless = true;||' \
    -e 's|RecoveryBackend = fs;|RecoveryBackend = rados_cluster; Lease_Lifetime = 10; Grace_Period = 20;|' \
    "${HAP_CONF[$h]}"
  printf 'RADOS_KV {\n    ceph_conf = "%s";\n    userid = "admin";\n    pool = "%s";\n    nodeid = "%s";\n}\n' \
    "$RADOS_DIR/ceph.conf" "$RAD_POOL" "$h" >> "${HAP_CONF[$h]}"
  grep -q 'RecoveryBackend = rados_cluster;' "${HAP_CONF[$h]}" || it_die "config of head $h not rewritten"
  cp "${HAP_CONF[$h]}" "$IT_WORK/"
done
hap_net || it_die "network setup failed"

# the cluster on this side of the bridge (192.168.50.10), reachable from both heads
t0=$(date +%s)
rad_up "$RADOS_DIR" "$HAP_CLIENT_IP" "${RADOS_UP_SECS:-120}"
rrc=$?
for f in "$RADOS_DIR"/log/*.log; do [ -f "$f" ] && cp "$f" "$IT_WORK/rados.$(basename "$f")"; done
if [ $rrc != 0 ]; then
  tail -n 5 "$RADOS_DIR"/log/*.log
  it_skip "the one-node RADOS did not come up within ${RADOS_UP_SECS:-120} s (logs above)"
fi
up_s=$(($(date +%s) - t0))
it_pass "one-node RADOS up in $up_s s: $(rad_ceph health 2>&1), $(rad_ceph pg stat 2>&1 | cut -d';' -f1)"

GRACE=(timeout 30 ganesha-rados-grace --cephconf "$RAD_CONF" --userid admin --pool "$RAD_POOL")
# grace_dump: the dump; ganesha-rados-grace 4.3 itself sometimes dies of SIGSEGV or SIGABRT
# after printing nothing (seen here): tried again up to 3 times, each crash counted in
# $IT_WORK/grace-dump.crashes (printed in figures)
grace_dump() {
  local out rc i
  for i in 1 2 3; do
    out=$( ("${GRACE[@]}" dump) 2>&1)
    rc=$?
    [ $rc -lt 128 ] && break
    echo "exit $rc" >> "$IT_WORK/grace-dump.crashes"
  done
  echo "$out"
  return $rc
}
# grace_flags NODE: the node's flags in the dump ("" none, "E", "N", "NE")
grace_flags() { grace_dump | awk -v n="$1" '$1 == n { print $2 }'; }
grace_rec() { grace_dump | sed -n 's/^cur=[0-9]* rec=\([0-9]*\)$/\1/p'; }
# wait_for SECS CMD...: CMD true within SECS (polled every 0.5 s); prints the ms it took
wait_for() {
  local n=$(($1 * 2)) i t
  t=$(date +%s%3N); shift
  for ((i = 0; i < n; i++)); do
    "$@" && { echo $(($(date +%s%3N) - t)); return 0; }
    sleep 0.5
  done
  return 1
}
# rec_db_has OWNER NODE: NODE's client recovery db of the current epoch (the RADOS object
# rec-<cur, 16 hex digits>:NODE) has a record naming client owner OWNER; prints the object
rec_db_has() {
  local cur obj k f=$IT_WORK/omapval
  cur=$(grace_dump | sed -n 's/^cur=\([0-9]*\) rec=.*/\1/p')
  [ -n "$cur" ] || return 1
  obj=$(printf 'rec-%016x:%s' "$cur" "$2")
  for k in $(timeout 20 rados --conf "$RAD_CONF" -p "$RAD_POOL" listomapkeys "$obj" 2>/dev/null); do
    timeout 20 rados --conf "$RAD_CONF" -p "$RAD_POOL" getomapval "$obj" "$k" "$f" >/dev/null 2>&1 &&
      grep -q "$1" "$f" && { echo "$obj"; return 0; }
  done
  return 1
}
lifted() { [ "$(grace_rec)" = 0 ] && [ -z "$(grace_flags a)$(grace_flags b)" ]; }
b_enforcing() { [[ $(grace_flags b) == *E* ]]; }

"${GRACE[@]}" add a b > "$IT_WORK/grace-add.out" 2>&1 || { cat "$IT_WORK/grace-add.out"; it_die "ganesha-rados-grace add a b failed"; }
"${GRACE[@]}" member a b && it_pass "heads a and b are members of the grace db" ||
  it_fail "ganesha-rados-grace member a b: not both members"

hap_ganesha a && hap_ganesha b || { tail -n 20 "$PAIR"/ganesha.*.log; it_die "the heads did not start"; }
grep -q 'rados_cluster\|rados_kv' "$PAIR/ganesha.a.log" ||
  it_fail "head A's log never names the rados backend (RecoveryBackend ignored?)"
if ms=$(wait_for 60 lifted); then
  it_pass "both heads up, the first grace period lifted cluster-wide ${ms} ms later: $(grace_dump | tr '\n\t' ' ')"
else
  it_die "first grace period not lifted within 60 s: $(grace_dump | tr '\n\t' ' ')"
fi

# clients on each head
url_ip() { echo "${HAP_IP[$1]}"; }
mkdir -p "$IT_WORK/rec.a" "$IT_WORK/rec.b"
declare -A WPID
EXP=$IT_WORK/srv/export
for h in a b; do
  "$HA_BIN/ha_writer" -H "$(url_ip $h)" -p "$HAP_NFS_PORT" -M "$HAP_MNT_PORT" -e "$EXP" \
    -r "$IT_WORK/rec.$h" -n 2 -P "v3$h" -t "$secs" -b 65536 -W $((4 << 20)) -c $((1 << 20)) \
    -x 5 -g 90 > "$IT_WORK/writer.$h.out" 2>&1 &
  WPID[$h]=$!
  IT_EXTRA_PIDS+=("$!")
done
"$HA_BIN/ha_reclaim" hold -H "$(url_ip a)" -p "$HAP_NFS_PORT" -e /ha -n v4held -o ha_reclaim.held \
  -t $((secs + 60)) -R 90 > "$IT_WORK/reclaim.out" 2> "$IT_WORK/reclaim.err" &
HPID=$!
IT_EXTRA_PIDS+=("$HPID")
wait_for 10 grep -q '^ha_reclaim: held' "$IT_WORK/reclaim.out" >/dev/null ||
  { cat "$IT_WORK/reclaim.out" "$IT_WORK/reclaim.err"; it_die "the NFSv4.1 client on head A did not open its file"; }
it_pass "NFSv4.1 client on head A holds v4held open (written FILE_SYNC)"
if obj=$(wait_for 10 rec_db_has ha_reclaim.held a >/dev/null && rec_db_has ha_reclaim.held a); then
  it_pass "head A recorded its NFSv4.1 client in RADOS (object $obj of pool $RAD_POOL)"
else
  it_fail "no record of client ha_reclaim.held in head A's recovery db in RADOS: $(timeout 20 rados --conf "$RAD_CONF" -p "$RAD_POOL" ls 2>&1 | tr '\n' ' ')"
fi
sleep $((secs / 3))
for h in a b; do
  kill -0 "${WPID[$h]}" 2>/dev/null || { cat "$IT_WORK/writer.$h.out"; it_die "writers on head $h ended before the crash"; }
done

# the crash, and the cluster manager's grace period
tk=$(date +%s%3N)
it_log "SIGKILL of head A's ganesha (pid ${HAP_GSH[a]})"
kill -KILL "${HAP_GSH[a]}"; wait "${HAP_GSH[a]}" 2>/dev/null
"${GRACE[@]}" start a > "$IT_WORK/grace-start.out" 2>&1 || it_fail "ganesha-rados-grace start a: $(cat "$IT_WORK/grace-start.out")"
d=$(grace_dump)
[ "$(grace_rec)" != 0 ] && [[ $(grace_flags a) == *N* ]] &&
  it_pass "ganesha-rados-grace start a: a cluster grace period for A: $(echo "$d" | tr '\n\t' ' ')" ||
  it_fail "no grace period after start a: $(echo "$d" | tr '\n\t' ' ')"
if wait_for 20 b_enforcing > /dev/null; then
  enf_ms=$(($(date +%s%3N) - tk))
  it_pass "head B enforces the grace period (E flag) $enf_ms ms after the crash"
else
  it_fail "head B did not set its E flag within 20 s: $(grace_dump | tr '\n\t' ' ')"
fi
out=$("$HA_BIN/ha_reclaim" probe -H "$(url_ip b)" -p "$HAP_NFS_PORT" -e /ha -n v4newb -o ha_reclaim.probe1 2>&1)
[[ $out == *"open=NFS4ERR_GRACE"* ]] &&
  it_pass "during the grace period a new OPEN on head B is refused: $out" ||
  it_fail "expected NFS4ERR_GRACE for a new OPEN on head B in grace: $out"
kill -0 "${WPID[b]}" 2>/dev/null && it_pass "head B's NFSv3 writers go on during the grace period" ||
  it_fail "head B's NFSv3 writers ended during the grace period: $(tail -n 3 "$IT_WORK/writer.b.out")"

# head A back (as a node restarting its service)
sleep 2
hap_ganesha a || { tail -n 20 "$PAIR/ganesha.a.log"; it_die "head A did not start again"; }
back_ms=$(($(date +%s%3N) - tk))
it_log "head A serves again ($back_ms ms after the crash)"
bad=$("$HA_BIN/ha_reclaim" probe -c -H "$(url_ip a)" -p "$HAP_NFS_PORT" -e /ha -n v4held -o ha_reclaim.stranger 2>&1)
[[ $bad == *"reclaim="* ]] && [[ $bad != *"reclaim=NFS4_OK"* ]] &&
  it_pass "a client head A never had is refused a reclaim: $bad" ||
  it_fail "a reclaim by a client unknown to A's recovery db: $bad"
for _ in $(seq 900); do kill -0 "$HPID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$HPID" 2>/dev/null && { kill "$HPID"; it_fail "the NFSv4.1 client on head A still runs 90 s after A came back"; }
wait "$HPID"; hrc=$?
cat "$IT_WORK/reclaim.out"; tail -n 3 "$IT_WORK/reclaim.err"
rline=$(grep '^ha_reclaim: lost_ms' "$IT_WORK/reclaim.out")
[ "$hrc" = 0 ] &&
  it_pass "head A's NFSv4.1 client reclaimed its open after the restart, wrote with it, read both blocks back: $rline" ||
  it_fail "reclaim on head A failed (exit $hrc): ${rline:-$(tail -n 2 "$IT_WORK/reclaim.err")}"
if ms=$(wait_for 60 lifted); then
  lift_ms=$(($(date +%s%3N) - tk))
  it_pass "grace period lifted cluster-wide $lift_ms ms after the crash: $(grace_dump | tr '\n\t' ' ')"
else
  it_fail "grace period not lifted within 60 s of the reclaim: $(grace_dump | tr '\n\t' ' ')"
fi
out=$("$HA_BIN/ha_reclaim" probe -H "$(url_ip b)" -p "$HAP_NFS_PORT" -e /ha -n v4newb -o ha_reclaim.probe2 2>&1)
[[ $out == *"open=NFS4_OK"* ]] && it_pass "after the grace period a new OPEN on head B is served: $out" ||
  it_fail "a new OPEN on head B after the grace period: $out"

# the NFSv3 writers to their end, then the ledger
wrc=()
for h in a b; do
  for _ in $(seq $((secs * 10 + 1200))); do kill -0 "${WPID[$h]}" 2>/dev/null || break; sleep 0.1; done
  kill -0 "${WPID[$h]}" 2>/dev/null && { kill "${WPID[$h]}"; it_fail "writers on head $h still running long after their end"; }
  wait "${WPID[$h]}"; wrc+=("$?")
  cat "$IT_WORK/writer.$h.out"
done
la=$(grep '^ha_writer: writers=' "$IT_WORK/writer.a.out")
lb=$(grep '^ha_writer: writers=' "$IT_WORK/writer.b.out")
[ "${wrc[0]}" = 0 ] && [ "$(it_kv verifier_changes "$la")" -gt 0 ] 2>/dev/null &&
  it_pass "head A's NFSv3 writers went on after A's restart, saw the verifier change and resent $(it_kv resent_bytes "$la") bytes" ||
  it_fail "head A's NFSv3 writers (exit ${wrc[0]}): $la"
[ "${wrc[1]}" = 0 ] && [ "$(it_kv errors "$lb")" = 0 ] &&
  it_pass "head B's NFSv3 writers ran through A's crash and the grace period without an error" ||
  it_fail "head B's NFSv3 writers (exit ${wrc[1]}): $lb"
for h in a b; do
  vout=$("$DC_FT_BIN/ft_verify" -l "$EXP" "$IT_WORK/rec.$h"/*.rec 2>&1)
  vrc=$?
  vline=$(echo "$vout" | grep '^ft_verify:')
  [ $vrc = 0 ] && it_pass "head $h's writers: zero acknowledged-durable bytes lost: $vline" ||
    it_fail "head $h's writers: acknowledged-durable data lost or unreadable: $vline"
done
cp "$PAIR"/*.log "$IT_WORK/" 2>/dev/null
echo "figures: fsal=$DC_TEST_FSAL rados_up_s=$up_s b_enforcing_after_kill_ms=${enf_ms:-none} a_back_after_kill_ms=$back_ms reclaim=\"$rline\" grace_lifted_after_kill_ms=${lift_ms:-none} grace_dump_crashes=$(cat "$IT_WORK/grace-dump.crashes" 2>/dev/null | wc -l) a_max_stall_ms=$(it_kv max_stall_ms "$la") b_max_stall_ms=$(it_kv max_stall_ms "$lb")"
