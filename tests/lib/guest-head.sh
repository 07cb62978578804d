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
# listening, nfsd_up (copied beside this script by hag_boot)
. /host/nfsd.sh
case ${1:-} in
  up)
    epoch=$2 vip=$3 t0=$(now)
    mkdir -p /srv/ha
    mount -t ext4 /dev/vdb /srv/ha || { echo "mount /dev/vdb failed"; exit 1; }
    t1=$(now)
    nfsd_up /host/ganesha.conf -E "$epoch" || exit 1
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
