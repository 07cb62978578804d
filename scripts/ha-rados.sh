#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A one-node RADOS (one ceph-mon, one ceph-mgr, one ceph-osd on memstore) for ganesha's
# rados_cluster recovery backend (docs/design.md "Two heads", active/active), all its state in one
# scratch directory; also the library of tests/ha/rados_cluster.sh (sourced: functions only).
# Run as root:
#
#   scripts/ha-rados.sh [--time SECS] [-- CMD ARGS...]
#
# In a private network+mount namespace (tests/lib/in-ns.sh) on 127.0.0.1: the cluster comes
# up (pool "nfs-ganesha", size 1, active+clean), then CMD runs with CEPH_CONF set to the
# cluster's ceph.conf (e.g. -- ceph -s), or it stays up SECS seconds (default 300); then every
# daemon is stopped and the directory removed.
# What a one-node cluster needs (Ceph 16.2.15, Debian 12; each checked here by leaving it out):
#   - size 1 pools: "osd pool default size = 1", "min size = 1", "mon allow pool size one",
#     and "osd pool set POOL size 1 --yes-i-really-mean-it"; with the defaults (size 3,
#     min_size 2) the pool's PGs stay "8 undersized+peered" ("100.000% pgs not active",
#     HEALTH_WARN "OSD count 1 < osd_pool_default_size 3"); "osd crush chooseleaf type = 0"
#     (the default rule picks OSDs, not hosts)
#   - the OSD in the CRUSH map: with "osd crush update on start = false" and no
#     "ceph osd crush add" every PG stays "stuck inactive ... current state unknown, last
#     acting []" (osd tree: osd.0 outside root default, weight 0). The OSD's own placement
#     at start (the default) is enough (host = the machine's name, weight 0.00049 for
#     512 MiB); rad_up places it explicitly anyway (weight 1, host rados-node)
#   - a ceph-mgr, to see the pool active: without one objects can be written (rados put)
#     but the mon has no PG stats ("ceph -s": "0 pools, 0 pgs", "mgr: no daemons active";
#     "ceph pg stat" hangs), so nothing can wait for active+clean
#   - auth none everywhere (no keyrings), memstore (no disk, no bluestore mkfs)
# Needs ceph-mon ceph-mgr ceph-osd ceph-common (Debian 12: 16.2.15).

RAD_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RAD_PIDS=()     # mon, mgr, osd in start order (rad_down stops them last first)
RAD_POOL=${RAD_POOL:-nfs-ganesha}

rad_log() { echo "[ha-rados $(date +%T.%3N)] $*" >&2; }

# rad_have: true when the Ceph programs are installed.
rad_have() {
  local p
  for p in ceph-mon ceph-mgr ceph-osd ceph ceph-authtool monmaptool; do
    command -v "$p" >/dev/null || { RAD_MISSING=$p; return 1; }
  done
}

# rad_ceph ARGS...: the ceph CLI against this cluster, each call bounded (15 s).
rad_ceph() { timeout 15 ceph --conf "$RAD_CONF" --connect-timeout 10 "$@"; }

# rad_conf DIR IP: writes DIR/ceph.conf for a cluster whose daemons listen on IP.
rad_conf() {
  RAD_DIR=$1 RAD_IP=$2
  RAD_CONF=$RAD_DIR/ceph.conf
  RAD_FSID=$(cat /proc/sys/kernel/random/uuid)
  mkdir -p "$RAD_DIR"/{mon,mgr,osd,run,log}
  cat > "$RAD_CONF" <<EOF
[global]
fsid = $RAD_FSID
mon host = v2:$RAD_IP:3300
mon initial members = a
public network = $RAD_IP/32
auth cluster required = none
auth service required = none
auth client required = none
auth supported = none
ms bind ipv6 = false
ms bind msgr1 = false
run dir = $RAD_DIR/run
admin socket = $RAD_DIR/run/\$name.asok
log file = $RAD_DIR/log/\$name.log
keyring = /dev/null
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
mon warn on insecure global id reclaim allowed = false
[mon]
mon data = $RAD_DIR/mon/\$cluster-\$id
[mgr]
mgr data = $RAD_DIR/mgr/\$cluster-\$id
[osd]
osd data = $RAD_DIR/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = 536870912
osd crush update on start = true
crush location = root=default host=rados-node
osd max object name len = 256
osd max object namespace len = 64
EOF
}

# rad_wait SECS WHAT CMD...: polls CMD every 0.5 s until SECS seconds have passed (a CMD
# that hangs is bounded by rad_ceph's timeout).
rad_wait() {
  local secs=$1 what=$2 end; shift 2
  end=$(($(date +%s) + secs))
  while [ "$(date +%s)" -lt "$end" ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  rad_log "$what: not within $secs s"; return 1
}

rad_osd_up() { rad_ceph osd dump 2>/dev/null | grep -q '^osd\.0 up  *in '; }
rad_pool_clean() { # all PGs of the cluster active+clean (and at least one)
  local s; s=$(rad_ceph pg stat 2>/dev/null) || return 1
  [[ $s =~ ^([0-9]+)\ pgs:\ ([0-9]+)\ active\+clean ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] &&
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
}

# rad_up DIR IP [SECS]: a one-node cluster on IP with its state in DIR, the pool RAD_POOL
# (size 1) active+clean; SECS bounds the whole start (default 120).
rad_up() {
  local dir=$1 ip=$2 secs=${3:-120} t0 mgrname=x
  t0=$(date +%s)
  rad_have || { rad_log "missing: $RAD_MISSING"; return 2; }
  rad_conf "$dir" "$ip"
  # mon
  monmaptool --create --fsid "$RAD_FSID" --addv a "[v2:$ip:3300]" "$dir/monmap" >/dev/null || return 1
  ceph-mon --conf "$RAD_CONF" --mkfs -i a --monmap "$dir/monmap" > "$dir/log/mkfs.mon.out" 2>&1 ||
    { rad_log "ceph-mon --mkfs failed: $(tail -n 3 "$dir/log/mkfs.mon.out")"; return 1; }
  ceph-mon --conf "$RAD_CONF" -i a -f > "$dir/log/mon.out" 2>&1 &
  RAD_PIDS+=("$!")
  rad_wait 30 "mon answering" rad_ceph mon stat || return 1
  rad_log "mon up ($(($(date +%s) - t0)) s)"
  # mgr
  mkdir -p "$dir/mgr/ceph-$mgrname"
  ceph-mgr --conf "$RAD_CONF" -i "$mgrname" -f > "$dir/log/mgr.out" 2>&1 &
  RAD_PIDS+=("$!")
  # osd: its id from the mon, mkfs on memstore, placed in CRUSH (weight 1, host rados-node)
  local uuid id; uuid=$(cat /proc/sys/kernel/random/uuid)
  id=$(rad_ceph osd new "$uuid") || { rad_log "ceph osd new failed"; return 1; }
  mkdir -p "$dir/osd/ceph-$id"
  ceph-osd --conf "$RAD_CONF" -i "$id" --mkfs --osd-uuid "$uuid" > "$dir/log/mkfs.osd.out" 2>&1 ||
    { rad_log "ceph-osd --mkfs failed: $(tail -n 3 "$dir/log/mkfs.osd.out")"; return 1; }
  { rad_ceph osd crush add-bucket rados-node host &&
    rad_ceph osd crush move rados-node root=default &&
    rad_ceph osd crush add "osd.$id" 1.0 root=default host=rados-node; } >> "$dir/log/cli.out" 2>&1 ||
    { rad_log "CRUSH placement of osd.$id failed"; return 1; }
  ceph-osd --conf "$RAD_CONF" -i "$id" -f > "$dir/log/osd.out" 2>&1 &
  RAD_PIDS+=("$!")
  rad_wait $((secs - ($(date +%s) - t0))) "osd.$id up" rad_osd_up || return 1
  rad_log "osd.$id up ($(($(date +%s) - t0)) s)"
  { rad_ceph osd pool create "$RAD_POOL" 8 8 replicated &&
    rad_ceph osd pool set "$RAD_POOL" size 1 --yes-i-really-mean-it &&
    rad_ceph osd pool application enable "$RAD_POOL" nfs; } >> "$dir/log/cli.out" 2>&1 ||
    { rad_log "pool $RAD_POOL not created"; return 1; }
  local left=$((secs - ($(date +%s) - t0)))
  [ $left -gt 5 ] || left=5
  rad_wait $left "PGs active+clean" rad_pool_clean ||
    { rad_log "pg stat: $(rad_ceph pg stat 2>&1)"; return 1; }
  rad_log "pool $RAD_POOL active+clean ($(($(date +%s) - t0)) s): $(rad_ceph health 2>&1)"
}

# rad_down: stops the daemons, last first (SIGTERM, then SIGKILL after 10 s), by pid.
rad_down() {
  local i p
  for ((i = ${#RAD_PIDS[@]} - 1; i >= 0; i--)); do
    p=${RAD_PIDS[$i]}
    kill -0 "$p" 2>/dev/null || continue
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  RAD_PIDS=()
}

# ---- run as a command (not sourced)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -u
  if [ "${GSH_IN_NS:-}" != 1 ]; then
    exec "$RAD_TOP/tests/lib/in-ns.sh" bash "$(readlink -f "$0")" "$@"
  fi
  secs=300 cmd=()
  while [ $# -gt 0 ]; do
    case $1 in
      --time) secs=$2; shift ;;
      --) shift; cmd=("$@"); break ;;
      *) sed -n '3,29p' "$0"; exit 2 ;;
    esac
    shift
  done
  rad_have || { echo "ha-rados: $RAD_MISSING missing (apt-get install ceph-mon ceph-mgr ceph-osd ceph-common)" >&2; exit 2; }
  work=$(mktemp -d /var/tmp/ha-rados.XXXXXX)
  cleanup() { trap - EXIT INT TERM; rad_down; rm -rf "$work"; }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  rad_up "$work" 127.0.0.1 || { tail -n 20 "$work"/log/*.log; exit 1; }
  export CEPH_CONF=$RAD_CONF
  if [ ${#cmd[@]} -gt 0 ]; then
    "${cmd[@]}"
    exit $?
  fi
  echo "up for $secs s (Ctrl-C ends it): CEPH_CONF=$RAD_CONF"
  sleep "$secs"
fi
