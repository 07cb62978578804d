#!/bin/bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The in-guest half of tests/ha/guest_caps.sh (copied to the guest's share as /host/caps.sh;
# Debian 12's kernel, root with every capability, quota built in):
#   caps.sh fs NAME          a 64 MiB ext4 (-b 4096 -m 50, the quota feature, mounted
#                            usrquota) on /srv/NAME, 1777, with uid 1000's block limit 16 MiB
#   caps.sh up CONF          rpcbind, then ganesha.nfsd -f CONF (log /host/ganesha.log) until it
#                            listens on 2049 and 20048
#   caps.sh down             ganesha stopped (SIGTERM)
#   caps.sh threads          every thread of ganesha: "NAME CapEff CapPrm", then
#                            "dcio_resource=N dcio_threads=M others=A,B" (N of the module's M
#                            threads, dcio-* and dc-stats, hold CAP_SYS_RESOURCE, bit 24,
#                            effective or permitted; A,B: ganesha's own threads that hold it)
#   caps.sh file NAME FILE   "owner=UID kib=KIB used1000=KIB avail=BYTES" of /srv/NAME/FILE
#                            (used1000: uid 1000's usage by repquota; avail: df for a user)
#   caps.sh avail NAME       the bytes a user may still take on /srv/NAME
#   caps.sh kernel DIR       the kernel's own answers, asked directly (perl's syscall): a 4 KiB
#                            pwritev2 into DIR without flags and with RWF_DONTCACHE (0x80),
#                            cachestat(2) (451) on fd -1: "kernel=REL pwritev2_plain=4096
#                            pwritev2_dontcache=errno95 cachestat=errno38" on 6.1 (EOPNOTSUPP,
#                            ENOSYS; a kernel that has cachestat answers EBADF, errno9)
#   caps.sh eiofs NAME N MiB an ext4 that can be made to fail writeback (as
#                            tests/faults/fault_eio.sh on the host): its image on a tmpfs of
#                            its own (/var/tmp/eio-NAME), on a loop device with 4 KiB requests
#                            (max_sectors_kb), no journal, errors=continue, on /srv/NAME (1777);
#                            files f_0 .. f_N-1 of MiB each written whole (zeros, fsync)
#   caps.sh eiofail NAME KIB the blocks of f_* punched out of the image (the device reads the
#                            same zeros there) and the tmpfs shrunk to its use + KIB: an
#                            overwrite of f_* needs a tmpfs page again, and its writeback fails
#                            once KIB are taken (ext4 changes no metadata block for it)
#   caps.sh eiook NAME       the tmpfs grown again: the device works
#   caps.sh eioremount NAME  /srv/NAME unmounted, the loop device detached and attached again,
#                            fsck -n, mounted again: nothing of it left in the page cache, a
#                            read is served by the device ("fsck=0|4")
set -u
# listening, nfsd_up (copied beside this script by hag_boot)
. /host/nfsd.sh
avail() { df -B1 --output=avail "/srv/$1" | tail -n1 | tr -d ' '; }
case ${1:-} in
  fs)
    n=$2 img=/var/tmp/$2.img
    modprobe -a loop quota_v2 2>/dev/null # modules in Debian's kernel; the guest has no udev
    truncate -s 64M "$img" &&
      mkfs.ext4 -q -F -b 4096 -m 50 -O quota -E quotatype=usrquota "$img" || exit 1
    mkdir -p "/srv/$n"
    mount -o loop,usrquota "$img" "/srv/$n" || exit 1
    chmod 1777 "/srv/$n"
    quotaon -u "/srv/$n" 2>/dev/null
    quotaon -pu "/srv/$n" 2>&1 | grep -q 'is on' || { quotaon -pu "/srv/$n"; exit 1; }
    setquota -u 1000 16384 16384 0 0 "/srv/$n" || exit 1
    echo "fs $n: avail $(avail "$n")"
    ;;
  up)
    nfsd_up "$2" || exit 1
    echo "ganesha $gpid up"
    ;;
  down)
    p=$(cat /run/ganesha.pid 2>/dev/null)
    [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
    for _ in $(seq 300); do [ -n "$p" ] && kill -0 "$p" 2>/dev/null || exit 0; sleep 0.1; done
    kill -KILL "$p"; echo "ganesha did not stop: killed"; exit 1
    ;;
  threads)
    p=$(cat /run/ganesha.pid)
    n=0 t=0 o=
    for s in /proc/"$p"/task/*/status; do
      name= eff= prm=
      while read -r k v; do
        case $k in Name:) name=$v ;; CapEff:) eff=$v ;; CapPrm:) prm=$v ;; esac
      done < "$s"
      echo "$name $eff $prm"
      res=0
      (( (0x$eff | 0x$prm) & (1 << 24) )) && res=1
      if [[ $name == dcio-* || $name == dc-stats ]]; then
        t=$((t + 1)) n=$((n + res))
      elif [ $res = 1 ]; then
        o+=${o:+,}$name
      fi
    done
    echo "dcio_resource=$n dcio_threads=$t others=${o:-none}"
    ;;
  file)
    f=/srv/$2/$3
    used=$(repquota -un "/srv/$2" | awk '$1 == "#1000" { print $3 }')
    echo "owner=$(stat -c %u "$f") kib=$(($(stat -c %b "$f") / 2)) used1000=${used:-none} avail=$(avail "$2")"
    ;;
  avail) avail "$2" ;;
  kernel)
    perl -e '
      my $p = "$ARGV[0]/.kernel-probe";
      open(my $f, "+>", $p) or die "open $p: $!";
      my $b = "x" x 4096;
      my $iov = pack("P4096Q", $b, 4096);
      my @r;
      for my $fl (0, 0x80) { # pwritev2 (328 on x86_64), RWF_DONTCACHE 0x80
        my $r = syscall(328, fileno($f), $iov, 1, 0, 0, $fl);
        push @r, ($fl ? "pwritev2_dontcache=" : "pwritev2_plain=") . ($r < 0 ? "errno" . ($! + 0) : $r);
      }
      my $r = syscall(451, -1, 0, 0, 0); # cachestat
      push @r, "cachestat=" . ($r < 0 ? "errno" . ($! + 0) : $r);
      close($f); unlink($p);
      print "@r\n";' "$2" | sed "s/^/kernel=$(uname -r) /"
    ;;
  eiofs)
    n=$2 t=/var/tmp/eio-$2
    modprobe -a loop 2>/dev/null
    mkdir -p "$t" "/srv/$n" && mount -t tmpfs -o size=256M tmpfs "$t" || exit 1
    truncate -s 96M "$t/disk.img"
    dev=$(losetup -f --show "$t/disk.img") || exit 1
    echo "$dev" > "$t/dev"
    echo 4 > "/sys/block/${dev#/dev/}/queue/max_sectors_kb" || exit 1
    mkfs.ext4 -q -F -b 4096 -O ^has_journal -m 0 -E lazy_itable_init=0,lazy_journal_init=0 \
      "$dev" > /dev/null 2>&1 || exit 1
    mount -t ext4 -o errors=continue "$dev" "/srv/$n" || exit 1
    chmod 1777 "/srv/$n"
    for ((i = 0; i < $3; i++)); do
      dd if=/dev/zero of="/srv/$n/f_$i" bs=1M count="$4" conv=fsync status=none || exit 1
    done
    echo "eiofs $n: $dev, the tmpfs holds $(df -k --output=used "$t" | tail -n1 | tr -d ' ') KiB"
    ;;
  eiofail)
    n=$2 t=/var/tmp/eio-$2
    sync -f "/srv/$n"
    bs=$(stat -f -c %S "/srv/$n")
    for f in "/srv/$n"/f_*; do
      filefrag -v "$f" | awk -F'[:. ]+' '/^ *[0-9]+: /{print $5, $6}' |
      while read -r p0 p1; do
        fallocate -p -o $((p0 * bs)) -l $(((p1 - p0 + 1) * bs)) "$t/disk.img" || exit 1
      done || { echo "cannot punch the blocks of $f out of the image"; exit 1; }
    done
    used=$(df -k --output=used "$t" | tail -n1 | tr -d ' ')
    mount -o remount,size=$((used + $3))k "$t" || exit 1
    echo "eiofail $n: tmpfs used/avail KiB $(df -k --output=used,avail "$t" | tail -n1 | tr -s ' ')"
    ;;
  eiook) mount -o remount,size=256M "/var/tmp/eio-$2" ;;
  eioremount)
    n=$2 t=/var/tmp/eio-$2
    dev=$(cat "$t/dev")
    umount "/srv/$n" || exit 1
    echo "$(cat "/sys/block/${dev#/dev/}/queue/max_hw_sectors_kb")" \
      > "/sys/block/${dev#/dev/}/queue/max_sectors_kb"
    losetup -d "$dev" || exit 1
    fsck.ext4 -n -f "$t/disk.img" > /dev/null 2>&1
    echo "fsck=$?"
    dev=$(losetup -f --show "$t/disk.img") || exit 1
    echo "$dev" > "$t/dev"
    mount -t ext4 -o errors=continue "$dev" "/srv/$n" || exit 1
    ;;
  *) echo "usage: caps.sh fs NAME | up CONF | down | threads | file NAME FILE | avail NAME | kernel DIR | eiofs NAME N MiB | eiofail NAME KiB | eiook NAME | eioremount NAME"; exit 2 ;;
esac
