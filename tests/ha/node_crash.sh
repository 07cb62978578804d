#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# run.sh timeout: 900
# Two heads over one shared disk, a NODE crash (issue 18): each head is a qemu guest of its
# own (tests/lib/guest.sh: Debian 12's kernel, nfs-ganesha 4.3 from the image of
# scripts/ha-guest-image.sh, the module under test copied in), both attach ONE raw disk image
# (cache=none, file.locking=off), only the active head mounts it. Head A mounts it, serves
# NFSv3 with the shared key (Handle_Key_Create = false) and holds the floating address
# 192.168.60.100; head B is booted and passive. ha_writer's NFSv3 writers (libnfs,
# autoreconnect; on this side of the bridge, the harness's namespace) write and COMMIT through
# the address. Mid-run A's qemu is SIGKILLed: its kernel and page cache die with it, so what A
# acknowledged UNSTABLE and had not written back is gone. The test then makes B the active
# head (the address move is done by the test, as a cluster manager would, not by keepalived):
# B mounts the disk (ext4 journal recovery), starts ganesha with its own -E epoch, takes the
# address and sends a gratuitous ARP. The writers reconnect, see the COMMIT verifier change
# and resend everything A had not committed. Afterwards the disk is checked on this side with
# ft_verify: every byte the writers had acknowledged as durable (FILE_SYNC, or COMMIT OK
# under the WRITE's own verifier) is on disk. Prints "figures:" (takeover, stall, resent).
#   sameepoch  (HA_VARIANTS) the same crash with one -E for both heads: the verifier does not
#              change, nothing is resent, and the writers count as durable what died in A's
#              page cache: ft_verify is expected to find it missing (why a node crash needs
#              each head's own epoch). Not in the default run (another ~2 min).
# Against VFS (DC_TEST_FSAL=VFS) the heads run stock FSAL_VFS.
# Skipped (77) when qemu is missing and cannot be installed, the image cannot be made, or a
# guest does not boot within HA_BOOT_SECS (TCG without /dev/kvm is slow).
# Usage: tests/ha/node_crash.sh [BUILD_DIR]   env: HA_SECS (writer run time, 30),
#   HA_VARIANTS (default "crash"; "crash sameepoch")
. "$(dirname "$0")/../lib/guest.sh"
[ "${GSH_IN_NS:-}" = 1 ] || [ -n "${GSH_ROOT:-}" ] || hag_prepare
. "$(dirname "$0")/../lib/harness.sh"
HA_BIN=${DC_HA_BIN:-$DC_BUILD_DIR/tests/ha}
[ -x "$HA_BIN/ha_writer" ] || it_die "test program missing: $HA_BIN/ha_writer (build the tree first)"
it_need_prog ft_verify
[ -n "${GSH_ROOT:-}" ] && it_skip "ganesha 6.5: the guests are Debian 12 (ganesha 4.3); not run in the Debian 13 guest of guest_caps (scripts/ha-guest-image.sh trixie): a second run would add ~3.5 min to the CI budget"
HAG_BOOT_SECS=${HA_BOOT_SECS:-180}
secs=${HA_SECS:-30}
vip=$HAG_NET.100
hag_setup "$IT_WORK/g"

# variant NAME SAMEEPOCH: a shared disk, both heads booted, writers, A killed, B takes over,
# writers to the end, ledger checked. Sets OUT (ha_writer summary), WRC, VRC, VLINE, TAKE,
# RESUME, KILLT.
variant() {
  local name=$1 same=$2 stage=$IT_WORK/stage.$1 disk=$IT_WORK/shared.$1.img rec=$IT_WORK/rec.$1
  local h fsal='' ea eb wpid rc dev mnt=$IT_WORK/check.$1
  rm -rf "$stage"; mkdir -p "$stage/export" "$rec"
  chmod 755 "$stage/export"
  if it_is_dontcache; then
    mkdir -p "$stage/.dontcache"; chmod 700 "$stage/.dontcache"
    head -c 16 /dev/urandom > "$stage/.dontcache/export-1.key"; chmod 600 "$stage/.dontcache/export-1.key"
  else
    fsal='s|FSAL { Name = DONTCACHE;.*}|FSAL { Name = VFS; }|'
  fi
  truncate -s 6G "$disk" && mkfs.ext4 -q -F -d "$stage" "$disk" || it_die "$name: cannot make the shared disk"
  for h in a b; do
    mkdir -p "$HAG_WORK/$name$h"
    sed -e "$fsal" -e "s|^NFSV4 {|NFSV4 { Graceless = true;|" \
      "$IT_TOP/config/ha/ganesha.head-$h.conf" > "$HAG_WORK/$name$h/ganesha.conf"
    cp "$IT_TOP/tests/lib/guest-head.sh" "$HAG_WORK/$name$h/head.sh"
    it_is_dontcache && cp "$IT_MODULE" "$HAG_WORK/$name$h/libfsaldontcache.so"
    hag_boot "$name$h" "$HAG_NET.1$([ $h = a ] && echo 1 || echo 2)" 640M \
      -drive "file=$disk,format=raw,if=virtio,cache=none,file.locking=off" ||
      it_die "$name: cannot start guest $h"
  done
  for h in a b; do
    hag_wait "$name$h"; rc=$?
    [ $rc = 2 ] && it_skip "guest $h did not boot within $HAG_BOOT_SECS s (accel $HAG_ACCEL; HA_BOOT_SECS raises it)"
    [ $rc = 0 ] || it_die "$name: guest $h did not boot: $(tail -n 5 "$HAG_WORK/$name$h.console")"
  done
  ea=$("$IT_TOP/config/ha/ganesha-epoch.sh" 0) || it_die "ganesha-epoch.sh failed"
  if [ "$same" = 1 ]; then eb=$ea; else eb=$((ea + 16 + 1)); fi
  hag_cmd "${name}a" 150 "bash /host/head.sh up $ea $vip" ||
    { cat "$HAG_OUT"; it_die "$name: head A did not come up"; }
  it_log "$name: head A serves on $vip: $(cat "$HAG_OUT")"
  "$HA_BIN/ha_writer" -H "$vip" -p 2049 -M 20048 -e /srv/ha/export \
    -r "$rec" -n 4 -P "$name" -t "$secs" -b 65536 -W $((1 << 30)) -c $((1 << 20)) -x 5 -g 150 \
    > "$IT_WORK/writer.$name.out" 2>&1 &
  wpid=$!
  IT_EXTRA_PIDS=("$wpid" "${IT_EXTRA_PIDS[@]}")
  sleep $((secs / 3))
  kill -0 "$wpid" 2>/dev/null || { cat "$IT_WORK/writer.$name.out"; it_die "$name: writers ended before the crash"; }
  KILLT=$(date +%s%3N)
  it_log "$name: SIGKILL of head A's qemu (pid ${HAG_PID[${name}a]}): node crash"
  hag_kill "${name}a"
  if hag_cmd "${name}b" 150 "bash /host/head.sh up $eb $vip"; then
    TAKE=$(( $(date +%s%3N) - KILLT ))
    it_pass "$name: head B took over $TAKE ms after the crash: $(cat "$HAG_OUT")"
  else
    TAKE=
    it_fail "$name: head B did not take over: $(cat "$HAG_OUT")"
  fi
  for _ in $(seq $((secs * 10 + 2400))); do kill -0 "$wpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$wpid" 2>/dev/null && { kill "$wpid"; it_fail "$name: writers still running $((secs + 240)) s after they started"; }
  wait "$wpid"; WRC=$?
  cat "$IT_WORK/writer.$name.out"
  OUT=$(grep '^ha_writer: writers=' "$IT_WORK/writer.$name.out")
  local se; se=$(it_kv stall_end_ms "$OUT")
  RESUME=
  [ -n "$se" ] && [ "$se" -gt "$KILLT" ] && RESUME=$((se - KILLT))
  hag_cmd "${name}b" 60 "bash /host/head.sh down" || it_log "$name: head B down: $(cat "$HAG_OUT")"
  cp "$HAG_WORK/${name}a/ganesha.log" "$IT_WORK/$name.ganesha.a.log" 2>/dev/null
  cp "$HAG_WORK/${name}b/ganesha.log" "$IT_WORK/$name.ganesha.b.log" 2>/dev/null
  hag_kill "${name}b"
  # the disk as the next head would see it (journal replayed if B did not unmount)
  dev=$(losetup -f --show "$disk") || it_die "$name: losetup failed"
  IT_LOOPS+=("$dev"); mkdir -p "$mnt"
  mount -t ext4 "$dev" "$mnt" || it_die "$name: cannot mount the shared disk"
  IT_MOUNTS+=("$mnt")
  local vout
  vout=$("$DC_FT_BIN/ft_verify" -l "$mnt/export" "$rec"/*.rec 2>&1)
  VRC=$?
  echo "$vout" | grep -v '^phase' | tail -n 5
  VLINE=$(echo "$vout" | grep '^ft_verify:')
  umount "$mnt"
}

variants=" ${HA_VARIANTS:-crash} "
if [[ $variants == *" crash "* ]]; then
  variant crash 0
  [ "$WRC" = 0 ] &&
    it_pass "crash: every writer went on after the node crash and ended with all its data committed under one verifier" ||
    it_fail "crash: ha_writer exited $WRC: $OUT"
  [ "$(it_kv errors "$OUT")" = 0 ] &&
    it_pass "crash: no WRITE or COMMIT answered an error (A's handles valid on B)" ||
    it_fail "crash: $(it_kv errors "$OUT") errors ($(it_kv badhandle "$OUT") BADHANDLE) after the failover"
  [ "$(it_kv verifier_changes "$OUT")" -gt 0 ] 2>/dev/null &&
    it_pass "crash: the writers saw the verifier change ($(it_kv verifier_changes "$OUT") times) and resent $(it_kv resent_bytes "$OUT") bytes" ||
    it_fail "crash: no verifier change seen: $OUT"
  [ "$VRC" = 0 ] &&
    it_pass "crash: zero acknowledged-durable bytes lost after the node crash: $VLINE" ||
    it_fail "crash: acknowledged-durable data lost or unreadable: $VLINE"
  echo "figures: fsal=$DC_TEST_FSAL variant=node_crash accel=$HAG_ACCEL takeover_ms=${TAKE:-none} writers_resumed_after_kill_ms=${RESUME:-none} max_stall_ms=$(it_kv max_stall_ms "$OUT") resent_bytes=$(it_kv resent_bytes "$OUT") acked_bytes=$(it_kv acked_bytes "$OUT") durable_bytes=$(it_kv durable_bytes "$VLINE") lost_bytes=$(it_kv mismatched_bytes "$VLINE")"
fi
if [[ $variants == *" sameepoch "* ]]; then
  variant sameepoch 1
  [ "$(it_kv verifier_changes "$OUT")" = 0 ] &&
    it_pass "sameepoch: one -E on both heads: the writers saw no verifier change (resent $(it_kv resent_bytes "$OUT") bytes)" ||
    it_fail "sameepoch: expected no verifier change with one epoch: $OUT"
  [ "$VRC" != 0 ] &&
    it_pass "sameepoch: bytes counted durable were lost with A's page cache: $VLINE" ||
    it_log "sameepoch: nothing lost this time (A had written everything back before the kill): $VLINE"
  echo "figures: fsal=$DC_TEST_FSAL variant=node_crash_sameepoch takeover_ms=${TAKE:-none} max_stall_ms=$(it_kv max_stall_ms "$OUT") resent_bytes=$(it_kv resent_bytes "$OUT") lost_bytes=$(it_kv mismatched_bytes "$VLINE")"
fi
