#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# verifier_check: dcbench notices a changed write verifier and resends the unstable data.
# Writes with periodic COMMITs to a real ganesha (FSAL_VFS), kills the server mid-run and
# starts it again (NFSv3's verifier is set at server start), then asserts that dcbench saw
# the change, resent writes, and still wrote and committed every byte it was asked.
# Prints "verifier_check: PASS" or "verifier_check: FAIL why". Needs root.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${GSH_IN_NS:-}" != 1 ]; then
  exec timeout -k 5 90 "$top/tests/lib/in-ns.sh" "$0" "$@"
fi
fail() { echo "verifier_check: FAIL $*"; exit 1; }
dcbench=${DCBENCH:-$top/build-bench/bench/dcbench}
[ -x "$dcbench" ] || fail "build dcbench first (cmake --build build-bench --target dcbench)"
work=$(mktemp -d /var/tmp/dcbench-verf.XXXXXX)
source "$top/tests/lib/ganesha.sh"
cleanup() { gsh_cleanup >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
gsh_vfs_conf "$work" /v
gsh_start "$work/ganesha.conf" "$work/g1.log" || fail "ganesha did not start"
json=$work/out.json
"$dcbench" --url "$(gsh_url "$work/export")" --conns 2 --qd 4 --bs 256k --size 32M --time 6 \
  --commit-every 16M --rpc-timeout 30 --quiet --json "$json" > "$work/dcbench.out" 2>&1 &
dpid=$!
sleep 2.5
gsh_kill
sleep 0.5
gsh_start "$work/ganesha.conf" "$work/g2.log" || fail "ganesha did not restart"
wait $dpid
rc=$?
[ -s "$json" ] || fail "no report (rc $rc): $(tail -2 "$work/dcbench.out" | tr '\n' ' ')"
jq -e '.verifier.changes >= 1' "$json" >/dev/null || fail "no verifier change seen: $(jq -c .verifier "$json")"
jq -e '.verifier.writes_resent >= 1 and .verifier.bytes_resent > 0' "$json" >/dev/null ||
  fail "nothing resent: $(jq -c .verifier "$json")"
jq -e '.finished and .write.bytes_written == .write.bytes_asked and .commit.failures == 0' "$json" >/dev/null ||
  fail "run not complete: $(jq -c '[.finished, .stop_reason, .write.bytes_asked, .write.bytes_written, .errors]' "$json")"
echo "verifier_check: PASS ($(jq -c .verifier "$json"))"
