#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A truncate ends the memory of ranges lost past the new size (issue 8 items 6, 7). Export: a
# small loop-mounted ext4 that a server-side filler file fills, leaving 3 MiB. Once per way a
# client truncates named in FT_TRUNCATE_HOW (default "setattr create": NFSv3 SETATTR size 0,
# and CREATE UNCHECKED with size 0, which ganesha turns into an open by name with O_TRUNC on a
# second handle of the file that MDCACHE then throws away: the truncate must reach the engine
# file the live handle's COMMITs use), `it_io lostrange`:
#   fill      UNSTABLE WRITEs until one fails with NOSPC past the first MiB; a whole-file
#             COMMIT must fail (the range is remembered lost)
#   guard     the filler REMOVEd through NFS, [0, 1 MiB) rewritten without a truncate: a
#             whole-file COMMIT must still fail (no false success for the range past it)
#   truncate  size 0, 1 MiB rewritten: the whole-file COMMIT must answer OK (Linux NFSv3
#             clients always COMMIT the whole file: before the fix it failed until restart)
#             and the data reads back.
# Stock VFS remembers nothing lost: its COMMIT answers are printed, the rest must hold.
# Usage: fault_truncate.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io
IO=$(it_prog it_io)
mnt=$IT_WORK/exp
it_loop_ext4 "$IT_WORK/disk.img" 32M "$mnt" -m 0 || it_die "cannot make the ext4 export"
it_serve "$mnt"
mode=strict
[ "$DC_TEST_FSAL" = DONTCACHE ] || mode=info

sum=
for how in ${FT_TRUNCATE_HOW:-setattr create}; do
  avail=$(df -k --output=avail "$mnt" | tail -1)
  fallocate -l $(((avail - 3072) * 1024)) "$mnt/fill.$how" ||
    it_die "cannot fill the filesystem"
  sync -f "$mnt"
  it_log "$how: filled, $(df -h --output=used,avail "$mnt" | tail -1)"
  out=$(timeout -k 5 120 "$IO" "${IT_NFS[@]}" lostrange "fill.$how" "$how" "$mode" 2>&1)
  rc=$?
  echo "$out" >&2
  kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died ($how)"
  [ $rc = 0 ] || it_die "$how: $(echo "$out" | grep '^not ok' | tr '\n' ';')"
  sum="$sum $how=$(echo "$out" | grep -c '^ok')/$(echo "$out" | grep -c '^\(not \)\?ok')"
done
it_pass "checks passed:$sum (lost ranges remembered, not cleared by a partial rewrite, trimmed by the truncate)"
