# SPDX-License-Identifier: LGPL-3.0-or-later
# qemu guests as nodes of their own (tests/ha/node_crash.sh, tests/ha/reclaim_v41.sh): each
# guest has its own kernel and page cache, so SIGKILL of its qemu is a node crash. Sourced by a
# scenario before tests/lib/harness.sh (hag_prepare) and used after it, in the harness's
# network namespace, which is the client side.
#   hag_prepare [SUITE]        (before the harness, in the host's namespaces) qemu installed if
#                              missing, the image (scripts/ha-guest-image.sh SUITE, built once
#                              and cached in third_party/guest-SUITE; bookworm, or trixie:
#                              Debian 13 with ganesha 6.5)
#   hag_setup WORK             a bridge br0 with this side's address $HAG_NET.10; skips the
#                              scenario (exit 77) when qemu is missing and cannot be installed
#                              or the image cannot be made
#   hag_boot NAME IP MEM [QEMU ARGS...]
#                              boots guest NAME (tap device tap-NAME on br0, address IP) with
#                              the image's root (snapshot=on), a 9p share WORK/NAME (/host in
#                              the guest: its PID 1 tests/lib/guest-pid1.sh, the functions
#                              the in-guest scripts share (tests/lib/guest-nfsd.sh, as
#                              /host/nfsd.sh), the files put there, its command outputs) and
#                              the extra qemu arguments (e.g. a shared disk); returns at once
#   hag_wait NAME              waits for its control port (HAG_BOOT_SECS from its start, 180):
#                              1 when qemu exited, 2 on timeout
#   hag_cmd NAME SECS CMD      runs CMD (one line, bash) in the guest, at most SECS; returns
#                              its exit status (124 on timeout); its output is in $HAG_OUT
#   hag_kill NAME              SIGKILL of the guest's qemu: the node crash
#   hag_down                   every guest killed (the harness's trap calls it via
#                              IT_EXTRA_PIDS too)
# Guests: -smp 1, TCG when there is no working /dev/kvm (hag_kvm_works); qemu's -serial file: console in WORK/NAME.console.

HAG_NET=${HAG_NET:-192.168.60}
HAG_BOOT_SECS=${HAG_BOOT_SECS:-180}
declare -A HAG_PID HAG_IN HAG_OUTFD HAG_SEQ HAG_T0
HAG_OUT=

hag_log() { echo "[guest $(date +%T)] $*" >&2; }

# hag_prepare: before the harness moves the scenario into a namespace without the host's
# network (call it when GSH_IN_NS is not 1): installs qemu if missing and apt-get can
# (DC_HA_NO_INSTALL=1: never) and makes the image of SUITE (bookworm by default); exports
# HAG_IMG, or HAG_PREP_ERR with why not.
hag_prepare() {
  local log suite=${1:-bookworm}
  log=$(mktemp /tmp/hag-prepare.XXXXXX)
  if ! command -v qemu-system-x86_64 >/dev/null && [ "${DC_HA_NO_INSTALL:-0}" != 1 ] &&
     command -v apt-get >/dev/null; then
    echo "[guest] qemu missing: apt-get install -y --no-install-recommends qemu-system-x86" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      -o DPkg::Lock::Timeout=120 qemu-system-x86 > "$log" 2>&1
  fi
  if ! command -v qemu-system-x86_64 >/dev/null; then
    export HAG_PREP_ERR="qemu-system-x86_64 is not installed (apt-get install qemu-system-x86): $(tail -n 1 "$log")"
    rm -f "$log"; return 0
  fi
  # made once per machine (about 1.5 min), cached in third_party/guest-$suite
  HAG_IMG=$(bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/ha-guest-image.sh" "$suite" 2> "$log" | tail -n 1)
  if [ -f "$HAG_IMG/root.img" ]; then
    export HAG_IMG
  else
    tail -n 5 "$log" >&2
    export HAG_PREP_ERR="the guest image could not be made (scripts/ha-guest-image.sh: $(tail -n 1 "$log"))"
  fi
  rm -f "$log"
}

# hag_kvm_works: a /dev/kvm is not enough: on one machine here a KVM guest ran but never
# printed a byte (qemu: "host doesn't support requested feature: CPUID.01H:ECX.pni"), and
# every guest scenario skipped after its boot wait. The guest kernel, booted with KVM and no
# root, must print on its console within 15 s (a working KVM: within a second); else TCG.
hag_kvm_works() {
  local con=$HAG_WORK/kvm-probe.console pid i
  rm -f "$con"
  qemu-system-x86_64 -accel kvm -smp 1 -m 256M -nodefaults -display none -no-reboot \
    -kernel "$HAG_IMG/vmlinuz" -append "console=ttyS0 panic=-1" -serial "file:$con" \
    > "$HAG_WORK/kvm-probe.log" 2>&1 &
  pid=$!
  for ((i = 0; i < 30; i++)); do
    [ -s "$con" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  [ -s "$con" ] && return 0
  hag_log "/dev/kvm is there but a KVM guest printed nothing in 15 s: TCG ($(tail -n 1 "$HAG_WORK/kvm-probe.log"))"
  return 1
}

# hag_setup WORK: in the scenario's namespace, after hag_prepare
hag_setup() {
  HAG_WORK=$1
  mkdir -p "$HAG_WORK"
  [ -z "${HAG_PREP_ERR:-}" ] || it_skip "$HAG_PREP_ERR"
  [ -n "${HAG_IMG:-}" ] && [ -f "$HAG_IMG/root.img" ] || it_skip "no guest image (hag_prepare did not run)"
  HAG_ACCEL=tcg
  [ -w /dev/kvm ] && hag_kvm_works && HAG_ACCEL=kvm
  [ -e /dev/net/tun ] || it_skip "no /dev/net/tun for the guests' tap devices"
  ip link add br0 type bridge && ip addr add "$HAG_NET.10/24" dev br0 && ip link set br0 up ||
    it_die "cannot make the bridge"
}

# hag_boot NAME IP MEM [QEMU ARGS...]
hag_boot() {
  local name=$1 ip=$2 mem=$3; shift 3
  local share=$HAG_WORK/$name fi fo mac
  mkdir -p "$share"
  cp "$IT_TOP/tests/lib/guest-pid1.sh" "$share/guest.sh"
  # every guest gets it: head.sh and caps.sh, which a scenario puts beside it, source it
  cp "$IT_TOP/tests/lib/guest-nfsd.sh" "$share/nfsd.sh"
  printf 'HAG_NAME=%s\nHAG_IP=%s\n' "$name" "$ip" > "$share/env"
  ip tuntap add "tap-$name" mode tap && ip link set "tap-$name" master br0 up ||
    { hag_log "cannot make tap-$name"; return 1; }
  rm -f "$HAG_WORK/$name.ctl.in" "$HAG_WORK/$name.ctl.out"
  mkfifo "$HAG_WORK/$name.ctl.in" "$HAG_WORK/$name.ctl.out"
  mac=$(printf '52:54:00:60:00:%02x' "${ip##*.}")
  qemu-system-x86_64 -accel "$HAG_ACCEL" -smp 1 -m "$mem" -nodefaults -display none -no-reboot \
    -kernel "$HAG_IMG/vmlinuz" -initrd "$HAG_IMG/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 quiet init=/sbin/ha-guest-init panic=-1 net.ifnames=0" \
    -drive "file=$HAG_IMG/root.img,format=raw,if=virtio,snapshot=on" \
    -virtfs "local,path=$share,mount_tag=host,security_model=none,id=host" \
    -netdev "tap,id=n0,ifname=tap-$name,script=no,downscript=no" \
    -device "virtio-net-pci,netdev=n0,mac=$mac" -device virtio-rng-pci \
    -serial "file:$HAG_WORK/$name.console" -serial "pipe:$HAG_WORK/$name.ctl" \
    "$@" > "$HAG_WORK/$name.qemu.log" 2>&1 &
  HAG_PID[$name]=$!
  IT_EXTRA_PIDS+=("$!")
  exec {fi}<> "$HAG_WORK/$name.ctl.in"
  exec {fo}<> "$HAG_WORK/$name.ctl.out"
  HAG_IN[$name]=$fi HAG_OUTFD[$name]=$fo HAG_SEQ[$name]=0 HAG_T0[$name]=$SECONDS
}

# hag_wait NAME: until guest NAME's control port answers (HAG_BOOT_SECS from its start)
hag_wait() {
  local name=$1 line fo=${HAG_OUTFD[$1]} t0=${HAG_T0[$1]}
  while [ $((SECONDS - t0)) -lt "$HAG_BOOT_SECS" ]; do
    kill -0 "${HAG_PID[$name]}" 2>/dev/null ||
      { hag_log "qemu of $name exited: $(tail -n 3 "$HAG_WORK/$name.qemu.log")"; return 1; }
    if read -r -t 2 -u "$fo" line; then
      line=${line%$'\r'}
      [[ $line == READY* ]] && { hag_log "$name up in $((SECONDS - t0)) s (${line#READY })"; return 0; }
    fi
  done
  hag_log "$name did not boot within $HAG_BOOT_SECS s; console: $(tail -n 5 "$HAG_WORK/$name.console")"
  return 2
}

# hag_cmd NAME SECS CMD: CMD in guest NAME; exit status, output file in HAG_OUT
hag_cmd() {
  local name=$1 secs=$2 cmd=$3 id line t0=$SECONDS
  id=$((HAG_SEQ[$name] + 1)); HAG_SEQ[$name]=$id
  HAG_OUT=$HAG_WORK/$name/out.$id
  printf '%s %s\n' "$id" "$cmd" >&"${HAG_IN[$name]}"
  while [ $((SECONDS - t0)) -le "$secs" ]; do
    kill -0 "${HAG_PID[$name]}" 2>/dev/null || return 125
    if read -r -t 1 -u "${HAG_OUTFD[$name]}" line; then
      line=${line%$'\r'}
      [[ $line == "DONE $id "* ]] && return "${line##* }"
    fi
  done
  hag_log "$name: no answer within $secs s to: $cmd"
  return 124
}

hag_kill() {
  local p=${HAG_PID[$1]:-}
  [ -n "$p" ] || return 0
  kill -KILL "$p" 2>/dev/null
  wait "$p" 2>/dev/null
  HAG_PID[$1]=
  return 0
}

hag_down() {
  local n
  for n in "${!HAG_PID[@]}"; do hag_kill "$n"; done
}
