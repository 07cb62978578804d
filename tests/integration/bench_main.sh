#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# README command 1's whole scenario list in a short form (issue 39), never a speed:
# bench/run.sh --quick as scripts/main.sh runs it (its default scenarios and modes), one
# repetition of 1 s each. Fails on any run that is not ok (runs.csv), any FAILED or skipped row
# of the table, any scenario x mode without a row, and any plot that lacks a mode (plots.txt,
# plots.sh's list of what each PNG shows; the bar chart's data). Every server ran with the
# malloc environment of config/systemd/dontcache-malloc.conf's Environment= line (read back
# from /proc/PID/environ of each run's ganesha, runs.csv's malloc_env), but the vfs-shipped
# runs, which ran with glibc's defaults; the table's header names that environment and the
# table gives each module mode's ratio against FSAL_VFS under the same environment and
# against FSAL_VFS as shipped, per scenario. Before issue 39 every module run of compete
# failed (its FSAL_VFS neighbour on the module's filesystem: "already exported by FSAL
# DONTCACHE") and each module mode was then skipped in every later scenario.
# A full-run (not --quick) multi4 of FSAL_VFS at a 256 MiB limit writes at least twice the
# limit although asked for 1 s; every row of the table has its peak dirty and cached memory.
# The ceilings (issue 44) are measured in the same run: FSAL_MEM (mode mem) in every scenario,
# the disk's O_DIRECT rate (mode disk) in every write scenario, each a positive MB/s in the
# table and summary.json; every other row has its xCeil (a positive ratio against the nearer
# ceiling, named); the bar chart draws both ceilings (bars.ceil) and min..max whiskers.
# run.sh timeout: 1000
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "command 1 compares the module with FSAL_VFS (run it with the module)"
command -v jq >/dev/null || it_skip "jq is not installed"
command -v gnuplot >/dev/null || it_skip "gnuplot is not installed"
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$IT_WORK/out dir=$IT_WORK/dir
mkdir -p "$dir"
gv=4
[ -n "${GSH_ROOT:-}" ] && { gv=6; export DC_DEBIAN13_ROOT=$GSH_ROOT; }

it_run -t 840 bash "$top/bench/run.sh" --ganesha $gv --quick --reps 1 --time 1 --ceil-mib 32 --dir "$dir" --out "$out" \
  --module "$IT_MODULE" > "$IT_WORK/run.out" 2>&1 ||
  it_die "run.sh failed: $(tail -5 "$IT_WORK/run.out" | tr '\n' ' ')"
[ -z "${DC_TEST_LOGDIR:-}" ] || { mkdir -p "$DC_TEST_LOGDIR" &&
  cp "$IT_WORK/run.out" "$out/table.txt" "$out/runs.csv" "$out/plots.txt" "$out/config.txt" "$DC_TEST_LOGDIR/"; } 2>/dev/null

modes=$(sed -n 's/^modes: \(.*\)   scenarios: .*/\1/p' "$out/config.txt")
scens=$(sed -n 's/^modes: .*   scenarios: \(.*\)$/\1/p' "$out/config.txt")
[ -n "$modes" ] && [ -n "$scens" ] || it_die "config.txt names no modes or scenarios"
it_log "modes: $modes; scenarios: $scens"
for m in vfs dontcache direct dropbehind mem disk; do
  [[ " $modes " == *" $m "* ]] || it_fail "command 1 left mode $m out (modes: $modes)"
done
grep -q '^modes left out' "$out/config.txt" && it_fail "$(grep -A3 '^modes left out' "$out/config.txt" | tr '\n' ' ')"

# every run ok, one per scenario and mode
col() { awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; exit } END { print c + 0 }' "$out/runs.csv"; }
cok=$(col ok) cwhy=$(col why)
bad=$(awk -F, -v o="$cok" -v w="$cwhy" 'NR > 1 && $o != 1 { printf "%s/%s rep %s: %s; ", $1, $2, $3, (w ? $w : "(no reason given)") }' "$out/runs.csv")
[ -z "$bad" ] && it_pass "every run ok ($(($(wc -l < "$out/runs.csv") - 1)) runs)" || it_fail "runs not ok: $bad"
# the read* scenarios have no disk ceiling (their MB/s is the readers', from the cache)
is_read() { case $1 in read64k|read64k_w|read4k|read4k_w) return 0;; esac; return 1; }
missing=
for s in $scens; do
  for m in $modes; do
    [ "$m" = disk ] && is_read "$s" && continue
    awk -F, -v s="$s" -v m="$m" -v o="$cok" 'NR > 1 && $1 == s && $2 == m && $o == 1 { f = 1 } END { exit !f }' \
      "$out/runs.csv" || missing+="$s/$m "
  done
done
[ -z "$missing" ] && it_pass "an ok run of every scenario x mode" || it_fail "no ok run of: $missing"
# the table's rows (a scenario's name first; the legend under it explains FAILED and SKIPPED)
rows=$(grep -E "^(${scens// /|}) " "$out/table.txt")
nrows=$(grep -c . <<< "$rows")
fl=$(grep -E -i -c 'FAILED|skipped' <<< "$rows")
nread=0; for s in $scens; do is_read "$s" && nread=$((nread + 1)); done
[ "$fl" = 0 ] && [ "$nrows" -ge $(( $(wc -w <<< "$scens") * $(wc -w <<< "$modes") - nread )) ] &&
  it_pass "no FAILED or skipped row among the table's $nrows rows" ||
  it_fail "table ($nrows rows): $(grep -E -i 'FAILED|skipped' <<< "$rows" | head -4 | tr -s ' ' | tr '\n' ';')"

# plots: every PNG plots every mode (plots.txt: "PNG MODE ok|missing WHY")
if [ -s "$out/plots.txt" ]; then
  lack=$(awk '$3 != "ok" { print $1 ":" $2 " (" $0 ")" }' "$out/plots.txt" | head -5 | tr '\n' ' ')
  np=$(awk '{ print $1 }' "$out/plots.txt" | sort -u | wc -l)
  for p in $(awk '{ print $1 }' "$out/plots.txt" | sort -u); do
    [ -s "$out/$p" ] || lack+="$p (no file) "
    for m in $modes; do
      [ "$m" = disk ] && [ "$p" != throughput-median.png ] && continue   # no time series of the disk
      grep -q "^$p $m ok" "$out/plots.txt" || lack+="$p:$m "
    done
  done
  [ "$np" -ge 10 ] && [ -z "$lack" ] && it_pass "$np plots, each with every mode" || it_fail "$np plots; lacking: $lack"
else
  it_fail "no plots.txt (which modes each plot shows): $(ls "$out"/*.png 2>/dev/null | wc -l) PNGs"
fi
# the bar chart's data: a number for every scenario and mode
if [ -s "$out/bars.dat" ]; then
  z=$(awk 'NR == 1 { n = NF; next } { for (i = 2; i <= n; i++) if ($i !~ /^[0-9.]+$/ || $i + 0 <= 0) printf "%s/col%d=%s ", $1, i, $i }' "$out/bars.dat")
  [ -z "$z" ] && it_pass "bar chart: a positive MB/s for every scenario and mode" || it_fail "bar chart: $z"
else
  it_fail "no bars.dat"
fi

# the malloc environment: the drop-in's Environment= line, every server but vfs-shipped
conf=$top/config/systemd/dontcache-malloc.conf
envline=$(sed -n 's/^Environment=//p' "$conf" | tr -s ' ' | sed 's/^ //; s/ $//')
[ -n "$envline" ] || it_die "no Environment= line in $conf"
grep -q "^malloc environment: $envline " "$out/table.txt" && it_pass "the table's header names the malloc environment ($envline)" ||
  it_fail "table header: $(grep -m1 '^malloc' "$out/table.txt")"
cenv=$(col malloc_env)
if [ "$cenv" -gt 0 ]; then
  wrong=$(awk -F, -v c="$cenv" -v e="${envline// /;}" 'NR > 1 { want = ($2 == "vfs-shipped" || $2 == "disk") ? "" : e
    if ($c != want) printf "%s/%s: [%s] ", $1, $2, $c }' "$out/runs.csv")
  [ -z "$wrong" ] && it_pass "every server's /proc environ: the drop-in's malloc variables (vfs-shipped: none)" ||
    it_fail "servers' malloc environment: $wrong"
else
  it_fail "runs.csv has no malloc_env column"
fi
# both ratios per scenario for every module mode
if [[ " $modes " == *" vfs-shipped "* ]]; then
  nr=0 nbad=
  for s in $scens; do
    for m in $modes; do
      case $m in vfs|vfs-shipped|mem|disk) continue ;; esac
      jq -e --arg s "$s" --arg m "$m" '.[] | select(.scenario == $s and .mode == $m) |
        (.ratio_vs_vfs | type == "number") and (.ratio_vs_vfs_shipped | type == "number")' "$out/summary.json" \
        >/dev/null && nr=$((nr + 1)) || nbad+="$s/$m "
    done
  done
  [ -z "$nbad" ] && grep -q '^module against FSAL_VFS' "$out/table.txt" &&
    it_pass "$nr scenario x module mode ratios against FSAL_VFS (same malloc) and FSAL_VFS as shipped, in the table" ||
    it_fail "ratios missing for: $nbad; table: $(grep -c '^module against FSAL_VFS' "$out/table.txt")"
else
  it_fail "command 1 has no vfs-shipped mode (FSAL_VFS as shipped)"
fi
# peak dirty and cached memory for every row
pk=$(jq -r '[.[] | select(.mode != "disk") | select((.dirty_peak_mib | type) != "number" or (.cache_peak_mib | type) != "number") |
  "\(.scenario)/\(.mode)"] | join(" ")' "$out/summary.json")
[ -z "$pk" ] && it_pass "peak dirty and cached memory in every row" || it_fail "no peak dirty/cached in: $pk"

# the ceilings: a positive MB/s of FSAL_MEM in every scenario and of the disk in every write
# scenario (not empty, not NaN), and every other row's median as a fraction of the nearer one
cbad=
for s in $scens; do
  for m in mem disk; do
    [ "$m" = disk ] && is_read "$s" && continue
    jq -e --arg s "$s" --arg m "$m" '.[] | select(.scenario == $s and .mode == $m) |
      (.mbps_median | type == "number" and . > 0) and (.mbps_min | type == "number" and . > 0)' \
      "$out/summary.json" >/dev/null || cbad+="$s/$m "
  done
done
[ -z "$cbad" ] && it_pass "ceilings measured: FSAL_MEM in every scenario, the disk in every write scenario" ||
  it_fail "ceiling rows not measured (empty or NaN): $cbad"
xbad=$(jq -r '[.[] | select(.mode != "mem" and .mode != "disk") |
  select((.ratio_vs_ceiling | type) != "number" or .ratio_vs_ceiling <= 0 or (.ratio_vs_ceiling | isnan) or
         (.ceiling | IN("mem", "disk") | not) or
         ((.scenario | test("^read(64k|4k)(_w)?$")) and .ceiling != "mem")) |
  "\(.scenario)/\(.mode)=\(.ratio_vs_ceiling)"] | join(" ")' "$out/summary.json")
mre=$(tr ' ' '|' <<< "$modes")   # the table's rows (not the grid of ratios under it)
xrows=$(grep -E "^(${scens// /|}) +($mre) " "$out/table.txt" | grep -v -E '^[a-z0-9_]+ +(mem|disk) ' |
  grep -c -v -E '^[^ ]+ +[^ ]+ +[0-9.]+ \[[0-9.]+\.\.[0-9.]+\] +[0-9.]+ (mem|disk) ')
[ -z "$xbad" ] && [ "$xrows" = 0 ] && grep -q ' xCeil of ' "$out/table.txt" &&
  it_pass "every row's MB/s as a fraction of the nearer ceiling (xCeil, named), in summary.json and the table" ||
  it_fail "xCeil: summary.json [$xbad], $xrows table rows without it"
grep -q '^ceilings: mem = FSAL_MEM .*disk = fio .* 32 MiB' "$out/config.txt" && it_pass "config.txt says how the ceilings were measured" ||
  it_fail "config.txt: $(grep '^ceilings' "$out/config.txt")"
# the bar chart's ceiling lines: mem in every scenario, the disk in every write scenario
nmem=$(awk '$1 == 0 && $4 > 0' "$out/bars.ceil" 2>/dev/null | wc -l) ndisk=$(awk '$1 == 1 && $4 > 0' "$out/bars.ceil" 2>/dev/null | wc -l)
nscen=$(wc -w <<< "$scens")
[ "$nmem" = "$nscen" ] && [ "$ndisk" = $((nscen - nread)) ] && awk 'NF != 5 || $5 < $4 { exit 1 }' "$out/bars.boxes" &&
  it_pass "bar chart: $nmem FSAL_MEM and $ndisk disk ceiling lines, a min..max whisker on every bar" ||
  it_fail "bar chart: $nmem mem and $ndisk disk ceiling lines (want $nscen and $((nscen - nread))), whiskers: $(head -2 "$out/bars.boxes" | tr '\n' ' ')"

# a full run's multi-writer scenario writes at least twice the memory limit
out2=$IT_WORK/out2
it_run -t 200 bash "$top/bench/run.sh" --ganesha $gv --reps 1 --time 1 --mem-limit 256M --modes vfs --no-ceilings --scenarios multi4 \
  --dir "$dir" --out "$out2" --module "$IT_MODULE" > "$IT_WORK/run2.out" 2>&1 ||
  it_die "run.sh (multi4) failed: $(tail -5 "$IT_WORK/run2.out" | tr '\n' ' ')"
w=$(jq -r '.write.bytes_written' "$out2/runs/multi4.vfs.1.json" 2>/dev/null)
[ "${w:-0}" -ge $((512 << 20)) ] && jq -e ".finished and .config.min_bytes == $((512 << 20))" "$out2/runs/multi4.vfs.1.json" >/dev/null &&
  it_pass "full-run multi4 at a 256 MiB limit, 1 s asked: wrote $((w >> 20)) MiB (at least twice the limit)" ||
  it_fail "full-run multi4 wrote ${w:-nothing} bytes, want >= $((512 << 20)): $(jq -c '{finished, stop_reason}' "$out2/runs/multi4.vfs.1.json" 2>/dev/null)"
