#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/fio.sh: FSAL_VFS against FSAL_DONTCACHE with a client this project did not write:
# fio's libnfs engine (NFSv3), 1 MiB sequential writers, ganesha alone in a memory cgroup.
#
#   bash bench/fio.sh                       # 3 interleaved rounds, 2 GiB cgroup
#   bash bench/fio.sh --reps 1 --cases seq1qd1 --mem-limit 1G
#
# Debian's fio is built without libnfs; bench/fio-build.sh builds Debian's own fio source
# package with it (build-fio/fio), once. Each run starts one ganesha (FSAL_VFS or the module,
# both under the malloc environment of config/systemd/dontcache-malloc.conf, as bench/run.sh
# does) in a private network namespace with its export under --dir, puts only ganesha into
# the memory cgroup, runs fio, samples the cgroup's page cache, dirty and writeback memory
# every 0.2 s, and deletes the files. Rounds interleave the servers (A/B per case).
# Output (--out, default out/fio-DATE): runs.csv (one line per run), fio/*.json, table.txt:
# medians [min..max] per case and server, and the module's ratios to FSAL_VFS.
# Cases: seq1qd1 and seq1qd8 (one writer, 4 GiB), multi16 and multi64 (16 or 64 writers at
# queue depth 1, 8 GiB over their files); small64k (one writer, 64 KiB writes at queue depth 1,
# 1 GiB); read_w: 4 readers (64 KiB random reads, QD1) of a
# hot set (4 files of a sixteenth of the memory limit, written locally, read once through NFS
# so that it is ganesha's cache) beside one streaming writer (QD8) for 15 s: the readers' and
# the writer's MB/s, and how much of the hot set is still resident at the end.
# Ceilings, in the same rounds (unless --no-ceilings): server mem, FSAL_MEM with MEM {
# Inode_Size = 0; } (writes acknowledged and dropped: what ganesha and this machine move over
# NFS), started like the others (malloc environment, cgroup); and disk, one local 1 MiB
# O_DIRECT write stream at depth 1 (fio's psync engine) of --ceil-mib MiB on a fresh file under
# --dir, per case and round. The table gives every MB/s also against the nearer ceiling (xCeil:
# the lower of the two for the writers, mem for read_w's readers); throughput-median.png draws
# the medians with min..max whiskers and the ceilings as lines (bench/plots.sh).
# --stall-log: why a tail is what it is. Every WRITE's latency (fio's per-I/O log) and the
# export's block device every 0.1 s (/sys/dev/block/M:m/stat: sectors written, requests in
# flight); per run, stalls.csv counts the device's stalls (0.5 s or more with requests in
# flight and no sector written) and the WRITEs over 1 s, and how many of those were waiting
# during a stall. table.txt sums them per case and server.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
self=$top/bench/fio.sh
die() { echo "fio.sh: $*" >&2; exit 2; }
usage() {
  sed -n '3,35p' "$self" | sed 's/^# \{0,1\}//'
  cat <<'EOF'
options:
  --reps N          rounds (default 3)
  --cases LIST      comma-separated, from seq1qd1,seq1qd8,multi16,multi64,small64k,read_w
                    (default all)
  --mem-limit SIZE  ganesha's memory cgroup limit, K/M/G (default 2G)
  --dir DIR         where the exports live (default /var/tmp/dcfio; the files are deleted)
  --module SO       libfsaldontcache.so (default build/FSAL_DONTCACHE/)
  --fio PATH        a fio with the nfs engine (default build-fio/fio, built if missing)
  --out DIR         output directory
  --scale F         multiply every case's size by F (default 1; the test uses 0.03)
  --engine STR      a DONTCACHE { } block body for the module's server (e.g. 'Bench { ... }')
  --export STR      more FSAL parameters for the module's export
  --variant STR     a third server in every round, "variant": the module with this DONTCACHE { }
                    block body (e.g. 'Bench { Engine_Nice = 19; }'), to compare with the default
  --no-ceilings     leave out the ceilings (servers mem and disk)
  --stall-log       per-WRITE latencies and the device's stalls (stalls.csv; see above)
  --ceil-mib N      MiB the disk ceiling writes per case and round (default 512; scaled by
                    --scale, at least 16)
  --variant-module SO  the variant server loads this build of the module (A/B of two builds;
                    with or without --variant)
  --variant-export STR  more FSAL parameters for the variant server's export (after --export's),
                    e.g. 'Write_Mode = dropbehind;' beside the default mode in the same rounds
EOF
}
NOCEIL=0 CEIL_MIB=512 STALL=0
REPS=3 CASES=seq1qd1,seq1qd8,multi16,multi64,small64k,read_w MEMLIM=2G DIR=/var/tmp/dcfio MODULE= FIO= OUT= INNER=0 SCALE=1 ENGINE= EXPORT= VARIANT= VMODULE= VEXPORT=
while [ $# -gt 0 ]; do
  case $1 in
    --reps) REPS=$2; shift ;;
    --cases) CASES=$2; shift ;;
    --mem-limit) MEMLIM=$2; shift ;;
    --dir) DIR=$2; shift ;;
    --module) MODULE=$2; shift ;;
    --fio) FIO=$2; shift ;;
    --out) OUT=$2; shift ;;
    --scale) SCALE=$2; shift ;;
    --engine) ENGINE=$2; shift ;;
    --export) EXPORT=$2; shift ;;
    --variant) VARIANT=$2; shift ;;
    --variant-module) VMODULE=$2; shift ;;
    --variant-export) VEXPORT=$2; shift ;;
    --no-ceilings) NOCEIL=1 ;;
    --ceil-mib) CEIL_MIB=$2; shift ;;
    --stall-log) STALL=1 ;;
    --inner) INNER=1 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option $1" ;;
  esac
  shift
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps wants a positive number"
[[ $CEIL_MIB =~ ^[1-9][0-9]{0,5}$ ]] || die "--ceil-mib wants 1..999999 (MiB)"
[ -z "$VMODULE" ] || [ -f "$VMODULE" ] || die "--variant-module $VMODULE not found"
[ -z "$VMODULE$VEXPORT" ] || [ -n "$VARIANT" ] || VARIANT=" "   # the variant server: the other build or export
[[ $SCALE =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v f="$SCALE" 'BEGIN { exit !(f > 0 && f <= 64) }' ||
  die "--scale wants a number in (0, 64]"
mib() { awk -v m="$1" -v f="$SCALE" 'BEGIN { v = int(m * f); print (v < 1 ? 1 : v) "m" }'; }
# read_w: the readers read for 15 s (scaled, at least 2) beside the writer
CEIL_M=$(awk -v m="$CEIL_MIB" -v f="$SCALE" 'BEGIN { v = int(m * f); print (v < 16 ? 16 : v) }')
RW_TIME=$(awk -v f="$SCALE" 'BEGIN { v = int(15 * f); print (v < 2 ? 2 : v) }')
to_bytes() { local v=${1%[KMG]} u=${1##*[0-9]}; case $u in K) echo $((v<<10));; M) echo $((v<<20));; G) echo $((v<<30));; *) echo "$v";; esac; }
MEMLIM_B=$(to_bytes "$MEMLIM")
[[ $MEMLIM_B =~ ^[0-9]+$ ]] && [ "$MEMLIM_B" -ge $((256 << 20)) ] || die "--mem-limit wants at least 256M"
HOT=$((MEMLIM_B / 16))   # read_w: 4 files of a sixteenth of the limit each (bench/run.sh's hot set)
IFS=, read -r -a cases <<< "$CASES"
for c in "${cases[@]}"; do
  case $c in seq1qd1|seq1qd8|multi16|multi64|small64k|read_w) ;; *) die "unknown case '$c'" ;; esac
done

if [ $INNER = 0 ]; then
  [ "$(id -u)" = 0 ] || die "run as root (namespaces, cgroups)"
  command -v ganesha.nfsd >/dev/null || die "ganesha.nfsd not installed (bash scripts/setup.sh)"
  command -v jq >/dev/null || die "jq not installed (bash scripts/setup.sh)"
  if [ -z "$FIO" ]; then
    FIO=$top/build-fio/fio
    [ -x "$FIO" ] || bash "$top/bench/fio-build.sh" || die "could not build fio with its nfs engine"
  fi
  "$FIO" --enghelp=nfs >/dev/null 2>&1 || die "$FIO has no nfs engine (bench/fio-build.sh)"
  if [ -z "$MODULE" ]; then
    MODULE=$top/build/FSAL_DONTCACHE/libfsaldontcache.so
    if [ ! -f "$MODULE" ]; then
      { cmake -S "$top" -B "$top/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
        cmake --build "$top/build" -j"$(nproc)" --target fsaldontcache >/dev/null; } || die "module build failed"
    fi
  fi
  [ -f "$MODULE" ] || die "--module $MODULE not found"
  [ $NOCEIL = 1 ] || [ -f /usr/lib/x86_64-linux-gnu/ganesha/libfsalmem.so ] ||
    die "no FSAL_MEM (the ceiling): install nfs-ganesha-mem (scripts/setup.sh), or --no-ceilings"
  [ -f /sys/fs/cgroup/memory/cgroup.procs ] || die "needs the cgroup v1 memory controller"
  [ -n "$OUT" ] || OUT=$top/out/fio-$(date +%Y%m%d-%H%M%S)
  mkdir -p "$OUT/fio" "$DIR" || die "cannot create $OUT or $DIR"
  OUT=$(cd "$OUT" && pwd)
  cur=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
  cg=/sys/fs/cgroup/memory${cur%/}/dcfio-$$
  mkdir "$cg" || die "cannot create memory cgroup $cg"
  echo "$MEMLIM_B" > "$cg/memory.limit_in_bytes" || { rmdir "$cg"; die "cannot set the memory limit"; }
  DCF_CGROUP=$cg "$top/tests/lib/in-ns.sh" "$self" --inner --reps "$REPS" --cases "$CASES" --scale "$SCALE" \
    --mem-limit "$MEMLIM" --dir "$DIR" --module "$MODULE" --fio "$FIO" --out "$OUT" --ceil-mib "$CEIL_MIB" \
    $([ $NOCEIL = 1 ] && echo --no-ceilings) $([ $STALL = 1 ] && echo --stall-log) \
    ${ENGINE:+--engine "$ENGINE"} ${EXPORT:+--export "$EXPORT"} ${VARIANT:+--variant "$VARIANT"} \
    ${VMODULE:+--variant-module "$VMODULE"} ${VEXPORT:+--variant-export "$VEXPORT"}
  rc=$?
  for _ in $(seq 100); do rmdir "$cg" 2>/dev/null && break; sleep 0.1; done
  [ -d "$cg" ] && echo "fio.sh: could not remove $cg" >&2
  exit $rc
fi

# ---------------------------------------------------------------- inner part (in the namespace)
source "$top/tests/lib/ganesha.sh"
CG=${DCF_CGROUP:?}
work=$DIR/run-$$
mkdir -p "$work/plugins" "$work/exp" || die "cannot create $work"
ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$work/plugins/libfsalvfs.so"
ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalmem.so "$work/plugins/libfsalmem.so"
cp "$(readlink -f "$MODULE")" "$work/plugins/libfsaldontcache.so"
if [ -n "$VMODULE" ]; then
  mkdir -p "$work/plugins-variant" &&
    ln -sf /usr/lib/x86_64-linux-gnu/ganesha/libfsalvfs.so "$work/plugins-variant/libfsalvfs.so" &&
    cp "$(readlink -f "$VMODULE")" "$work/plugins-variant/libfsaldontcache.so" || die "cannot copy $VMODULE"
fi
SAMPLER_PID=
cleanup() {
  [ -z "$SAMPLER_PID" ] || kill "$SAMPLER_PID" 2>/dev/null
  gsh_cleanup >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'echo "fio.sh: interrupted" >&2; exit 130' INT TERM

# the malloc environment of the package's systemd drop-in, for both servers, as bench/run.sh
source "$top/bench/malloc-env.sh"
malloc_env_load "$top/config/systemd/dontcache-malloc.conf"
envline="${MALLOC_ENV[*]}"
# ganesha enters the cgroup itself, so fio and this script stay outside it
cat > "$work/in-cgroup.sh" <<EOF
#!/bin/sh
echo \$\$ > $CG/cgroup.procs || exit 1
exec env ${MALLOC_UNSET[*]} $envline "\$@"
EOF
chmod +x "$work/in-cgroup.sh"
GSH_WRAPPER=$work/in-cgroup.sh

# the module's counters of each run: fio/TAG.dcstats.json
fsal_body() { case $1 in vfs) echo "Name = VFS;" ;; mem) echo "Name = MEM;" ;; dontcache) echo "Name = DONTCACHE; Stats_File = \"$2\"; $EXPORT" ;;
  variant) echo "Name = DONTCACHE; Stats_File = \"$2\"; $EXPORT $VEXPORT" ;; esac; }
# the job file of a case: fio's options for the export at URL
jobfile() {  # case url [latency log prefix]
  printf '[global]\nioengine=nfs\nnfs_url=%s\npercentile_list=50:99:99.9\ngroup_reporting\n' "$2"
  [ -z "${3:-}" ] || printf 'write_lat_log=%s\nlog_avg_msec=0\n' "$3"
  case $1 in
    seq1qd1) printf '[w]\nrw=write\nbs=1m\nnumjobs=1\niodepth=1\nsize=%s\n' "$(mib 4096)" ;;
    seq1qd8) printf '[w]\nrw=write\nbs=1m\nnumjobs=1\niodepth=8\nsize=%s\n' "$(mib 4096)" ;;
    multi16) printf '[w]\nrw=write\nbs=1m\nnumjobs=16\niodepth=1\nsize=%s\n' "$(mib 512)" ;;
    multi64) printf '[w]\nrw=write\nbs=1m\nnumjobs=64\niodepth=1\nsize=%s\n' "$(mib 128)" ;;
    small64k) printf '[w]\nrw=write\nbs=64k\nnumjobs=1\niodepth=1\nsize=%s\n' "$(mib 1024)" ;;
    read_w)  # one streaming writer (the first group), 4 readers of the hot set (the second)
      printf 'time_based\nruntime=%s\n[w]\nrw=write\nbs=1m\niodepth=8\nsize=%s\n' "$RW_TIME" "$(mib 4096)"
      local i
      for i in 0 1 2 3; do
        [ $i = 0 ] && printf '[r%s]\nnew_group\n' $i || printf '[r%s]\n' $i
        printf 'rw=randread\nbs=64k\niodepth=1\nfilename=hot.%s\nsize=%s\n' $i "$HOT"
      done ;;
  esac
}
mstat() { awk -v k="$1" '$1 == k { print $2; exit }' "$CG/memory.stat"; }
# every 0.2 s: cache, dirty and writeback of the cgroup (MiB) -> their peaks in $1
sampler() {
  local out=$1 c d w pc=0 pd=0 pw=0
  while :; do
    c=$(mstat cache) d=$(mstat dirty) w=$(mstat writeback)
    [ "${c:-0}" -gt $pc ] && pc=$c
    [ "${d:-0}" -gt $pd ] && pd=$d
    [ "${w:-0}" -gt $pw ] && pw=$w
    echo "$pc $pd $pw" > "$out.tmp" && mv "$out.tmp" "$out"
    sleep 0.2
  done
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }
# --stall-log: every 0.1 s, the time (s) and the export's device's sectors written and
# requests in flight -> $1 ($EPOCHREALTIME: no process per sample)
dev_sampler() {
  local out=$1 st
  st=/sys/dev/block/$(findmnt -no MAJ:MIN --target "$DIR" | head -1 | tr -d ' ')/stat
  [ -r "$st" ] || return 0
  while :; do
    read -r -a ds < "$st"
    echo "$EPOCHREALTIME ${ds[6]} ${ds[8]}"
    sleep 0.1
  done > "$out"
}
# --stall-log, after a run: DEVICE_LOG T0 CLAT_LOGS... -> "stalls longest_s slow slow_in_stall"
# A stall: consecutive samples without a sector written while requests are in flight, 0.5 s
# or more. A WRITE over 1 s (fio's clat log: end ms after T0, latency ns) counts as in a stall
# when its time overlaps one.
stall_summary() {
  local dev=$1 t0=$2; shift 2
  awk -v t0="$t0" '
    FNR == 1 { f++ }
    f == 1 { t = $1 - t0
             if (n && $2 == ps && $3 > 0) { if (!in_s) { in_s = 1; s0 = pt } ; s1 = t }
             else if (in_s) { in_s = 0; if (s1 - s0 >= 0.5) { S[++ns] = s0; E[ns] = s1 } }
             n++; ps = $2; pt = t; next }
    f > 1 { split($0, a, ","); lat = a[2] / 1e9; if (lat <= 1) next
            slow++; end = a[1] / 1000; beg = end - lat
            for (i = 1; i <= ns; i++) if (beg < E[i] && end > S[i]) { hit++; break } }
    END { if (in_s && s1 - s0 >= 0.5) { S[++ns] = s0; E[ns] = s1 }
          for (i = 1; i <= ns; i++) if (E[i] - S[i] > L) L = E[i] - S[i]
          printf "%d %.1f %d %d\n", ns, L, slow, hit }' "$dev" "$@"
}

[ $STALL = 1 ] && echo "case,server,rep,stalls,longest_s,writes_over_1s,of_them_in_a_stall" > "$OUT/stalls.csv"
echo "case,server,rep,ok,mbps,p50_ms,p99_ms,p999_ms,cache_peak_mib,dirty_peak_mib,writeback_peak_mib,cpu_s,cpu_s_per_gb,rss_hwm_mib,bytes,read_mbps,read_p99_ms,hot_resident_pct,why" > "$OUT/runs.csv"
hz=$(getconf CLK_TCK)
run_one() {  # case server rep
  local c=$1 s=$2 r=$3 tag="$1.$2.$3"
  local exp=$work/exp/$s conf=$work/ganesha.conf log=$OUT/fio/$tag.ganesha.log j=$OUT/fio/$tag.json
  rm -rf "$exp"; mkdir -p "$exp"
  if [ "$c" = read_w ] && [ "$s" != mem ]; then   # (FSAL_MEM's hot set: written through NFS below)
    local i
    for i in 0 1 2 3; do
      dd if=/dev/urandom of="$exp/hot.$i" bs=1M count=$((HOT >> 20)) status=none || die "cannot write the hot set"
    done
  fi
  GSH_PLUGINS_DIR=$work/plugins
  [ "$s" = variant ] && [ -n "$VMODULE" ] && GSH_PLUGINS_DIR=$work/plugins-variant
  echo "$exp|/$s|$(case $s in vfs) echo 1 ;; mem) echo 31 ;; *) echo 11 ;; esac)|$(fsal_body "$s" "$OUT/fio/$tag.dcstats.json")" | gsh_conf "$conf" "$work"
  if [ "$s" = variant ]; then [ -z "${VARIANT// /}" ] || echo "DONTCACHE { $VARIANT }" >> "$conf"
  elif [ "$s" = dontcache ] && [ -n "$ENGINE" ]; then echo "DONTCACHE { $ENGINE }" >> "$conf"
  # FSAL_MEM keeps no file data: Inode_Size is the MEM block's (in the export's FSAL block
  # ganesha ignores it as an unknown parameter)
  elif [ "$s" = mem ]; then echo "MEM { Inode_Size = 0; }" >> "$conf"; fi
  sync; echo 1 > /proc/sys/vm/drop_caches
  if ! gsh_start "$conf" "$log"; then
    echo "$c,$s,$r,0,,,,,,,,,,,,,,,ganesha did not start" >> "$OUT/runs.csv"; return
  fi
  local url; url=$(gsh_url "$exp")
  if [ "$c" = read_w ]; then  # the hot set into ganesha's cache: read once through NFS
    # FSAL_MEM starts empty: its hot set is written through NFS (its READs return filler)
    printf '[global]\nioengine=nfs\nnfs_url=%s\nrw=%s\nbs=1m\n' "$url" "$([ "$s" = mem ] && echo write || echo read)" > "$work/warm.fio"
    for i in 0 1 2 3; do printf '[h%s]\nfilename=hot.%s\nsize=%s\n' $i $i "$HOT" >> "$work/warm.fio"; done
    timeout -k 5 300 "$FIO" "$work/warm.fio" > "$OUT/fio/$tag.warm.out" 2>&1 ||
      { gsh_stop >/dev/null 2>&1; echo "$c,$s,$r,0,,,,,,,,,,,,,,,warming the hot set failed" >> "$OUT/runs.csv"; return; }
  fi
  local c0 t0 peaks=$work/peaks
  c0=$(mstat cache); t0=$(cpu_ticks "$GSH_PID")
  rm -f "$peaks"; sampler "$peaks" & SAMPLER_PID=$!
  local lat= dev_pid= ts0=
  if [ $STALL = 1 ]; then
    lat=$work/lat; rm -f "$lat"_*.log
    dev_sampler "$OUT/fio/$tag.dev" & dev_pid=$!
    ts0=$EPOCHREALTIME
  fi
  jobfile "$c" "$url" $lat > "$OUT/fio/$tag.fio"
  timeout -k 5 600 "$FIO" --output-format=json --output="$j" "$OUT/fio/$tag.fio" > "$OUT/fio/$tag.out" 2>&1
  local rc=$? t1 hwm hot= stalls=
  if [ -n "$dev_pid" ]; then
    kill "$dev_pid" 2>/dev/null; wait "$dev_pid" 2>/dev/null
    # the writers' clat logs only (read_w: job 1 is the writer)
    cat "$lat"_clat.*.log > "$OUT/fio/$tag.clat" 2>/dev/null
    [ "$c" = read_w ] && cp "$lat"_clat.1.log "$OUT/fio/$tag.clat" 2>/dev/null
    rm -f "$lat"_*.log
    stalls=$(stall_summary "$OUT/fio/$tag.dev" "$ts0" "$OUT/fio/$tag.clat")
    echo "$c,$s,$r,${stalls// /,}" >> "$OUT/stalls.csv"
  fi
  t1=$(cpu_ticks "$GSH_PID")
  [ "$c" = read_w ] && hot=$(fincore -b -n -o RES,SIZE "$exp"/hot.* 2>/dev/null |
    awk '{ r += $1; z += $2 } END { if (z > 0) printf "%.1f", 100 * r / z }')
  hwm=$(awk '/^VmHWM/ { printf "%d", $2 / 1024 }' "/proc/$GSH_PID/status" 2>/dev/null)
  kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=
  gsh_stop >/dev/null 2>&1
  rm -rf "$exp"
  local pc pd pw why=
  read -r pc pd pw < "$peaks" 2>/dev/null || { pc=0 pd=0 pw=0; }
  [ $rc = 0 ] && [ -s "$j" ] || why="fio exit $rc: $(tail -1 "$OUT/fio/$tag.out" | tr ',' ';')"
  [ -z "$why" ] && [ "$(jq '[.jobs[].error] | max' "$j")" != 0 ] && why="fio job error $(jq '[.jobs[].error] | max' "$j")"
  [ -z "$why" ] && [ "$c" = read_w ] && [ "$(jq '.jobs[1].read.io_bytes // 0' "$j")" -le 0 ] && why="the readers read nothing"
  [ -z "$why" ] && [ "$(jq '.jobs[0].write.io_bytes' "$j")" -le 0 ] && why="fio wrote nothing: $(grep -m1 -i 'fail\|error' "$OUT/fio/$tag.out" | tr ',' ';')"
  if [ -n "$why" ]; then
    echo "$c,$s,$r,0,,,,,,,,,,,,,,,$why" >> "$OUT/runs.csv"; echo "  $tag: FAILED: $why"; return
  fi
  local cpu row
  cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" 'BEGIN { printf "%.2f", (b - a) / hz }')
  row=$(jq -r --arg c "$c" --arg s "$s" --arg r "$r" --arg cpu "$cpu" --arg hwm "${hwm:-}" --arg hot "$hot" \
    --argjson pc "$(( (pc - ${c0:-0}) >> 20 ))" --argjson pd "$((pd >> 20))" --argjson pw "$((pw >> 20))" '
    .jobs[0].write as $w | ($w.clat_ns.percentile // {}) as $p |
    (.jobs[1].read // null) as $rd |
    def ms(x): if x == null then "" else (x / 1e6 * 1000 | round / 1000) end;
    [ $c, $s, $r, 1, ($w.bw_bytes / 1e6 | round), ms($p["50.000000"]), ms($p["99.000000"]),
      ms($p["99.900000"]), ([$pc, 0] | max), $pd, $pw, $cpu,
      (($cpu | tonumber) / ($w.io_bytes / 1e9) * 100 | round / 100), $hwm, $w.io_bytes,
      (if $rd == null then "" else ($rd.bw_bytes / 1e6 | round) end),
      (if $rd == null then "" else ms($rd.clat_ns.percentile["99.000000"]) end), $hot, "" ]
    | map(tostring) | join(",")' "$j")
  echo "$row" >> "$OUT/runs.csv"
  echo "  $tag: $(cut -d, -f5 <<< "$row") MB/s, p99.9 $(cut -d, -f8 <<< "$row") ms, cache +$(cut -d, -f9 <<< "$row") MiB, $(cut -d, -f13 <<< "$row") CPU-s/GB${hot:+, readers $(cut -d, -f16 <<< "$row") MB/s, hot set $hot% resident}${stalls:+, device stalls ${stalls%% *}}"
}

# the disk ceiling of a round: one local 1 MiB O_DIRECT write stream at depth 1 (psync) of
# CEIL_M MiB on a fresh file under --dir (the exports' filesystem), page cache dropped first
# as before every run; a runs.csv row of server disk (MB/s, completion latency, bytes)
disk_one() {  # case rep
  local c=$1 r=$2 tag="$1.disk.$2" f=$work/ceil.dat j=$OUT/fio/$1.disk.$2.json row
  sync; echo 1 > /proc/sys/vm/drop_caches
  timeout -k 5 $((120 + CEIL_M / 4)) "$FIO" --name=disk --filename="$f" --rw=write --bs=1M --iodepth=1 \
    --ioengine=psync --direct=1 --size="${CEIL_M}m" --end_fsync=1 --percentile_list=50:99:99.9 \
    --output-format=json --output="$j" > "$OUT/fio/$tag.out" 2>&1
  local rc=$?
  rm -f "$f"
  if [ $rc != 0 ] || ! jq -e '.jobs[0].write.bw_bytes > 0 and .jobs[0].error == 0' "$j" >/dev/null 2>&1; then
    echo "$c,disk,$r,0,,,,,,,,,,,,,,,disk ceiling: fio exit $rc" >> "$OUT/runs.csv"; echo "  $tag: FAILED"; return
  fi
  row=$(jq -r --arg c "$c" --arg r "$r" '.jobs[0].write as $w | ($w.clat_ns.percentile // {}) as $p |
    def ms(x): if x == null then "" else (x / 1e6 * 1000 | round / 1000) end;
    [ $c, "disk", $r, 1, ($w.bw_bytes / 1e6 | round), ms($p["50.000000"]), ms($p["99.000000"]),
      ms($p["99.900000"]), "", "", "", "", "", "", $w.io_bytes, "", "", "", "" ] | map(tostring) | join(",")' "$j")
  echo "$row" >> "$OUT/runs.csv"
  echo "  $tag: $(cut -d, -f5 <<< "$row") MB/s local O_DIRECT 1 MiB QD1 ($CEIL_M MiB)"
}

gsh_start_rpcbind || die "rpcbind did not start"
echo "fio.sh: $("$FIO" --version) nfs engine; ganesha $(ganesha.nfsd -v 2>&1 | grep -o 'Release = V[0-9.]*' | head -1 | cut -d' ' -f3)," \
  "memory cgroup $MEMLIM (ganesha only), malloc: $envline, exports under $DIR"
for r in $(seq "$REPS"); do
  for c in "${cases[@]}"; do
    # A/B, the order alternating between rounds
    ceil=; [ $NOCEIL = 1 ] || ceil="mem disk"
    if [ $((r % 2)) = 1 ]; then order="vfs dontcache ${VARIANT:+variant} $ceil"; else order="$ceil ${VARIANT:+variant} dontcache vfs"; fi
    for s in $order; do
      if [ "$s" = disk ]; then disk_one "$c" "$r"; else run_one "$c" "$s" "$r"; fi
    done
  done
done

# medians [min..max] of every column per case and server, and the ratios
# (an awk function: the median of a[1..n], which it sorts)
AWK_MED='function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
{
  printf 'fio %s nfs engine, 1 MiB sequential writes, ganesha in a %s memory cgroup, %s rounds A/B\n' \
    "$("$FIO" --version)" "$MEMLIM" "$REPS"
  printf 'malloc (both servers): %s\n' "$envline"
  printf '%-8s %-9s %-18s %-11s %-18s %-18s %-16s %-12s\n' case server "MB/s" "xCeil" "p99.9 ms" "cache MiB" "CPU-s/GB" "dirty MiB"
  for c in "${cases[@]}"; do
    for s in vfs dontcache ${VARIANT:+variant} $([ $NOCEIL = 1 ] || echo mem disk); do
      # xCeil: the median MB/s over the nearer ceiling's (the lower median of mem and disk)
      awk -F, -v c="$c" -v s="$s" "$AWK_MED"'
        function cell(col,   n, a, i) { n = 0; for (i = 1; i <= N; i++) if (v[i, col] != "") a[++n] = v[i, col] + 0
          if (n == 0) return "-"; med(a, n); return sprintf("%g [%g..%g]", med(a, n), a[1], a[n]) }
        NR > 1 && $1 == c && $4 == 1 && ($2 == "mem" || $2 == "disk") { cn[$2]++; cv[$2, cn[$2]] = $5 + 0 }
        NR > 1 && $1 == c && $2 == s && $4 == 1 { N++; for (k = 1; k <= NF; k++) v[N, k] = $k }
        END { ceil = ""; of = ""
              for (k = 0; k <= 1; k++) { w = k ? "disk" : "mem"; if (!cn[w]) continue
                n = 0; for (i = 1; i <= cn[w]; i++) a[++n] = cv[w, i]; m = med(a, n)
                if (ceil == "" || m < ceil) { ceil = m; of = w } }
              n = 0; for (i = 1; i <= N; i++) b[++n] = v[i, 5] + 0
              x = (N && ceil != "" && ceil > 0) ? sprintf("%.2f %s", med(b, n) / ceil, of) : "-"
              printf "%-8s %-9s %-18s %-11s %-18s %-18s %-16s %-12s\n", c, s, cell(5), x, cell(8), cell(9), cell(13), cell(10) }' "$OUT/runs.csv"
    done
    for ms in dontcache ${VARIANT:+variant}; do
    awk -F, -v c="$c" -v ms="$ms" "$AWK_MED"'
      NR > 1 && $1 == c && $4 == 1 { if ($2 == "vfs") { m[++nv] = $5; k[nv] = $9; u[nv] = $13 } else if ($2 == ms) { M[++nd] = $5; K[nd] = $9; U[nd] = $13 } }
      END { if (!nv || !nd) { printf "%-8s ratios: missing runs\n", c; exit }
            mv = med(m, nv); md = med(M, nd); kv = med(k, nv); kd = med(K, nd); uv = med(u, nv); ud = med(U, nd)
            printf "%-8s %s/vfs: MB/s %.2fx, page cache %.1f%% of FSAL_VFS'"'"'s, CPU per GB %.2fx\n", c, ms,
                   md / mv, (kv > 0 ? 100 * kd / kv : 0), (uv > 0 ? ud / uv : 0) }' "$OUT/runs.csv"
    done
    [ "$c" = read_w ] || continue
    # the readers beside each server's writer, and the hot set left resident
    for ms in dontcache ${VARIANT:+variant}; do
    awk -F, -v ms="$ms" "$AWK_MED"'
      NR > 1 && $1 == "read_w" && $4 == 1 { if ($2 == "vfs") { r[++nv] = $16; h[nv] = $18; w[nv] = $5 } else if ($2 == ms) { R[++nd] = $16; H[nd] = $18; W[nd] = $5 } }
      END { if (!nv || !nd) exit
            printf "read_w   readers: %g [%g..%g] MB/s beside FSAL_VFS'"'"'s writer (hot set %g%% resident), %g [%g..%g] beside %s'"'"'s (%g%%)\n",
                   med(r, nv), r[1], r[nv], med(h, nv), med(R, nd), R[1], R[nd], ms, med(H, nd)
            printf "read_w   %s/vfs: readers %.2fx, writer %.2fx\n", ms, med(R, nd) / med(r, nv), med(W, nd) / med(w, nv) }' "$OUT/runs.csv"
    done
    # the readers against FSAL_MEM's readers (their ceiling: READs from memory, no disk)
    [ $NOCEIL = 1 ] || awk -F, "$AWK_MED"'
      NR > 1 && $1 == "read_w" && $4 == 1 && $16 != "" { n[$2]++; r[$2, n[$2]] = $16 + 0 }
      END { if (!n["mem"]) { print "read_w   readers xCeil: no FSAL_MEM run"; exit }
            for (i = 1; i <= n["mem"]; i++) a[i] = r["mem", i]; cm = med(a, n["mem"])
            printf "read_w   readers xCeil (of FSAL_MEM'"'"'s readers, %g MB/s):", cm
            split("vfs dontcache variant", S, " ")
            for (k = 1; k <= 3; k++) { s = S[k]; if (!n[s]) continue
              for (i = 1; i <= n[s]; i++) b[i] = r[s, i]; printf " %s %.2f", s, med(b, n[s]) / cm; delete b }
            print "" }' "$OUT/runs.csv"
  done
  # --stall-log: per case and server, the device's stalls and the slow WRITEs they explain
  [ $STALL = 1 ] && awk -F, 'NR > 1 { k = $1 " " $2; if (!(k in n)) K[++nk] = k; n[k]++; st[k] += $4
      if ($5 > L[k]) L[k] = $5; sl[k] += $6; h[k] += $7 }
    END { for (i = 1; i <= nk; i++) { k = K[i]
            printf "stalls   %-18s %d runs: %d device stalls >= 0.5 s (longest %.1f s); WRITEs over 1 s: %d, %d of them during a stall\n",
                   k, n[k], st[k], L[k], sl[k], h[k] } }' "$OUT/stalls.csv"
  nf=$(awk -F, 'NR > 1 && $4 != 1' "$OUT/runs.csv" | wc -l)
  echo "failed runs: $nf (runs.csv)"
} | tee "$OUT/table.txt"
# the bar chart (bench/plots.sh's): medians with min..max whiskers per case and server, the
# ceilings (mem, disk) as lines; summary.csv: MB/s median, min and max per case and server
awk -F, "$AWK_MED"'
  NR > 1 { k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; K[++nk] = k; fl[k] = 0 }
           if ($4 == 1 && $5 != "") { n[k]++; v[k, n[k]] = $5 + 0 } else fl[k]++ }
  END { print "scenario,mode,mbps_median,mbps_min,mbps_max,failed_runs"
        for (i = 1; i <= nk; i++) { k = K[i]; split(k, p, SUBSEP); m = ""; lo = ""; hi = ""
          if (n[k]) { delete a; for (j = 1; j <= n[k]; j++) a[j] = v[k, j]; m = med(a, n[k]); lo = a[1]; hi = a[n[k]] }
          printf "%s,%s,%s,%s,%s,%d\n", p[1], p[2], m, lo, hi, fl[k] } }' "$OUT/runs.csv" > "$OUT/summary.csv"
PLOTS_BARS_ONLY=1 bash "$top/bench/plots.sh" "$OUT" vfs dontcache ${VARIANT:+variant} $([ $NOCEIL = 1 ] || echo mem disk) > /dev/null ||
  echo "fio.sh: the bar chart failed" >&2
[ "$(awk -F, 'NR > 1 && $4 != 1' "$OUT/runs.csv" | wc -l)" = 0 ]
