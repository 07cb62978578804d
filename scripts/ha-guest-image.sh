#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Makes (once) the qemu guest of the node-crash scenarios (tests/ha/node_crash.sh,
# tests/ha/reclaim_v41.sh; library tests/ha/guest.sh): a Debian 12 root with its own kernel,
# on which a ganesha head (or a Linux NFS client) runs as on a node of its own, so that
# killing its qemu loses its page cache.
#   third_party/guest-bookworm/root.img    ext4 image of the root (raw; guests attach it with
#                                          snapshot=on: nothing they write reaches it)
#   third_party/guest-bookworm/vmlinuz, initrd.img   Debian's linux-image-amd64 (6.1) and an
#                                          initramfs with the virtio and ext4 modules only
#   third_party/guest-bookworm/.stamp      sha256 of this script: the image is made again when
#                                          this script (its package list, its init) changes
# The root is scripts/clean-root.sh's bookworm root (debootstrap minbase, apt lists) copied,
# plus linux-image-amd64, nfs-ganesha 4.3 + nfs-ganesha-vfs, rpcbind, nfs-common, iproute2,
# iputils-arping, netbase (rpcbind needs /etc/services) and the libraries the module links
# (libdbus-1-3), and for tests/ha/guest_caps.sh quota (setquota, repquota) and
# libcunit1 (its unit test test_dcio_caps runs in the guest); the guest's /sbin/ha-guest-init
# mounts the 9p share "host" on /host and runs /host/guest.sh (the scenario's own script, so
# changing a test needs no new image). The module
# under test is not in the image: the scenarios copy it in through the share at every run.
# Prints the image directory as the last line. Takes ~3 min (apt-get + mkfs) on 2 cores.
#
# usage: scripts/ha-guest-image.sh [bookworm|trixie] [--force]
#   trixie: the same guest from Debian 13 (kernel 6.12, nfs-ganesha 6.5; for guest_caps.sh
#   under --ganesha 6) in third_party/guest-trixie, from scripts/clean-root.sh's trixie root
# Environment: DC_GUEST_DIR (default third_party/guest-SUITE)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm force=0
for a in "$@"; do
  case $a in
    --force) force=1 ;;
    bookworm|4.3|12) suite=bookworm ;;
    trixie|6.5|13) suite=trixie ;;
    *) echo "usage: scripts/ha-guest-image.sh [bookworm|trixie] [--force]" >&2; exit 2 ;;
  esac
done
dir=${DC_GUEST_DIR:-$top/third_party/guest-$suite}
export DEBIAN_FRONTEND=noninteractive
t0=$(date +%s)
step() { echo "ha-guest-image: $* (+$(($(date +%s) - t0))s)" >&2; }
want=$(sha256sum "$0" | cut -d' ' -f1)

mkdir -p "$(dirname "$dir")"
exec 7> "$dir.lock"
flock -w 1200 7 || { echo "ha-guest-image: $dir.lock busy for 20 min" >&2; exit 1; }
if [ $force = 0 ] && [ -f "$dir/.stamp" ] && [ "$(cat "$dir/.stamp")" = "$want" ] &&
   [ -f "$dir/root.img" ] && [ -f "$dir/vmlinuz" ] && [ -f "$dir/initrd.img" ]; then
  echo "$dir"; exit 0
fi

clean=$(bash "$top/scripts/clean-root.sh" "$suite" | tail -n 1)
[ -f "$clean/.dc-clean-root" ] || { echo "ha-guest-image: no clean $suite root" >&2; exit 1; }
work=$dir.tmp
rm -rf "$work"
mkdir -p "$work"
root=$work/root
step "copying $clean"
cp -a "$clean" "$root"
rm -f "$root/.dc-clean-root"

# an initramfs with what a virtio guest needs to mount its root, nothing else (smaller, boots
# faster under TCG)
mkdir -p "$root/etc/initramfs-tools/conf.d"
echo MODULES=list > "$root/etc/initramfs-tools/conf.d/ha-guest.conf"

pkgs=(linux-image-amd64 initramfs-tools nfs-ganesha nfs-ganesha-vfs rpcbind nfs-common
      iproute2 iputils-arping kmod e2fsprogs procps util-linux
      netbase libdbus-1-3 quota libcunit1)
step "apt-get install ${pkgs[*]}"
exec 8> "$clean.lock"
flock -w 900 8 || { echo "ha-guest-image: $clean.lock busy" >&2; exit 1; }
mkdir -p "$clean.archives/partial"
unshare -m --propagation private bash -c '
  set -e
  mount --bind "$2" "$1/var/cache/apt/archives"
  . "$3/scripts/debroot.sh"
  debroot_in "$1" sh -c "apt-get install -y -q --no-install-recommends $4 &&
    printf \"%s\n\" virtio_pci virtio_blk virtio_net virtio_console ext4 >> /etc/initramfs-tools/modules &&
    update-initramfs -u -k all"' \
  sh "$root" "$clean.archives" "$top" "${pkgs[*]}" > "$work/apt.log" 2>&1 || {
  tail -n 30 "$work/apt.log" >&2; echo "ha-guest-image: apt-get failed (log $work/apt.log)" >&2; exit 1; }
flock -u 8

step "trimming"
kver=$(ls "$root/lib/modules" | sort -V | tail -n 1)
cp -L "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp -L "$root/boot/initrd.img-$kver" "$work/initrd.img"
m=$root/lib/modules/$kver/kernel
rm -rf "$m/drivers/gpu" "$m/sound" "$m/drivers/media" "$m/drivers/net/wireless" \
       "$m/drivers/infiniband" "$m/drivers/staging" "$m/drivers/bluetooth" "$m/net/bluetooth" \
       "$m/net/wireless" "$m/net/mac80211" "$m/drivers/usb" "$m/drivers/iio" "$m/drivers/hid" \
       "$m/drivers/input" "$m/drivers/isdn" "$m/drivers/net/ethernet" "$m/drivers/mtd" \
       "$root/boot"/* "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/locale" \
       "$root/var/cache/apt"/*.bin
chroot "$root" depmod "$kver"
rm -f "$root/usr/sbin/policy-rc.d"
echo guest > "$root/etc/hostname"
cat > "$root/sbin/ha-guest-init" <<'EOF'
#!/bin/sh
# PID 1 of a node-crash guest (scripts/ha-guest-image.sh): no init system, the scenario's
# /host/guest.sh (9p share "host") does the rest.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
modprobe 9pnet_virtio && modprobe 9p
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /host
[ -f /host/guest.sh ] && exec /bin/bash /host/guest.sh
echo "ha-guest-init: no /host/guest.sh" > /dev/console
exec /bin/sh
EOF
chmod 755 "$root/sbin/ha-guest-init"

step "mkfs.ext4 -d"
size=$(( $(du -sm "$root" | cut -f1) + 400 ))
truncate -s "${size}M" "$work/root.img"
mkfs.ext4 -q -F -L guestroot -d "$root" "$work/root.img"
rm -rf "$root" "$work/apt.log"
echo "$want" > "$work/.stamp"
rm -rf "$dir"
mv "$work" "$dir"
step "ready ($kver, ${size} MiB)"
echo "$dir"
