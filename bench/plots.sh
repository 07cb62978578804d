#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/plots.sh OUTDIR MODE...: PNG plots with gnuplot from a run.sh output directory
# (repetition 1 of each mode for time series and CDFs; medians for the bar chart).
set -u
out=${1:?usage: plots.sh OUTDIR MODE...}; shift
modes=("$@")
command -v gnuplot >/dev/null || { echo "plots: gnuplot missing" >&2; exit 1; }
cd "$out" || exit 1
term='set terminal pngcairo size 1000,600 noenhanced font ",10"'
gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 || term='set terminal png size 1000,600 noenhanced'

series() {  # file-pattern column title ylabel out [logx]
  local pat=$1 colexpr=$2 title=$3 ylab=$4 png=$5 logx=${6:-} plot="" m f
  for m in "${modes[@]}"; do
    f=${pat//MODE/$m}
    [ -s "$f" ] || continue
    plot+="${plot:+, }'$f' using $colexpr with lines lw 2 title '$m'"
  done
  [ -n "$plot" ] || return 0
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

DSEP='","' XLAB='seconds' series 'runs/seq1.MODE.1.timeline.csv' '1:2' 'single-client sequential write: throughput (rep 1)' 'MB/s' throughput-seq1.png
DSEP='","' XLAB='seconds' series 'runs/multi64.MODE.1.timeline.csv' '1:2' '64 writers: aggregate throughput (rep 1)' 'MB/s' throughput-multi64.png
XLAB='latency (us)' series 'runs/seq1.MODE.1.write.cdf' '1:2' 'single-client sequential write: WRITE latency CDF (rep 1)' 'fraction <= x' latency-cdf-seq1.png log
XLAB='latency (us)' series 'runs/multi64.MODE.1.write.cdf' '1:2' '64 writers: WRITE latency CDF (rep 1)' 'fraction <= x' latency-cdf-multi64.png log
XLAB='latency (us)' series 'runs/commit.MODE.1.commit.cdf' '1:2' 'commit-heavy: COMMIT latency CDF (rep 1)' 'fraction <= x' commit-cdf.png log
XLAB='latency (us)' series 'runs/read64k.MODE.1.read.cdf' '1:2' 'cached 64 KiB reads, alone: READ latency CDF (rep 1)' 'fraction <= x' read-cdf-read64k.png log
XLAB='latency (us)' series 'runs/read64k_w.MODE.1.read.cdf' '1:2' 'cached 64 KiB reads beside a 1 MiB writer: READ latency CDF (rep 1)' 'fraction <= x' read-cdf-read64k_w.png log
XLAB='latency (us)' series 'runs/small64k.MODE.1.write.cdf' '1:2' '64 KiB QD1 writes: WRITE latency CDF (rep 1)' 'fraction <= x' latency-cdf-small64k.png log
# page cache: cgroup cache when capped (column 9), else /proc/meminfo Cached (column 6)
DSEP='","' XLAB='seconds' series 'runs/seq1.MODE.1.timeline.csv' '1:(column(9) > 0 ? column(9) : column(6))' 'single-client sequential write: page cache (cgroup, or system Cached)' 'MiB' pagecache-seq1.png
DSEP='","' XLAB='seconds' series 'runs/seq1.MODE.1.timeline.csv' '1:7' 'single-client sequential write: Dirty (system)' 'MiB' dirty-seq1.png
DSEP='","' XLAB='seconds' series 'runs/noisy.MODE.1.timeline.csv' '1:3' 'noisy neighbour: readers of the hot set (rep 1)' 'MB/s' noisy-readers.png
DSEP='","' XLAB='seconds' series 'runs/noisy.MODE.1.timeline.csv' '1:11' 'noisy neighbour: hot set resident in page cache (rep 1)' '% resident' noisy-hotset.png

# bar chart: median MB/s per scenario and mode
if [ -s summary.csv ]; then
  awk -F, -v modes="${modes[*]}" 'BEGIN { n = split(modes, M, " "); printf "scenario"; for (i = 1; i <= n; i++) printf " %s", M[i]; print "" }
    NR > 1 { v[$1, $2] = $5; if (!($1 in seen)) { seen[$1] = 1; S[++ns] = $1 } }
    END { for (s = 1; s <= ns; s++) { printf "%s", S[s]; for (i = 1; i <= n; i++) printf " %s", (v[S[s], M[i]] == "" ? "0" : v[S[s], M[i]]); print "" } }' summary.csv > bars.dat
  ncols=$(( ${#modes[@]} + 1 ))
  gnuplot <<GP
$term
set output 'throughput-median.png'
set title 'median MB/s per scenario (read*: the readers; compete: the mode export)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set ylabel 'MB/s'
set yrange [0:*]
set key outside right
plot for [i=2:$ncols] 'bars.dat' using i:xtic(1) title columnheader(i)
GP
fi
ls *.png 2>/dev/null | tr '\n' ' '; echo
