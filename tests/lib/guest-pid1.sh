#!/bin/bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# PID 1 of a qemu guest of tests/lib/guest.sh (copied to the guest's 9p share as /host/guest.sh
# and run by the image's /sbin/ha-guest-init). Sets up the node (tmpfs /run and /tmp, its
# address on eth0, the module under test in ganesha's plugin directory), then runs the host's
# commands: one line "ID CMD" at a time from the control port /dev/ttyS1, CMD under bash with
# its output in /host/out.ID, answered by "DONE ID RC". Background daemons are started by the
# commands themselves (setsid ... &).
set -u
. /host/env
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm /run/rpcbind /run/ganesha
mount -t devpts devpts /dev/pts 2>/dev/null
hostname "$HAG_NAME"
# no DNS here: names resolve from /etc/hosts (ganesha and rpcbind look their host up)
printf '127.0.0.1 localhost\n%s %s\n' "$HAG_IP" "$HAG_NAME" > /etc/hosts
: > /etc/resolv.conf
ln -sf /proc/self/mounts /etc/mtab
ip link set lo up
ip addr add "$HAG_IP/24" dev eth0
ip link set eth0 up
modprobe virtio_rng 2>/dev/null  # entropy: getrandom() would block ganesha and rpcbind
for f in /host/lib*.so; do
  [ -f "$f" ] && cp "$f" /usr/lib/x86_64-linux-gnu/ganesha/
done
ctl=/dev/ttyS1
stty -F "$ctl" raw -echo 2>/dev/null
exec 3<> "$ctl"
echo "READY $(uname -r)" >&3
while read -r -u 3 id cmd; do
  [ -n "$id" ] || continue
  bash -c "$cmd" > "/host/out.$id" 2>&1 < /dev/null
  echo "DONE $id $?" >&3
done
echo "guest-pid1: control port closed" > /dev/console
while :; do sleep 3600; done
