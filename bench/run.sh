#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/run.sh: compare stock FSAL_VFS with every FSAL_DONTCACHE mode on the same disk.
#
#   bench/run.sh --quick            # a few minutes: the README's first command
#   bench/run.sh                    # full run (sizes x --scale)
#
# It builds dcbench if needed, puts itself into a memory-limited cgroup (so every
# server is measured under the same memory and the page cache really fills), then
# in a private network+mount namespace starts rpcbind and ganesha itself for every
# run (exports are directories on the disk under --dir, never tmpfs), drops caches
# between runs, runs every scenario for every mode A/B interleaved --reps times,
# every server with the same malloc environment (the Environment= line of
# config/systemd/dontcache-malloc.conf, the drop-in the package ships for
# nfs-ganesha.service) but the vfs-shipped mode's (FSAL_VFS with glibc's defaults, as a
# stock ganesha runs), and writes into the output directory:
#   runs/*.json  one dcbench report per run      runs.csv     one line per run
#   summary.csv  medians/min/max per scenario and mode   summary.json   the same
#   table.txt    the comparison table (also printed)     *.png  gnuplot plots
#   plots.txt    what each plot shows: "PNG MODE ok|missing WHY" per mode
# In the same rounds it measures two ceilings (unless --no-ceilings): FSAL_MEM (mode mem,
# ganesha's FSAL_MEM with MEM { Inode_Size = 0; }: writes acknowledged and dropped, what ganesha
# and this machine move over NFS; run as another server, same malloc environment and cgroup)
# and the disk (mode disk: one local 1 MiB O_DIRECT write stream at depth 1 with fio's psync
# engine on a fresh file of the exports' filesystem, per write scenario and repetition); the
# table gives every MB/s also as a fraction of the nearer ceiling (xCeil).
# A failed run counts against its scenario only: a mode that failed twice in a scenario
# skips that scenario's remaining repetitions, never a later scenario; every failed or
# skipped run's row says why (runs.csv "status" and "why", the table, the plots).
# Options: see usage below.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
self="$top/bench/run.sh"

usage() {
  cat <<'EOF'
usage: bench/run.sh [--quick] [options]
  --quick              short runs: 3 s each, 9 scenarios x 5 modes x 3 reps
                       plus the ceilings (about 16 minutes in all on 2 cores; README command 1,
                       scripts/main.sh, runs it with --reps 2: about 11-12 minutes)
  --reps N             repetitions per scenario and mode (default 3); a full run
                       (13 scenarios x 7 modes x 3 reps x 20 s) takes about 110 minutes;
                       its multi-writer scenarios (multi4, multi16, multi64) go on past
                       their time until they wrote twice the memory limit
  --time S             seconds per run (quick 3, full 20 x scale)
  --warmup S           run S seconds longer and leave those first seconds out of every rate and
                       latency (default 0: a run's start, its files' first allocation and
                       ganesha's buffers growing, counts; with 4 s runs it sets p99.9)
  --scale F            multiply full-run durations and sizes (default 1)
  --modes LIST         comma list among vfs,vfs-shipped,dontcache,buffered,direct,dropbehind,
                       inline (default: vfs, vfs-shipped and every FSAL_DONTCACHE mode when
                       the module exists; --quick leaves out buffered and inline, --as-shipped
                       vfs-shipped). vfs-shipped: FSAL_VFS with glibc's malloc defaults
                       whatever the others run with (the table gives each mode's ratio
                       against it beside the one against vfs)
  --scenarios LIST     comma list among seq1,multi4,multi16,multi64,rand64k,noisy,compete,
                       commit,small64k,read64k,read64k_w,read4k,read4k_w,cqd1,cqd8,cqd32
                       (full default: all but cqd*; quick default: all but multi16, read64k,
                       read4k, read4k_w and cqd*). compete: 4 writers on the mode's export
                       beside 4 on an FSAL_VFS neighbour export in the same server, the
                       neighbour on a filesystem of its own (an image under --dir on a loop
                       device, as --fs makes): one ganesha exports a filesystem through one
                       FSAL only (its process_claim refuses a second)
  --mem-limit SIZE     memory cgroup limit (default 2G; quick 1G)
  --no-cgroup          run uncapped (report says so)
  --module PATH        libfsaldontcache.so (default: build*/FSAL_DONTCACHE/, then the system FSAL dir)
  --dir DIR            where export directories live (default /var/tmp/dcbench; must not be tmpfs)
  --fs ext4|xfs        put the exports on a fresh filesystem of that type instead: a sparse
                       image under --dir on a loop device (direct I/O, so the image's own
                       filesystem caches nothing), made and mounted for the run, removed after;
                       the loop device's request size (queue/max_sectors_kb) is set to its
                       largest (max_hw_sectors_kb): the kernel keeps a cap that an earlier user
                       of the same loop device set (the fault tests' 4 KiB) across detach
  --disk-mbps N        with --fs: cap the loop device's writes at N MB/s (10^6 bytes; 1..100000)
                       with a blkio throttle (cgroup v1 blkio.throttle.write_bps_device, removed
                       after the run): a device slower than the clients, whatever the host's
                       disk (default: none)
  --out DIR            output directory (default out/bench-<timestamp> in the repository)
  --drop-caches files|global  what is evicted from the page cache before each run: files
                       (default) the export directories' files (the hot set; a run's written
                       files are deleted after it), after a sync; global: the whole machine's
                       (sync; echo 3 > /proc/sys/vm/drop_caches, as before 2026-12-02), which
                       also evicts the filesystem's block bitmaps and ganesha's own binary: the
                       modes that write back during a run then read bitmaps from the busy disk
  --keep               keep the export directories and their files afterwards
  --engine PARAMS      body of the module's DONTCACHE block for every FSAL_DONTCACHE run,
                       e.g. "Bench { Engine_Threads = 4; Engine_Nice = 0; }" (default: none)
  --ganesha 4|6        4 (default): the host's ganesha 4.3; 6: Debian 13's ganesha 6.5 in the
                       root scripts/setup.sh --ganesha 6 makes (set up if missing), both FSALs
                       of that root, the module built inside it (build-g6/, built if missing)
  --export PARAMS      extra FSAL block parameters for every FSAL_DONTCACHE export,
                       e.g. "Cache_Budget_Bytes = 67108864;" (default: none)
  --variant NAME=PARAMS  one more mode NAME (letters, digits, _): the default mode's FSAL
                       block plus PARAMS, e.g. --variant 'ww16=Bench { Worker_Write_Max = 16777216; }'
                       (repeatable, at most 8; list NAME in --modes, else it is appended)
  --no-ceilings        leave out the two ceilings measured in the same rounds by default:
                       mem (FSAL_MEM, MEM { Inode_Size = 0; }: writes acknowledged and
                       dropped, run like the other servers in every scenario) and disk (one
                       local 1 MiB O_DIRECT write stream at depth 1, fio's psync engine, on a
                       fresh file in the exports' filesystem, once per write scenario and
                       repetition); they are appended to --modes unless listed there
  --ceil-mib N         MiB the disk ceiling writes per measurement (default: quick 256, full 512)
  --as-shipped         run every server with glibc's malloc defaults (the malloc variables
                       unset), as each FSAL runs without the package's systemd drop-in;
                       default: every server (FSAL_VFS too, vfs-shipped aside) with the
                       drop-in's Environment= (config/systemd/dontcache-malloc.conf), printed
                       in the table's header and read back from each server's environment
                       (runs.csv malloc_env)
  --malloc-all         the default (kept for old command lines)
environment: DCBENCH=PATH  use that dcbench binary instead of building build-bench/
             DCB_PERF=DIR  perf record -g each run's ganesha into DIR/TAG.perf.data
                           (profiling costs CPU: compare such runs only with each other)
EOF
}

die() { echo "run.sh: $*" >&2; exit 2; }

# ---------------------------------------------------------------- options
declare -A VARIANT=()
VARIANTS=()
NOCEIL=0 CEIL_MIB=
QUICK=0 REPS=3 TIME= WARMUP=0 SCALE=1 MODES= SCENARIOS= MEMLIM= CGROUP=1 MODULE= DIR=/var/tmp/dcbench OUT= KEEP=0 DROP=files ENGINE= EXPORT= AS_SHIPPED=0 GANESHA=4 FS= DISK_MBPS=
INNER=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --reps) REPS=${2:-}; shift ;;
    --time) TIME=${2:-}; shift ;;
    --warmup) WARMUP=${2:-}; shift ;;
    --scale) SCALE=${2:-}; shift ;;
    --modes) MODES=${2:-}; shift ;;
    --scenarios) SCENARIOS=${2:-}; shift ;;
    --mem-limit) MEMLIM=${2:-}; shift ;;
    --no-cgroup) CGROUP=0 ;;
    --module) MODULE=${2:-}; shift ;;
    --dir) DIR=${2:-}; shift ;;
    --fs) FS=${2:-}; shift ;;
    --disk-mbps) DISK_MBPS=${2:-}; shift ;;
    --out) OUT=${2:-}; shift ;;
    --keep) KEEP=1 ;;
    --drop-caches) DROP=${2:-}; shift ;;
    --engine) ENGINE=${2:-}; shift ;;
    --export) EXPORT=${2:-}; shift ;;
    --variant)
      v=${2:-}; vn=${v%%=*}
      [[ $v == *=* && $vn =~ ^[a-z][a-z0-9_]{0,15}$ ]] || die "--variant takes NAME=PARAMS (NAME: lower-case letters, digits, _)"
      case " vfs nbr dontcache buffered direct dropbehind inline ${VARIANTS[*]} " in
        *" $vn "*) die "--variant $vn: name already used" ;;
      esac
      [ ${#VARIANTS[@]} -lt 8 ] || die "--variant: at most 8"
      VARIANTS+=("$vn"); VARIANT[$vn]=${v#*=}; shift ;;
    --ganesha) GANESHA=${2:-}; shift ;;
    --as-shipped) AS_SHIPPED=1 ;;
    --no-ceilings) NOCEIL=1 ;;
    --ceil-mib) CEIL_MIB=${2:-}; shift ;;
    --malloc-all) ;;
    --inner) INNER=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option '$1'" ;;
  esac
  shift
done
[[ $REPS =~ ^[1-9][0-9]?$ ]] || die "--reps must be 1..99"
[[ $SCALE =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk "BEGIN{exit !($SCALE > 0)}" || die "--scale must be a positive number"
[ -z "$TIME" ] || [[ $TIME =~ ^[1-9][0-9]*$ ]] || die "--time must be whole seconds >= 1"
[[ $WARMUP =~ ^[0-9]+$ ]] && [ "$WARMUP" -le 600 ] || die "--warmup must be whole seconds 0..600"
[ $QUICK = 1 ] && : "${MEMLIM:=1G}"
: "${MEMLIM:=2G}"
[[ $MEMLIM =~ ^[0-9]+[KMG]?$ ]] || die "--mem-limit like 2G or 512M"
case $FS in ''|ext4|xfs) ;; *) die "--fs takes ext4 or xfs" ;; esac
if [ -n "$DISK_MBPS" ]; then
  [[ $DISK_MBPS =~ ^[1-9][0-9]{0,5}$ ]] && [ "$DISK_MBPS" -le 100000 ] || die "--disk-mbps must be 1..100000 (MB/s)"
  [ -n "$FS" ] || die "--disk-mbps needs --fs (it throttles the bench's own loop device)"
  [ -f /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ] ||
    die "--disk-mbps needs the cgroup v1 blkio controller (/sys/fs/cgroup/blkio)"
fi
[ -z "$CEIL_MIB" ] || [[ $CEIL_MIB =~ ^[1-9][0-9]{0,5}$ ]] || die "--ceil-mib must be 1..999999 (MiB)"
[ $QUICK = 1 ] && : "${CEIL_MIB:=256}"
: "${CEIL_MIB:=512}"
case $DROP in files|global) ;; *) die "--drop-caches takes files or global" ;; esac
case $GANESHA in 4|4.3) GANESHA=4 ;; 6|6.5) GANESHA=6 ;; *) die "--ganesha takes 4 or 6" ;; esac
to_bytes() { local v=${1%[KMG]} u=${1##*[0-9]}; case $u in K) echo $((v<<10));; M) echo $((v<<20));; G) echo $((v<<30));; *) echo "$v";; esac; }
MEMLIM_B=$(to_bytes "$MEMLIM")

# ---------------------------------------------------------------- outer part
if [ $INNER = 0 ]; then
  [ "$(id -u)" = 0 ] || die "needs root (namespaces, cgroups, drop_caches)"
  for c in ganesha.nfsd rpcbind jq gnuplot unshare; do
    command -v $c >/dev/null || die "$c missing: run scripts/setup.sh"
  done
  [ $NOCEIL = 1 ] || command -v fio >/dev/null || die "fio missing (the disk ceiling): run scripts/setup.sh, or --no-ceilings"
  [ "$(stat -f -c %T "$(dirname "$DIR")" 2>/dev/null)" = tmpfs ] && die "--dir must be on a disk filesystem, not tmpfs"
  if [ -n "${DCBENCH:-}" ]; then   # a dcbench built elsewhere (e.g. a private build dir)
    [ -x "$DCBENCH" ] || die "DCBENCH=$DCBENCH is not executable"
    dcbench=$(readlink -f "$DCBENCH")
  else
    dcbench=$top/build-bench/bench/dcbench
    echo "run.sh: building dcbench (build-bench/)"
    { cmake -S "$top" -B "$top/build-bench" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
      cmake --build "$top/build-bench" -j2 --target dcbench >/dev/null; } || die "build failed"
  fi
  if [ "$GANESHA" = 6 ]; then   # Debian 13's ganesha 6.5 in its root, the module built there
    export GSH_ROOT=${DC_DEBIAN13_ROOT:-$top/third_party/debian13-root}
    [ -x "$GSH_ROOT/usr/bin/ganesha.nfsd" ] || bash "$top/scripts/setup.sh" --ganesha 6 ||
      die "could not set up the Debian 13 root"
    if [ -z "$MODULE" ] && [ ! -f "$top/build-g6/FSAL_DONTCACHE/libfsaldontcache.so" ]; then
      echo "run.sh: building the module for ganesha 6.5 (build-g6/, inside the Debian 13 root)"
      bash "$top/scripts/debian13.sh" --build "$top/build-g6" sh -c \
        "cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
         cmake --build /build -j2 --target fsaldontcache >/dev/null" || die "6.5 module build failed"
    fi
  fi
  [ -n "$OUT" ] || OUT=$top/out/bench-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$OUT/runs" || die "cannot create $OUT"
  OUT=$(cd "$OUT" && pwd)
  cg=
  if [ $CGROUP = 1 ]; then
    if [ -f /sys/fs/cgroup/memory/cgroup.procs ]; then            # cgroup v1 memory controller
      cur=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
      cg=/sys/fs/cgroup/memory${cur%/}/dcbench-$$
      mkdir "$cg" || die "cannot create memory cgroup $cg"
      echo "$MEMLIM_B" > "$cg/memory.limit_in_bytes" || die "cannot set memory limit"
    elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then   # v2
      cur=$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
      cg=/sys/fs/cgroup${cur%/}/dcbench-$$
      mkdir "$cg" || die "cannot create cgroup $cg"
      echo "$MEMLIM_B" > "$cg/memory.max" || die "cannot set memory.max"
    else
      die "no memory cgroup controller found (use --no-cgroup)"
    fi
    parent_procs=$(dirname "$cg")/cgroup.procs
    echo $$ > "$cg/cgroup.procs" || die "cannot enter $cg"
    echo "run.sh: memory cgroup $cg limit $MEMLIM"
  fi
  args=(--reps "$REPS" --scale "$SCALE" --mem-limit "$MEMLIM" --dir "$DIR" --out "$OUT" --inner)
  [ $QUICK = 1 ] && args+=(--quick)
  [ -n "$TIME" ] && args+=(--time "$TIME")
  [ "$WARMUP" != 0 ] && args+=(--warmup "$WARMUP")
  [ -n "$MODES" ] && args+=(--modes "$MODES")
  [ -n "$SCENARIOS" ] && args+=(--scenarios "$SCENARIOS")
  [ -n "$MODULE" ] && args+=(--module "$MODULE")
  [ $KEEP = 1 ] && args+=(--keep)
  args+=(--drop-caches "$DROP")
  [ -n "$ENGINE" ] && args+=(--engine "$ENGINE")
  [ -n "$EXPORT" ] && args+=(--export "$EXPORT")
  [ -n "$FS" ] && args+=(--fs "$FS")
  [ -n "$DISK_MBPS" ] && args+=(--disk-mbps "$DISK_MBPS")
  for v in "${VARIANTS[@]}"; do args+=(--variant "$v=${VARIANT[$v]}"); done
  args+=(--ganesha "$GANESHA")
  [ $AS_SHIPPED = 1 ] && args+=(--as-shipped)
  [ $NOCEIL = 1 ] && args+=(--no-ceilings)
  args+=(--ceil-mib "$CEIL_MIB")
  [ $CGROUP = 0 ] && args+=(--no-cgroup)
  DCB_CGROUP=$cg DCBENCH=$dcbench "$top/tests/lib/in-ns.sh" "$self" "${args[@]}"
  rc=$?
  if [ -n "$cg" ]; then
    echo $$ > "$parent_procs" 2>/dev/null
    for i in $(seq 200); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
    [ -d "$cg" ] && echo "run.sh: could not remove $cg" >&2
  fi
  exit $rc
fi

# ---------------------------------------------------------------- inner part (in the namespace)
source "$top/tests/lib/ganesha.sh"
dcbench=${DCBENCH:?}
CG=${DCB_CGROUP:-}

# module discovery (ganesha 6.5: the module built inside the Debian 13 root)
if [ "$GANESHA" = 6 ] && [ -z "$MODULE" ]; then
  MODULE=$top/build-g6/FSAL_DONTCACHE/libfsaldontcache.so
elif [ -z "$MODULE" ]; then
  for m in "$top"/build/FSAL_DONTCACHE/libfsaldontcache.so "$top"/build*/FSAL_DONTCACHE/libfsaldontcache.so \
           /usr/lib/x86_64-linux-gnu/ganesha/libfsaldontcache.so; do
    [ -f "$m" ] && { MODULE=$m; break; }
  done
fi
[ -n "$MODULE" ] && [ ! -f "$MODULE" ] && die "--module $MODULE not found"
all_dc_modes="dontcache buffered direct dropbehind inline"
# FSAL_VFS: the modes vfs and vfs-shipped, and compete's neighbour export (nbr); the
# ceilings: mem (FSAL_MEM) and disk (no server: a local O_DIRECT stream)
is_dc() { case $1 in vfs|vfs-shipped|nbr|mem|disk) return 1;; esac; return 0; }
is_ceil() { case $1 in mem|disk) return 0;; esac; return 1; }
if [ -z "$MODES" ]; then
  # vfs-shipped (FSAL_VFS with glibc's malloc defaults) beside vfs (the malloc environment
  # every other server runs with): the table's ratios against both come from one run
  vfs_modes=vfs,vfs-shipped
  [ $AS_SHIPPED = 1 ] && vfs_modes=vfs
  if [ -n "$MODULE" ]; then
    if [ $QUICK = 1 ]; then MODES="$vfs_modes,dontcache,direct,dropbehind"; else MODES="$vfs_modes,${all_dc_modes// /,}"; fi
  else
    MODES=$vfs_modes
  fi
fi
for v in "${VARIANTS[@]}"; do
  case ",$MODES," in *",$v,"*) ;; *) MODES+=",$v" ;; esac
done
# the ceilings, in the same interleaved rounds as the servers (unless --no-ceilings)
if [ $NOCEIL = 0 ]; then
  for v in mem disk; do case ",$MODES," in *",$v,"*) ;; *) MODES+=",$v" ;; esac; done
fi
IFS=, read -r -a modes <<< "$MODES"
for m in "${modes[@]}"; do
  case " vfs vfs-shipped mem disk $all_dc_modes ${VARIANTS[*]} " in *" $m "*) ;; *) die "unknown mode '$m'";; esac
  is_dc "$m" && [ -z "$MODULE" ] && die "mode $m needs libfsaldontcache.so (not built yet? use --module)"
done
full_scenarios="seq1 multi4 multi16 multi64 rand64k noisy compete commit small64k read64k read64k_w read4k read4k_w"
all_scenarios="$full_scenarios cqd1 cqd8 cqd32"
if [ -z "$SCENARIOS" ]; then
  if [ $QUICK = 1 ]; then SCENARIOS=seq1,multi4,multi64,rand64k,noisy,compete,commit,small64k,read64k_w
  else SCENARIOS=${full_scenarios// /,}; fi
fi
IFS=, read -r -a scenarios <<< "$SCENARIOS"
for s in "${scenarios[@]}"; do
  case " $all_scenarios " in *" $s "*) ;; *) die "unknown scenario '$s'";; esac
done
# scenarios whose readers share a hot set that is written locally and warmed through NFS
has_hot() { case $1 in noisy|read64k|read64k_w|read4k|read4k_w) return 0;; esac; return 1; }
# the unthrottled cached-read scenarios: their MB/s and latencies are the readers'
is_read() { case $1 in read64k|read64k_w|read4k|read4k_w) return 0;; esac; return 1; }

# sizes
if [ $QUICK = 1 ]; then
  T=${TIME:-3}; IV=0.5; HOT=$((MEMLIM_B / 16)); RANDSIZE=$((1 << 30))
else
  IV=1; T=${TIME:-$(awk "BEGIN{printf \"%d\", 20 * $SCALE}")}; HOT=$((MEMLIM_B / 16)); RANDSIZE=$(awk "BEGIN{printf \"%.0f\", 4 * 2^30 * $SCALE}")
fi
# dcbench's wait for the last requests and each writer's final COMMIT after the run's time
DRAIN=20
# --warmup: each run lasts T + WARMUP seconds, dcbench leaves the first WARMUP out
TW=$((T + WARMUP)) WU=
[ "$WARMUP" != 0 ] && WU=" --warmup $WARMUP"
HOT=$(( (HOT >> 20) << 20 )); [ $HOT -lt $((16 << 20)) ] && HOT=$((16 << 20))
RANDSIZE=$(( (RANDSIZE >> 16) << 16 ))
# Sequential writers wrap at a per-file size chosen so that one run's files total 4x the
# memory limit: far more than the page cache can hold (the buffered case still churns the
# cache) while bounding the disk space a run needs. Files are removed after every run.
TOTAL_WRAP=$((4 * MEMLIM_B))
wrap() { local w=$(( TOTAL_WRAP / $1 )); echo $(( (w >> 20) << 20 )); }
# nfsd-io-bench's habit: in a full run the multi-writer scenarios (multi4, multi16, multi64)
# write at least twice the memory limit, going on past --time if need be (dcbench
# --min-bytes, within its --max-time of 600 s: a run that cannot is not finished)
MIN_BYTES=$((2 * MEMLIM_B)) MINB=
[ $QUICK = 1 ] || MINB=" --min-bytes $MIN_BYTES"
need=$(( TOTAL_WRAP + 4 * RANDSIZE + (2 << 30) ))
mkdir -p "$DIR" || die "cannot create $DIR"
ORIG_DIR=$(cd "$DIR" && pwd)
LOOPDEV= FSMNT=
if [ -n "$FS" ]; then   # inside the private mount namespace: the mount dies with it
  command -v "mkfs.$FS" >/dev/null || die "mkfs.$FS missing (apt-get install ${FS/xfs/xfsprogs})"
  img=$DIR/fs-$$.img FSMNT=$DIR/fs-$$
  # sparse; room for the filesystem's own metadata (ext4's inode tables and journal: ~2%)
  # over what the runs need. ext4 without the 5% it reserves for root by default, which
  # df does not count as free: a 2 GiB run's 26 GiB left 25 free on a 27 GiB image.
  isize=$(( need + need / 32 + (1 << 30) )) mkfs_opts=(-f)
  [ "$FS" = ext4 ] && mkfs_opts=(-F -m 0)
  avail=$(( $(df -P -k "$DIR" | awk 'NR==2{print $4}') * 1024 ))
  [ "$avail" -ge "$isize" ] || die "not enough free space under $DIR for a $FS image of $(( (isize >> 30) + 1 )) GiB"
  truncate -s "$isize" "$img" && mkdir -p "$FSMNT" &&
    LOOPDEV=$(losetup --direct-io=on -f --show "$img") || { rm -f "$img"; die "cannot attach $img"; }
  # blkio throttle rules and the request size are the device's, kept across detach: set
  # both, undo the rule at the end (the request size is left at the device's largest)
  q=/sys/block/${LOOPDEV#/dev/}/queue throttle=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
  devno=$(cat "/sys/block/${LOOPDEV#/dev/}/dev")
  fs_cleanup() {
    umount "$FSMNT" 2>/dev/null
    [ -z "$DISK_MBPS" ] || echo "$devno 0" > "$throttle" 2>/dev/null
    losetup -d "$LOOPDEV" 2>/dev/null; rm -f "$img"; rmdir "$FSMNT" 2>/dev/null
  }
  cat "$q/max_hw_sectors_kb" > "$q/max_sectors_kb" 2>/dev/null
  LOOP_KB=$(cat "$q/max_sectors_kb")
  [ "$LOOP_KB" = "$(cat "$q/max_hw_sectors_kb")" ] || { fs_cleanup; die "cannot set $q/max_sectors_kb to its largest"; }
  if [ -n "$DISK_MBPS" ]; then
    echo "$devno $((DISK_MBPS * 1000000))" > "$throttle" &&
      grep -qx "$devno $((DISK_MBPS * 1000000))" "$throttle" || { fs_cleanup; die "cannot throttle $LOOPDEV in $throttle"; }
  fi
  if ! "mkfs.$FS" -q "${mkfs_opts[@]}" "$LOOPDEV" >/dev/null 2>&1 || ! mount "$LOOPDEV" "$FSMNT"; then
    fs_cleanup; die "cannot make or mount $FS on $LOOPDEV"
  fi
  DIR=$FSMNT
fi
avail=$(( $(df -P -k "$DIR" | awk 'NR==2{print $4}') * 1024 ))
[ "$avail" -ge "$need" ] || die "not enough free space under $DIR: $((avail >> 30)) GiB free, a run needs up to $((need >> 30)) GiB"

# compete's neighbour: an FSAL_VFS export in the same server on a filesystem of its own (one
# ganesha exports a filesystem through one FSAL: ganesha's process_claim refuses FSAL_VFS a
# filesystem FSAL_DONTCACHE exports, and the other way round). A sparse image under the --dir
# given (beside --fs's), the type of the mode exports' filesystem (ext4 unless that is xfs),
# on a loop device with direct I/O as --fs does; not throttled by --disk-mbps. Both loop
# devices' images are on the same disk: the two exports compete for it.
NBRMNT= NBRDEV= NBRIMG=
nbr_cleanup() {
  [ -z "$NBRMNT" ] || umount "$NBRMNT" 2>/dev/null
  [ -z "$NBRDEV" ] || losetup -d "$NBRDEV" 2>/dev/null
  [ -z "$NBRIMG" ] || rm -f "$NBRIMG"
  [ -z "$NBRMNT" ] || rmdir "$NBRMNT" 2>/dev/null
}
nbr_die() { nbr_cleanup; [ -z "$FS" ] || fs_cleanup; die "$@"; }
if [[ " ${scenarios[*]} " == *" compete "* ]]; then
  NBRFS=${FS:-$(findmnt -n -o FSTYPE -T "$DIR")}
  case $NBRFS in ext4|xfs) ;; *) NBRFS=ext4 ;; esac
  command -v "mkfs.$NBRFS" >/dev/null || nbr_die "mkfs.$NBRFS missing (compete's neighbour filesystem)"
  # the neighbour's 4 writers wrap at wrap 4: its files total TOTAL_WRAP at most
  nsize=$(( TOTAL_WRAP + TOTAL_WRAP / 32 + (1 << 30) ))
  navail=$(( $(df -P -k "$ORIG_DIR" | awk 'NR==2{print $4}') * 1024 ))
  nneed=$(( nsize + ${isize:-$need} ))
  [ "$navail" -ge "$nneed" ] ||
    nbr_die "not enough free space under $ORIG_DIR: $((navail >> 30)) GiB free, the run and compete's neighbour need up to $((nneed >> 30)) GiB"
  NBRIMG=$ORIG_DIR/nbr-$$.img NBRMNT=$ORIG_DIR/nbr-$$
  nopts=(-f); [ "$NBRFS" = ext4 ] && nopts=(-F -m 0)
  truncate -s "$nsize" "$NBRIMG" && mkdir -p "$NBRMNT" &&
    NBRDEV=$(losetup --direct-io=on -f --show "$NBRIMG") || nbr_die "cannot attach $NBRIMG"
  nq=/sys/block/${NBRDEV#/dev/}/queue
  cat "$nq/max_hw_sectors_kb" > "$nq/max_sectors_kb" 2>/dev/null
  "mkfs.$NBRFS" -q "${nopts[@]}" "$NBRDEV" >/dev/null 2>&1 && mount "$NBRDEV" "$NBRMNT" && mkdir -p "$NBRMNT/nbr" ||
    nbr_die "cannot make or mount $NBRFS on $NBRDEV (compete's neighbour)"
fi

work=$DIR/run-$$
mkdir -p "$work/plugins" "$work/exp" || die "cannot create $work"
ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$work/plugins/libfsalvfs.so"
# FSAL_MEM (Debian's nfs-ganesha-mem; with --ganesha 6 the root's), linked like FSAL_VFS
MEMSO=/usr/lib/x86_64-linux-gnu/ganesha/libfsalmem.so MEM_WHY=
if [ -f "${GSH_ROOT:-}$MEMSO" ]; then
  ln -sf "$MEMSO" "$work/plugins/libfsalmem.so"
else
  MEM_WHY="no FSAL_MEM: ${GSH_ROOT:-}$MEMSO missing (package nfs-ganesha-mem; scripts/setup.sh)"
fi
# a copy, so that a rebuild during the run cannot change the module under test
[ -n "$MODULE" ] && cp "$(readlink -f "$MODULE")" "$work/plugins/libfsaldontcache.so"
GSH_PLUGINS_DIR=$work/plugins
cleanup() {
  gsh_cleanup >/dev/null 2>&1
  [ $KEEP = 1 ] || [ -n "$FS" ] || rm -rf "$work"
  [ -z "$FS" ] || fs_cleanup
  nbr_cleanup
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT TERM

fsal_body() {  # mode [stats file] -> FSAL block body
  local st=
  [ -n "${2:-}" ] && st=" Stats_File = \"$2\";"
  case $1 in
    vfs|vfs-shipped|nbr) echo "Name = VFS;" ;;
    mem) echo "Name = MEM;" ;;
    inline) echo "Name = DONTCACHE; Write_Mode = dontcache; Read_Mode = buffered;$st $EXPORT Bench { Flush_Mode = inline; }" ;;
    *) if [ -n "${VARIANT[$1]+x}" ]; then
         echo "Name = DONTCACHE; Write_Mode = dontcache; Read_Mode = buffered;$st $EXPORT ${VARIANT[$1]}"
         return
       fi
       echo "Name = DONTCACHE; Write_Mode = $1; Read_Mode = buffered;$st $EXPORT" ;;
  esac
}
export_id() { case $1 in vfs) echo 1;; nbr) echo 2;; vfs-shipped) echo 3;; mem) echo 31;; dontcache) echo 11;; buffered) echo 12;; direct) echo 13;; dropbehind) echo 14;; inline) echo 15;;
  *) local i; for i in "${!VARIANTS[@]}"; do [ "${VARIANTS[$i]}" = "$1" ] && echo $((21 + i)); done ;; esac; }
# an export's directory: the mode's on the bench's filesystem, compete's neighbour on its own
exp_dir() { if [ "$1" = nbr ]; then echo "$NBRMNT/nbr"; else echo "$work/exp/$1"; fi; }

# The malloc environment (bench/malloc-env.sh): every server starts from a clean malloc
# environment, then gets the drop-in's variables, but with --as-shipped and in the
# vfs-shipped mode (glibc's defaults).
source "$top/bench/malloc-env.sh"
malloc_env_load "$top/config/systemd/dontcache-malloc.conf"
# mode -> GSH_WRAPPER for its server (the whole server: compete's neighbour shares it)
server_env() {
  if [ $AS_SHIPPED = 1 ] || [ "$1" = vfs-shipped ]; then
    GSH_WRAPPER="env ${MALLOC_UNSET[*]}"
  else
    GSH_WRAPPER="env ${MALLOC_UNSET[*]} ${MALLOC_ENV[*]}"
  fi
}
# what a running server's environment holds of it (runs.csv malloc_env, ';' between)
server_malloc_env() {
  tr '\0' '\n' < "/proc/$1/environ" 2>/dev/null | grep -E '^(MALLOC_[A-Za-z0-9_]*|GLIBC_TUNABLES)=' | paste -sd';'
}
engine_block() { [ -z "$ENGINE" ] || echo "DONTCACHE { $ENGINE }" >> "$1"; }
# FSAL_MEM's module block: Inode_Size = 0 keeps no file data (every WRITE acknowledged and
# dropped, READs answered with filler). In ganesha 4.3 and 6.5 Inode_Size is a parameter of
# the MEM block; in an export's FSAL block it is an "Unknown parameter", ignored.
mem_block() { [ "$2" != mem ] || echo "MEM { Inode_Size = 0; }" >> "$1"; }

# before each run (--drop-caches): the export directories' files, or the machine's page cache
drop_caches() {
  sync
  if [ "$DROP" = global ]; then echo 3 > /proc/sys/vm/drop_caches; return; fi
  local f
  for f in "$work"/exp/*/* ${NBRMNT:+"$NBRMNT"/nbr/*}; do
    [ ! -f "$f" ] || dd if="$f" iflag=nocache count=0 status=none
  done
  return 0
}

# the exports a run needs: the mode's, plus compete's FSAL_VFS neighbour on its filesystem
run_exports() {
  local mode=$1 scen=$2
  echo "$mode"
  [ "$scen" != compete ] || echo nbr
}

# mbps is the readers' MB/s for the read* scenarios (writer_mbps: their streaming writer's),
# the mode export's for compete, the writers' otherwise. dc_*: FSAL_DONTCACHE's own counters
# from its Stats_File at the end of the run (whole server lifetime, hot-set warm-up included).
# malloc_env: the server's malloc variables read from its /proc/PID/environ; status: ok,
# failed or skipped, why: what failed (or why the run was skipped), no commas.
hdr="scenario,mode,rep,ok,mbps,mbps_durable,write_p50_ms,write_p99_ms,write_p999_ms,write_max_ms,commit_p50_ms,commit_p99_ms,commits,read_mbps,read_p99_ms,hot_end_pct,cache_peak_mib,dirty_peak_mib,writeback_peak_mib,files_resident_peak_mib,server_cpu_pct,kswapd_cpu_pct,neighbour_mbps,bytes_asked,bytes_written,errors,verf_changes"
hdr+=",read_p50_ms,read_p999_ms,writer_mbps,server_cpu_s,cpu_s_per_gb,rss_peak_mib,dc_fdatasyncs,dc_gc_requests,dc_gc_batches,dc_reads,dc_reads_nowait,dc_flusher_passes,fdatasync_per_commit,nowait_read_pct,dc_fallback"
hdr+=",host_cpu_s,host_cpu_s_per_gb,minor_faults_per_mib,bytes_min,malloc_env,status,why"
echo "$hdr" > "$OUT/runs.csv"
hdr_nf=$(awk -F, '{print NF}' <<< "$hdr")
csv_text() { printf '%s' "$*" | tr '\n\r' '  ' | sed 's/[",\\]/;/g; s/  */ /g; s/^ //; s/ $//' | cut -c1-300; }
# the line of a run that produced no report: scenario mode rep status why [malloc_env]
fail_row() {
  echo "$1,$2,$3,0$(printf ',%.0s' $(seq $((hdr_nf - 8)))),,${6:-},$4,$(csv_text "$5")" >> "$OUT/runs.csv"
}
# the first line of a ganesha log that says why it did not start or refused an export
gsh_why() {
  grep -E ':(CRIT|FATAL|MAJ) :' "$1" 2>/dev/null | grep -v -E 'DBUS|krb5|keytab|gssd|dbus' | head -1 |
    sed -E 's/.*:(CRIT|FATAL|MAJ) ://'
}

dcb_args() {  # scenario -> dcbench options (without URLs)
  case $1 in
    seq1)    echo "--conns 1 --qd 8 --bs 1M --size $(wrap 1) --time $TW$WU" ;;
    multi4)  echo "--conns 4 --qd 4 --bs 1M --size $(wrap 4) --time $TW$WU$MINB" ;;
    multi16) echo "--conns 16 --qd 4 --bs 1M --size $(wrap 16) --time $TW$WU$MINB" ;;
    multi64) echo "--conns 64 --qd 2 --bs 1M --size $(wrap 64) --time $TW$WU$MINB" ;;
    rand64k) echo "--conns 4 --qd 16 --bs 64k --pattern rand --size $RANDSIZE --time $TW$WU" ;;
    noisy)   echo "--conns 1 --qd 8 --bs 1M --size $(wrap 1) --time $TW$WU --readers 4 --read-bs 4k --read-qd 1 --hot-files 4 --hot-size $HOT --read-iops 500" ;;
    compete) echo "--conns 4 --qd 4 --bs 1M --size $(wrap 4) --time $TW$WU" ;;
    commit)  echo "--conns 16 --qd 2 --bs 64k --size $(wrap 16) --time $TW$WU --commit-every 512k" ;;
    small64k) echo "--conns 1 --qd 1 --bs 64k --size $(wrap 1) --time $TW$WU" ;;
    cqd1|cqd8|cqd32) echo "--conns 1 --qd ${1#cqd} --bs 1M --size $(wrap 1) --time $TW$WU --commit-every 16M" ;;
    read64k)   echo "--conns 0 --time $TW$WU --readers 4 --read-bs 64k --read-qd 1 --hot-files 4 --hot-size $HOT" ;;
    read64k_w) echo "--conns 1 --qd 8 --bs 1M --size $(wrap 1) --time $TW$WU --readers 4 --read-bs 64k --read-qd 1 --hot-files 4 --hot-size $HOT" ;;
    read4k)    echo "--conns 0 --time $TW$WU --readers 4 --read-bs 4k --read-qd 1 --hot-files 4 --hot-size $HOT" ;;
    read4k_w)  echo "--conns 1 --qd 8 --bs 1M --size $(wrap 1) --time $TW$WU --readers 4 --read-bs 4k --read-qd 1 --hot-files 4 --hot-size $HOT" ;;
  esac
}

csv_row() {  # json scenario mode rep [FSAL_DONTCACHE stats file]
  local j=$1 st=null rd=0
  [ -n "${5:-}" ] && [ -s "$5" ] && st=$(jq -c '.engine // null' "$5" 2>/dev/null || echo null)
  is_read "$2" && rd=1
  jq -r --arg s "$2" --arg m "$3" --arg r "$4" --argjson st "${st:-null}" --argjson rd $rd '
    def ms(x): if x == null then "" else (x / 1000 * 1000 | round / 1000) end;
    def lt(op; p): if (.latency_us[op].count // 0) > 0 then ms(.latency_us[op][p]) else "" end;
    def ratio(a; b): if a == null or b == null or b == 0 then "" else (a / b * 10000 | round / 10000) end;
    def n(x): if x == null then "" else x end;
    def grow(x): if x.peak == null then null else x.peak - (x.start // 0) | . * 100 | round / 100 end;
    def cache: if .server.mib.cgroup_cache.peak != null then grow(.server.mib.cgroup_cache) else grow(.server.mib.cached) end;
    def dirty: if .server.mib.cgroup_dirty.peak != null then .server.mib.cgroup_dirty.peak else .server.mib.dirty.peak end;
    def wb: if .server.mib.cgroup_writeback.peak != null then .server.mib.cgroup_writeback.peak else .server.mib.writeback.peak end;
    [ $s, $m, $r, (if .finished and .errors.rpc == 0 and .errors.nfs_total == 0 then 1 else 0 end),
      (if $s == "compete" then .per_url[0].write_mbps elif $rd == 1 then .read.mbps else .write.mbps end), .write.mbps_durable,
      lt("write"; "p50"), lt("write"; "p99"), lt("write"; "p99.9"), lt("write"; "max"),
      lt("commit"; "p50"), lt("commit"; "p99"), .commit.ops,
      .read.mbps, lt("read"; "p99"), n(.server.hot_resident_pct_end),
      n(cache), n(dirty), n(wb), n(.server.mib.files_resident.peak),
      n(.server.cpu_pct.server.mean), n(.server.cpu_pct.kswapd.mean),
      (if $s == "compete" then .per_url[1].write_mbps else "" end),
      .write.bytes_asked, .write.bytes_written, (.errors.rpc + .errors.nfs_total), .verifier.changes,
      lt("read"; "p50"), lt("read"; "p99.9"),
      (if $rd == 1 and .config.conns > 0 then .write.mbps else "" end),
      n(.server.cpu_s), n(.server.cpu_s_per_gb), n(.server.server_hwm_mib // .server.mib.server_rss.peak),
      n($st.group_commit.syscalls), n($st.group_commit.requests), n($st.group_commit.batches),
      n($st.reads.ops), n($st.reads.nowait), n($st.flusher.passes),
      (if $st == null or .commit.ops == 0 then "" else ratio($st.group_commit.syscalls; .commit.ops) end),
      (if $st == null or $st.reads.nowait == null then "" else ratio($st.reads.nowait * 100; $st.reads.ops) end),
      (if $st == null then "" elif $st.fallback then 1 else 0 end),
      n(.server.host_cpu_s), n(.server.host_cpu_s_per_gb), n(.server.minor_faults_per_mib)
    ] | map(tostring) | join(",")' "$j"
}

url_for() { gsh_url "$(exp_dir "$1")"; }

# per scenario: failed runs of each mode (a mode that failed twice in a scenario skips the
# scenario's remaining repetitions; the next scenario starts afresh)
declare -A sfails=() slast=()
run_failed() {  # scenario mode rep why [malloc_env]
  echo "run.sh: $1.$2.$3: FAILED: $4" >&2
  fail_row "$1" "$2" "$3" failed "$4" "${5:-}"
  sfails[$2]=$(( ${sfails[$2]:-0} + 1 )); slast[$2]=$4
}

run_one() {  # scenario mode rep
  local scen=$1 mode=$2 rep=$3 tag="$1.$2.$3"
  local exps e d conf=$work/ganesha.conf log=$OUT/runs/$tag.ganesha.log
  exps=$(run_exports "$mode" "$scen")
  for e in $exps; do
    d=$(exp_dir "$e")
    mkdir -p "$d"
    rm -f "$d"/dcb.*
  done
  if has_hot "$scen" && [ "$mode" != mem ]; then   # the hot set (FSAL_MEM's: written by dcbench): written locally once per export, warmed through NFS by dcbench
    local i
    for i in 0 1 2 3; do
      local f=$work/exp/$mode/hot.$i
      [ "$(stat -c %s "$f" 2>/dev/null)" = "$HOT" ] || dd if=/dev/urandom of="$f" bs=1M count=$((HOT >> 20)) status=none
    done
  fi
  # every FSAL_DONTCACHE export writes its counters into the output directory
  local stats=$OUT/runs/$tag.dcstats.json
  rm -f "$stats"
  for e in $exps; do
    echo "$(exp_dir "$e")|/$e|$(export_id "$e")|$(fsal_body "$e" "$(is_dc "$e" && echo "$stats")")"
  done | gsh_conf "$conf" "$work"
  engine_block "$conf"
  mem_block "$conf" "$mode"
  drop_caches
  server_env "$mode"
  if ! gsh_start "$conf" "$log"; then
    run_failed "$scen" "$mode" "$rep" "ganesha did not start: $(gsh_why "$log")"
    return 1
  fi
  local menv; menv=$(server_malloc_env "$GSH_PID")
  # an export the server refused (e.g. a filesystem another FSAL holds): the mount would fail
  if grep -q 'Could not create export' "$log"; then
    local why; why=$(gsh_why "$log")
    gsh_stop >/dev/null 2>&1
    run_failed "$scen" "$mode" "$rep" "ganesha refused an export: $why" "$menv"
    return 1
  fi
  local urls=() e2
  for e2 in $exps; do urls+=(--url "$(url_for "$e2")" --server-path "$(exp_dir "$e2")"); done
  local j=$OUT/runs/$tag.json perf_pid= args limit
  args=$(dcb_args "$scen")
  limit=$((TW * 2 + 150))
  [[ $args != *--min-bytes* ]] || limit=$((600 + DRAIN + 60))   # dcbench's --max-time, its drain
  # DCB_PERF=DIR: a call-graph profile of ganesha for each run (DIR/TAG.perf.data; it costs
  # CPU, so figures of such a run are not comparable with a plain one)
  if [ -n "${DCB_PERF:-}" ]; then
    mkdir -p "$DCB_PERF"
    perf record -q -g -o "$DCB_PERF/$tag.perf.data" -p "$GSH_PID" > /dev/null 2>&1 &
    perf_pid=$!
  fi
  # shellcheck disable=SC2086
  timeout -k 5 $limit "$dcbench" "${urls[@]}" $args --server-pid "$GSH_PID" \
    ${CG:+--cgroup "$CG"} --label "$tag" --quiet --json "$j" --timeline-csv "$OUT/runs/$tag.timeline.csv" \
    --cdf-prefix "$OUT/runs/$tag" --prefix dcb --interval "$IV" --rpc-timeout 30 --drain-timeout $DRAIN > "$OUT/runs/$tag.out" 2>&1
  local rc=$?
  if [ -n "$perf_pid" ]; then kill -INT "$perf_pid" 2>/dev/null; wait "$perf_pid"; fi
  # a server that died during the run (multi64 direct: the memory cgroup's OOM killer took
  # ganesha at ~900 MiB anonymous memory of the 1 GiB quick limit, and the run ended
  # drain-timeout): say so, with the kernel's line
  local stall=
  if [ ! -d "/proc/$GSH_PID" ]; then
    wait "$GSH_PID" 2>/dev/null
    local st=$? oom
    oom=$(dmesg 2>/dev/null | grep -E "Killed process $GSH_PID \(ganesha" | tail -1 | sed 's/^\[[^]]*\] *//; s/, UID.*//')
    if [ -n "$oom" ]; then
      stall="ganesha died during the run: OOM-killed in the bench's memory cgroup (limit $MEMLIM; $oom)"
    else
      stall="ganesha died during the run (exit status $st$([ $st -gt 128 ] && echo ": signal $((st - 128))"))"
    fi
  # requests unanswered for the whole drain by a live server: where its threads wait, before
  # it is stopped (runs/TAG.stall.txt: state, wchan and kernel stack per thread)
  elif [ -s "$j" ] && [ "$(jq -r '.stop_reason' "$j" 2>/dev/null)" = drain-timeout ]; then
    local t
    for t in /proc/"$GSH_PID"/task/*; do
      echo "== $(cat "$t/comm" 2>/dev/null) state $(awk '{print $3}' "$t/stat" 2>/dev/null) wchan $(cat "$t/wchan" 2>/dev/null)"
      cat "$t/stack" 2>/dev/null
    done > "$OUT/runs/$tag.stall.txt"
    stall=$(sed -n 's/^== .* state \(.\) wchan \(.*\)$/\1:\2/p' "$OUT/runs/$tag.stall.txt" | grep -v '^[SR]:' | sort | uniq -c |
      sort -rn | head -3 | awk '{printf "%s%d in %s", (k++ ? " " : ""), $1, $2}')
    stall="server threads not sleeping in S: ${stall:-none}; runs/$tag.stall.txt"
  fi
  gsh_stop 2> "$OUT/runs/$tag.stop.err"   # the module writes its Stats_File a last time when the export is released
  grep -q 'ignored SIGTERM' "$OUT/runs/$tag.stop.err" && stall+="${stall:+; }ganesha ignored SIGTERM for 15 s (killed)"
  [ -s "$OUT/runs/$tag.stop.err" ] || rm -f "$OUT/runs/$tag.stop.err"
  for e in $exps; do rm -f "$(exp_dir "$e")"/dcb.*; done   # disk space: one run's files at a time
  local row=
  [ -s "$j" ] && row=$(csv_row "$j" "$scen" "$mode" "$rep" "$(is_dc "$mode" && echo "$stats")")
  if [ -z "$row" ]; then
    run_failed "$scen" "$mode" "$rep" "dcbench failed (rc $rc): $(tail -2 "$OUT/runs/$tag.out")" "$menv"
    return 1
  fi
  # a report: ok, or why not (unfinished, errors, failed connections)
  local why
  why=$(jq -r '[ (if .finished then empty else "not finished: \(.stop_reason)" end),
                 (if (.errors.rpc // 0) + (.errors.nfs_total // 0) > 0
                  then "\(.errors.rpc) RPC and \(.errors.nfs_total) NFS errors" else empty end),
                 ([.per_conn[]? | select(.failed)] | length | if . > 0 then "\(.) connections failed" else empty end)
               ] | join("; ")' "$j" 2>/dev/null)
  [ -z "$why" ] || why="$why (see runs/$tag.out)${stall:+; $stall}"
  echo "$row,$(jq -r '.config.min_bytes // 0' "$j"),$menv,$([ -z "$why" ] && echo ok || echo failed),$(csv_text "$why")" >> "$OUT/runs.csv"
  if [ -n "$why" ]; then sfails[$mode]=$(( ${sfails[$mode]:-0} + 1 )); slast[$mode]=$why; fi
  printf '  %-9s %-11s rep %d: %s\n' "$scen" "$mode" "$rep" \
    "$(jq -r --arg s "$scen" '
      def us(x): "\(x | round) us";
      (if $s == "compete" then "\(.per_url[0].write_mbps) MB/s write (neighbour \(.per_url[1].write_mbps) MB/s)"
       elif .config.conns > 0 then "\(.write.mbps) MB/s write, p50 \(us(.latency_us.write.p50)) p99 \(us(.latency_us.write.p99))"
       else "" end)
      + (if .read.ops > 0 then (if .config.conns > 0 then ", " else "" end) + "\(.read.mbps) MB/s read, p50 \(us(.latency_us.read.p50)) p99 \(us(.latency_us.read.p99)), hot \(.server.hot_resident_pct_end // "-")%" else "" end)
      + ", \(.server.cpu_s_per_gb // "-") CPU-s/GB, RSS \(.server.server_hwm_mib // "-") MiB"' "$j")${why:+ [FAILED: $why]}"
}

# a runs.csv line from NAME=VALUE pairs, every other column empty
csv_named() {
  awk -F, -v hdr="$hdr" 'BEGIN { n = split(hdr, H, ","); for (i = 1; i <= n; i++) c[H[i]] = i
      for (a = 1; a < ARGC; a++) { k = ARGV[a]; sub(/=.*/, "", k); v = substr(ARGV[a], length(k) + 2)
        if (!(k in c)) { print "csv_named: no column " k > "/dev/stderr"; exit 1 }; f[c[k]] = v }
      for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "," : ""), f[i]; print "" }' "$@"
}

# The disk ceiling of a round (mode disk): one local 1 MiB O_DIRECT write stream at depth 1
# (fio's psync engine, one thread) on a fresh file of CEIL_MIB MiB in the exports' filesystem
# (with --fs the loop filesystem, throttled by --disk-mbps like the exports), the page cache
# evicted and the last run's writeback synced first as before every run; the file is deleted
# after. MB/s is fio's write bandwidth (10^6 bytes/s); p50/p99/p99.9/max its completion latency
# per 1 MiB write; mbps_durable includes the final fsync. No server, so the server columns stay
# empty.
disk_one() {  # scenario rep
  local scen=$1 rep=$2 tag="$1.disk.$2" d=$work/ceil
  local j=$OUT/runs/$tag.fio.json f=$d/disk.dat rc row why=
  mkdir -p "$d" && rm -f "$d"/*
  drop_caches
  timeout -k 5 $((120 + CEIL_MIB / 4)) fio --name=disk --filename="$f" --rw=write --bs=1M --iodepth=1 \
    --ioengine=psync --direct=1 --size="${CEIL_MIB}m" --end_fsync=1 --percentile_list=50:99:99.9 \
    --output-format=json --output="$j" > "$OUT/runs/$tag.out" 2>&1
  rc=$?
  rm -f "$f"
  if [ $rc != 0 ] || ! jq -e '.jobs[0].write.bw_bytes > 0 and .jobs[0].error == 0' "$j" >/dev/null 2>&1; then
    why="fio (disk ceiling) failed: rc $rc: $(tail -2 "$OUT/runs/$tag.out")"
    echo "run.sh: $tag: FAILED: $why" >&2
    fail_row "$scen" disk "$rep" failed "$why"
    return 1
  fi
  # shellcheck disable=SC2046
  row=$(csv_named $(jq -r --arg s "$scen" --arg r "$rep" '.jobs[0] as $j | $j.write as $w |
      ($w.clat_ns.percentile // {}) as $p |
      def ms(x): if x == null then "" else (x / 1e6 * 1000 | round / 1000) end;
      [ "scenario=\($s)", "mode=disk", "rep=\($r)", "ok=1", "mbps=\($w.bw_bytes / 1e6 * 100 | round / 100)",
        "mbps_durable=\(if ($j.job_runtime // 0) > 0 then ($w.io_bytes / 1e6 / ($j.job_runtime / 1000) * 100 | round / 100) else "" end)",
        "write_p50_ms=\(ms($p["50.000000"]))", "write_p99_ms=\(ms($p["99.000000"]))",
        "write_p999_ms=\(ms($p["99.900000"]))", "write_max_ms=\(ms($w.clat_ns.max))",
        "bytes_asked=\($w.io_bytes)", "bytes_written=\($w.io_bytes)", "errors=0", "status=ok" ] | .[]' "$j"))
  [ -n "$row" ] || { fail_row "$scen" disk "$rep" failed "cannot read $j"; return 1; }
  echo "$row" >> "$OUT/runs.csv"
  printf '  %-9s %-11s rep %d: %s\n' "$scen" disk "$rep" \
    "$(jq -r '.jobs[0].write | "\(.bw_bytes / 1e6 | round) MB/s local O_DIRECT 1 MiB QD1 (\(.io_bytes / 1048576 | round) MiB, fio psync)"' "$j")"
}

# preflight: a broken FSAL_DONTCACHE mode (a tiny write + COMMIT must work) is skipped in
# every scenario, each row saying why, instead of costing timeouts in every scenario
preflight() {
  local mode=$1
  local conf=$work/ganesha.conf log=$OUT/runs/preflight.$mode.ganesha.log
  mkdir -p "$work/exp/$mode"
  echo "$work/exp/$mode|/$mode|$(export_id "$mode")|$(fsal_body "$mode")" | gsh_conf "$conf" "$work"
  engine_block "$conf"
  mem_block "$conf" "$mode"
  server_env "$mode"
  gsh_start "$conf" "$log" || { PF_WHY="ganesha did not start: $(gsh_why "$log")"; return 1; }
  if grep -q 'Could not create export' "$log"; then
    PF_WHY="ganesha refused the export: $(gsh_why "$log")"
    gsh_stop >/dev/null 2>&1
    return 1
  fi
  timeout -k 2 40 "$dcbench" --url "$(url_for "$mode")" --conns 1 --qd 2 --bs 64k --size 1M --prefix pf \
    --rpc-timeout 8 --drain-timeout 5 --quiet --json "$OUT/runs/preflight.$mode.json" > "$OUT/runs/preflight.$mode.out" 2>&1
  local rc=$?
  gsh_stop >/dev/null 2>&1
  rm -f "$work/exp/$mode"/pf.*
  [ $rc = 0 ] || { PF_WHY=$(tail -1 "$OUT/runs/preflight.$mode.out"); return 1; }
}
declare -A excluded=()
gsh_start_rpcbind || die "rpcbind did not start"
for m in "${modes[@]}"; do
  if [ "$m" = mem ] && [ -n "$MEM_WHY" ]; then
    echo "run.sh: mode mem skipped in every scenario: $MEM_WHY" >&2
    excluded[mem]=$(csv_text "$MEM_WHY"); continue
  fi
  is_dc "$m" || [ "$m" = mem ] || continue
  PF_WHY=
  if ! preflight "$m"; then
    echo "run.sh: mode $m skipped in every scenario: preflight failed: $PF_WHY" >&2
    excluded[$m]=$(csv_text "$PF_WHY")
  fi
done
# a module that still sets malloc's thresholds itself (its Malloc_Tuning, before issue 38)
selftuned=$(cat "$OUT"/runs/preflight.*.ganesha.log 2>/dev/null | grep -o 'malloc tuned for WRITE buffers[^(]*' | head -1)
malloc_line="malloc environment: $([ $AS_SHIPPED = 1 ] && echo "glibc's defaults (--as-shipped) for every server" ||
  echo "${MALLOC_ENV[*]} (Environment= of config/systemd/dontcache-malloc.conf) for every server")$(
  [ $AS_SHIPPED = 0 ] && [[ " ${modes[*]} " == *" vfs-shipped "* ]] && echo "; vfs-shipped: FSAL_VFS with glibc's defaults")$(
  [ -n "$selftuned" ] && echo "; this module sets its own (${selftuned% }) in its servers")"
cat > "$OUT/config.txt" <<EOF
$malloc_line
date: $(date -Is)
host: $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/{printf "%.1f GiB", $2/1048576}' /proc/meminfo)
quick: $QUICK  reps: $REPS  seconds per run: $T (+ $WARMUP s warm-up left out)  scale: $SCALE$([ -n "$MINB" ] && echo "; multi4/multi16/multi64 go on until they wrote $((MIN_BYTES >> 20)) MiB (twice the limit)")
memory cgroup: ${CG:-none (uncapped)}  limit: $([ -n "$CG" ] && echo "$MEMLIM" || echo none)
modes: ${modes[*]}   scenarios: ${scenarios[*]}
ganesha: $([ -n "${GSH_ROOT:-}" ] && echo "6.5 (Debian 13 root $GSH_ROOT)" || echo "4.3 (host)")
module: ${MODULE:-none}
module DONTCACHE block: ${ENGINE:-defaults}; extra export parameters: ${EXPORT:-none}
variants: $(for v in "${VARIANTS[@]}"; do printf "%s = [%s]  " "$v" "${VARIANT[$v]}"; done)
export dirs: $work/exp (filesystem $(findmnt -n -o FSTYPE -T "$DIR")$([ -n "$FS" ] && echo ": --fs $FS on $LOOPDEV, direct I/O, max_sectors_kb $LOOP_KB")$([ -n "$DISK_MBPS" ] && echo ", writes throttled to $DISK_MBPS MB/s (--disk-mbps; blkio rule: $(grep "^$devno " "$throttle"))"))
$([ -n "$NBRMNT" ] && echo "compete's FSAL_VFS neighbour: $NBRMNT/nbr ($NBRFS on $NBRDEV, direct I/O, its own filesystem: one ganesha exports a filesystem through one FSAL)")
ceilings: $(if [[ " ${modes[*]} " != *" mem "* && " ${modes[*]} " != *" disk "* ]]; then echo "none (--no-ceilings)"; else
  [[ " ${modes[*]} " == *" mem "* ]] && printf 'mem = FSAL_MEM (%s, MEM { Inode_Size = 0; }: writes acknowledged and dropped) in every scenario; ' "${GSH_ROOT:-}$MEMSO"
  [[ " ${modes[*]} " == *" disk "* ]] && printf 'disk = fio %s psync, one 1 MiB O_DIRECT write stream at depth 1, %s MiB on a fresh file of the exports'"'"' filesystem, per write scenario and repetition' "$(fio --version)" "$CEIL_MIB"; fi)
hot set (noisy, read*): 4 x $((HOT >> 20)) MiB; random-write file: $((RANDSIZE >> 20)) MiB per writer
page cache evicted before each run (--drop-caches): $DROP$([ "$DROP" = files ] && echo " (the export directories' files)" || echo " (the whole machine's)"); cache peaks are the growth over each run's start
command: bench/run.sh $([ $QUICK = 1 ] && echo --quick) --ganesha $GANESHA --drop-caches $DROP --reps $REPS --scale $SCALE --mem-limit $MEMLIM $([ -n "$TIME" ] && echo "--time $TIME")$([ $NOCEIL = 1 ] && echo " --no-ceilings" || echo " --ceil-mib $CEIL_MIB")$([ -n "$FS" ] && echo " --fs $FS")$([ -n "$DISK_MBPS" ] && echo " --disk-mbps $DISK_MBPS")$([ $AS_SHIPPED = 1 ] && echo " --as-shipped")
EOF
sed -i '/^$/d' "$OUT/config.txt"
if [ ${#excluded[@]} -gt 0 ]; then
  { echo "modes skipped in every scenario (preflight write+COMMIT failed):"
    for m in "${!excluded[@]}"; do echo "  $m: ${excluded[$m]}"; done; } >> "$OUT/config.txt"
fi

start=$(date +%s)
total=$(( ${#scenarios[@]} * ${#modes[@]} * REPS )); n=0
echo "run.sh: ${#scenarios[@]} scenarios x ${#modes[@]} modes x $REPS reps = $total runs of ${T}s; output in $OUT"
echo "run.sh: $malloc_line"
for scen in "${scenarios[@]}"; do
  echo "== $scen: dcbench $(dcb_args "$scen")"
  sfails=() slast=()   # a failure counts against its scenario only
  for rep in $(seq "$REPS"); do
    # A/B interleaved: every mode once per repetition; the order rotates with the repetition
    for k in $(seq 0 $(( ${#modes[@]} - 1 ))); do
      mode=${modes[$(( (k + rep - 1) % ${#modes[@]} ))]}
      n=$((n + 1))
      if [ -n "${excluded[$mode]:-}" ]; then
        fail_row "$scen" "$mode" "$rep" skipped "preflight failed: ${excluded[$mode]}"
        continue
      fi
      if [ "${sfails[$mode]:-0}" -ge 2 ]; then   # not retried forever within a scenario
        echo "  $scen $mode rep $rep: skipped (failed ${sfails[$mode]} times in $scen)"
        fail_row "$scen" "$mode" "$rep" skipped "failed ${sfails[$mode]} times in $scen; last: ${slast[$mode]}"
        continue
      fi
      if [ "$mode" = disk ]; then   # the disk ceiling: the write scenarios' rounds only
        is_read "$scen" || disk_one "$scen" "$rep"
        continue
      fi
      run_one "$scen" "$mode" "$rep"
    done
  done
done
echo "run.sh: $n runs in $(( $(date +%s) - start )) s"

# ---------------------------------------------------------------- summary
"$top/bench/summarize.sh" "$OUT" || echo "run.sh: summary failed" >&2
"$top/bench/plots.sh" "$OUT" "${modes[@]}" || echo "run.sh: plots failed" >&2
echo "run.sh: results in $OUT (table.txt, summary.csv, summary.json, runs.csv, runs/, plots.txt, *.png)"
