#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Two ganesha heads over one filesystem behind a floating address, on one machine, for trying
# it (docs/design.md "Two heads"); also the library of tests/ha/failover_v3.sh (sourced: functions
# only). Run as root:
#
#   scripts/ha-pair.sh [--build DIR] [--module SO] [--root DIR] [--fsal DONTCACHE|VFS]
#                      [--key shared|node] [--time SECS] [-- CMD ARGS...]
#
# Everything lives in namespaces this script makes and removes: a private network+mount
# namespace for itself (the client side, tests/lib/in-ns.sh), a bridge namespace, and per head
# a network+mount namespace (its own /run and /var/lib/nfs/ganesha, as on a node of its own)
# with a veth pair to the bridge: head A eth0 192.168.50.11, head B eth0 192.168.50.12, this
# side 192.168.50.10. A loop ext4 (a sparse 1 GiB file under the scratch directory) mounted
# before the heads' namespaces were made is the shared filesystem /srv/ha of
# config/ha/ganesha.head-*.conf: both heads see it. Each head runs its own rpcbind -f -w,
# ganesha.nfsd -F (its config/ha file with the paths of the scratch tree and -E from
# config/ha/ganesha-epoch.sh) and keepalived (config/ha/keepalived.head-*.conf as is) that
# puts 192.168.50.100 on head A, then on B when A fails.
#   --build  the build tree whose module is used (default build)
#   --module the module itself (default BUILD/FSAL_DONTCACHE/libfsaldontcache.so)
#   --root   run DIR's ganesha.nfsd in each head (chroot), e.g. third_party/debian13-root
#            (ganesha 6.5; --module build-g6/FSAL_DONTCACHE/libfsaldontcache.so)
#   --fsal   DONTCACHE (default) or VFS (stock FSAL_VFS, for comparison)
#   --key    shared (default): one key file on the shared filesystem (made here once, as an
#            operator does), Handle_Key_Create = false; node: each head's default key path
#            (/var/lib/nfs/ganesha/dontcache/export-1.key, on its own node): handles from
#            one head are BADHANDLE on the other
#   --time   how long the pair stays up without CMD (default 300 s; Ctrl-C ends it sooner)
#   CMD      runs on the client side, then the pair is taken down; HAP_URL in its
#            environment is the export's NFSv3 libnfs URL on the floating address (NFSv4.1
#            and 4.2 clients mount 192.168.50.100:/ha; 4.0 is not enabled)
# Needs keepalived (apt-get install keepalived), rpcbind and ganesha.nfsd.

HAP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HAP_NET=192.168.50
HAP_VIP=$HAP_NET.100
HAP_CLIENT_IP=$HAP_NET.10
HAP_NFS_PORT=2049
HAP_MNT_PORT=20048
HAP_PIDS=()     # every process started, in start order (hap_down stops them last first)
declare -A HAP_HOLDER HAP_GSH HAP_KA HAP_RPCB HAP_IP HAP_IDX HAP_CONF HAP_KCONF HAP_ROOTED
# HAP_ROOT=DIR: each head runs DIR's ganesha.nfsd (chroot; e.g. the Debian 13 root of
# scripts/setup.sh --ganesha 6, with a module built for it), as tests/lib/ganesha.sh's GSH_ROOT
HAP_ROOT=${HAP_ROOT:-}
HAP_IP[a]=$HAP_NET.11 HAP_IP[b]=$HAP_NET.12 HAP_IDX[a]=0 HAP_IDX[b]=1

hap_log() { echo "[ha-pair $(date +%T.%3N)] $*" >&2; }

# hap_ns NAME CMD...: runs CMD in the namespaces of holder NAME (br, a, b). For a process
# started in the background, nsenter itself (not this function: $! would be a subshell's):
#   nsenter -t "${HAP_HOLDER[$n]}" -n -m -- CMD &
hap_ns() { local n=$1; shift; nsenter -t "${HAP_HOLDER[$n]}" -n -m -- "$@"; }

# hap_holder NAME: a process that holds a new network+mount namespace, with its own /run and
# /var/lib/nfs/ganesha (a head's node-local state) and lo up; HAP_HOLDER[NAME] = its pid.
hap_holder() {
  local n=$1 ready=$HAP_WORK/holder.$1.ready i
  rm -f "$ready"
  unshare -n -m --propagation private bash -c '
    mount -t tmpfs -o mode=0755 tmpfs /run &&
    { [ ! -d /var/lib/nfs/ganesha ] || mount -t tmpfs -o mode=0700 tmpfs /var/lib/nfs/ganesha; } &&
    ip link set lo up && touch "$1" && exec sleep "$2"' holder "$ready" "${HAP_HOLD_SECS:-3600}" &
  HAP_HOLDER[$n]=$!
  HAP_PIDS+=("$!")
  for i in $(seq 50); do [ -e "$ready" ] && return 0; sleep 0.1; done
  hap_log "namespace holder $n did not come up"; return 1
}

# hap_init WORK FS PLUGINS FSAL KEYMODE: the scratch directory, the shared filesystem's mount
# point, a Plugins_Dir with the module (or "" for ganesha's own), the FSAL and key mode; writes
# each head's configs to WORK from config/ha.
hap_init() {
  HAP_WORK=$1 HAP_FS=$2 HAP_PLUGINS=$3 HAP_FSAL=$4 HAP_KEYMODE=$5
  local h fsal
  mkdir -p "$HAP_WORK" "$HAP_FS/export"
  chmod 755 "$HAP_FS/export"
  if [ "$HAP_FSAL" = DONTCACHE ] && [ "$HAP_KEYMODE" = shared ]; then
    # the operator's step: one key, made once, where every head reads it
    mkdir -p "$HAP_FS/.dontcache"; chmod 700 "$HAP_FS/.dontcache"
    [ -f "$HAP_FS/.dontcache/export-1.key" ] ||
      { head -c 16 /dev/urandom > "$HAP_FS/.dontcache/export-1.key" && chmod 600 "$HAP_FS/.dontcache/export-1.key"; }
  fi
  case $HAP_FSAL/$HAP_KEYMODE in
    DONTCACHE/shared) fsal='' ;;
    DONTCACHE/node) fsal='s|FSAL { Name = DONTCACHE;.*}|FSAL { Name = DONTCACHE; }|' ;;
    VFS/*) fsal='s|FSAL { Name = DONTCACHE;.*}|FSAL { Name = VFS; }|' ;;
    *) hap_log "bad FSAL/key mode $HAP_FSAL/$HAP_KEYMODE"; return 1 ;;
  esac
  for h in a b; do
    HAP_CONF[$h]=$HAP_WORK/ganesha.head-$h.conf
    HAP_KCONF[$h]=$HAP_WORK/keepalived.head-$h.conf
    sed -e "s|/srv/ha|$HAP_FS|g" -e "$fsal" \
        -e "s|^NFS_CORE_PARAM {|NFS_CORE_PARAM {${HAP_PLUGINS:+ Plugins_Dir = $HAP_PLUGINS;}${HAP_ROOT:+ Allow_Set_Io_Flusher_Fail = true;}|" \
        -e "s|^NFSV4 {|NFSV4 { RecoveryRoot = /var/lib/nfs/ganesha/v4recov; Graceless = true;|" \
        "$HAP_TOP/config/ha/ganesha.head-$h.conf" > "${HAP_CONF[$h]}"
    cp "$HAP_TOP/config/ha/keepalived.head-$h.conf" "${HAP_KCONF[$h]}"
  done
}

hap_port_open() { # hap_port_open HEAD PORT
  local hex; hex=$(printf '%04X' "$2")
  hap_ns "$1" grep -Eq ":${hex} [0-9A-F]+:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# hap_net: the bridge namespace, the heads' namespaces and a veth pair from each (and from
# this namespace, the client side) to the bridge.
hap_net() {
  local h
  hap_holder br && hap_holder a && hap_holder b || return 1
  hap_ns br ip link add br0 type bridge && hap_ns br ip link set br0 up || return 1
  for h in a b c; do
    ip link add "hap-$h" type veth peer name "hap-$h-br" || return 1
    ip link set "hap-$h-br" netns "${HAP_HOLDER[br]}" || return 1
    hap_ns br ip link set "hap-$h-br" master br0 up || return 1
  done
  for h in a b; do
    ip link set "hap-$h" netns "${HAP_HOLDER[$h]}" || return 1
    hap_ns "$h" ip link set "hap-$h" name eth0 &&
      hap_ns "$h" ip addr add "${HAP_IP[$h]}/24" dev eth0 &&
      hap_ns "$h" ip link set eth0 up || return 1
  done
  ip addr add "$HAP_CLIENT_IP/24" dev hap-c && ip link set hap-c up
}

# hap_ganesha HEAD: starts the head's ganesha (rpcbind first, once) with a fresh epoch;
# waits until it listens.
hap_ganesha() {
  local h=$1 i epoch log=$HAP_WORK/ganesha.$1.log
  if [ -z "${HAP_RPCB[$h]:-}" ]; then
    hap_ns "$h" mkdir -p /run/rpcbind
    nsenter -t "${HAP_HOLDER[$h]}" -n -m -- rpcbind -f -w &
    HAP_RPCB[$h]=$!; HAP_PIDS+=("$!")
    for i in $(seq 50); do hap_port_open "$h" 111 && break; sleep 0.1; done
  fi
  local chroot=()
  if [ -n "$HAP_ROOT" ]; then
    # in the head's mount namespace (gone with it): the root's /proc, /dev, /run (the head's),
    # the shared filesystem, the paths of the config, and the root's node-local state dir
    if [ -z "${HAP_ROOTED[$h]:-}" ]; then
      hap_ns "$h" bash -c 'GSH_ROOT=$2; . "$1/tests/lib/ganesha.sh" &&
        { [ ! -d "$GSH_ROOT/var/lib/nfs/ganesha" ] ||
          mount -t tmpfs -o mode=0700 tmpfs "$GSH_ROOT/var/lib/nfs/ganesha"; } &&
        gsh_root_prepare "$4" "$5" && gsh_root_bind "$3"' \
        root "$HAP_TOP" "$HAP_ROOT" "$HAP_FS" "${HAP_CONF[$h]}" "$log" ||
        { hap_log "cannot prepare $HAP_ROOT for head $h"; return 1; }
      HAP_ROOTED[$h]=1
    fi
    chroot=(chroot "$HAP_ROOT")
  fi
  # HAP_EPOCH: one epoch for both heads, as two heads started in the same second without -E
  epoch=${HAP_EPOCH:-$("$HAP_TOP/config/ha/ganesha-epoch.sh" "${HAP_IDX[$h]}")} || return 1
  nsenter -t "${HAP_HOLDER[$h]}" -n -m -- "${chroot[@]}" \
    ganesha.nfsd -F -C -L "$log" -f "${HAP_CONF[$h]}" -p /run/ganesha.pid -E "$epoch" &
  HAP_GSH[$h]=$!; HAP_PIDS+=("$!")
  for i in $(seq 300); do
    kill -0 "${HAP_GSH[$h]}" 2>/dev/null || { hap_log "ganesha on head $h exited (log $log)"; return 1; }
    hap_port_open "$h" "$HAP_NFS_PORT" && hap_port_open "$h" "$HAP_MNT_PORT" && { sleep 0.3; return 0; }
    sleep 0.1
  done
  hap_log "ganesha on head $h did not listen (log $log)"; return 1
}

# hap_keepalived HEAD: its keepalived, VRRP only, in the foreground.
hap_keepalived() {
  local h=$1
  nsenter -t "${HAP_HOLDER[$h]}" -n -m -- keepalived -P -n -l -D -f "${HAP_KCONF[$h]}" \
    -p /run/keepalived.pid -r /run/keepalived-vrrp.pid > "$HAP_WORK/keepalived.$h.log" 2>&1 &
  HAP_KA[$h]=$!; HAP_PIDS+=("$!")
}

# hap_vip_head: a, b or none: which head holds the floating address now.
hap_vip_head() {
  local h
  for h in a b; do
    hap_ns "$h" ip -o -4 addr show dev eth0 2>/dev/null | grep -q " $HAP_VIP/" && { echo "$h"; return; }
  done
  echo none
}

# hap_wait_vip HEAD SECS: true once HEAD holds the address (polled every 50 ms).
hap_wait_vip() {
  local h=$1 n=$(($2 * 20)) i
  for ((i = 0; i < n; i++)); do [ "$(hap_vip_head)" = "$h" ] && return 0; sleep 0.05; done
  return 1
}

# hap_up: namespaces, both ganeshas, both keepalived; the address on head A.
hap_up() {
  hap_net || { hap_log "network setup failed"; return 1; }
  hap_ganesha a && hap_ganesha b || return 1
  hap_keepalived a
  sleep 0.5  # A first: with nopreempt the first MASTER keeps the address
  hap_keepalived b
  hap_wait_vip a 15 || { hap_log "head A did not take $HAP_VIP (keepalived log $HAP_WORK/keepalived.a.log)"; return 1; }
  hap_log "up: $HAP_VIP on head A; ganesha A pid ${HAP_GSH[a]}, B pid ${HAP_GSH[b]}"
}

# hap_crash HEAD [ganesha]: SIGKILL of the head's ganesha, then its keepalived stopped
# (SIGTERM: it gives the address up at once); with "ganesha", keepalived keeps running and
# its health check (chk_ganesha) has to give the address up.
hap_crash() {
  local h=$1
  kill -KILL "${HAP_GSH[$h]}" 2>/dev/null; wait "${HAP_GSH[$h]}" 2>/dev/null
  [ "${2:-}" = ganesha ] && return 0
  kill -TERM "${HAP_KA[$h]}" 2>/dev/null; wait "${HAP_KA[$h]}" 2>/dev/null
}

# hap_down: stops everything started here, last first (bounded waits), by pid.
hap_down() {
  local i p k
  for ((i = ${#HAP_PIDS[@]} - 1; i >= 0; i--)); do
    p=${HAP_PIDS[$i]}
    kill -0 "$p" 2>/dev/null || continue
    kill -TERM "$p" 2>/dev/null
    for k in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  HAP_PIDS=()
  HAP_HOLDER=() HAP_GSH=() HAP_KA=() HAP_RPCB=() HAP_ROOTED=()
  ip link del hap-c 2>/dev/null
  return 0
}

# ---- run as a command (not sourced)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -u
  if [ "${GSH_IN_NS:-}" != 1 ]; then
    exec "$HAP_TOP/tests/lib/in-ns.sh" bash "$(readlink -f "$0")" "$@"
  fi
  build=$HAP_TOP/build module= fsal=DONTCACHE key=shared secs=300 cmd=()
  while [ $# -gt 0 ]; do
    case $1 in
      --build) build=$2; shift ;;
      --module) module=$(readlink -f "$2"); shift ;;
      --root) HAP_ROOT=$(readlink -f "$2"); shift ;;
      --fsal) fsal=$2; shift ;;
      --key) key=$2; shift ;;
      --time) secs=$2; shift ;;
      --) shift; cmd=("$@"); break ;;
      *) sed -n '3,33p' "$0"; exit 2 ;;
    esac
    shift
  done
  command -v keepalived >/dev/null || { echo "ha-pair: keepalived missing (apt-get install keepalived)" >&2; exit 2; }
  work=$(mktemp -d /var/tmp/ha-pair.XXXXXX)
  loopdev=
  cleanup() {
    trap - EXIT INT TERM
    hap_down
    umount "$work/srv" 2>/dev/null || umount -l "$work/srv" 2>/dev/null
    [ -n "$loopdev" ] && losetup -d "$loopdev"
    rm -rf "$work"
  }
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  plugins=$work/plugins
  mkdir -p "$plugins" "$work/srv"
  ln -s /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$plugins/libfsalvfs.so"
  ln -s "${module:-$(readlink -f "$build")/FSAL_DONTCACHE/libfsaldontcache.so}" "$plugins/libfsaldontcache.so"
  truncate -s 1G "$work/disk.img" && loopdev=$(losetup -f --show "$work/disk.img") &&
    mkfs.ext4 -q -F "$loopdev" && mount "$loopdev" "$work/srv" || exit 1
  hap_init "$work" "$work/srv" "$plugins" "$fsal" "$key" && hap_up || exit 1
  export HAP_URL="nfs://$HAP_VIP$work/srv/export?version=3&nfsport=$HAP_NFS_PORT&mountport=$HAP_MNT_PORT"
  echo "pair up: $HAP_URL (logs in $work; head A ganesha pid ${HAP_GSH[a]})"
  if [ ${#cmd[@]} -gt 0 ]; then
    "${cmd[@]}"
    exit $?
  fi
  echo "up for $secs s (Ctrl-C ends it); e.g. kill -9 ${HAP_GSH[a]} to fail head A over"
  for ((t = 0; t < secs; t++)); do
    sleep 1
    [ $((t % 10)) = 0 ] && echo "address on head $(hap_vip_head)"
  done
fi
