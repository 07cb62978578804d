#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# WRITEs and ALLOCATEs as the caller get the caller's share of ext4, not root's reserve
# (issue 36). A 96 MiB ext4 made with `mkfs.ext4 -m 50` (half the blocks reserved for root);
# over NFSv3 and then NFSv4.2 (it_caller3/it_caller4, 1 MiB UNSTABLE WRITEs then COMMIT):
#   root writes 2 MiB; uid 1000 then writes 80 MiB: NOSPC at a WRITE or the COMMIT, and at
#   most the user's share (statvfs f_bavail just before, plus one 1 MiB WRITE) on disk;
#   each part on an ext4 of its own;
#   root then writes 4 MiB into the reserve (OK) and its first 2 MiB read back intact.
# NFSv4.2 ALLOCATE of 80 MiB as uid 1000: NOSPC, at most the share allocated; root's 4 MiB
# ALLOCATE: OK (v42.c already ran ALLOCATE as the caller: a change running it as root fails
# here). Before issue 36 the module wrote as root: the user's 80 MiB all landed (OK).
# FSAL_VFS (--fsal VFS) gives the user the same (the log's "# reserve" lines).
# Usage: ascaller_reserve.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3 it_caller4

# one filesystem per part (ganesha keeps a removed file's fd, and so its blocks)
for part in v3 v4 alloc; do
  it_loop_ext4 "$IT_WORK/$part.img" 96M "$IT_WORK/$part" -m 50 ||
    it_die "cannot make the -m 50 ext4 for $part"
  chmod 1777 "$IT_WORK/$part"
done
{
  echo "$IT_WORK/v3|1|$(it_fsal_body_files 1)"
  echo "$IT_WORK/v4|2|$(it_fsal_body_files 2)"
  echo "$IT_WORK/alloc|3|$(it_fsal_body_files 3)"
} | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

pattern_ok() { # FILE MiB: all 'Z' (it_caller's 0x5a)
  cmp -s "$1" <(head -c $(($2 * MiB)) /dev/zero | tr '\0' 'Z')
}
for v in 3 4; do
  res=$IT_WORK/v$v
  sync
  line=$(caller $v "$res" 0 fill "root0v$v" 2)
  [ "$(st_of "$line")" = OK ] || it_fail "v$v root's first 2 MiB: $line"
  sync
  avail=$(avail_bytes "$res")
  line=$(caller $v "$res" 1000 fill "userv$v" 80)
  sync
  got=$(blocks_bytes "$res/userv$v")
  it_log "v$v uid 1000 80 MiB: $line; share $avail, on disk $got"
  echo "# reserve v$v ($DC_TEST_FSAL): the user's share $avail bytes, WRITEs acknowledged $(it_kv written "$line"), on disk $got, $(st_of "$line") at the $(it_kv at "$line")"
  if [ "$(st_of "$line")" = NOSPC ]; then
    it_pass "v$v uid 1000 past its share: NOSPC at the $(it_kv at "$line")"
  else
    it_fail "v$v uid 1000 wrote 80 MiB on a -m 50 ext4 of 96 MiB: $line"
  fi
  if [ "$got" -le $((avail + MiB)) ]; then
    it_pass "v$v uid 1000 has at most its share on disk ($got <= $avail + 1 MiB)"
  else
    it_fail "v$v uid 1000 has $got bytes on disk, its share was $avail (root's reserve taken)"
  fi
  line=$(caller $v "$res" 0 fill "rootv$v" 4)
  if [ "$(st_of "$line")" = OK ]; then
    it_pass "v$v root writes 4 MiB into the reserve afterwards"
  else
    it_fail "v$v root cannot write into its reserve: $line"
  fi
  if pattern_ok "$res/root0v$v" 2; then
    it_pass "v$v root's earlier 2 MiB intact"
  else
    it_fail "v$v root's earlier 2 MiB changed"
  fi
done

res=$IT_WORK/alloc
sync
avail=$(avail_bytes "$res")
line=$(caller 4 "$res" 1000 alloc alloc4 80)
sync
got=$(blocks_bytes "$res/alloc4")
it_log "v4.2 ALLOCATE 80 MiB as uid 1000: $line; share $avail, allocated $got"
echo "# reserve ALLOCATE ($DC_TEST_FSAL): the user's share $avail bytes, allocated $got, $(st_of "$line")"
alloc_ok=1
case $(st_of "$line") in
  NOSPC) it_pass "ALLOCATE past the share as uid 1000: NOSPC" ;;
  NOTSUPP) alloc_ok=0; it_skip_part "ALLOCATE: $DC_TEST_FSAL answers NOTSUPP" ;;
  *) it_fail "ALLOCATE of 80 MiB as uid 1000 on a -m 50 ext4 of 96 MiB: $line" ;;
esac
if [ $alloc_ok = 1 ]; then
  if [ "$got" -le $((avail + MiB)) ]; then
    it_pass "ALLOCATE as uid 1000 got at most its share ($got <= $avail + 1 MiB)"
  else
    it_fail "ALLOCATE as uid 1000 got $got bytes, its share was $avail (root's reserve taken)"
  fi
  line=$(caller 4 "$res" 0 alloc ralloc4 4)
  if [ "$(st_of "$line")" = OK ]; then
    it_pass "root's ALLOCATE of 4 MiB into the reserve"
  else
    it_fail "root's ALLOCATE of 4 MiB: $line"
  fi
fi
it_check_alive "the writes past the user's share"
