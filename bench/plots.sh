#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/plots.sh OUTDIR MODE...: PNG plots with gnuplot from a run.sh output directory
# (for time series and CDFs the first ok repetition of each mode, named in the key; medians
# for the bar chart, with min..max whiskers over the repetitions and the ceilings, modes mem
# and disk, as horizontal lines over each scenario's bars). A mode without an ok run is never left out silently: time series and
# CDFs name it in the key ("MODE: no data: WHY"), the bar chart marks its place with FAILED or
# SKIPPED instead of a bar. plots.txt lists what each PNG shows, one line per mode:
# "PNG MODE ok REP" or "PNG MODE missing WHY". A plot of a scenario the run did not have is
# not drawn. PLOTS_BARS_ONLY=1 (bench/fio.sh) draws the bar chart alone, from a summary.csv
# of scenario,mode,mbps_median,mbps_min,mbps_max,failed_runs.
set -u
out=${1:?usage: plots.sh OUTDIR MODE...}; shift
modes=("$@")
command -v gnuplot >/dev/null || { echo "plots: gnuplot missing" >&2; exit 1; }
cd "$out" || exit 1
term='set terminal pngcairo size 1000,600 noenhanced font ",10"'
gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 || term='set terminal png size 1000,600 noenhanced'
: > plots.txt

# runs.csv: per scenario and mode the ok repetitions and why the others were not
declare -A okreps=() why=() seen=()
if [ -s runs.csv ]; then
  while IFS=$'\t' read -r s m r st w; do
    seen[$s]=1
    if [ "$st" = ok ]; then okreps[$s.$m]+="$r "
    elif [ -z "${why[$s.$m]:-}" ]; then why[$s.$m]="$st: ${w:-no reason recorded}"
    fi
  done < <(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { st = ("status" in c) ? $c["status"] : ($c["ok"] == 1 ? "ok" : "failed")
      if (st == "ok" && $c["ok"] != 1) st = "failed"
      printf "%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, st, ("why" in c) ? $c["why"] : "" }' runs.csv)
fi

series() {  # scenario file-pattern(MODE, REP) column title ylabel out [logx]
  local scen=$1 pat=$2 colexpr=$3 title=$4 ylab=$5 png=$6 logx=${7:-} plot="" m f r w st
  [ -z "${PLOTS_BARS_ONLY:-}" ] || return 0   # bench/fio.sh: the bar chart only
  [ -n "${seen[$scen]:-}" ] || return 0
  for m in "${modes[@]}"; do
    [ "$m" != disk ] || continue   # the disk ceiling has no time series (a local fio stream)
    f=
    for r in ${okreps[$scen.$m]:-}; do
      f=${pat//MODE/$m}; f=${f//REP/$r}
      [ -s "$f" ] && break
      f=
    done
    if [ -n "$f" ]; then
      plot+="${plot:+, }'$f' using $colexpr with lines lw 2 title '$m (rep $r)'"
      echo "$png $m ok $r" >> plots.txt
    else
      w=${why[$scen.$m]:-no ok run with this data}
      # a key entry without a line: the mode is named and marked (why: the table, plots.txt)
      st=${w%%:*}; [ "$st" = skipped ] && st=SKIPPED || st=FAILED
      plot+="${plot:+, }NaN with lines lw 2 dt 3 lc rgb 'gray40' title '$m: $st, no data'"
      echo "$png $m missing $w" >> plots.txt
    fi
  done
  local axes='set yrange [0:*]'
  [ -n "$logx" ] && axes='set logscale x'
  gnuplot <<GP
$term
set output '$png'
set title '$title'
set ylabel '$ylab'
set grid
set key outside right
set datafile separator ${DSEP:-whitespace}
$axes
${XLAB:+set xlabel '$XLAB'}
plot $plot
GP
}

DSEP='","' XLAB='seconds' series seq1 'runs/seq1.MODE.REP.timeline.csv' '1:2' 'single-client sequential write: throughput' 'MB/s' throughput-seq1.png
DSEP='","' XLAB='seconds' series multi64 'runs/multi64.MODE.REP.timeline.csv' '1:2' '64 writers: aggregate throughput' 'MB/s' throughput-multi64.png
XLAB='latency (us)' series seq1 'runs/seq1.MODE.REP.write.cdf' '1:2' 'single-client sequential write: WRITE latency CDF' 'fraction <= x' latency-cdf-seq1.png log
XLAB='latency (us)' series multi64 'runs/multi64.MODE.REP.write.cdf' '1:2' '64 writers: WRITE latency CDF' 'fraction <= x' latency-cdf-multi64.png log
XLAB='latency (us)' series commit 'runs/commit.MODE.REP.commit.cdf' '1:2' 'commit-heavy: COMMIT latency CDF' 'fraction <= x' commit-cdf.png log
XLAB='latency (us)' series read64k 'runs/read64k.MODE.REP.read.cdf' '1:2' 'cached 64 KiB reads, alone: READ latency CDF' 'fraction <= x' read-cdf-read64k.png log
XLAB='latency (us)' series read64k_w 'runs/read64k_w.MODE.REP.read.cdf' '1:2' 'cached 64 KiB reads beside a 1 MiB writer: READ latency CDF' 'fraction <= x' read-cdf-read64k_w.png log
XLAB='latency (us)' series small64k 'runs/small64k.MODE.REP.write.cdf' '1:2' '64 KiB QD1 writes: WRITE latency CDF' 'fraction <= x' latency-cdf-small64k.png log
# page cache: cgroup cache when capped (column 9), else /proc/meminfo Cached (column 6)
DSEP='","' XLAB='seconds' series seq1 'runs/seq1.MODE.REP.timeline.csv' '1:(column(9) > 0 ? column(9) : column(6))' 'single-client sequential write: page cache (cgroup, or system Cached)' 'MiB' pagecache-seq1.png
DSEP='","' XLAB='seconds' series seq1 'runs/seq1.MODE.REP.timeline.csv' '1:7' 'single-client sequential write: Dirty (system)' 'MiB' dirty-seq1.png
DSEP='","' XLAB='seconds' series noisy 'runs/noisy.MODE.REP.timeline.csv' '1:3' 'noisy neighbour: readers of the hot set' 'MB/s' noisy-readers.png
DSEP='","' XLAB='seconds' series noisy 'runs/noisy.MODE.REP.timeline.csv' '1:11' 'noisy neighbour: hot set resident in page cache' '% resident' noisy-hotset.png

# bar chart: median MB/s per scenario and mode with a min..max whisker over the repetitions
# (bars.boxes: MODE-INDEX X MEDIAN MIN MAX); a mode without an ok run is marked, not a missing
# (or zero) bar (bars.marks). The ceilings are no bars: each scenario's median FSAL_MEM (mem) and
# disk (O_DIRECT) rate is a horizontal line over its group of bars, with its own min..max
# whisker at the line's right end (bars.ceil: KIND X0 X1 MEDIAN MIN MAX, KIND 0 mem, 1 disk).
# bars.dat: the bars' medians ("-" where none).
bmodes=() cmodes=()
for m in "${modes[@]}"; do case $m in mem|disk) cmodes+=("$m") ;; *) bmodes+=("$m") ;; esac; done
if [ -s summary.csv ] && [ ${#bmodes[@]} -gt 0 ]; then
  rm -f bars.dat bars.marks bars.boxes bars.ceil
  awk -F, -v modes="${bmodes[*]}" -v BARS=bars.dat -v MARKS=bars.marks -v BOXES=bars.boxes -v CEIL=bars.ceil '
    BEGIN { n = split(modes, M, " ") }
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { v[$1, $2] = $c["mbps_median"]; lo[$1, $2] = $c["mbps_min"]; hi[$1, $2] = $c["mbps_max"]
      if (!($1 in seen)) { seen[$1] = 1; S[++ns] = $1 }
      st[$1, $2] = ($c["mbps_median"] != "") ? "" : (("failed_runs" in c) && $c["failed_runs"] > 0) ? "FAILED" : "SKIPPED" }
    END {
      printf "scenario" > BARS; for (i = 1; i <= n; i++) printf " %s", M[i] > BARS; print "" > BARS
      max = 0
      for (s = 1; s <= ns; s++) for (i = 1; i <= n; i++) if (v[S[s], M[i]] + 0 > max) max = v[S[s], M[i]] + 0
      for (s = 1; s <= ns; s++) {
        printf "%s", S[s] > BARS
        x0 = (s - 1) * (n + 1)
        for (i = 1; i <= n; i++) {
          x = x0 + i - 1
          if (v[S[s], M[i]] != "") {
            printf " %s", v[S[s], M[i]] > BARS
            printf "%d %d %s %s %s\n", i - 1, x, v[S[s], M[i]], lo[S[s], M[i]], hi[S[s], M[i]] > BOXES
          } else {
            printf " -" > BARS
            printf "%d %s %s\n", x, (max > 0 ? max * 0.02 : 1), (st[S[s], M[i]] == "" ? "NO RUN" : st[S[s], M[i]]) > MARKS
          }
        }
        print "" > BARS
        # the read* scenarios have no disk ceiling (their MB/s is the readers, from the cache)
        for (k = 0; k <= 1; k++) {
          cm = k ? "disk" : "mem"
          if (v[S[s], cm] != "") printf "%d %.2f %.2f %s %s %s\n", k, x0 - 0.5, x0 + n - 0.5, v[S[s], cm], lo[S[s], cm], hi[S[s], cm] > CEIL
        }
      }
    }' summary.csv
  n=${#bmodes[@]}
  xmax=$(( ($(wc -l < bars.dat) - 1) * (n + 1) - 1 ))
  tics=$(awk -v n="$n" 'NR > 1 { printf "%s\"%s\" %.1f", (k++ ? ", " : ""), $1, (NR - 2) * (n + 1) + (n - 1) / 2 }' bars.dat)
  plot=
  for i in $(seq 0 $((n - 1))); do
    plot+="${plot:+, }'bars.boxes' using (\$1 == $i ? \$2 : NaN):3 with boxes title '${bmodes[$i]}'"
  done
  if [ -s bars.boxes ]; then
    plot+=", 'bars.boxes' using 2:4:(0):(\$5 - \$4) with vectors heads size 0.15,90 lc rgb 'black' lw 1 title 'min..max (reps)'"
  else
    plot+="${plot:+, }NaN notitle"
  fi
  if [ -s bars.ceil ]; then
    plot+=", 'bars.ceil' using (\$1 == 0 ? \$2 : NaN):4:(\$3 - \$2):(0) with vectors nohead lw 3 dt 2 lc rgb 'blue' title 'ceiling: FSAL_MEM'"
    plot+=", 'bars.ceil' using (\$1 == 0 ? \$3 : NaN):5:(0):(\$6 - \$5) with vectors heads size 0.15,90 lc rgb 'blue' notitle"
    plot+=", 'bars.ceil' using (\$1 == 1 ? \$2 : NaN):4:(\$3 - \$2):(0) with vectors nohead lw 3 dt 4 lc rgb 'red' title 'ceiling: disk O_DIRECT'"
    plot+=", 'bars.ceil' using (\$1 == 1 ? \$3 : NaN):5:(0):(\$6 - \$5) with vectors heads size 0.15,90 lc rgb 'red' notitle"
  fi
  [ -s bars.marks ] && plot+=", 'bars.marks' using 1:2:3 with labels rotate by 90 left font ',9' textcolor rgb 'red' notitle"
  gnuplot <<GP
$term
set output 'throughput-median.png'
set title "median MB/s per scenario, min..max whiskers; dashed: the ceilings' medians\\n(read*: the readers; compete: the mode export; FAILED/SKIPPED: no ok run)"
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set ylabel 'MB/s'
set yrange [0:*]
set xrange [-1:$xmax]
set xtics ($tics) rotate by -30
set key outside right
plot $plot
GP
  for m in "${bmodes[@]}"; do
    miss=$(awk -v m="$m" 'NR == 1 { for (i = 2; i <= NF; i++) if ($i == m) c = i; next } c && $c == "-" { printf "%s%s", (k++ ? " " : ""), $1 }' bars.dat)
    if [ -z "$miss" ]; then echo "throughput-median.png $m ok median" >> plots.txt
    else echo "throughput-median.png $m missing marked FAILED/SKIPPED in: $miss" >> plots.txt; fi
  done
  # the ceilings: a line in every scenario (disk: every write scenario), else say where not
  for m in "${cmodes[@]}"; do
    k=0; [ "$m" = disk ] && k=1
    miss=$(awk -F, -v m="$m" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      $2 == m && $c["mbps_median"] == "" { printf "%s%s", (k++ ? " " : ""), $1 }' summary.csv)
    if [ -z "$miss" ] && awk -v k=$k '$1 == k { f = 1 } END { exit !f }' bars.ceil 2>/dev/null; then
      echo "throughput-median.png $m ok ceiling line" >> plots.txt
    else echo "throughput-median.png $m missing no ceiling in: ${miss:-every scenario}" >> plots.txt; fi
  done
fi
ls *.png 2>/dev/null | tr '\n' ' '; echo
