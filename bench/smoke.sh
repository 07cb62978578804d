#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# bench_smoke: a tiny dcbench run against a real ganesha (stock FSAL_VFS) in a private
# namespace. Asserts the JSON report is complete and that the bytes written equal the
# bytes asked, that the server's CPU seconds and RSS were measured, and that a readers-only
# run reads (never a speed). Prints one line "bench_smoke: PASS" or "bench_smoke: FAIL why".
# Needs root (namespaces). Exit 0 on pass.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${GSH_IN_NS:-}" != 1 ]; then
  exec timeout -k 5 58 "$top/tests/lib/in-ns.sh" "$0" "$@"
fi
fail() { echo "bench_smoke: FAIL $*"; exit 1; }
command -v jq >/dev/null || fail "jq not installed (scripts/setup.sh)"
command -v ganesha.nfsd >/dev/null || fail "ganesha.nfsd not installed (scripts/setup.sh)"

dcbench=${DCBENCH:-}
if [ -z "$dcbench" ]; then
  for b in "$top/build-bench/bench/dcbench" "$top/build/bench/dcbench"; do
    [ -x "$b" ] && { dcbench=$b; break; }
  done
fi
if [ -z "$dcbench" ]; then
  cmake -S "$top" -B "$top/build-bench" >/dev/null 2>&1 &&
    cmake --build "$top/build-bench" -j2 --target dcbench >/dev/null 2>&1 ||
    fail "could not build dcbench"
  dcbench=$top/build-bench/bench/dcbench
fi

work=$(mktemp -d /var/tmp/dcbench-smoke.XXXXXX)
source "$top/tests/lib/ganesha.sh"
cleanup() { gsh_cleanup >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
gsh_vfs_conf "$work" /smoke
gsh_start "$work/ganesha.conf" "$work/ganesha.log" || fail "ganesha did not start: $(tail -3 "$work/ganesha.log" | tr '\n' ' ')"

json=$work/out.json
conns=2 size=$((8 << 20))
if ! timeout -k 2 40 "$dcbench" --url "$(gsh_url "$work/export")" --server-path "$work/export" \
      --server-pid "$GSH_PID" --conns $conns --qd 4 --bs 256k --size $size --commit-every 2M \
      --readers 1 --hot-files 2 --hot-size 2M --read-iops 500 --quiet --label smoke \
      --json "$json" --timeline-csv "$work/tl.csv" --cdf-prefix "$work/lat" > "$work/dcbench.out" 2>&1; then
  fail "dcbench exited non-zero: $(tail -3 "$work/dcbench.out" | tr '\n' ' ')"
fi
[ -s "$json" ] || fail "no JSON report"
jq -e . "$json" >/dev/null 2>&1 || fail "JSON report does not parse"
chk() { jq -e "$1" "$json" >/dev/null 2>&1 || fail "$2 ($(jq -c "${3:-.write}" "$json" 2>/dev/null | head -c 300))"; }
chk '.complete == true' "report not complete"
chk '.finished == true' "run not finished" '.stop_reason'
chk ".write.bytes_asked == $((conns * size))" "bytes asked != $((conns * size))"
chk '.write.bytes_written == .write.bytes_asked' "bytes written != bytes asked"
chk '.errors.rpc == 0 and .errors.nfs_total == 0' "errors reported" '.errors'
chk '.commit.ops >= 2 and .commit.failures == 0' "expected COMMITs" '.commit'
chk '.latency_us.write.count > 0 and .latency_us.write.p99 > 0 and .latency_us.write.max >= .latency_us.write.p99' "write latency missing" '.latency_us'
chk '.latency_us.commit.count == .commit.measured_ops' "commit latency count" '.latency_us'
chk '.read.ops > 0 and .latency_us.read.count > 0' "readers did not read" '.read'
chk '(.per_conn | length) == 3 and ([.per_conn[] | select(.role=="writer") | .bytes] | add) == .write.bytes_written' "per-connection accounting" '.per_conn'
chk '.server.sampled >= 1 and .server.mib.cached.peak != null' "no server samples" '.server'
chk '.verifier.changes == 0' "verifier changed" '.verifier'
chk '(.timeline | type) == "array"' "no timeline"
chk '.server.cpu_s > 0 and .server.cpu_s_per_gb > 0 and .server.bytes_moved >= .write.bytes_written' "no server CPU seconds" '.server'
chk '.server.server_hwm_mib > 0 and .server.mib.server_rss.peak > 0' "no server RSS" '.server'
# the machine's CPU less the client's holds ganesha's (clock ticks of two counters: a few apart)
chk '.server.host_cpu_s != null and .server.host_cpu_s_per_gb > 0 and .server.host_cpu_s + 0.05 >= .server.cpu_s * 0.8' "machine CPU below the server's" '.server'
for i in $(seq 0 $((conns - 1))); do
  s=$(stat -c %s "$work/export/dcb.$i" 2>/dev/null || echo missing)
  [ "$s" = "$size" ] || fail "server file dcb.$i has size $s, expected $size"
done
[ -s "$work/lat.write.cdf" ] || fail "no write latency CDF"
head -1 "$work/tl.csv" | grep -q '^t,write_mbps' || fail "timeline CSV header"

# readers only, unthrottled (bench/run.sh's read64k/read4k scenarios): READ MB/s over the window
json=$work/read.json
if ! timeout -k 2 30 "$dcbench" --url "$(gsh_url "$work/export")" --server-path "$work/export" \
      --server-pid "$GSH_PID" --conns 0 --readers 2 --read-bs 64k --hot-files 2 --hot-size 2M \
      --time 1 --interval 0.5 --quiet --label smoke-read --json "$json" > "$work/dcbench-read.out" 2>&1; then
  fail "dcbench (readers only) exited non-zero: $(tail -3 "$work/dcbench-read.out" | tr '\n' ' ')"
fi
chk '.complete == true and .finished == true' "readers-only run not finished" '.stop_reason'
chk '.read.ops > 0 and .read.mbps > 0 and .latency_us.read.count > 0 and .write.ops == 0' "readers-only run did not read" '.read'
chk '.server.cpu_s_per_gb > 0 and .server.bytes_moved == .read.bytes' "readers-only CPU per GB" '.server'
echo "bench_smoke: PASS"
