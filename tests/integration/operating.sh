#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Where administrators look (issue 12 items 2, 3, 5, 6): three exports, one with Stats_File and
# Prometheus_File, one with Prometheus_File only (Write_Mode = dropbehind), one with neither.
# Debian's prometheus-node-exporter (textfile collector only) serves the .prom files; it is
# scraped with curl before and after 16 libnfs writers: the dontcache_ counters moved with
# the load, the latency histograms are there (+Inf == _count). dontcache-stat runs for 2
# intervals against the JSON and the .prom file during the load and its columns move. The log
# has one start line per export with every parameter and the write path, and the final stats
# line; no JSON file appears for an export without Stats_File, and a server whose exports have
# no stats file runs no stats thread.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the stats files are FSAL_DONTCACHE's"
FT_BIN=$DC_BUILD_DIR/tests/faults
[ -x "$FT_BIN/ft_writer" ] || it_die "ft_writer not built in $FT_BIN"
NE=$(command -v prometheus-node-exporter) || it_skip "prometheus-node-exporter is not installed (scripts/setup.sh installs it)"
command -v curl >/dev/null || it_skip "curl is not installed (scripts/setup.sh installs it)"
STAT=$IT_TOP/scripts/dontcache-stat

TF=$IT_WORK/textfile
mkdir -p "$TF" "$IT_WORK/exp2" "$IT_WORK/exp3" "$IT_WORK/rec"
A=7391 B=7392 C=7393
{
  echo "$IT_EXP|$A|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-a; Stats_File = $IT_WORK/stats-a.json; Prometheus_File = $TF/dontcache-a.prom;"
  echo "$IT_WORK/exp2|$B|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-b; Write_Mode = dropbehind; Bench { Flush_File_Bytes = 1048576; } Prometheus_File = $TF/dontcache-b.prom;"
  echo "$IT_WORK/exp3|$C|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-c;"
} | it_conf "$IT_WORK/ganesha.conf"
echo "DONTCACHE { Stats_Interval_Ms = 300; }" >> "$IT_WORK/ganesha.conf"
rm -f /var/run/ganesha/export-$B.dontcache.json /var/run/ganesha/export-$C.dontcache.json
it_start "$IT_WORK/ganesha.conf"

# The start lines: every parameter and the write path, one line per export.
for id in $A $B $C; do
  n=$(grep -c "DONTCACHE export $id: .*write path .*Write_Mode=.*Max_Inflight_Bytes=.*Inflight_Wait_Ms=.*Flush_File_Bytes=.*Flush_Interval_Ms=.*Worker_Write_Max=.*Handle_Key_File=.*Stats_File=.*Prometheus_File=" "$IT_LOG")
  [ "$n" = 1 ] && it_pass "export $id: one start line with its configuration" ||
    it_fail "export $id: $n start lines with the configuration (want 1)"
done
grep -q "DONTCACHE export $A: $IT_EXP: write path dontcache, read path buffered; Write_Mode=dontcache .*Prometheus_File=$TF/dontcache-a.prom" "$IT_LOG" &&
  it_pass "export $A logs write path dontcache and its Prometheus_File" ||
  it_fail "export $A start line: $(grep "DONTCACHE export $A:" "$IT_LOG" | head -n1)"
grep -q "DONTCACHE export $C: .*Stats_File=(none) Prometheus_File=(none)" "$IT_LOG" &&
  it_pass "export $C logs no stats files" || it_fail "export $C: start line does not say Stats_File=(none)"
threads=$(ps -L -o comm= -p "$GSH_PID" | grep -c '^dc-stats$')
[ "$threads" = 1 ] && it_pass "one stats thread" || it_fail "$threads dc-stats threads (want 1)"

# node_exporter in this namespace, serving only the textfile collector.
PORT=19100
"$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$TF" \
  --web.listen-address=127.0.0.1:$PORT > "$IT_WORK/node_exporter.log" 2>&1 &
NE_PID=$!
IT_EXTRA_PIDS+=("$NE_PID")
scrape() { curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics"; }
for _ in $(seq 100); do
  [ -s "$TF/dontcache-a.prom" ] && [ -s "$TF/dontcache-b.prom" ] && scrape > /dev/null && break
  sleep 0.1
done
scrape > "$IT_WORK/scrape1.txt" || it_die "node_exporter does not answer: $(tail -n 5 "$IT_WORK/node_exporter.log")"
grep -q '^node_textfile_scrape_error 0' "$IT_WORK/scrape1.txt" &&
  it_pass "node_exporter reads the .prom files without error" ||
  it_fail "node_exporter: $(grep -E 'textfile|error' "$IT_WORK/scrape1.txt" | head -n 5)"
ls "$TF" | grep -v '\.prom$' && it_fail "files other than .prom left in the textfile directory"

# Load: 8 writers on each of the two exports with files, dontcache-stat meanwhile.
for e in a:$IT_EXP b:$IT_WORK/exp2; do
  "$FT_BIN/ft_writer" -e "${e#*:}" -r "$IT_WORK/rec" -P "${e%%:*}" -n 8 -t 6 -b 262144 -q 4 -s 10 \
    -c 1048576 > "$IT_WORK/writer-${e%%:*}.out" 2>&1 &
  IT_EXTRA_PIDS+=("$!")
  wpids+=("$!")
done
sleep 1
timeout -k 5 30 "$STAT" -i 1 -c 2 "$IT_WORK/stats-a.json" "$TF/dontcache-b.prom" > "$IT_WORK/stat.out" 2>&1
rc=$?
for p in "${wpids[@]}"; do
  wait "$p" || it_fail "ft_writer (pid $p) exited non-zero: $(tail -n 3 "$IT_WORK"/writer-*.out)"
done
sleep 1
scrape > "$IT_WORK/scrape2.txt" || it_fail "second scrape failed"

echo "---- dontcache-stat -i 1 -c 2"; cat "$IT_WORK/stat.out"; echo "----"
[ $rc = 0 ] || it_fail "dontcache-stat exited $rc"
# data lines: time id dc buf dio drop rd dirtyMB flush/s gcbatch cp99ms inflMB err/s fb
lines=$(awk '$1 ~ /^[0-9]+:/' "$IT_WORK/stat.out" | wc -l)
[ "$lines" = 4 ] && it_pass "dontcache-stat printed 2 lines for each of 2 exports" ||
  it_fail "dontcache-stat printed $lines data lines (want 4)"
awk -v id=$A '$1 ~ /^[0-9]+:/ && $2 == id && $3 > 0 { ok = 1 } END { exit !ok }' "$IT_WORK/stat.out" &&
  it_pass "dontcache-stat: export $A's dontcache MB/s moved" || it_fail "dontcache-stat: export $A shows no dontcache writes"
awk -v id=$B '$1 ~ /^[0-9]+:/ && $2 == id && $6 > 0 { ok = 1 } END { exit !ok }' "$IT_WORK/stat.out" &&
  it_pass "dontcache-stat (from the .prom file): export $B's dropbehind MB/s moved" ||
  it_fail "dontcache-stat: export $B shows no dropbehind writes"
awk -v id=$B '$1 ~ /^[0-9]+:/ && $2 == id && $9 > 0 { ok = 1 } END { exit !ok }' "$IT_WORK/stat.out" &&
  it_pass "dontcache-stat: export $B's flusher passes/s moved" || it_fail "dontcache-stat: export $B shows no flusher passes"

# The counters moved with the load; histograms complete.
val() { # val FILE METRIC LABEL-SUBSTRINGS... -> the value of the first sample matching all
  local f=$1 m=$2; shift 2
  grep "^$m{" "$f" | { while read -r line; do
      ok=1; for l in "$@"; do [[ $line == *"$l"* ]] || ok=0; done
      [ $ok = 1 ] && { echo "${line##* }"; exit 0; }
    done; echo missing; }
}
moved() { # moved METRIC LABELS...: strictly larger in the second scrape
  local a b
  a=$(val "$IT_WORK/scrape1.txt" "$@") b=$(val "$IT_WORK/scrape2.txt" "$@")
  if [ "$a" != missing ] && [ "$b" != missing ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a) }'; then
    it_pass "$1 ${*:2}: $a -> $b"
  else
    it_fail "$1 ${*:2} did not move: $a -> $b"
  fi
}
moved dontcache_writes_total "export_id=\"$A\"" 'mode="dontcache"'
moved dontcache_write_bytes_total "export_id=\"$A\"" 'mode="dontcache"'
moved dontcache_write_bytes_total "export_id=\"$B\"" 'mode="dropbehind"'
moved dontcache_flusher_passes_total "export_id=\"$B\""
moved dontcache_sync_file_range_calls_total "export_id=\"$B\""
moved dontcache_group_commit_requests_total "export_id=\"$A\""
moved dontcache_write_latency_seconds_count "export_id=\"$A\""
moved dontcache_commit_latency_seconds_count "export_id=\"$B\""
# (node_exporter sorts the labels)
grep "^dontcache_export_info{" "$IT_WORK/scrape2.txt" | grep "export_id=\"$A\"" | grep -q "path=\"$IT_EXP\"" &&
  it_pass "samples carry export_id and path labels" || it_fail "no export_id/path labels on dontcache_export_info"
for h in write commit; do
  for id in $A $B; do
    inf=$(val "$IT_WORK/scrape2.txt" dontcache_${h}_latency_seconds_bucket "export_id=\"$id\"" 'le="+Inf"')
    cnt=$(val "$IT_WORK/scrape2.txt" dontcache_${h}_latency_seconds_count "export_id=\"$id\"")
    nb=$(grep -c "^dontcache_${h}_latency_seconds_bucket{.*export_id=\"$id\"" "$IT_WORK/scrape2.txt")
    mono=$(grep "^dontcache_${h}_latency_seconds_bucket{.*export_id=\"$id\"" "$IT_WORK/scrape2.txt" |
           awk '{ if ($NF + 0 < prev) bad = 1; prev = $NF + 0 } END { print bad ? "no" : "yes" }')
    if [ "$inf" = "$cnt" ] && [ "$cnt" != missing ] && [ "$nb" -ge 10 ] && [ "$mono" = yes ]; then
      it_pass "export $id: $h latency histogram, $nb buckets, +Inf = _count = $cnt"
    else
      it_fail "export $id: $h histogram: +Inf $inf, _count $cnt, $nb buckets, monotonic $mono"
    fi
  done
done
grep -q "export_id=\"$C\"" "$IT_WORK/scrape2.txt" && it_fail "export $C (no Prometheus_File) appears in the scrape"

# The stats thread is one of ganesha's (a fridgethr job): its log lines carry its name, as
# ganesha's own threads' do (a plain pthread's would carry an address). A directory made
# writable by everyone after start makes the next rewrite log its refusal.
chmod 0777 "$TF"
for _ in $(seq 30); do grep -q "cannot write Prometheus_File $TF/" "$IT_LOG" && break; sleep 0.1; done
chmod 0755 "$TF"
line=$(grep "cannot write Prometheus_File $TF/" "$IT_LOG" | head -n 1)
[[ $line == *"[dc-stats] "* ]] && it_pass "the stats thread logs under its name, as a thread of ganesha's" ||
  it_fail "the stats thread's refusal: ${line:-no line in 3 s}"

kill "$NE_PID"; wait "$NE_PID" 2>/dev/null
gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
for id in $A $B $C; do
  grep -q "DONTCACHE export $id (.*) stats: {" "$IT_LOG" && it_pass "export $id: final stats line in the log" ||
    it_fail "export $id: no final stats line in the log"
done
[ "$(jq -r .engine.writes.dontcache.ops "$IT_WORK/stats-a.json")" -gt 0 ] &&
  it_pass "Stats_File of export $A written" || it_fail "Stats_File of export $A: $(head -c 300 "$IT_WORK/stats-a.json")"
for id in $B $C; do
  [ -e /var/run/ganesha/export-$id.dontcache.json ] &&
    it_fail "export $id has no Stats_File but /var/run/ganesha/export-$id.dontcache.json was written"
done
it_pass "no default JSON file for the exports without Stats_File"
grep -i 'dcio:.*\(ERR\|WARN\)' "$IT_LOG" | head -n 3

# Neither file for any export: no stats thread at all.
echo "$IT_WORK/exp3|$C|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-c;" | it_conf "$IT_WORK/nofiles.conf"
it_start "$IT_WORK/nofiles.conf" "$IT_WORK/nofiles.log"
timeout -k 5 60 nfs-cp "$IT_WORK/ganesha.conf" "$(it_url "$IT_WORK/exp3/f")" > /dev/null || it_fail "nfs-cp to export $C"
threads=$(ps -L -o comm= -p "$GSH_PID" | grep -c '^dc-stats$')
[ "$threads" = 0 ] && it_pass "no stats file for any export: no stats thread" ||
  it_fail "$threads dc-stats threads without any stats file"
gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
grep -q "DONTCACHE export $C (.*) stats: {.*\"write_mode\"" "$IT_WORK/nofiles.log" &&
  it_pass "the final stats line still goes to the log" || it_fail "no final stats line without stats files"
[ -e /var/run/ganesha/export-$C.dontcache.json ] && it_fail "default JSON file written without Stats_File"
true
