#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A truncate ends the memory of ranges lost past the new size (issue 8 items 6, 7). Export: an
# ext4 (no journal, errors=continue, 4 KiB device requests) on a loop device whose backing
# file lies on an ext4 of its own, made immutable (chattr +i) to make every write the device
# gets fail with EIO (as fault_verf4.sh's eio part). Once per way a client truncates named in
# FT_TRUNCATE_HOW (default "setattr create": NFSv3 SETATTR size 0, and CREATE UNCHECKED with
# size 0, which ganesha turns into an open by name with O_TRUNC on a second handle of the file
# that MDCACHE then throws away: the truncate must reach the engine file the live handle's
# COMMITs use), `it_io lostrange`:
#   fail      the device fails; 2 MiB of UNSTABLE WRITEs acknowledged; a whole-file COMMIT
#             must fail (their write-back failed: the range is remembered lost)
#   guard     the device works again, [0, 1 MiB) rewritten without a truncate: a whole-file
#             COMMIT must still fail (no false success for the range past it)
#   truncate  size 0, 1 MiB rewritten: the whole-file COMMIT must answer OK (Linux NFSv3
#             clients always COMMIT the whole file: before the fix it failed until restart)
#             and the data reads back.
# (Before issue 37 the loss came from a WRITE refused with NOSPC on a full filesystem; such a
# WRITE loses nothing acknowledged and is no longer remembered.)
# Stock VFS remembers nothing lost: its COMMIT answers are printed, the rest must hold.
# Usage: fault_truncate.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io
IO=$(it_prog it_io)
omnt=$IT_WORK/outer mnt=$IT_WORK/exp
it_loop_ext4 "$IT_WORK/outer.img" 96M "$omnt" -m 0 || it_die "cannot make the outer ext4"
img=$omnt/disk.img
truncate -s 64M "$img"
it_capped_ext4 "$img" "$mnt"
it_serve "$mnt"
mode=strict
[ "$DC_TEST_FSAL" = DONTCACHE ] || mode=info

sum=
for how in ${FT_TRUNCATE_HOW:-setattr create}; do
  out=$(timeout -k 5 120 "$IO" "${IT_NFS[@]}" lostrange "chattr +i '$img'" "chattr -i '$img'" \
        "$how" "$mode" 2>&1)
  rc=$?
  chattr -i "$img"
  echo "$out" >&2
  kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died ($how)"
  [ $rc = 0 ] || it_die "$how: $(echo "$out" | grep '^not ok' | tr '\n' ';')"
  sum="$sum $how=$(echo "$out" | grep -c '^ok')/$(echo "$out" | grep -c '^\(not \)\?ok')"
done
it_pass "checks passed:$sum (lost ranges remembered, not cleared by a partial rewrite, trimmed by the truncate)"
