#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench/fio.sh, the comparison with a client this project did not write (fio's libnfs engine),
# in a short form, never a speed: the fio bench/fio-build.sh built from Debian's fio source
# with the nfs engine (scripts/test.sh builds it: the download cannot run in this scenario's
# network namespace); one round of seq1qd1, multi16 and read_w at 3% of their size in a
# 512 MiB cgroup (about 1 GiB written and deleted in all: this machine's root filesystem is
# mounted discard, and deleting the 7 GiB of an eighth of the sizes stalled its disk for
# minutes, the next scenario's ganesha in fsync).
# Every run is ok (runs.csv), each has MB/s, p99.9, a page-cache figure and CPU per GB; the
# table has both servers and the module's ratios per case; fio's writers reached the module
# (its Stats_File counted the 1 MiB WRITEs) and their files were committed at close (one
# COMMIT per file: libnfs commits a dirty file when it closes it); read_w's readers read
# beside its writer and the table says how much of their hot set stayed resident.
# The ceilings of every case (issue 44): FSAL_MEM (server mem) and the disk's local O_DIRECT
# rate (disk) each have an ok run with a positive MB/s, every row of the table its xCeil (a
# positive fraction of the nearer ceiling, named), read_w's readers theirs against FSAL_MEM's
# readers; the bar chart has every server and both ceiling lines.
# --stall-log: every run has its row in stalls.csv (the device's stalls, the WRITEs over 1 s),
# the module's multi16 run a latency per WRITE fio made, and table.txt a stalls line per case
# and server.
# run.sh timeout: 400
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "bench/fio.sh compares the module with FSAL_VFS (run it with the module)"
[ -z "${GSH_ROOT:-}" ] || it_skip "bench/fio.sh runs the host's ganesha (4.3)"
command -v jq >/dev/null || it_skip "jq is not installed"
top=$(cd "$(dirname "$0")/../.." && pwd)
fio=$top/build-fio/fio
[ -x "$fio" ] && "$fio" --enghelp=nfs > /dev/null 2>&1 ||
  it_skip "no $fio with the nfs engine: bash bench/fio-build.sh (scripts/test.sh runs it) did not build it"
out=$IT_WORK/out
it_run -t 300 bash "$top/bench/fio.sh" --reps 1 --cases seq1qd1,multi16,read_w --scale 0.03 --mem-limit 512M \
  --dir "$IT_WORK/dir" --module "$IT_MODULE" --fio "$fio" --out "$out" --stall-log > "$IT_WORK/fio.out" 2>&1 ||
  it_die "fio.sh failed: $(tail -5 "$IT_WORK/fio.out" | tr '\n' ' ')"
[ -z "${DC_TEST_LOGDIR:-}" ] || { mkdir -p "$DC_TEST_LOGDIR" &&
  cp "$IT_WORK/fio.out" "$out/runs.csv" "$out/table.txt" "$DC_TEST_LOGDIR/"; } 2>/dev/null

for c in seq1qd1 multi16 read_w; do
  for s in vfs dontcache; do
    row=$(awk -F, -v c=$c -v s=$s 'NR > 1 && $1 == c && $2 == s' "$out/runs.csv")
    IFS=, read -r _ _ _ ok mbps _ _ p999 cache _ _ _ cpugb _ bytes rmbps _ hot _ <<< "$row"
    if [ "$ok" = 1 ] && [ "${mbps:-0}" -gt 0 ] && [ -n "$p999" ] && [ -n "$cache" ] && [ -n "$cpugb" ] &&
       [ "${bytes:-0}" -gt 0 ] && { [ $c != read_w ] || { [ "${rmbps:-0}" -gt 0 ] && [ -n "$hot" ]; }; }; then
      it_pass "$c $s: $mbps MB/s, p99.9 $p999 ms, page cache +$cache MiB, $cpugb CPU-s/GB${hot:+, readers $rmbps MB/s, hot set $hot% resident}"
    else
      it_fail "$c $s: no complete run: '${row:-none}'"
    fi
  done
  for s in mem disk; do
    row=$(awk -F, -v c=$c -v s=$s 'NR > 1 && $1 == c && $2 == s' "$out/runs.csv")
    IFS=, read -r _ _ _ ok mbps _ _ p999 _ <<< "$row"
    [ "$ok" = 1 ] && [ "${mbps:-0}" -gt 0 ] && [ -n "$p999" ] && it_pass "$c ceiling $s: $mbps MB/s, p99.9 $p999 ms" ||
      it_fail "$c ceiling $s: not measured: '${row:-none}'"
  done
  n=$(grep -c -E "^$c +(vfs|dontcache|mem|disk) +[0-9.]+ \[[0-9.]+\.\.[0-9.]+\] +[0-9]+\.[0-9]+ (mem|disk) " "$out/table.txt")
  [ "$n" = 4 ] && it_pass "$c: xCeil in the table's 4 rows" || it_fail "$c: xCeil in $n of 4 rows: $(grep "^$c " "$out/table.txt" | head -4 | tr -s ' ' | tr '\n' ';')"
  grep -q "^$c  *dontcache/vfs: MB/s [0-9.]*x, page cache [0-9.]*% of FSAL_VFS's, CPU per GB [0-9.]*x" "$out/table.txt" &&
    it_pass "$c: the table has the module's ratios" || it_fail "$c: no ratio line in table.txt"
done
grep -q "^read_w  *readers: .* MB/s beside FSAL_VFS's writer (hot set [0-9.]*% resident), .* beside dontcache's" "$out/table.txt" &&
  grep -q "^read_w  *dontcache/vfs: readers [0-9.]*x, writer [0-9.]*x" "$out/table.txt" &&
  it_pass "read_w: the table has the readers beside each writer and their ratio" ||
  it_fail "read_w: no readers lines in table.txt"
grep -q "^read_w  *readers xCeil (of FSAL_MEM's readers, [0-9.]* MB/s): vfs [0-9.]* dontcache [0-9.]*" "$out/table.txt" &&
  it_pass "read_w: the readers against FSAL_MEM's readers" || it_fail "read_w: $(grep 'readers xCeil' "$out/table.txt")"
lack=
for m in vfs dontcache mem disk; do grep -q "^throughput-median.png $m ok" "$out/plots.txt" 2>/dev/null || lack+="$m "; done
[ -z "$lack" ] && [ -s "$out/throughput-median.png" ] && [ "$(wc -l < "$out/bars.ceil")" = 6 ] &&
  it_pass "bar chart: every server with whiskers, both ceilings as lines in every case" ||
  it_fail "bar chart lacks: ${lack}; bars.ceil: $(wc -l < "$out/bars.ceil" 2>/dev/null) lines"
grep -q '^failed runs: 0 ' "$out/table.txt" && it_pass "the table counts no failed run" ||
  it_fail "table: $(grep '^failed runs' "$out/table.txt")"
n=$(awk -F, 'NR > 1 && $4 ~ /^[0-9]+$/ && $5 ~ /^[0-9.]+$/ && $6 ~ /^[0-9]+$/ && $7 ~ /^[0-9]+$/' "$out/stalls.csv" 2>/dev/null | wc -l)
[ "$n" = 9 ] && it_pass "stall log: a row per run of vfs, dontcache and mem in stalls.csv" ||
  it_fail "stall log: $n of 9 rows in stalls.csv: $(tr '\n' ';' < "$out/stalls.csv" 2>/dev/null)"
nw=$(wc -l < "$out/fio/multi16.dontcache.1.clat" 2>/dev/null)
want=$(( $(awk -F, '$1 == "multi16" && $2 == "dontcache" { print $15 }' "$out/runs.csv") / 1048576 ))
[ "${nw:-0}" = "$want" ] && [ -s "$out/fio/multi16.dontcache.1.dev" ] &&
  it_pass "stall log: a latency for each of fio's $want WRITEs, and the device's samples" ||
  it_fail "stall log: ${nw:-no} latencies for $want WRITEs; device samples: $(wc -l < "$out/fio/multi16.dontcache.1.dev" 2>/dev/null)"
n=$(grep -c -E "^stalls +(seq1qd1|multi16|read_w) (vfs|dontcache|mem) +1 runs: [0-9]+ device stalls" "$out/table.txt")
[ "$n" = 9 ] && it_pass "stall log: the table's stalls lines" || it_fail "stall log: $n of 9 stalls lines in table.txt"
st=$(ls "$out"/fio/multi16.dontcache.1.dcstats.json 2>/dev/null)
w=$(jq -r '.engine.writes.dontcache.ops // 0' "$st" 2>/dev/null) cm=$(jq -r '.engine.group_commit.requests // 0' "$st" 2>/dev/null)
[ "$want" -ge 16 ] && [ "${w:-0}" -ge "$want" ] && [ "${cm:-0}" -ge 16 ] &&
  it_pass "fio's 16 writers reached the module: $w WRITEs (fio wrote $want MiB), $cm COMMITs" ||
  it_fail "the module's counters of multi16: $w WRITEs (want >= $want, fio's MiB), $cm COMMITs (want >= 16)"
