#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Sustained load (issue 5 item 5; by hand, not CI): 64 libnfs writers (tests/faults/ft_writer:
# UNSTABLE writes + COMMIT every 4 MiB, 5% stable, files wrapping at 64 MiB) for SOAK_SECS
# (600) against ganesha with FSAL_DONTCACHE (SOAK_FSAL=VFS for the baseline) on an ext4 loop
# image under SOAK_DIR (/var/tmp). Every 10 s: ganesha RSS (VmRSS, kB) and open fds, and the
# writers' acknowledged bytes. Prints the RSS/fd curve, per-minute throughput, error counts,
# then verifies every acknowledged byte. Writes soak.tsv next to the printed path.
# Usage: bash bench/soak.sh [BUILD_DIR]   env: SOAK_SECS SOAK_WRITERS SOAK_FSAL SOAK_DIR
DC_TEST_FSAL=${SOAK_FSAL:-DONTCACHE}
export DC_TEST_FSAL
. "$(dirname "$0")/../tests/lib/harness.sh"
secs=${SOAK_SECS:-600} n=${SOAK_WRITERS:-64}
img_dir=${SOAK_DIR:-/var/tmp}
mkdir -p "$img_dir"
img=$(mktemp "$img_dir/soak.XXXXXX.img")
trap 'rc=$?; rm -f "$img"; (exit $rc); it_cleanup' EXIT
rm -f "$img"
it_loop_ext4 "$img" $(( (n * 64 + 2048) ))M "$IT_WORK/exp" || it_die "cannot make the export"
it_serve "$IT_WORK/exp"
rec=$IT_WORK/rec
"$DC_FT_BIN/ft_writer" "${IT_NFS[@]}" -n "$n" -P s -r "$rec" -t "$secs" -W $((64 << 20)) -b 65536 \
  -q 4 -s 5 -c $((4 << 20)) -C -i 10 > "$IT_WORK/writer.out" 2>&1 &
wpid=$!
IT_EXTRA_PIDS=("$wpid")
tsv=$IT_WORK/soak.tsv
echo -e "t_s\trss_kb\tfds\tacked_bytes\tcommits_ok\tfailures" > "$tsv"
t0=$(date +%s)
while kill -0 "$wpid" 2>/dev/null; do
  sleep 10
  kill -0 "$GSH_PID" 2>/dev/null || { echo "ganesha died" >&2; break; }
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$GSH_PID/status")
  fds=$(ls "/proc/$GSH_PID/fd" | wc -l)
  p=$(grep '^P ' "$IT_WORK/writer.out" | tail -1)
  echo -e "$(( $(date +%s) - t0 ))\t$rss\t$fds\t$(echo "$p" | cut -d' ' -f3)\t$(echo "$p" | cut -d' ' -f4)\t$(echo "$p" | cut -d' ' -f5)" | tee -a "$tsv"
done
wait "$wpid"; IT_EXTRA_PIDS=()
wline=$(grep '^ft_writer:' "$IT_WORK/writer.out")
echo "$wline"
echo "--- per-minute throughput (acknowledged MB/s) ---"
grep '^P ' "$IT_WORK/writer.out" | awk '{ m = int(($2 - 1) / 60000); last[m] = $3; lt[m] = $2 } END {
  prev = 0; pt = 0; for (i = 0; i in last; i++) { printf "minute %2d: %8.1f MB/s\n", i + 1, (last[i] - prev) / ((lt[i] - pt) / 1000) / 1e6; prev = last[i]; pt = lt[i] } }'
echo "--- RSS / fds curve ---"
awk 'NR > 1 { printf "t=%4ds rss=%7.1f MiB fds=%4d\n", $1, $2 / 1024, $3 }' "$tsv"
awk 'NR > 1 { if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2; if (fmin == "" || $3 < fmin) fmin = $3; if ($3 > fmax) fmax = $3; if (NR == 3) first = $2; lastv = $2 }
  END { printf "rss: min %.1f MiB max %.1f MiB (second sample %.1f, last %.1f); fds: min %d max %d\n", min/1024, max/1024, first/1024, lastv/1024, fmin, fmax }' "$tsv"
vline=$("$DC_FT_BIN/ft_verify" "${IT_NFS[@]}" "$rec"/*.rec 2>&1 | grep '^ft_verify:')
echo "$vline"
cp "$tsv" "${SOAK_OUT:-/tmp}/soak-$DC_TEST_FSAL.tsv" 2>/dev/null && echo "samples: ${SOAK_OUT:-/tmp}/soak-$DC_TEST_FSAL.tsv"
gsh_stop
errs=$(( $(it_kv commit_errors "$wline") + $(it_kv write_errors "$wline") ))
[ "$errs" = 0 ] && [ "$(it_kv mismatched_bytes "$vline")" = 0 ] || it_die "errors=$errs $vline"
it_pass "writers=$n secs=$secs errors=0 $(echo "$wline" | cut -d' ' -f5-8)"
