#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The module's figures over ganesha's DBus (issue 12 item 1): a private system bus
# (dbus-daemon, host's, on /run/dbus/system_bus_socket of the test namespace; ganesha in the
# Debian 13 root reaches it through the /run it shares) with Debian's nfs-ganesha policy file;
# ganesha owns org.ganesha.nfsd on it. Two exports, dontcache and dropbehind. GetFSALStats
# string:DONTCACHE answers "FSAL stat counting disabled" until EnableStats string:fsal; then
# it returns one struct per export; 4+4 libnfs writers and a read-back (ft_verify) move the
# write, commit, flusher, read and latency figures; ResetStats brings them back to 0.
# Debian's ganesha_stats (python3-nfs-ganesha) is used for enable/reset when installed.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "GetFSALStats DONTCACHE is FSAL_DONTCACHE's"
FT_BIN=$DC_BUILD_DIR/tests/faults
[ -x "$FT_BIN/ft_writer" ] && [ -x "$FT_BIN/ft_verify" ] || it_die "ft_writer/ft_verify not built in $FT_BIN"
it_dbus_bus

A=7491 B=7492
mkdir -p "$IT_WORK/exp2" "$IT_WORK/rec"
{
  echo "$IT_EXP|$A|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-a;"
  echo "$IT_WORK/exp2|$B|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-b; Write_Mode = dropbehind; Bench { Flush_File_Bytes = 1048576; }"
} | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

call() { # call METHOD [ARGS...] -> dbus-send's reply on stdout
  local m=$1; shift
  timeout -k 2 15 dbus-send --system --print-reply --reply-timeout=10000 \
    --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr "org.ganesha.nfsd.exportstats.$m" "$@"
}
it_dbus_wait_ganesha
call GetFSALStats string:DONTCACHE > "$IT_WORK/off.txt" 2>&1 ||
  it_die "GetFSALStats: no answer: $(head -n 5 "$IT_WORK/off.txt"); ganesha log: $(grep -i dbus "$IT_LOG" | tail -n 3)"
it_pass "ganesha owns org.ganesha.nfsd on the private bus"
grep -q 'FSAL stat counting disabled' "$IT_WORK/off.txt" &&
  it_pass "before EnableStats fsal: \"FSAL stat counting disabled\"" ||
  it_fail "GetFSALStats before EnableStats: $(tr '\n' ' ' < "$IT_WORK/off.txt")"

GS=$(command -v ganesha_stats || true)
if [ -n "$GS" ]; then
  timeout 15 "$GS" enable fsal > "$IT_WORK/gs-enable.txt" 2>&1 &&
    grep -q 'Successfully enabled' "$IT_WORK/gs-enable.txt" &&
    it_pass "ganesha_stats enable fsal" || it_fail "ganesha_stats enable fsal: $(cat "$IT_WORK/gs-enable.txt")"
else
  it_log "ganesha_stats not installed (Debian: python3-nfs-ganesha): EnableStats over dbus-send"
  call EnableStats string:fsal > "$IT_WORK/enable.txt" 2>&1 && grep -q '"OK"' "$IT_WORK/enable.txt" ||
    it_fail "EnableStats fsal: $(tr '\n' ' ' < "$IT_WORK/enable.txt")"
fi

# dbus-send's reply as "ID KEY VALUE" lines (the dict entries of each export's struct).
flat() {
  awk '/^ *uint16 / { id = $2 }
       /dict entry\(/ { ent = 1; k = ""; next }
       ent && k == "" && /^ *string "/ { k = $0; sub(/^ *string "/, "", k); sub(/"$/, "", k); next }
       ent && k != "" && /^ *(string|uint64|double) / {
         v = $0; sub(/^ *[a-z0-9]+ /, "", v); gsub(/"/, "", v); print id, k, v; ent = 0 }' "$1"
}
snap() { # snap NAME: GetFSALStats into NAME.txt and NAME.flat
  call GetFSALStats string:DONTCACHE > "$IT_WORK/$1.txt" 2>&1 || it_fail "GetFSALStats ($1) failed"
  flat "$IT_WORK/$1.txt" > "$IT_WORK/$1.flat"
}
get() { awk -v id="$2" -v k="$3" '$1 == id && $2 == k { print $3; f = 1 } END { if (!f) print "missing" }' "$IT_WORK/$1.flat"; }

snap s1
head -n 12 "$IT_WORK/s1.txt" | grep -q 'boolean true' && grep -q '"DONTCACHE"' "$IT_WORK/s1.txt" &&
  it_pass "GetFSALStats DONTCACHE: status true, fsal name DONTCACHE" ||
  it_fail "GetFSALStats reply: $(head -n 12 "$IT_WORK/s1.txt" | tr '\n' ' ')"
[ "$(tail -n 1 "$IT_WORK/s1.txt" | tr -d ' ')" = 'string"OK"' ] && it_pass "reply ends with \"OK\"" ||
  it_fail "reply's last line: $(tail -n 1 "$IT_WORK/s1.txt")"
[ "$(get s1 $A export)" = "export-$A" ] && [ "$(get s1 $B write_mode)" = dropbehind ] &&
  grep -q "string \"$IT_WORK/exp2\"" "$IT_WORK/s1.txt" &&
  it_pass "one struct per export (id, path, export name, write_mode)" ||
  it_fail "exports in the reply: $(awk '{print $1}' "$IT_WORK/s1.flat" | sort -u | tr '\n' ' ')"

# Load: 4 writers on each export (stable writes and COMMITs), then a read-back of export A.
wpids=()
for e in a:$IT_EXP b:$IT_WORK/exp2; do
  "$FT_BIN/ft_writer" -e "${e#*:}" -r "$IT_WORK/rec" -P "${e%%:*}" -n 4 -t 3 -b 262144 -q 4 -s 10 \
    -c 1048576 > "$IT_WORK/writer-${e%%:*}.out" 2>&1 &
  IT_EXTRA_PIDS+=("$!")
  wpids+=("$!")
done
sleep 1
snap s_load
for p in "${wpids[@]}"; do
  wait "$p" || it_fail "ft_writer (pid $p) exited non-zero: $(tail -n 3 "$IT_WORK"/writer-*.out)"
done
timeout -k 5 120 "$FT_BIN/ft_verify" -e "$IT_EXP" "$IT_WORK"/rec/a_*.rec > "$IT_WORK/verify.out" 2>&1 ||
  it_fail "ft_verify: $(tail -n 3 "$IT_WORK/verify.out")"
sleep 1.5   # dropbehind's flusher (Flush_Interval_Ms 1000) takes what is left
snap s2

moved() { # moved ID KEY: larger in s2 than in s1
  local a b
  a=$(get s1 "$1" "$2") b=$(get s2 "$1" "$2")
  if [ "$a" != missing ] && [ "$b" != missing ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > a) }'; then
    it_pass "export $1 $2: $a -> $b"
  else
    it_fail "export $1 $2 did not move: $a -> $b"
  fi
}
moved $A writes.dontcache.ops
moved $A writes.dontcache.bytes
moved $A worker_writes.ops
moved $A reads.ops
moved $A reads.bytes
moved $A group_commit.batches
moved $A group_commit.requests
moved $A inflight.peak
moved $A latency.write.p50_us
moved $A latency.write.p99_us
moved $A latency.write.p999_us
moved $A latency.read.p99_us
moved $A latency.commit.p99_us
moved $B writes.dropbehind.bytes
moved $B flusher.passes
moved $B flusher.writes_coalesced
moved $B flusher.writes_per_pass
moved $B group_commit.syscalls
for k in fallbacks.dontcache_write group_commit.lost_range_reports group_commit.syscalls_saved \
         inflight.bytes reads.nowait; do
  [ "$(get s2 $A $k)" != missing ] || it_fail "export $A: no $k in the reply"
done
[ "$(get s_load $A inflight.peak)" != missing ] && it_pass "figures read during the load" ||
  it_fail "GetFSALStats during the load: $(head -n 3 "$IT_WORK/s_load.txt" | tr '\n' ' ')"
echo "---- GetFSALStats after the load (export $A, first lines)"
sed -n 1,40p "$IT_WORK/s2.txt"; echo "----"

# ResetStats: the module's counters back to 0 (the bus is idle now).
if [ -n "$GS" ]; then
  timeout 15 "$GS" reset > "$IT_WORK/reset.txt" 2>&1 && grep -q 'Successfully reset' "$IT_WORK/reset.txt" &&
    it_pass "ganesha_stats reset" || it_fail "ganesha_stats reset: $(cat "$IT_WORK/reset.txt")"
  # Debian's ganesha_stats formats only FSAL_GPFS's reply: "fsal DONTCACHE" prints no table
  timeout 15 "$GS" fsal DONTCACHE > "$IT_WORK/gs-fsal.txt" 2>&1
  it_log "ganesha_stats fsal DONTCACHE (exit $?; it formats only FSAL_GPFS's reply): $(tail -n 1 "$IT_WORK/gs-fsal.txt")"
else
  call ResetStats > "$IT_WORK/reset.txt" 2>&1 && grep -q '"OK"' "$IT_WORK/reset.txt" &&
    it_pass "ResetStats answered OK" || it_fail "ResetStats: $(tr '\n' ' ' < "$IT_WORK/reset.txt")"
fi
grep -q 'DONTCACHE: stats reset over DBus' "$IT_LOG" && it_pass "the log says the stats were reset" ||
  it_fail "no reset line in the log"
snap s3
for id in $A $B; do
  bad=$(awk -v id=$id '$1 == id && $3 ~ /^[0-9.]+$/ && $3 + 0 != 0 &&
                       $2 !~ /^(verifier_gen|inflight\.limit|flusher\.budget_bytes|flusher\.held_bytes)$/ { print $2 "=" $3 }' "$IT_WORK/s3.flat")
  n=$(awk -v id=$id '$1 == id && $3 ~ /^[0-9.]+$/' "$IT_WORK/s3.flat" | wc -l)
  [ -z "$bad" ] && [ "$n" -gt 40 ] && it_pass "export $id: all $n figures 0 after ResetStats (but limits, held bytes, verifier)" ||
    it_fail "export $id after ResetStats ($n figures): $(echo $bad)"
done
[ "$(get s3 $A write_mode)" = dontcache ] && [ "$(get s3 $A inflight.limit)" = "$(get s2 $A inflight.limit)" ] &&
  it_pass "configuration and limits kept by the reset" || it_fail "reset changed write_mode/limit"
it_check_alive "the DBus calls"
gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
true
