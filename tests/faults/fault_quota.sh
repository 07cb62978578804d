#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# An over-quota client (issue 37 items 1-2): the export is a 32 MiB ext4 on a loop device,
# filled to the last block; a client (uid 1000) sends N (50000) 1-byte UNSTABLE WRITEs at
# descending even offsets of one file (ft_quota), every one refused with NOSPC by write()
# itself, then COMMITs the file. The client saw every WRITE fail and the kernel consumed no
# write-back report: the module must remember nothing and spend no flush on them.
# PASS: every WRITE answered NOSPC, the COMMIT answers OK (as the kernel's NFS server does),
# no settle flush was run for them (stats: group_commit.settles unchanged) and ganesha's RSS
# grew by less than 1 MiB over them (before issue 37 each refused WRITE added a lost range:
# 50000 ranges, an O(n) insert each, a settle fdatasync each, and the COMMIT failed).
# Usage: fault_quota.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS; FT_QUOTA_N (50000)
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_quota
command -v jq >/dev/null || it_skip "jq is not installed"
N=${FT_QUOTA_N:-50000}
mnt=$IT_WORK/exp
it_loop_ext4 "$IT_WORK/disk.img" 32M "$mnt" -m 0 || it_die "cannot make the ext4 export"
chmod 1777 "$mnt"
avail=$(df -k --output=avail "$mnt" | tail -1)
fallocate -l $((avail * 1024)) "$mnt/fill" 2>/dev/null ||
  fallocate -l $(((avail - 4) * 1024)) "$mnt/fill" || it_die "cannot fill the filesystem"
sync -f "$mnt"
it_is_dontcache && IT_CONF_EXTRA='DONTCACHE { Stats_Interval_Ms = 200; }'
it_serve "$mnt"
rss() { awk '/^VmRSS:/{print $2}' "/proc/$GSH_PID/status"; }
settles() {
  it_is_dontcache || { echo 0; return; }
  sleep 0.5
  jq -r '.engine.group_commit.settles' "$IT_WORK/export-1.stats.json"
}
Q=("$DC_FT_BIN/ft_quota" "${IT_NFS[@]}" -u 1000)

# warm-up: ganesha's request paths and caches
out=$("${Q[@]}" -f warm -n 2000 2>&1 | tail -1)
it_log "warm-up: $out"
[ "$(it_kv nospc "$out")" = 2000 ] || it_die "the full filesystem did not refuse the WRITEs: $out"
r0=$(rss) s0=$(settles)
out=$("${Q[@]}" -f hostile -n "$N" 2>&1 | tail -1)
r1=$(rss) s1=$(settles)
it_log "hostile: $out"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died"
sum="writes=$N nospc=$(it_kv nospc "$out") commit=$(it_kv commit "$out") us_per_write=$(it_kv us_per_write "$out") rss_kb=$r0->$r1 (+$((r1 - r0))) settles=$s0->$s1"
[ "$(it_kv nospc "$out")" = "$N" ] || it_die "not every WRITE was refused with NOSPC: $sum"
[ "$(it_kv commit "$out")" = OK ] || it_die "a COMMIT after refused WRITEs failed (they were remembered lost): $sum"
[ "$s1" = "$s0" ] || it_die "refused WRITEs ran settle flushes: $sum"
[ $((r1 - r0)) -lt 1024 ] || it_die "ganesha's RSS grew by 1 MiB or more over refused WRITEs: $sum"
it_pass "$sum"
