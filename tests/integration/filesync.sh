#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A FILE_SYNC WRITE is answered after fsync, not fdatasync only (issue 8 item 9): FILE_SYNC
# requires the file's metadata on stable storage too, as FSAL_VFS gives it. ganesha is traced
# with `strace -f -e trace=fsync,fdatasync` while `it_io filesync` sends FILE_SYNC WRITEs one
# after another (each answered before the next is sent, so no two share a flush): DONTCACHE
# must have called fsync at least once per answered WRITE. Against VFS the counts are printed.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io
command -v strace >/dev/null || it_skip "strace is not installed (scripts/setup.sh installs it)"

N=16
echo "$IT_EXP|1|$(it_fsal_body "Stats_File = $IT_WORK/stats.json;")" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

trace=$IT_WORK/strace.out
strace -f -qq -e trace=fsync,fdatasync -o "$trace" -p "$GSH_PID" 2> "$IT_WORK/strace.err" &
spid=$!
IT_EXTRA_PIDS+=("$spid")
# strace attaches the main thread first, then the others: wait for the first, then a moment
for _ in $(seq 100); do
  grep -q "TracerPid:[[:space:]]*$spid\$" /proc/"$GSH_PID"/status 2>/dev/null && break
  sleep 0.1
done
grep -q "TracerPid:[[:space:]]*$spid\$" /proc/"$GSH_PID"/status ||
  it_die "strace did not attach to ganesha: $(cat "$IT_WORK/strace.err")"
sleep 0.5

out=$(timeout -k 5 120 "$DC_IT_BIN/it_io" -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$IT_EXP" \
      filesync "$N" 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || it_fail "it_io filesync $N exited $rc"
sleep 0.5
kill -INT "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
answered=$(echo "$out" | sed -n 's/^file_sync_answered=//p')
nfsync=$(grep -cE '(^|[^a-z_])fsync\(' "$trace")
nfdata=$(grep -cE '(^|[^a-z_])fdatasync\(' "$trace")
it_log "FILE_SYNC WRITEs answered: ${answered:-0}; ganesha called fsync $nfsync times, fdatasync $nfdata times"
it_check_alive "the traced FILE_SYNC writes"
if it_is_dontcache; then
  [ "${answered:-0}" = "$N" ] || it_fail "only ${answered:-0} of $N FILE_SYNC WRITEs answered"
  if [ "$nfsync" -ge "${answered:-0}" ] && [ "${answered:-0}" -gt 0 ]; then
    it_pass "every FILE_SYNC WRITE was served with fsync ($nfsync fsync, $nfdata fdatasync for $answered WRITEs)"
  else
    it_fail "FILE_SYNC WRITEs answered: $answered, fsync calls: $nfsync (fdatasync: $nfdata): FILE_SYNC served without the metadata"
  fi
else
  it_log "info: $DC_TEST_FSAL served $answered FILE_SYNC WRITEs with $nfsync fsync and $nfdata fdatasync calls"
  it_skip_part "FILE_SYNC-is-fsync checks are DONTCACHE's: not asserted for $DC_TEST_FSAL"
fi
