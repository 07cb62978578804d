#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# An export on tmpfs (no RWF_DONTCACHE: EOPNOTSUPP) works through the buffered fallback: data
# written with nfs-cp and with raw UNSTABLE/FILE_SYNC writes reads back intact. DONTCACHE: the
# log says "falling back" exactly once for the tmpfs export and never for the ext4 export beside
# it, and the stats files say "fallback":true / false. Also on private tmpfs mounts: a full
# filesystem gives NFS3ERR_NOSPC (never silent success), a read-only one NFS3ERR_ROFS.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io

tfs=$IT_WORK/tmpfs
small=$IT_WORK/small
ro=$IT_WORK/ro
it_tmpfs "$tfs" 128m
it_tmpfs "$small" 8m
it_tmpfs "$ro" 4m
echo "read-only content" > "$ro/existing"
mount -o remount,ro "$ro" || it_die "cannot remount $ro read-only"
[ "$(stat -f -c %T "$tfs")" = tmpfs ] || it_die "$tfs is not tmpfs"

stats() { it_is_dontcache && echo "Stats_File = $IT_WORK/stats-$1.json;"; }
{
  echo "$tfs|1|$(it_fsal_body "$(stats tmpfs)")"
  echo "$small|2|$(it_fsal_body "$(stats small)")"
  echo "$ro|3|$(it_fsal_body "$(stats ro)")"
  echo "$IT_EXP|4|$(it_fsal_body "$(stats ext4)")"
} | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

# Data through the fallback path.
src=$IT_WORK/src.bin
head -c $((32 * 1024 * 1024)) /dev/urandom > "$src"
want=$(sha256sum < "$src" | cut -d' ' -f1)
timeout -k 5 120 nfs-cp "$src" "$(it_url "$tfs/copy.bin")" >/dev/null || it_fail "nfs-cp to tmpfs failed"
[ "$(sha256sum < "$tfs/copy.bin" | cut -d' ' -f1)" = "$want" ] &&
  it_pass "32 MiB on tmpfs has the source's sha256" || it_fail "tmpfs copy differs from the source"
timeout -k 5 120 nfs-cp "$(it_url "$tfs/copy.bin")" "$IT_WORK/back.bin" >/dev/null || it_fail "nfs-cp from tmpfs failed"
[ "$(sha256sum < "$IT_WORK/back.bin" | cut -d' ' -f1)" = "$want" ] &&
  it_pass "32 MiB read back from tmpfs with the same sha256" || it_fail "tmpfs read-back differs"
rm -f "$src" "$IT_WORK/back.bin" "$tfs/copy.bin"
it_run it_io -e "$tfs" rw 16
# The ext4 export beside it is written too (so its stats have something to say).
it_run it_io -e "$IT_EXP" rw 4

# Errors from special filesystems.
it_run it_io -e "$small" nospc $((16 * 1024 * 1024))
it_run it_io -e "$ro" rofs existing
it_check_alive "tmpfs, full and read-only exports"

if it_is_dontcache; then
  # Stats are refreshed periodically (Stats_Interval_Ms, default 1 s) and written at shutdown.
  for i in $(seq 50); do
    [ -s "$IT_WORK/stats-tmpfs.json" ] && [ -s "$IT_WORK/stats-ext4.json" ] && break
    sleep 0.2
  done
  gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
  # Log lines about the fallback (not the stats JSON, which has a "fallback" field).
  fb() { grep -Ei 'falling back|fall(s|en)? back|fallback to|using fallback' "$IT_LOG" | grep -v 'stats: *{'; }
  mentions() { grep -F -e "$1 " -e "$1:" -e "$1)" -e "$1," -e "$1\"" | wc -l; }
  n=$(fb | mentions "$tfs")
  [ "$n" = 1 ] && it_pass "the log reports the fallback once for the tmpfs export" ||
    it_fail "log lines reporting the fallback for $tfs: $n (want exactly 1)"
  n=$(fb | mentions "$IT_EXP")
  [ "$n" = 0 ] && it_pass "no fallback reported for the ext4 export" ||
    it_fail "the ext4 export $IT_EXP reported a fallback ($n lines)"
  for f in tmpfs ext4; do
    if [ ! -s "$IT_WORK/stats-$f.json" ]; then it_fail "no stats file for the $f export"; continue; fi
  done
  if [ -s "$IT_WORK/stats-tmpfs.json" ]; then
    grep -q '"fallback": *true' "$IT_WORK/stats-tmpfs.json" &&
      it_pass "stats of the tmpfs export say \"fallback\":true" ||
      it_fail "stats of the tmpfs export do not say fallback: $(head -c 400 "$IT_WORK/stats-tmpfs.json")"
  fi
  if [ -s "$IT_WORK/stats-ext4.json" ]; then
    grep -q '"fallback": *false' "$IT_WORK/stats-ext4.json" &&
      it_pass "stats of the ext4 export say \"fallback\":false" ||
      it_fail "stats of the ext4 export: $(head -c 400 "$IT_WORK/stats-ext4.json")"
  fi
else
  it_skip_part "fallback log/stats checks are DONTCACHE-only: not run against $DC_TEST_FSAL"
fi
