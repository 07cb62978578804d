#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/summarize.sh OUTDIR: runs.csv -> summary.csv, summary.json and table.txt (printed).
# Medians over the ok repetitions, with min..max for throughput; ratios against FSAL_VFS of the
# same run under the same malloc environment (xVFS) and, when the run has the vfs-shipped mode,
# against FSAL_VFS with glibc's defaults (xVFSsh). A failed or skipped run counts in no median:
# its row's notes say how many and why (runs.csv status and why); a mode without an ok run
# says FAILED or SKIPPED in the MB/s column. The read* scenarios (unthrottled cached reads)
# report the readers: MB/s and the latency columns are READ's there; everywhere else WRITE's.
# The ceilings (modes mem: FSAL_MEM with Inode_Size = 0, and disk: a local O_DIRECT 1 MiB QD1
# stream, both measured in the same rounds): every row's median MB/s also as a fraction of the
# nearer ceiling of its scenario (xCeil; "of" names it): the lower of mem and disk for rows whose
# MB/s is written, mem for the read* scenarios' readers.
set -u
out=${1:?usage: summarize.sh OUTDIR}
[ -s "$out/runs.csv" ] || { echo "summarize: no $out/runs.csv" >&2; exit 1; }
awk -F, -v SUMCSV="$out/summary.csv" -v SUMJSON="$out/summary.json" '
function med(key, c,    n, a, i, j, t, v, col) {
  if (!(c in cidx)) return ""          # a runs.csv from an older run.sh
  col = cidx[c]; n = 0
  for (i = 1; i <= cnt[key]; i++) { v = val[key, i, col]; if (v != "") a[++n] = v + 0 }
  if (!n) return ""
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  lo[key, c] = a[1]; hi[key, c] = a[n]
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function f(v, d) { return v == "" ? "-" : sprintf("%." d "f", v) }
# milliseconds: three significant figures down to 1 us
function lat(v) { return v == "" ? "-" : v < 1 ? sprintf("%.3f", v) : v < 10 ? sprintf("%.2f", v) : sprintf("%.1f", v) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 <= 0) ? "" : a / b }
function withr(v, r, d) { return v == "" ? "-" : r == "" ? sprintf("%." d "f", v) : sprintf("%." d "f (%.2fx)", v, r) }
function note(s) { notes = notes (notes == "" ? "" : "; ") s }
function is_read(s) { return s ~ /^read(64k|4k)(_w)?$/ }
function j(v) { return v == "" ? "null" : v }
function put(name, v, str) {
  csvh = csvh (csvh == "" ? "" : ",") name; csvl = csvl (csvl == "" ? "" : ",") v
  js = js (js == "" ? "" : ", ") sprintf("\"%s\": %s", name, str ? "\"" v "\"" : j(v))
}
NR == 1 { for (i = 1; i <= NF; i++) cidx[$i] = i; next }
{
  key = $1 "|" $2
  if (!(key in cnt)) { order[++nk] = key; cnt[key] = 0; oks[key] = 0; nfail[key] = 0; nskip[key] = 0 }
  if (!($1 in sseen)) { sseen[$1] = 1; S[++ns] = $1 }
  if (!($2 in mseen)) { mseen[$2] = 1; M[++nm] = $2 }
  if ($2 == "vfs-shipped") shipped = 1
  st = ("status" in cidx) ? $cidx["status"] : ($cidx["ok"] == 1 ? "ok" : "failed")
  if (st == "ok" && $cidx["ok"] == 1) {
    cnt[key]++; oks[key]++
    for (i = 1; i <= NF; i++) val[key, cnt[key], i] = $i
  } else {
    w = ("why" in cidx) ? $cidx["why"] : ""
    if (st == "skipped") { nskip[key]++; if (w != "") swhy[key] = w }
    else { nfail[key]++; if (w != "") fwhy[key] = w }
  }
}
END {
  # xVFSsh (against FSAL_VFS as shipped) only when the run has the vfs-shipped mode
  hfmt = "%-9s %-11s %-24s %5s %-4s %6s " (shipped ? "%7s " : "%s") "%8s %7s %7s %8s %8s %8s %6s %-14s %-12s %s\n"
  printf hfmt, "scenario", "mode", "MB/s median [min..max]", "xCeil", "of", "xVFS", (shipped ? "xVFSsh" : ""), "p99.9 ms", "dirty", "cache", "p50 ms", "p99 ms", "cm p99ms", "srvCPU", "CPU-s/GB", "RSS MiB", "notes"
  printf hfmt, "", "", "", "", "", "", "", "", "pk MiB", "pk MiB", "", "", "", "%", "(xVFS)", "pk (xVFS)", ""
  printf "[" > SUMJSON
  # the ceilings of each scenario: medians of the mem and disk rows
  for (k = 1; k <= nk; k++) {
    key = order[k]; split(key, p, "|")
    if (p[2] == "mem" || p[2] == "disk") cm[p[1], p[2]] = med(key, "mbps")
  }
  for (k = 1; k <= nk; k++) {
    key = order[k]; split(key, p, "|"); s = p[1]; m = p[2]; b = s "|vfs"; rd = is_read(s)
    # this mode and the same scenario`s FSAL_VFS row
    mb = med(key, "mbps"); mlo = lo[key, "mbps"]; mhi = hi[key, "mbps"]
    w50 = med(key, "write_p50_ms"); w99 = med(key, "write_p99_ms"); w999 = med(key, "write_p999_ms")
    wmax = med(key, "write_max_ms"); c99 = med(key, "commit_p99_ms"); commits = med(key, "commits")
    rmb = med(key, "read_mbps"); r50 = med(key, "read_p50_ms"); r99 = med(key, "read_p99_ms"); r999 = med(key, "read_p999_ms")
    hot = med(key, "hot_end_pct"); wmb = med(key, "writer_mbps")
    cache = med(key, "cache_peak_mib"); dirty = med(key, "dirty_peak_mib"); wb = med(key, "writeback_peak_mib")
    cpu = med(key, "server_cpu_pct"); ksw = med(key, "kswapd_cpu_pct"); nbr = med(key, "neighbour_mbps")
    cpus = med(key, "server_cpu_s"); cpg = med(key, "cpu_s_per_gb"); rss = med(key, "rss_peak_mib")
    fds = med(key, "dc_fdatasyncs"); fpc = med(key, "fdatasync_per_commit"); nw = med(key, "nowait_read_pct")
    fb = med(key, "dc_fallback")
    hcpg = med(key, "host_cpu_s_per_gb"); r_hcpg = ratio(hcpg, med(b, "host_cpu_s_per_gb"))
    mfl = med(key, "minor_faults_per_mib")
    r_mbsh = ratio(mb, med(s "|vfs-shipped", "mbps")); rsh[s, m] = r_mbsh; rvfs[s, m] = ratio(mb, med(b, "mbps"))
    r_mb = ratio(mb, med(b, "mbps")); r_cpg = ratio(cpg, med(b, "cpu_s_per_gb")); r_rss = ratio(rss, med(b, "rss_peak_mib"))
    r_w50 = ratio(w50, med(b, "write_p50_ms")); r_w999 = ratio(w999, med(b, "write_p999_ms"))
    r_r50 = ratio(r50, med(b, "read_p50_ms")); r_r99 = ratio(r99, med(b, "read_p99_ms"))
    r_c99 = ratio(c99, med(b, "commit_p99_ms")); r_cache = ratio(cache, med(b, "cache_peak_mib"))
    if (m == "vfs") r_cpg = r_rss = ""       # 1.00x says nothing
    # the nearer ceiling: the lower of FSAL_MEM and the disk for written MB/s, FSAL_MEM for
    # the readers of the read* scenarios (their READs come from the page cache, not the disk)
    cmem = cm[s, "mem"]; cdsk = cm[s, "disk"]; ceil = ""; cname = ""
    if (cmem != "") { ceil = cmem; cname = "mem" }
    if (!rd && cdsk != "" && (ceil == "" || cdsk + 0 < ceil + 0)) { ceil = cdsk; cname = "disk" }
    r_ceil = ratio(mb, ceil)
    isceil = (m == "mem" || m == "disk")
    if (isceil) r_mb = r_mbsh = r_cpg = r_rss = r_w50 = r_w999 = r_r50 = r_r99 = r_c99 = r_cache = r_hcpg = ""
    notes = ""
    if (m == "mem") note("ceiling: FSAL_MEM, MEM { Inode_Size = 0; }: writes acknowledged and dropped")
    if (m == "disk") note("ceiling: local O_DIRECT write, one 1 MiB stream at depth 1 (fio psync)")
    if (rd) {
      if (wmb != "") note(sprintf("writer %s MB/s", f(wmb, 1)))
      if (m != "vfs" && r_r50 != "") note(sprintf("rd p50 %.2fx VFS", r_r50))
    }
    if (s == "noisy") note(sprintf("readers %s MB/s, rd p99 %s ms%s, hot set %s%% resident at end", f(rmb, 2), lat(r99),
                                   (m != "vfs" && r_r99 != "") ? sprintf(" (%.2fx VFS)", r_r99) : "", f(hot, 0)))
    if ((rd || s == "noisy") && nw != "") note(sprintf("nowait reads %s%%", f(nw, 0)))
    if (s == "small64k" && m != "vfs" && r_w50 != "") note(sprintf("WRITE p50 %.2fx VFS", r_w50))
    if (s == "commit") {
      if (fpc != "") note(sprintf("fdatasync/COMMIT %.3f (%s of %s)", fpc, f(fds, 0), f(commits, 0)))
      if (m != "vfs" && r_c99 != "") note(sprintf("COMMIT p99 %.2fx VFS", r_c99))
    }
    if (s == "compete" && m != "disk") note(sprintf("VFS neighbour %s MB/s", f(nbr, 1)))
    if (hcpg != "") note(sprintf("machine %s CPU-s/GB%s", f(hcpg, 3), (m != "vfs" && r_hcpg != "") ? sprintf(" (%.2fx)", r_hcpg) : ""))
    if (ksw != "" && ksw >= 1) note(sprintf("kswapd %s%%", f(ksw, 0)))
    if (mfl != "") note(sprintf("%s faults/MiB", f(mfl, 1)))
    # the write path really used: no RWF_DONTCACHE on this kernel/filesystem -> dropbehind
    if ((m == "dontcache" || m == "inline" || m == "direct") && fb != "" && fb > 0)
      note("ran as dropbehind: no RWF_DONTCACHE here")
    nall = cnt[key] + nfail[key] + nskip[key]
    if (nfail[key]) note(sprintf("%d of %d runs FAILED: %s", nfail[key], nall, fwhy[key] == "" ? "no reason recorded" : fwhy[key]))
    if (nskip[key]) note(sprintf("%d of %d runs skipped: %s", nskip[key], nall, swhy[key] == "" ? "no reason recorded" : swhy[key]))
    mbs = mb == "" ? (nfail[key] ? "FAILED" : nskip[key] ? "SKIPPED" : "-") : sprintf("%.1f [%.1f..%.1f]", mb, mlo, mhi)
    printf hfmt, s, m, mbs, f(r_ceil, 2), (r_ceil == "" ? "-" : cname), f(r_mb, 2), (shipped ? f(r_mbsh, 2) : ""),
      lat(rd ? r999 : w999), f(dirty, 0), f(cache, 0), lat(rd ? r50 : w50), lat(rd ? r99 : w99), lat(c99), f(cpu, 0),
      withr(cpg, r_cpg, 3), withr(rss, r_rss, 0), notes

    csvh = ""; csvl = ""; js = ""
    put("scenario", s, 1); put("mode", m, 1); put("runs", nall); put("ok_runs", oks[key])
    put("failed_runs", nfail[key]); put("skipped_runs", nskip[key])
    put("why", nfail[key] ? fwhy[key] : nskip[key] ? swhy[key] : "", 1)
    put("mbps_median", mb); put("mbps_min", mlo); put("mbps_max", mhi); put("ratio_vs_vfs", r_mb)
    put("ratio_vs_vfs_shipped", r_mbsh)
    put("ceiling", cname, 1); put("ceiling_mbps", ceil); put("ratio_vs_ceiling", r_ceil)
    put("mem_ceiling_mbps", cmem); put("disk_ceiling_mbps", cdsk)
    put("write_p50_ms", w50); put("write_p99_ms", w99); put("write_p999_ms", w999); put("write_max_ms", wmax)
    put("commit_p99_ms", c99); put("read_mbps", rmb); put("read_p99_ms", r99); put("hot_end_pct", hot)
    put("cache_peak_mib", cache); put("dirty_peak_mib", dirty); put("writeback_peak_mib", wb)
    put("server_cpu_pct", cpu); put("kswapd_cpu_pct", ksw); put("neighbour_mbps", nbr)
    put("read_p50_ms", r50); put("read_p999_ms", r999); put("writer_mbps", wmb)
    put("server_cpu_s", cpus); put("cpu_s_per_gb", cpg); put("cpu_s_per_gb_ratio_vs_vfs", r_cpg)
    put("rss_peak_mib", rss); put("rss_ratio_vs_vfs", r_rss)
    put("host_cpu_s_per_gb", hcpg); put("host_cpu_s_per_gb_ratio_vs_vfs", r_hcpg); put("minor_faults_per_mib", mfl)
    put("write_p50_ratio_vs_vfs", r_w50); put("write_p999_ratio_vs_vfs", r_w999)
    put("read_p50_ratio_vs_vfs", r_r50); put("read_p99_ratio_vs_vfs", r_r99)
    put("commit_p99_ratio_vs_vfs", r_c99); put("cache_ratio_vs_vfs", r_cache)
    put("commits", commits); put("dc_fdatasyncs", fds); put("fdatasync_per_commit", fpc); put("nowait_read_pct", nw); put("dc_fallback", fb)
    if (k == 1) print csvh > SUMCSV
    print csvl > SUMCSV
    printf "%s\n  {%s}", (k > 1 ? "," : ""), js > SUMJSON
  }
  print "\n]" > SUMJSON
  # per scenario: each module mode against FSAL_VFS under the same malloc environment (the
  # FSAL`s own effect) and against FSAL_VFS as shipped (what a user switching FSALs sees)
  if (shipped) {
    printf "\nmodule against FSAL_VFS, median MB/s ratio per scenario: same malloc environment | FSAL_VFS as shipped (glibc defaults)\n"
    printf "%-9s", "scenario"
    for (i = 1; i <= nm; i++) if (M[i] != "vfs" && M[i] != "vfs-shipped" && M[i] != "mem" && M[i] != "disk") printf " %-17s", M[i]
    printf "\n"
    for (k = 1; k <= ns; k++) {
      printf "%-9s", S[k]
      for (i = 1; i <= nm; i++) {
        if (M[i] == "vfs" || M[i] == "vfs-shipped" || M[i] == "mem" || M[i] == "disk") continue
        a = rvfs[S[k], M[i]]; c = rsh[S[k], M[i]]
        printf " %-17s", (a == "" ? "-" : sprintf("%.2fx", a)) " | " (c == "" ? "-" : sprintf("%.2fx", c))
      }
      printf "\n"
    }
  }
}
' "$out/runs.csv" > "$out/table.body" || exit 1
{
  # the header: the malloc environment every server ran with (config.txt's first line)
  grep -m1 '^malloc environment: ' "$out/config.txt" 2>/dev/null
  cat "$out/table.body"
  rm -f "$out/table.body"
  echo
  cat "$out/config.txt" 2>/dev/null
  echo "malloc environment: what every server ran with (runs.csv malloc_env: read from each server's"
  echo "  /proc/PID/environ); vfs-shipped: FSAL_VFS with glibc's defaults, as a stock ganesha runs;"
  echo "xVFS: median MB/s against FSAL_VFS (vfs) in the same scenario and malloc environment (the"
  echo "  FSAL's own effect); xVFSsh: against FSAL_VFS as shipped (vfs-shipped; what a user switching"
  echo "  FSALs sees); the grid under the table gives both for every module mode and scenario;"
  echo "xCeil: median MB/s over the nearer ceiling of the same scenario and run (of: which one):"
  echo "  mem = FSAL_MEM with MEM { Inode_Size = 0; } (writes acknowledged and dropped: what ganesha"
  echo "  and this machine move over NFS), run like the other servers (same malloc environment and"
  echo "  memory cgroup); disk = one local 1 MiB O_DIRECT write stream at depth 1 (fio psync) on a"
  echo "  fresh file of the exports' filesystem, in each write scenario's repetitions; written MB/s"
  echo "  against the lower of the two (a server cannot beat the disk for long, nor ganesha's own"
  echo "  rate), the read* scenarios' readers against mem; the ceiling rows carry no xVFS;"
  echo "FAILED/SKIPPED: no ok run of that mode in that scenario; the notes say how many runs failed or"
  echo "  were skipped and why (runs.csv status and why); a failed run counts in no median and never"
  echo "  against a later scenario (a mode that failed twice in a scenario skips its remaining reps);"
  echo "MB/s: 10^6 bytes/s acknowledged in the measured window: WRITE (compete: the mode's export,"
  echo "  beside an FSAL_VFS neighbour export of the same server on its own filesystem),"
  echo "  READ for read64k/read64k_w/read4k/read4k_w (their streaming writer's MB/s in the notes);"
  echo "p50/p99/p99.9: send-to-reply latency of WRITE, of READ for the read* scenarios (medians over"
  echo "  reps); cm p99: COMMIT; cache/dirty: peak in the memory cgroup (or /proc/meminfo when uncapped);"
  echo "srvCPU: ganesha's mean CPU (100 = one core); CPU-s/GB: ganesha's utime+stime over the run"
  echo "  (hot-set warm-up excluded, final COMMITs included) per 10^9 bytes written + read;"
  echo "machine CPU-s/GB (notes): the whole machine's busy CPU (/proc/stat) less the client's own over"
  echo "  the same window, per GB: ganesha plus the kernel threads doing its writeback, I/O completion"
  echo "  and page drops (and anything else running: compare runs of one quiet machine);"
  echo "RSS: ganesha's peak resident set (VmHWM); (x VFS): against FSAL_VFS in the same scenario;"
  echo "faults/MiB (notes): ganesha's minor page faults over the run per MiB moved (256: every page of"
  echo "  every WRITE buffer faulted in anew, memory malloc gave back and took again);"
  echo "fdatasync/COMMIT, nowait reads: FSAL_DONTCACHE's own counters (Stats_File, runs/*.dcstats.json)."
} >> "$out/table.txt"
cat "$out/table.txt"
