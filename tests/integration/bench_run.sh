#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/run.sh's own options (issue 19), never a speed: one 1-second seq1 and cqd1 run of FSAL_VFS and of
# a --variant (the default FSAL_DONTCACHE block plus "Bench { Worker_Write_Max = 0; }") with --fs xfs.
# Both runs are ok in runs.csv; config.txt names xfs and the variant; the variant's stats show
# its parameter applied (no worker writes, every byte through the engine); the export
# directories were on the xfs loop filesystem (its image and mount are gone afterwards). Bad
# --variant, --fs, --warmup and --drop-caches values are refused; --warmup 1 reaches dcbench
# and config.txt. --drop-caches: 4.3's run the default (files), 6.5's global (config.txt names
# it); the page-cache peak in runs.csv is the growth over the run's start (its JSON's series).
# --fs ext4 at the default 2 GiB memory limit (a 26 GiB run: its image once left 25 GiB free,
# ext4 reserving 5% for root, and every --fs ext4 run was refused): one 1-second seq1 run of
# FSAL_VFS on it is ok (skipped where the host has less than 28 GiB free).
# The loop device's request size is set to its largest whatever an earlier user left on it (a 4
# KiB cap planted on the next free loop device first: the kernel keeps it across detach, and the
# fault tests set it); with --disk-mbps the loop device's writes are throttled by a blkio rule
# that config.txt names and that is gone after the run (unless another run attached the device
# since, e.g. the other ganesha's suite beside). --disk-mbps without --fs, or 0, is refused.
# runs.csv has ganesha's minor page faults per MiB moved for every run, the table's notes too.
# --no-ceilings leaves out the FSAL_MEM and disk ceilings (config.txt says so), --ceil-mib 0 is
# refused (bench_main.sh checks the ceilings themselves).
# run.sh timeout: 360
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the --variant half needs FSAL_DONTCACHE (run it with the module)"
command -v mkfs.xfs >/dev/null || it_skip "mkfs.xfs missing (xfsprogs)"
command -v jq >/dev/null || it_skip "jq is not installed"
top=$(cd "$(dirname "$0")/../.." && pwd)

out=$IT_WORK/out dir=$IT_WORK/dir
mkdir -p "$dir"
bad() { # bad WHY ARGS...: run.sh must refuse
  local why=$1; shift
  if bash "$top/bench/run.sh" "$@" > "$IT_WORK/bad.out" 2>&1; then
    it_fail "$why: run.sh accepted it"
  else
    it_pass "$why: refused ($(tail -1 "$IT_WORK/bad.out"))"
  fi
}
bad "--fs btrfs" --fs btrfs --dir "$dir" --out "$IT_WORK/o1"
bad "--variant without =" --variant nothing --dir "$dir" --out "$IT_WORK/o2"
bad "--warmup not a number" --warmup soon --dir "$dir" --out "$IT_WORK/o4"
bad "--drop-caches none" --drop-caches none --dir "$dir" --out "$IT_WORK/o5"
bad "--disk-mbps without --fs" --disk-mbps 100 --dir "$dir" --out "$IT_WORK/o6"
bad "--disk-mbps 0" --disk-mbps 0 --fs xfs --dir "$dir" --out "$IT_WORK/o7"
bad "--ceil-mib 0" --ceil-mib 0 --dir "$dir" --out "$IT_WORK/o8"
bad "--variant named like a mode" --variant 'inline=Bench { Worker_Write_Max = 0; }' --dir "$dir" --out "$IT_WORK/o3"

# a cap left on the loop device run.sh is about to take
next=$(losetup -f) && echo 4 > "/sys/block/${next#/dev/}/queue/max_sectors_kb" &&
  it_log "planted max_sectors_kb 4 on $next" || it_log "could not plant a cap on the next loop device"
throttle=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device mbps=()
[ -f "$throttle" ] && mbps=(--disk-mbps 2000) || it_log "no cgroup v1 blkio: --disk-mbps not run"
gv=4 drop=()
[ -n "${GSH_ROOT:-}" ] && { gv=6; drop=(--drop-caches global); export DC_DEBIAN13_ROOT=$GSH_ROOT; }
it_run -t 280 bash "$top/bench/run.sh" --ganesha $gv "${drop[@]}" --quick --reps 1 --time 1 --warmup 1 --mem-limit 512M --modes vfs --no-ceilings \
  --variant 'wzero=Bench { Worker_Write_Max = 0; }' --scenarios seq1,cqd1 --fs xfs "${mbps[@]}" --dir "$dir" --out "$out" \
  --module "$IT_MODULE" > "$IT_WORK/run.out" 2>&1 ||
  it_die "run.sh failed: $(tail -5 "$IT_WORK/run.out" | tr '\n' ' ')"
rows=$(awk -F, 'NR > 1 && $4 == 1 {print $1 ":" $2}' "$out/runs.csv" | sort | tr '\n' ' ')
want="cqd1:vfs cqd1:wzero seq1:vfs seq1:wzero "
[ "$rows" = "$want" ] && it_pass "runs.csv: every run ok ($rows)" ||
  it_fail "runs.csv ok rows '$rows', want '$want'"
grep -q '^ceilings: none (--no-ceilings)' "$out/config.txt" && it_pass "--no-ceilings: no ceiling measured, config.txt says so" ||
  it_fail "--no-ceilings: $(grep '^ceilings' "$out/config.txt")"
# cqd1 COMMITs as a flushing client does: once 16 MiB of UNSTABLE answers piled up
c=$(awk -F, 'NR > 1 && $1 == "cqd1" && $2 == "vfs" {print $13}' "$out/runs.csv")
[ "${c:-0}" -ge 1 ] && it_pass "cqd1 sent $c COMMITs" || it_fail "cqd1 sent no COMMIT ($c)"
w=$(jq -r '.config.warmup_s' "$out/runs/seq1.vfs.1.json" 2>/dev/null)
[ "$w" = 1 ] && grep -q 'seconds per run: 1 (+ 1 s warm-up left out)' "$out/config.txt" &&
  it_pass "--warmup 1: dcbench left the first second out (warmup_s $w), config.txt says so" ||
  it_fail "--warmup 1: warmup_s '$w', config: $(grep 'seconds per run' "$out/config.txt")"
grep -q 'filesystem xfs: --fs xfs on /dev/loop' "$out/config.txt" && it_pass "config.txt names the xfs loop filesystem" ||
  it_fail "config.txt: $(grep 'export dirs' "$out/config.txt")"
loop=$(sed -n 's/.*--fs xfs on \(\/dev\/loop[0-9]*\),.*/\1/p' "$out/config.txt")
kb=$(sed -n 's/.*direct I\/O, max_sectors_kb \([0-9]*\).*/\1/p' "$out/config.txt")
hw=$(cat "/sys/block/${loop#/dev/}/queue/max_hw_sectors_kb" 2>/dev/null)
[ -n "$kb" ] && [ "$kb" = "$hw" ] && it_pass "$loop ran at its largest request size ($kb KiB)" ||
  it_fail "$loop request size '$kb' KiB, its largest '$hw': $(grep 'export dirs' "$out/config.txt")"
# the planted cap goes, should run.sh have taken another device
[ -n "$next" ] && cat "/sys/block/${next#/dev/}/queue/max_hw_sectors_kb" > "/sys/block/${next#/dev/}/queue/max_sectors_kb"
if [ ${#mbps[@]} -gt 0 ]; then
  devno=$(cat "/sys/block/${loop#/dev/}/dev" 2>/dev/null)
  grep -q "writes throttled to 2000 MB/s (--disk-mbps; blkio rule: $devno 2000000000)" "$out/config.txt" &&
    grep -q -- '--fs xfs --disk-mbps 2000$' "$out/config.txt" &&
    it_pass "--disk-mbps 2000: the blkio rule $devno 2000000000 held during the run" ||
    it_fail "--disk-mbps: $(grep -E 'export dirs|^command' "$out/config.txt" | tr '\n' ' ')"
  # (the 4.3 and 6.5 suites run beside each other: a device this run detached may be the other
  # suite's bench's by now, its rule that run's)
  bf=$(cat "/sys/block/${loop#/dev/}/loop/backing_file" 2>/dev/null)
  if ! grep -q "^$devno " "$throttle"; then
    it_pass "the blkio rule is gone after the run"
  elif [ -n "$bf" ] && [ "${bf#"$dir"/}" = "$bf" ]; then
    it_log "the blkio rule of $devno is not checked: $loop backs $bf now, another run's device"
  else
    it_fail "the blkio rule is left: $(grep "^$devno " "$throttle")"
  fi
fi
grep -q 'variants: wzero = \[Bench { Worker_Write_Max = 0; }\]' "$out/config.txt" && it_pass "config.txt names the variant" ||
  it_fail "config.txt: $(grep 'variants' "$out/config.txt")"
want=files; [ ${#drop[@]} = 0 ] || want=global
grep -q "page cache evicted before each run (--drop-caches): $want" "$out/config.txt" &&
  grep -q "^command: .* --drop-caches $want" "$out/config.txt" &&
  it_pass "config.txt names --drop-caches $want" ||
  it_fail "config.txt: $(grep 'drop-caches' "$out/config.txt" | tr '\n' ' ')"
# runs.csv's cache_peak_mib (column 17): the cgroup's page-cache peak less its start
g=$(jq -r '.server.mib.cgroup_cache | "\(.peak - .start) \(.start)"' "$out/runs/seq1.vfs.1.json" 2>/dev/null)
c=$(awk -F, 'NR > 1 && $1 == "seq1" && $2 == "vfs" {print $17}' "$out/runs.csv")
awk -v g="${g%% *}" -v c="$c" 'BEGIN { exit !(c != "" && g != "" && (c - g) ^ 2 < 0.0001) }' &&
  it_pass "cache_peak_mib $c = the peak less the run's start (${g#* } MiB)" ||
  it_fail "cache_peak_mib '$c', the JSON's peak - start '$g'"
# the machine's CPU less the client's: in runs.csv for every run, at least ganesha's own, and in
# the table's notes
h=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "host_cpu_s") a = i; if ($i == "server_cpu_s") b = i }
             next } { n++; if ($a != "" && $a + 0.05 >= 0.8 * $b) ok++ } END { print ok + 0 "/" n + 0 }' "$out/runs.csv")
[ "$h" = 4/4 ] && grep -q 'seq1 .*machine [0-9.]* CPU-s/GB' "$out/table.txt" &&
  it_pass "machine CPU less the client's: at least ganesha's in $h runs, in the table" ||
  it_fail "machine CPU: $h runs at least ganesha's; table: $(grep -c 'machine' "$out/table.txt")"
# ganesha's minor faults per MiB moved: a number in every run's row and in the table's notes
mf=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "minor_faults_per_mib") c = i; next }
              { n++; if (c && $c ~ /^[0-9]+(\.[0-9]+)?$/) ok++ } END { print ok + 0 "/" n + 0 }' "$out/runs.csv")
[ "$mf" = 4/4 ] && grep -q 'seq1 .*[0-9.]* faults/MiB' "$out/table.txt" &&
  it_pass "minor faults per MiB: in $mf runs, in the table" ||
  it_fail "minor faults per MiB: $mf runs; table: $(grep -c 'faults/MiB' "$out/table.txt")"
st=$(ls "$out"/runs/seq1.wzero.*.dcstats.json 2>/dev/null | head -1)
if [ -s "$st" ]; then
  ww=$(jq -r '.engine.worker_writes.ops' "$st") wb=$(jq -r '.engine.writes.dontcache.bytes' "$st")
  [ "$ww" = 0 ] && [ "${wb:-0}" -gt 0 ] && it_pass "variant applied: $wb bytes written, none on the worker" ||
    it_fail "variant not applied: worker_writes.ops $ww, writes.dontcache.bytes $wb"
else
  it_fail "no stats file of the variant's run"
fi
left=$(find "$dir" -maxdepth 1 -name 'fs-*' | head -3)
[ -z "$left" ] && ! losetup -a | grep -q "$dir/fs-" && it_pass "the xfs image, its mount and loop device are gone" ||
  it_fail "left behind: $left $(losetup -a | grep "$dir/fs-")"

# --fs ext4 with the default memory limit: the run's 26 GiB fit on its image
if [ "$(df -P -k "$dir" | awk 'NR==2{print $4}')" -ge $((28 << 20)) ]; then
  out4=$IT_WORK/out4
  it_run -t 120 bash "$top/bench/run.sh" --ganesha $gv "${drop[@]}" --reps 1 --time 1 --modes vfs --no-ceilings \
    --scenarios seq1 --fs ext4 --mem-limit 2G --dir "$dir" --out "$out4" --module "$IT_MODULE" \
    > "$IT_WORK/run4.out" 2>&1 || it_die "--fs ext4: run.sh failed: $(tail -3 "$IT_WORK/run4.out" | tr '\n' ' ')"
  rows=$(awk -F, 'NR > 1 && $4 == 1 {print $1 ":" $2}' "$out4/runs.csv" | tr '\n' ' ')
  [ "$rows" = "seq1:vfs " ] && grep -q 'filesystem ext4: --fs ext4 on /dev/loop' "$out4/config.txt" &&
    it_pass "--fs ext4 (2 GiB limit): the run is ok on the ext4 loop filesystem" ||
    it_fail "--fs ext4: ok rows '$rows', $(grep 'export dirs' "$out4/config.txt")"
  left=$(find "$dir" -maxdepth 1 -name 'fs-*' | head -3)
  [ -z "$left" ] && it_pass "the ext4 image is gone" || it_fail "left behind: $left"
else
  it_log "--fs ext4 at 2 GiB not run: less than 28 GiB free under $dir"
fi
