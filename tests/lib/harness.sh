# SPDX-License-Identifier: LGPL-3.0-or-later
# The shell harness of every scenario (tests/integration/*.sh, tests/faults/*.sh). Source it
# first thing:
#   . "$(dirname "$0")/../lib/harness.sh"
# It re-executes the calling script inside a private network+mount namespace
# (tests/lib/in-ns.sh), sources tests/lib/ganesha.sh, makes a scratch directory $IT_WORK on a
# disk filesystem, a Plugins_Dir with the FSAL under test, and installs a trap that stops every
# process the script started, unmounts what it mounted, detaches its loop devices and removes
# the scratch tree.
#
# Results: it_pass MSG / it_fail MSG (the scenario goes on) / it_die MSG (fails now) /
# it_skip MSG (exit 77 now: this machine, kernel, tool set or ganesha cannot run the
# scenario) / it_skip_part MSG (a part cannot run: exit 77 at the end unless something failed).
# The last line is "[NAME] PASSED|FAILED|SKIPPED (FSAL, Ns)".
# Exit status of a scenario: 0 passed, 1 failed, 77 skipped (tests/run.sh shows SKIP).
#
# Environment:
#   DC_BUILD_DIR   build tree (default: the script's first argument if it is a directory, else
#                  <repo>/build): module in FSAL_DONTCACHE/, programs in tests/integration/
#                  (it_*) and tests/faults/ (ft_*)
#   DC_IT_BIN      directory of the it_* programs (default $DC_BUILD_DIR/tests/integration)
#   DC_FT_BIN      directory of the ft_* programs (default $DC_BUILD_DIR/tests/faults)
#   DC_MODULE      the module under test (default $DC_BUILD_DIR/FSAL_DONTCACHE/libfsaldontcache.so;
#                  e.g. one built inside the Debian 13 root for GSH_ROOT, with the programs
#                  of a host build)
#   DC_TEST_FSAL   DONTCACHE (default) or VFS: the FSAL under test
#   DC_TEST_LOGDIR if set, ganesha logs and configs are copied there at exit
#   DC_TEST_KEEP   if 1, the scratch tree is kept
#   DC_TEST_SCRATCH a disk-backed directory for the scratch tree (default /var/tmp)

IT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IT_SELF=$(readlink -f "$0")
IT_NAME=$(basename "$0" .sh)

if [ "${GSH_IN_NS:-}" != 1 ]; then
  exec "$IT_TOP/tests/lib/in-ns.sh" bash "$IT_SELF" "$@"
fi

set -u
ulimit -c 0 2>/dev/null || true

. "$IT_TOP/tests/lib/ganesha.sh"

if [ -z "${DC_BUILD_DIR:-}" ] && [ -n "${1:-}" ] && [ -d "${1:-}" ]; then
  DC_BUILD_DIR=$1
fi
DC_BUILD_DIR=${DC_BUILD_DIR:-$IT_TOP/build}
DC_BUILD_DIR=$(cd "$DC_BUILD_DIR" 2>/dev/null && pwd || echo "$DC_BUILD_DIR")
DC_IT_BIN=${DC_IT_BIN:-$DC_BUILD_DIR/tests/integration}
DC_FT_BIN=${DC_FT_BIN:-$DC_BUILD_DIR/tests/faults}
DC_TEST_FSAL=${DC_TEST_FSAL:-DONTCACHE}
IT_MODULE=${DC_MODULE:-$DC_BUILD_DIR/FSAL_DONTCACHE/libfsaldontcache.so}
IT_VFS_MODULE=/usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so
IT_FAILED=0
IT_SKIPPED=0
IT_SKIP_PARTS=()  # it_skip_part
IT_T0=$(date +%s)
IT_MOUNTS=()      # unmounted at exit, last first
IT_LOOPS=()       # loop devices detached at exit
IT_EXTRA_PIDS=()  # background processes killed at exit (before ganesha stops)
IT_STARTS=0       # ganesha starts by it_serve

# ganesha 6.5 crashes on a zero-length NFSv3 READ before any FSAL is called (its nfs3_read
# answers it writing through a NULL iovec; stock FSAL_VFS 6.5 crashes the same way): against
# it (GSH_ROOT) ft_badreq and ft_hostile leave that request out (-Z)
IT_ZERO_READ=()
[ -n "${GSH_ROOT:-}" ] && IT_ZERO_READ=(-Z)
# ft_hostile's expectations of ganesha 6.5's own answers (-6)
IT_GSH6=()
[ -n "${GSH_ROOT:-}" ] && IT_GSH6=(-6)

it_elapsed() { echo $(($(date +%s) - IT_T0)); }
it_log() { echo "[$IT_NAME $(it_elapsed)s] $*" >&2; }
it_fail() { echo "FAIL: [$IT_NAME] $*"; IT_FAILED=1; }
it_pass() { echo "ok: [$IT_NAME] $*"; }

# it_die MSG: fail now (cleanup runs from the EXIT trap).
it_die() { it_fail "$*"; exit 1; }
# it_skip MSG: the scenario cannot run here (exit 77, shown as SKIP by tests/run.sh).
it_skip() { echo "SKIP: [$IT_NAME] $*"; IT_SKIPPED=1; exit 77; }
# it_skip_part MSG: a part of the scenario cannot run here; the rest goes on. If nothing
# failed, the scenario then exits 77 (SKIP, with MSG), not 0: a check that did not run
# never counts as passed.
it_skip_part() { echo "SKIP: [$IT_NAME] (part) $*"; IT_SKIP_PARTS+=("$*"); }

it_is_dontcache() { [ "$DC_TEST_FSAL" = DONTCACHE ]; }

it_cleanup() {
  local rc=$?
  trap - EXIT
  set +e
  local p i f q
  for p in "${IT_EXTRA_PIDS[@]}"; do
    kill "$p" 2>/dev/null; wait "$p" 2>/dev/null
  done
  gsh_cleanup >/dev/null 2>&1
  gsh_crash_report >&2
  for ((i = ${#IT_MOUNTS[@]} - 1; i >= 0; i--)); do
    umount "${IT_MOUNTS[$i]}" 2>/dev/null || umount -l "${IT_MOUNTS[$i]}" 2>/dev/null
  done
  # a request-size cap (fault_eio's 4 KiB) outlives the detach: leave the device at its largest
  for p in "${IT_LOOPS[@]}"; do
    q=/sys/block/${p#/dev/}/queue
    cat "$q/max_hw_sectors_kb" > "$q/max_sectors_kb" 2>/dev/null
    losetup -d "$p" 2>/dev/null
  done
  if [ -n "${DC_TEST_LOGDIR:-}" ] && [ -n "${IT_WORK:-}" ] && [ -d "$IT_WORK" ]; then
    mkdir -p "$DC_TEST_LOGDIR"
    for f in "$IT_WORK"/*.log "$IT_WORK"/*.conf; do
      [ -f "$f" ] && cp "$f" "$DC_TEST_LOGDIR/" 2>/dev/null
    done
  fi
  if [ -n "${IT_WORK:-}" ] && [ -d "$IT_WORK" ]; then
    if [ "${DC_TEST_KEEP:-0}" = 1 ]; then echo "kept $IT_WORK" >&2; else rm -rf "$IT_WORK"; fi
  fi
  local how="($DC_TEST_FSAL, $(it_elapsed)s)"
  # a failure wins over a skip: checks that ran and failed are never hidden
  if [ "$IT_FAILED" != 0 ] || { [ $rc -ne 0 ] && [ $rc -ne 77 ]; }; then
    [ $rc -eq 0 ] || [ $rc -eq 77 ] && rc=1
    echo "[$IT_NAME] FAILED $how"
    exit $rc
  fi
  if [ "$IT_SKIPPED" = 1 ]; then echo "[$IT_NAME] SKIPPED $how"; exit 77; fi
  if [ ${#IT_SKIP_PARTS[@]} -gt 0 ]; then
    local part
    for part in "${IT_SKIP_PARTS[@]}"; do echo "SKIP: [$IT_NAME] not run: $part"; done
    echo "[$IT_NAME] SKIPPED $how: the rest passed, ${#IT_SKIP_PARTS[@]} part(s) not run"
    exit 77
  fi
  echo "[$IT_NAME] PASSED $how"
  exit 0
}
trap it_cleanup EXIT
trap 'echo "[$IT_NAME] interrupted"; exit 143' TERM INT

# Scratch tree on a disk filesystem (ext4 here), not tmpfs: the point is a real page cache.
it_scratch_base() {
  local d
  for d in "${DC_TEST_SCRATCH:-}" /var/tmp "$IT_TOP/build-scratch"; do
    [ -n "$d" ] || continue
    mkdir -p "$d" 2>/dev/null || continue
    case $(stat -f -c %T "$d") in
      tmpfs|ramfs) continue ;;
    esac
    echo "$d"; return 0
  done
  return 1
}
IT_BASE=$(it_scratch_base) || it_die "no disk-backed scratch directory (tried /var/tmp)"
IT_WORK=$(mktemp -d "$IT_BASE/dc-it.$IT_NAME.XXXXXX") || it_die "mktemp failed"
chmod 755 "$IT_WORK"
IT_EXP=$IT_WORK/export
mkdir -p "$IT_EXP"
chmod 755 "$IT_EXP"

# Plugins_Dir with VFS (for side-by-side exports) and the module under test.
IT_PLUGINS=$IT_WORK/plugins
mkdir -p "$IT_PLUGINS"
ln -s "$IT_VFS_MODULE" "$IT_PLUGINS/libfsalvfs.so"
if it_is_dontcache; then
  [ -f "$IT_MODULE" ] || it_die "module not built: $IT_MODULE (set DC_BUILD_DIR, or DC_TEST_FSAL=VFS)"
  ln -s "$IT_MODULE" "$IT_PLUGINS/libfsaldontcache.so"
elif [ "$DC_TEST_FSAL" != VFS ]; then
  it_die "DC_TEST_FSAL must be DONTCACHE or VFS (got $DC_TEST_FSAL)"
fi
export GSH_PLUGINS_DIR=$IT_PLUGINS

# it_prog NAME: path of a test program (it_* in DC_IT_BIN, ft_* in DC_FT_BIN).
it_prog() {
  case $1 in
    */*) echo "$1" ;;
    ft_*) echo "$DC_FT_BIN/$1" ;;
    *) echo "$DC_IT_BIN/$1" ;;
  esac
}

# it_need_prog NAME...: die unless the test programs are built.
it_need_prog() {
  local p
  for p in "$@"; do
    [ -x "$(it_prog "$p")" ] || it_die "test program missing: $(it_prog "$p") (build the tree first)"
  done
}

# it_fsal_body [DONTCACHE-only params...]: the FSAL block body for the FSAL under test.
it_fsal_body() {
  if it_is_dontcache; then
    echo "Name = DONTCACHE; $*"
  else
    echo "Name = VFS;"
  fi
}

# it_fsal_body_files ID [DONTCACHE-only params...]: it_fsal_body with the export's key and
# stats files in the scratch tree ($IT_WORK/export-ID.key, $IT_WORK/export-ID.stats.json).
it_fsal_body_files() {
  local id=$1; shift
  it_fsal_body "Handle_Key_File = $IT_WORK/export-$id.key; Stats_File = $IT_WORK/export-$id.stats.json; $*"
}

# it_conf CONF then export lines "PATH|ID|BODY" on stdin (Pseudo = Path, so one URL path works
# for NFSv3 and NFSv4).
it_conf() {
  local out=$1 path id body
  while IFS='|' read -r path id body; do
    [ -n "$path" ] || continue
    echo "$path|$path|$id|$body"
  done | gsh_conf "$out" "$IT_WORK"
}

# it_start CONF [LOG]: start ganesha (dies with the log tail if it does not come up).
it_start() {
  local conf=$1 log=${2:-$IT_WORK/ganesha.log}
  IT_LOG=$log
  GSH_EXIT_STATUS=
  if ! gsh_start "$conf" "$log"; then
    echo "---- ganesha log tail ($log)"; tail -n 30 "$log" 2>/dev/null; echo "----"
    it_die "ganesha did not start with $conf (exit status ${GSH_EXIT_STATUS:-none: never listened})"
  fi
  it_log "ganesha pid $GSH_PID up ($DC_TEST_FSAL)"
}

# it_serve DIR [DONTCACHE-only params...]: (re)writes $IT_WORK/ganesha.conf exporting DIR as
# export 1 (it_fsal_body_files 1; IT_CONF_EXTRA, if set, is appended: e.g. a DONTCACHE { }
# or MDCACHE { } block) and starts ganesha, log $IT_WORK/ganesha.N.log for the Nth start.
# Sets IT_NFS, the ft_* programs' server arguments for DIR over NFSv3.
it_serve() {
  local dir=$1; shift
  echo "$dir|1|$(it_fsal_body_files 1 "$@")" | it_conf "$IT_WORK/ganesha.conf"
  [ -n "${IT_CONF_EXTRA:-}" ] && echo "$IT_CONF_EXTRA" >> "$IT_WORK/ganesha.conf"
  IT_NFS=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$dir")
  IT_STARTS=$((IT_STARTS + 1))
  it_start "$IT_WORK/ganesha.conf" "$IT_WORK/ganesha.$IT_STARTS.log"
}

# it_alive: true if the ganesha we started is still running.
it_alive() { [ -n "$GSH_PID" ] && kill -0 "$GSH_PID" 2>/dev/null; }

# it_check_alive WHAT: fail if ganesha died.
it_check_alive() {
  if it_alive; then it_pass "ganesha still running after $1"; return 0; fi
  it_fail "ganesha is not running after $1"
  echo "---- ganesha log tail"; tail -n 30 "$IT_LOG" 2>/dev/null; echo "----"
  return 1
}

# it_run [-t SECONDS] PROG ARGS...: run a test program (it_prog) with a timeout; a non-zero
# exit marks the scenario failed. Returns the program's status.
it_run() {
  local t=${IT_PROG_TIMEOUT:-300}
  if [ "$1" = -t ]; then t=$2; shift 2; fi
  local prog=$1; shift
  [ -x "$(it_prog "$prog")" ] && prog=$(it_prog "$prog")
  it_log "run: $(basename "$prog") $*"
  local rc=0
  timeout -k 5 "$t" "$prog" "$@" || rc=$?
  if [ $rc -ne 0 ]; then
    it_fail "$(basename "$prog") $* exited $rc"
    if [ -n "${IT_LOG:-}" ] && [ -f "$IT_LOG" ]; then
      echo "---- ganesha log tail ($IT_LOG)"
      grep -v ':DBUS :\|krb5\|keytab\|gssd' "$IT_LOG" | tail -n 20; echo "----"
    fi
  fi
  return $rc
}

# it_url PATH [VERS]: libnfs URL (gsh_url).
it_url() { gsh_url "$@"; }

# it_kv KEY LINE: the value of KEY=value in a program's summary line.
it_kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n1; }

# it_tmpfs DIR [SIZE]: a private tmpfs (only this namespace sees it; unmounted at exit).
it_tmpfs() {
  local dir=$1 size=${2:-256m}
  mkdir -p "$dir"
  mount -t tmpfs -o "size=$size,mode=0755" tmpfs "$dir" || it_die "cannot mount tmpfs on $dir"
  IT_MOUNTS+=("$dir")
}

# it_dbus_bus: the system bus of this namespace (/run is private here; ganesha in the Debian 13
# root reaches it through the /run it shares): default deny as Debian's system.conf, plus
# ganesha's own policy (root may own and call org.ganesha.nfsd). Skips the scenario when
# dbus-daemon/dbus-send are missing. Sets BUS_PID.
it_dbus_bus() {
  command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null ||
    it_skip "dbus-daemon/dbus-send not installed (Debian: dbus-daemon, dbus-bin)"
  POLICY=/etc/dbus-1/system.d/nfs-ganesha-dbus.conf
  if [ ! -f "$POLICY" ]; then
    POLICY=$IT_WORK/ganesha-policy.conf
    cat > "$POLICY" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="org.ganesha.nfsd"/>
    <allow send_destination="org.ganesha.nfsd"/>
  </policy>
</busconfig>
EOF
  fi
  mkdir -p /run/dbus
  cat > "$IT_WORK/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
  </policy>
  <include>$POLICY</include>
</busconfig>
EOF
  dbus-daemon --config-file="$IT_WORK/bus.conf" --nofork --nopidfile > "$IT_WORK/dbus-daemon.log" 2>&1 &
  BUS_PID=$!
  IT_EXTRA_PIDS+=("$BUS_PID")
  for _ in $(seq 50); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.1; done
  [ -S /run/dbus/system_bus_socket ] || it_die "dbus-daemon did not come up: $(tail -n 5 "$IT_WORK/dbus-daemon.log")"
  it_pass "private system bus up (dbus-daemon pid $BUS_PID, policy $POLICY)"
}

# it_dbus_wait_ganesha: wait (10 s at most) until ganesha owns org.ganesha.nfsd on the bus.
it_dbus_wait_ganesha() {
  for _ in $(seq 100); do
    timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
      org.freedesktop.DBus.NameHasOwner string:org.ganesha.nfsd 2>/dev/null |
      grep -q 'boolean true' && return 0
    sleep 0.1
  done
  return 1
}

# it_vg_two_exports M PRE [LEAK OPTIONS...]: the start of fault_removeexport.sh and
# fault_reaper_rebind.sh, two exports of one object tree changed over DBus under valgrind:
# a private system bus (it_dbus_bus), ganesha exporting M/one as export 1 and M/two as
# export 2 (DONTCACHE, handle keys $IT_WORK/k1 and k2; config $IT_WORK/ganesha.conf), with
# ganesha 6.5's fd reaper every second closing every idle global fd (MDCACHE block), run
# under "PRE valgrind --tool=memcheck LEAK OPTIONS..." (GSH_WRAPPER; PRE may be empty, e.g.
# "env LD_PRELOAD=..."; valgrind's log $IT_WORK/vg.%p.log, for it_vg_report) with
# GSH_START_TRIES 1800 unless set (valgrind is slow to start it); returns once ganesha owns
# org.ganesha.nfsd on the bus. Dies (or skips, without dbus) on failure.
it_vg_two_exports() {
  local m=$1 pre=$2; shift 2
  it_dbus_bus
  GSH_WRAPPER="$pre valgrind --tool=memcheck $* --undef-value-errors=no --num-callers=40
    --log-file=$IT_WORK/vg.%p.log"
  GSH_START_TRIES=${GSH_START_TRIES:-1800}
  export GSH_START_TRIES
  { echo "$m/one|1|Name = DONTCACHE; Handle_Key_File = $IT_WORK/k1;"
    echo "$m/two|2|Name = DONTCACHE; Handle_Key_File = $IT_WORK/k2;"; } | it_conf "$IT_WORK/ganesha.conf"
  echo 'MDCACHE { LRU_Run_Interval = 1; FD_LWMark_Percent = 0; FD_HWMark_Percent = 1; }' \
    >> "$IT_WORK/ganesha.conf"
  it_start "$IT_WORK/ganesha.conf"
  it_dbus_wait_ganesha || it_die "ganesha does not own org.ganesha.nfsd"
}

# it_vg_stop: SIGTERM to a ganesha that runs under valgrind (GSH_WRAPPER), waiting up to 180 s
# for valgrind's report; IT_VG_CLEAN=yes for a clean exit, no when it had to be killed.
it_vg_stop() {
  local pid=$GSH_PID
  IT_VG_CLEAN=yes
  kill -TERM "$pid"
  for _ in $(seq 1800); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && { IT_VG_CLEAN=no; kill -KILL "$pid"; }
  wait "$pid" 2>/dev/null
  GSH_PID=
}

# it_vg_report: the valgrind log ($IT_WORK/vg.*.log, --log-file=$IT_WORK/vg.%p.log) split
# into error blocks; prints "invalid_total=N leaks_total=N invalid_module=N leaks_module=N"
# (module: a block with a frame of libfsaldontcache.so) and writes the module's blocks to
# $IT_WORK/ours.txt. Fails when there is no complete report.
it_vg_report() {
  local vg
  vg=$(ls "$IT_WORK"/vg.*.log 2>/dev/null | head -1)
  [ -n "$vg" ] && grep -q "LEAK SUMMARY\|All heap blocks were freed" "$vg" || return 1
  awk '
  /^==[0-9]+== *$/ { if (blk != "") flush(); next }
  /^==[0-9]+== (Invalid (read|write|free)|Mismatched free|Syscall param|[0-9,]+ (\([^)]*\) )?bytes in [0-9,]+ blocks are definitely lost)/ {
    if (blk != "") flush(); blk = $0; kind = ($0 ~ /definitely lost/) ? "leak" : "invalid"; next }
  blk != "" { blk = blk "\n" $0 }
  function flush() {
    total[kind]++
    if (blk ~ /libfsaldontcache|FSAL_DONTCACHE|dcio_|dc_fh_/) { ours[kind]++; print blk > "/dev/stderr" }
    blk = ""
  }
  END { if (blk != "") flush();
        printf "invalid_total=%d leaks_total=%d invalid_module=%d leaks_module=%d\n",
               total["invalid"], total["leak"], ours["invalid"], ours["leak"] }' "$vg" 2> "$IT_WORK/ours.txt"
}

# it_loop_ext4 IMG SIZE MNT [mkfs.ext4 args...]: ext4 on a loop device over IMG, mounted on
# MNT (unmounted and detached at exit); sets IT_LOOP_DEV (call it directly, not in $(...)).
# it_capped_ext4 IMG MNT: ext4 without a journal (errors=continue) on a loop device over the
# existing file IMG whose requests are capped at 4 KiB (so a partly written request is an
# error of some pages only), mounted at MNT; IT_LOOP_DEV names the device. Dies on failure.
it_capped_ext4() {
  local dev
  dev=$(losetup -f --show "$1") || it_die "losetup $1"
  IT_LOOPS+=("$dev")
  echo 4 > "/sys/block/$(basename "$dev")/queue/max_sectors_kb" ||
    it_die "cannot cap $dev max_sectors_kb"
  mkfs.ext4 -q -F -b 4096 -O ^has_journal -m 0 -E lazy_itable_init=0,lazy_journal_init=0 "$dev" \
    >/dev/null 2>&1 || it_die "mkfs.ext4 $dev"
  mkdir -p "$2"
  mount -t ext4 -o errors=continue "$dev" "$2" || it_die "mount ext4 $dev"
  IT_MOUNTS+=("$2")
  IT_LOOP_DEV=$dev
}

it_loop_ext4() {
  local img=$1 size=$2 mnt=$3; shift 3
  local dev
  truncate -s "$size" "$img" || return 1
  dev=$(losetup -f --show "$img") || return 1
  IT_LOOPS+=("$dev")
  mkfs.ext4 -q -F "$@" "$dev" >/dev/null 2>&1 || { echo "mkfs.ext4 $dev failed" >&2; return 1; }
  mkdir -p "$mnt"
  mount -t ext4 "$dev" "$mnt" || return 1
  IT_MOUNTS+=("$mnt")
  IT_LOOP_DEV=$dev
}

# it_evict_ext4 OUTER MNT: the export of fault_evict.sh and fault_evict_drop.sh: an
# it_capped_ext4 at MNT whose backing file OUTER/disk.img (64 MiB) lies on an ext4 of its own
# at OUTER (96 MiB, it_loop_ext4), so that chattr +i of that file makes every write of the
# export's device fail with EIO and chattr -i mends it; and 300 empty files in MNT/many, whose
# READDIRPLUS fills MDCACHE (a small Entries_HWMark) until ganesha evicts the handles under
# test. Dies on failure.
it_evict_ext4() {
  local omnt=$1 mnt=$2 i
  it_loop_ext4 "$IT_WORK/outer.img" 96M "$omnt" -m 0 || it_die "cannot make the outer ext4"
  truncate -s 64M "$omnt/disk.img"
  it_capped_ext4 "$omnt/disk.img" "$mnt"
  mkdir "$mnt/many"
  for i in $(seq 300); do : > "$mnt/many/f$i"; done
  sync -f "$mnt"
}
