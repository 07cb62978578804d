#!/bin/bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A ganesha head inside a qemu guest of tests/lib/guest.sh (copied to its share as
# /host/head.sh; the config is /host/ganesha.conf, the log /host/ganesha.log):
#   head.sh up EPOCH VIP   mounts the shared disk /dev/vdb on /srv/ha (ext4 replays its
#                          journal after the other head's crash), starts rpcbind and
#                          ganesha.nfsd -E EPOCH, waits until it listens on 2049 and 20048,
#                          then takes the floating address VIP (and announces it with a
#                          gratuitous ARP). Prints "took MS ms (mount MS, ganesha MS)".
#   head.sh down           stops ganesha (SIGTERM) and unmounts the shared disk
set -u
now() { echo $((${EPOCHREALTIME/./} / 1000)); }
# builtins only: under TCG every fork costs ~0.1 s
listening() { # PORT
  local hex l lines
  printf -v hex '%04X' "$1"
  mapfile -t lines < /proc/net/tcp
  [ -r /proc/net/tcp6 ] && mapfile -t -O "${#lines[@]}" lines < /proc/net/tcp6
  for l in "${lines[@]}"; do
    [[ $l =~ :${hex}\ [0-9A-F]+:0000\ 0A ]] && return 0
  done
  return 1
}
case ${1:-} in
  up)
    epoch=$2 vip=$3 t0=$(now)
    mkdir -p /srv/ha
    mount -t ext4 /dev/vdb /srv/ha || { echo "mount /dev/vdb failed"; exit 1; }
    t1=$(now)
    if ! listening 111; then
      setsid rpcbind -w -f > /dev/null 2>&1 < /dev/null &
      for _ in $(seq 100); do listening 111 && break; sleep 0.1; done
    fi
    setsid ganesha.nfsd -F -L /host/ganesha.log -f /host/ganesha.conf -p /run/ganesha.pid \
      -E "$epoch" > /dev/null 2>&1 < /dev/null &
    gpid=$!
    ok=0
    for _ in $(seq 1200); do
      kill -0 "$gpid" 2>/dev/null || { echo "ganesha exited"; tail -n 20 /host/ganesha.log; exit 1; }
      listening 2049 && listening 20048 && { ok=1; break; }
      sleep 0.1
    done
    [ $ok = 1 ] || { echo "ganesha did not listen within 120 s"; exit 1; }
    t2=$(now)
    ip addr add "$vip/24" dev eth0 || exit 1
    setsid arping -q -U -c 3 -I eth0 "$vip" > /dev/null 2>&1 < /dev/null &
    echo "took $(($(now) - t0)) ms (mount $((t1 - t0)) ms, ganesha $((t2 - t1)) ms) pid $gpid"
    ;;
  down)
    p=$(cat /run/ganesha.pid 2>/dev/null)
    [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
    for _ in $(seq 200); do [ -n "$p" ] && kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    sync
    umount /srv/ha
    ;;
  *) echo "usage: head.sh up EPOCH VIP | down"; exit 2 ;;
esac
