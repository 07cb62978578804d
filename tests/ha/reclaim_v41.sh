#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# run.sh timeout: 900
# NFSv4.1 open and lock state across a node crash (issue 18), active/passive: two heads in
# qemu guests over one shared disk as in node_crash.sh (tests/lib/guest.sh), with ganesha's
# "fs" recovery backend whose RecoveryRoot is on the shared disk, both heads with one
# Server_Owner and Server_Scope (the client must see one server to reclaim), a short lease
# (Lease_Lifetime = 10, Grace_Period = 20). A third guest is a Linux NFS client (Debian 12's
# kernel): it mounts the floating address with vers=4.1, and ha_lock holds an open file and
# a POSIX write lock (fcntl F_SETLKW) on it and writes and fsyncs a record every 100 ms.
# Checked: before the crash a second process's F_SETLK on the file is refused, and so is a
# second client's LOCK (ha_lock4 on this side: NFS4ERR_DENIED from the server); head A's qemu
# is SIGKILLed; the test makes B the active head (mount, ganesha with its own -E, address,
# gratuitous ARP); B starts in grace with A's client record (its log: clid count 1), the
# client reclaims its open and lock (reclaim complete 1), its writes go on (no error) and the
# longest gap between two of its fsyncs stays within two lease periods (20 s); the second
# process and the second client (after B's grace) are still refused on B; every record
# written is on the shared disk afterwards (read back here). Prints "figures:".
# Against VFS (DC_TEST_FSAL=VFS) the heads run stock FSAL_VFS.
# Skipped (77) as node_crash.sh (no qemu, no image, a guest not booting in HA_BOOT_SECS).
# Usage: tests/ha/reclaim_v41.sh [BUILD_DIR]   env: HA_SECS (holder's run time, 50)
. "$(dirname "$0")/../lib/guest.sh"
[ "${GSH_IN_NS:-}" = 1 ] || [ -n "${GSH_ROOT:-}" ] || hag_prepare
. "$(dirname "$0")/../lib/harness.sh"
HA_BIN=${DC_HA_BIN:-$DC_BUILD_DIR/tests/ha}
[ -x "$HA_BIN/ha_lock" ] || it_die "test program missing: $HA_BIN/ha_lock (build the tree first)"
[ -x "$HA_BIN/ha_lock4" ] || it_die "test program missing: $HA_BIN/ha_lock4 (built with tests/lib/nfs4c: a ganesha 4.3 build)"
[ -n "${GSH_ROOT:-}" ] && it_skip "ganesha 6.5: the guests are Debian 12 (ganesha 4.3); not run in the Debian 13 guest of guest_caps (scripts/ha-guest-image.sh trixie): a second run would add ~3.5 min to the CI budget"
HAG_BOOT_SECS=${HA_BOOT_SECS:-240}
secs=${HA_SECS:-50}
lease=10 grace=20
vip=$HAG_NET.100
hag_setup "$IT_WORK/g"

stage=$IT_WORK/stage disk=$IT_WORK/shared.img
mkdir -p "$stage/export" "$stage/recov"
chmod 755 "$stage/export"
fsal=''
if it_is_dontcache; then
  mkdir -p "$stage/.dontcache"; chmod 700 "$stage/.dontcache"
  head -c 16 /dev/urandom > "$stage/.dontcache/export-1.key"; chmod 600 "$stage/.dontcache/export-1.key"
else
  fsal='s|FSAL { Name = DONTCACHE;.*}|FSAL { Name = VFS; }|'
fi
truncate -s 512M "$disk" && mkfs.ext4 -q -F -d "$stage" "$disk" || it_die "cannot make the shared disk"
for h in a b; do
  mkdir -p "$HAG_WORK/$h"
  sed -e "$fsal" \
    -e "s|^NFSV4 {|NFSV4 { RecoveryRoot = /srv/ha/recov; Lease_Lifetime = $lease; Grace_Period = $grace; Server_Owner = \"ha-pair\"; Server_Scope = \"ha-pair\";|" \
    "$IT_TOP/config/ha/ganesha.head-$h.conf" > "$HAG_WORK/$h/ganesha.conf"
  cp "$IT_TOP/tests/lib/guest-head.sh" "$HAG_WORK/$h/head.sh"
  it_is_dontcache && cp "$IT_MODULE" "$HAG_WORK/$h/libfsaldontcache.so"
done
mkdir -p "$HAG_WORK/c"
cp "$HA_BIN/ha_lock" "$HAG_WORK/c/ha_lock"
drive=(-drive "file=$disk,format=raw,if=virtio,cache=none,file.locking=off")
hag_boot a "$HAG_NET.11" 640M "${drive[@]}" || it_die "cannot start guest a"
hag_boot b "$HAG_NET.12" 640M "${drive[@]}" || it_die "cannot start guest b"
hag_boot c "$HAG_NET.13" 512M || it_die "cannot start guest c"
for h in a b c; do
  hag_wait "$h"; rc=$?
  [ $rc = 2 ] && it_skip "guest $h did not boot within $HAG_BOOT_SECS s (accel $HAG_ACCEL; HA_BOOT_SECS raises it)"
  [ $rc = 0 ] || it_die "guest $h did not boot: $(tail -n 5 "$HAG_WORK/$h.console")"
done
ea=$("$IT_TOP/config/ha/ganesha-epoch.sh" 0) || it_die "ganesha-epoch.sh failed"
hag_cmd a 150 "bash /host/head.sh up $ea $vip" || { cat "$HAG_OUT"; it_die "head A did not come up"; }
it_log "head A serves on $vip: $(cat "$HAG_OUT")"

# the client: mount (retried while A is in its first grace period), the holder, a probe
hag_cmd c 120 "mkdir -p /mnt/ha && for i in \$(seq 40); do mount -t nfs -o vers=4.1,timeo=50,retrans=2 $vip:/ha /mnt/ha && exit 0; sleep 2; done; exit 1" ||
  { cat "$HAG_OUT"; it_die "the client could not mount $vip:/ha with vers=4.1"; }
hag_cmd c 90 "setsid /host/ha_lock hold /mnt/ha/locked $secs > /host/hold.out 2>&1 < /dev/null & for i in \$(seq 600); do [ \$(grep -c '^w ' /host/hold.out) -ge 20 ] && exit 0; sleep 0.1; done; cat /host/hold.out; exit 1" ||
  { cat "$HAG_OUT"; it_die "ha_lock did not take its lock and write on A"; }
it_pass "the client holds a POSIX lock on $vip:/ha/locked (NFSv4.1) and writes: $(grep -c '^w ' "$HAG_WORK/c/hold.out") records"
# lock4 WHERE: a second client (ha_lock4, this side) asks the server for the lock
lock4() {
  local out
  if out=$("$HA_BIN/ha_lock4" -H "$vip" -p 2049 -e /ha -n locked -w 40 2>&1); then
    it_pass "on head $1, a second client's LOCK is refused by the server: $out"
  else
    it_fail "on head $1, a second client's LOCK was not refused: $out"
  fi
}
if hag_cmd c 60 "/host/ha_lock probe /mnt/ha/locked"; then
  it_pass "on head A, a second process's F_SETLK is refused: $(cat "$HAG_OUT")"
else
  it_fail "on head A, a second process's F_SETLK was not refused: $(cat "$HAG_OUT")"
fi
lock4 A
# A's client record must be on the shared disk: ganesha's fs backend makes it with mkdir (no
# fsync); ext4 commits its journal every 5 s
sleep 6
killt=$(date +%s%3N)
it_log "SIGKILL of head A's qemu (pid ${HAG_PID[a]}): node crash"
hag_kill a
eb=$(( ea + 16 + 1 ))
if hag_cmd b 150 "bash /host/head.sh up $eb $vip"; then
  take=$(( $(date +%s%3N) - killt ))
  it_pass "head B took over $take ms after the crash: $(cat "$HAG_OUT")"
else
  take=
  it_fail "head B did not take over: $(cat "$HAG_OUT")"
fi
# the holder's first record after the crash, as seen here (the guest's clock is not this
# side's): none can be written while no head serves, so a record beyond those there when B
# took over was written through B
resume=
n1=$(grep -c '^w ' "$HAG_WORK/c/hold.out")
for _ in $(seq 1200); do
  [ "$(grep -c '^w ' "$HAG_WORK/c/hold.out")" -gt "$n1" ] && { resume=$(( $(date +%s%3N) - killt )); break; }
  grep -q '^ha_lock:' "$HAG_WORK/c/hold.out" && break
  sleep 0.1
done
[ -n "$resume" ] &&
  it_pass "the holder's writes went on through head B $resume ms after the crash" ||
  it_fail "the holder wrote nothing after the crash: $(tail -n 3 "$HAG_WORK/c/hold.out")"
if [ -n "$resume" ]; then
  if hag_cmd c 60 "/host/ha_lock probe /mnt/ha/locked"; then
    it_pass "on head B, after the reclaim, a second process's F_SETLK is refused: $(cat "$HAG_OUT")"
  else
    it_fail "on head B the lock no longer excludes a second process: $(cat "$HAG_OUT")"
  fi
  lock4 B
fi
# B read A's client record from the shared recovery directory (clid count 1) and that
# client reclaimed (RECLAIM_COMPLETE: "reclaim complete(1)")
grep -E 'nfs_start_grace|try_lift_grace|NOT IN GRACE' "$HAG_WORK/b/ganesha.log" | cut -d: -f6- | uniq | tail -n 4
if grep -q 'reclaim complete(1) clid count(1)' "$HAG_WORK/b/ganesha.log"; then
  it_pass "head B started in grace with A's client record from the shared disk and the client reclaimed (reclaim complete 1 of 1)"
else
  it_fail "head B did not see the client's reclaim: $(grep -E 'try_lift_grace|grace' "$HAG_WORK/b/ganesha.log" | tail -n 2)"
fi
# the holder's end
for _ in $(seq $((secs * 10 + 1200))); do grep -q '^ha_lock:' "$HAG_WORK/c/hold.out" && break; sleep 0.1; done
sum=$(grep '^ha_lock:' "$HAG_WORK/c/hold.out")
grep '^e ' "$HAG_WORK/c/hold.out" | head -n 5
gap=$(it_kv max_gap_ms "$sum") n=$(it_kv writes "$sum")
if [ -z "$sum" ]; then
  it_fail "the holder did not finish: $(tail -n 3 "$HAG_WORK/c/hold.out")"
elif [ "$(it_kv errors "$sum")" = 0 ] && [ "$(it_kv bad "$sum")" = 0 ]; then
  it_pass "the holder's writes and fsyncs all succeeded, its records read back right on the client: $sum"
else
  it_fail "the holder saw errors or bad records: $sum"
fi
[ -n "$gap" ] && [ "$gap" -le $((2 * lease * 1000)) ] &&
  it_pass "the client's longest stall ($gap ms) is within two lease periods ($((2 * lease)) s)" ||
  it_fail "the client's longest stall (${gap:-?} ms) exceeds two lease periods ($((2 * lease)) s)"
hag_cmd c 60 "umount /mnt/ha" || it_log "client umount: $(cat "$HAG_OUT")"
hag_cmd b 60 "bash /host/head.sh down" || it_log "head B down: $(cat "$HAG_OUT")"
cp "$HAG_WORK/a/ganesha.log" "$IT_WORK/ganesha.a.log" 2>/dev/null
cp "$HAG_WORK/b/ganesha.log" "$IT_WORK/ganesha.b.log" 2>/dev/null
hag_down
dev=$(losetup -f --show "$disk") || it_die "losetup failed"
IT_LOOPS+=("$dev"); mkdir -p "$IT_WORK/check"
mount -t ext4 "$dev" "$IT_WORK/check" || it_die "cannot mount the shared disk"
IT_MOUNTS+=("$IT_WORK/check")
if [ -n "$n" ] && out=$("$HA_BIN/ha_lock" check "$IT_WORK/check/export/locked" "$n"); then
  it_pass "all $n records are on the shared disk: $out"
else
  it_fail "records missing or wrong on the shared disk: ${out:-no count}"
fi
echo "figures: fsal=$DC_TEST_FSAL variant=reclaim_v41 accel=$HAG_ACCEL lease_s=$lease grace_s=$grace takeover_ms=${take:-none} writes_resumed_after_kill_ms=${resume:-none} max_stall_ms=${gap:-none} records=${n:-none}"
