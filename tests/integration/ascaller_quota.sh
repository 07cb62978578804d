#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Guard (issue 36): block quotas hold for WRITEs as the caller. An ext4 with the quota
# feature (`mkfs.ext4 -O quota -E quotatype=usrquota`), a 16 MiB block limit for uid 1000
# (`setquota`); uid 1000 writes 32 MiB over NFSv3 and over NFSv4.2 (1 MiB UNSTABLE WRITEs,
# COMMIT): DQUOT at a WRITE or the COMMIT, the file is uid 1000's and its blocks are in uid
# 1000's usage (repquota), at most the limit and one WRITE. It may pass on the module before
# issue 36 too: ganesha drops CAP_SYS_RESOURCE, so root's writes were charged and limited.
# Needs the Debian package quota (setquota, repquota, quotaon) and a kernel with ext4 quota
# (CONFIG_QUOTA, CONFIG_QFMT_V2): else exit 77 naming what is missing.
# Usage: ascaller_quota.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3 it_caller4

for t in setquota repquota quotaon; do
  command -v $t >/dev/null || it_skip "$t missing: install the Debian package quota"
done
qmnt=$IT_WORK/quota
if ! it_loop_ext4 "$IT_WORK/quota.img" 64M "$qmnt" -m 0 -O quota -E quotatype=usrquota; then
  if dmesg 2>/dev/null | tail -n 5 | grep -q 'CONFIG_QUOTA'; then
    it_skip "this kernel has no ext4 quota: $(dmesg | grep 'CONFIG_QUOTA' | tail -n1 | sed 's/^\[[^]]*\] //')"
  fi
  it_die "cannot make the quota ext4"
fi
chmod 1777 "$qmnt"
quotaon -u "$qmnt" 2>/dev/null || true
quotaon -pu "$qmnt" 2>&1 | grep -q 'is on' || it_die "user quota not enforced on $qmnt: $(quotaon -pu "$qmnt" 2>&1)"
setquota -u 1000 16384 16384 0 0 "$qmnt" || it_die "setquota"
it_serve "$qmnt"

for v in 3 4; do
  line=$(caller $v "$qmnt" 1000 fill "quotav$v" 32)
  sync
  it_log "v$v uid 1000 32 MiB past a 16 MiB quota: $line"
  if [ "$(st_of "$line")" = DQUOT ]; then
    it_pass "v$v uid 1000 past its quota: DQUOT at the $(it_kv at "$line")"
  else
    it_fail "v$v uid 1000 past its 16 MiB quota: $line"
  fi
  owner=$(stat -c %u "$qmnt/quotav$v")
  kib=$(($(stat -c %b "$qmnt/quotav$v") / 2))
  used=$(repquota -un "$qmnt" | awk '$1 == "#1000" { print $3 }')
  it_log "v$v file owner $owner, $kib KiB; uid 1000's usage ${used:-none} KiB"
  if [ "$owner" = 1000 ] && [ -n "$used" ] && [ "$kib" -gt 0 ] && [ "$used" -ge "$kib" ] &&
     [ "$used" -le $((16384 + 1024)) ]; then
    it_pass "v$v the charge is uid 1000's ($used KiB used, the file $kib KiB)"
  else
    it_fail "v$v the charge: owner $owner, the file $kib KiB, uid 1000 uses ${used:-none} KiB"
  fi
  rm -f "$qmnt/quotav$v"
  sync
done
it_check_alive "the writes past the quota"
