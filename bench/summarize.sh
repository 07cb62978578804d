#!/usr/bin/env bash
# bench/summarize.sh OUTDIR: runs.csv -> summary.csv, summary.json and table.txt (printed).
# Medians over repetitions, with min..max for throughput; ratios against FSAL_VFS.
set -u
out=${1:?usage: summarize.sh OUTDIR}
[ -s "$out/runs.csv" ] || { echo "summarize: no $out/runs.csv" >&2; exit 1; }
awk -F, -v SUMCSV="$out/summary.csv" -v SUMJSON="$out/summary.json" '
function med(key, col,    n, a, i, j, t, s) {
  n = 0
  for (i = 1; i <= cnt[key]; i++) { v = val[key, i, col]; if (v != "") a[++n] = v + 0 }
  if (!n) return ""
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  lo[key, col] = a[1]; hi[key, col] = a[n]
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function f(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
NR == 1 { for (i = 1; i <= NF; i++) { col[$i] = i; name[i] = $i }; ncol = NF; next }
{
  key = $1 "|" $2
  if (!(key in cnt)) { order[++nk] = key; cnt[key] = 0; oks[key] = 0 }
  cnt[key]++
  for (i = 1; i <= NF; i++) val[key, cnt[key], i] = $i
  oks[key] += $col["ok"]
}
END {
  print "scenario,mode,runs,ok_runs,mbps_median,mbps_min,mbps_max,ratio_vs_vfs,write_p50_ms,write_p99_ms,write_p999_ms,write_max_ms,commit_p99_ms,read_mbps,read_p99_ms,hot_end_pct,cache_peak_mib,dirty_peak_mib,writeback_peak_mib,server_cpu_pct,kswapd_cpu_pct,neighbour_mbps" > SUMCSV
  printf "[" > SUMJSON
  hfmt = "%-8s %-10s %-24s %6s %9s %9s %9s %9s %8s %8s %7s  %s\n"
  printf hfmt, "scenario", "mode", "MB/s median [min..max]", "xVFS", "wr p50ms", "wr p99ms", "wr p99.9", "cm p99ms", "cache", "dirty", "srvCPU", "notes"
  printf hfmt, "", "", "", "", "", "", "", "", "pk MiB", "pk MiB", "%", ""
  for (k = 1; k <= nk; k++) {
    key = order[k]; split(key, p, "|")
    if (p[2] == "vfs") medv[key] = med(key, col["mbps"])
  }
  for (k = 1; k <= nk; k++) {
    key = order[k]; split(key, p, "|"); s = p[1]; m = p[2]
    mb = med(key, col["mbps"]); mlo = lo[key, col["mbps"]]; mhi = hi[key, col["mbps"]]
    base = medv[s "|vfs"]
    ratio = (base != "" && base > 0 && mb != "") ? mb / base : ""
    w50 = med(key, col["write_p50_ms"]); w99 = med(key, col["write_p99_ms"]); w999 = med(key, col["write_p999_ms"])
    wmax = med(key, col["write_max_ms"]); c99 = med(key, col["commit_p99_ms"])
    rmb = med(key, col["read_mbps"]); r99 = med(key, col["read_p99_ms"]); hot = med(key, col["hot_end_pct"])
    cache = med(key, col["cache_peak_mib"]); dirty = med(key, col["dirty_peak_mib"]); wb = med(key, col["writeback_peak_mib"])
    cpu = med(key, col["server_cpu_pct"]); ksw = med(key, col["kswapd_cpu_pct"]); nbr = med(key, col["neighbour_mbps"])
    notes = ""
    if (s == "noisy") notes = sprintf("readers %s MB/s, rd p99 %s ms, hot set %s%% resident at end", f(rmb, 2), f(r99, 2), f(hot, 0))
    if (s == "compete") notes = sprintf("VFS neighbour %s MB/s", f(nbr, 1))
    if (ksw != "" && ksw >= 1) notes = notes (notes == "" ? "" : "; ") sprintf("kswapd %s%%", f(ksw, 0))
    if (oks[key] < cnt[key]) notes = notes (notes == "" ? "" : "; ") sprintf("%d of %d runs FAILED", cnt[key] - oks[key], cnt[key])
    printf hfmt, s, m, (mb == "" ? "-" : sprintf("%.1f [%.1f..%.1f]", mb, mlo, mhi)), f(ratio, 2), f(w50, 1), f(w99, 1), f(w999, 1), f(c99, 1), f(cache, 0), f(dirty, 0), f(cpu, 0), notes
    printf "%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", s, m, cnt[key], oks[key], mb, mlo, mhi, ratio, w50, w99, w999, wmax, c99, rmb, r99, hot, cache, dirty, wb, cpu, ksw, nbr > SUMCSV
    printf "%s\n  {\"scenario\": \"%s\", \"mode\": \"%s\", \"runs\": %d, \"ok_runs\": %d, \"mbps\": {\"median\": %s, \"min\": %s, \"max\": %s}, \"ratio_vs_vfs\": %s, \"write_ms\": {\"p50\": %s, \"p99\": %s, \"p99.9\": %s, \"max\": %s}, \"commit_p99_ms\": %s, \"read_mbps\": %s, \"read_p99_ms\": %s, \"hot_end_pct\": %s, \"cache_peak_mib\": %s, \"dirty_peak_mib\": %s, \"writeback_peak_mib\": %s, \"server_cpu_pct\": %s, \"kswapd_cpu_pct\": %s, \"neighbour_mbps\": %s}", (k > 1 ? "," : ""), s, m, cnt[key], oks[key], j(mb), j(mlo), j(mhi), j(ratio), j(w50), j(w99), j(w999), j(wmax), j(c99), j(rmb), j(r99), j(hot), j(cache), j(dirty), j(wb), j(cpu), j(ksw), j(nbr) > SUMJSON
  }
  print "\n]" > SUMJSON
}
function j(v) { return v == "" ? "null" : v }
' "$out/runs.csv" > "$out/table.txt" || exit 1
{
  echo
  cat "$out/config.txt" 2>/dev/null
  echo "MB/s: 10^6 bytes/s of WRITE acknowledged in the measured window (compete: the mode's export);"
  echo "latencies: send-to-reply per request (medians over reps); cache/dirty: peak in the memory cgroup"
  echo "(or /proc/meminfo when uncapped); srvCPU: ganesha's mean CPU (100 = one core)."
} >> "$out/table.txt"
cat "$out/table.txt"
