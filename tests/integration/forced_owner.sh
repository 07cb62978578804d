#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A filesystem that forces ownership (issue 42 item 8c): a loop vfat (or, where the kernel
# has no vfat, exfat through exfat-fuse) mounted with uid=0,gid=0 (every object is root's,
# chown is refused or ignored) and umask=000, so uid 1000 may make names.
# Over NFSv3 as uid 1000 (it_caller3): MKDIR answers OK and the directory is there, as
# the kernel's server answers (it makes the object and reports the owner the filesystem
# gave); before, the module answered STALE (it took the root-owned new object for a local
# rename onto the name) and left the directory behind. A second MKDIR of the name answers
# EXIST. CREATE (it_caller3 fill) writes 1 MiB and commits. FSAL_VFS answers the same.
# Usage: forced_owner.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3
img=$IT_WORK/fat.img mnt=$IT_WORK/fat
truncate -s 64M "$img"
dev=$(losetup -f --show "$img") || it_die "losetup"
IT_LOOPS+=("$dev")
mkdir -p "$mnt"
# the kernel's vfat where it is built, else exfat through FUSE (exfat-fuse: the same
# uid=/gid= options and forced owner)
if grep -qw vfat /proc/filesystems && command -v mkfs.vfat >/dev/null; then
  mkfs.vfat -F 32 "$dev" >/dev/null 2>&1 || it_die "mkfs.vfat"
  mount -t vfat -o uid=0,gid=0,umask=000 "$dev" "$mnt" || it_die "mount vfat"
  kind=vfat
elif command -v mount.exfat-fuse >/dev/null && command -v mkfs.exfat >/dev/null; then
  mkfs.exfat "$dev" >/dev/null 2>&1 || it_die "mkfs.exfat"
  mount.exfat-fuse -o uid=0,gid=0,umask=000 "$dev" "$mnt" >/dev/null 2>&1 || it_die "mount.exfat-fuse"
  kind=exfat-fuse
else
  it_die "no vfat in this kernel and no exfat-fuse/exfatprogs: scripts/setup.sh installs them"
fi
IT_MOUNTS+=("$mnt")
it_log "$kind mounted uid=0,gid=0,umask=000 on $dev"
it_serve "$mnt"

line=$(caller 3 "$mnt" 1000 mkdir d1)
it_log "MKDIR d1 as uid 1000: $line; on disk: $(stat -c '%F %U' "$mnt/d1" 2>&1)"
if [ "$(st_of "$line")" = OK ] && [ -d "$mnt/d1" ]; then
  it_pass "MKDIR as uid 1000 on a uid=0 $kind: OK, the directory is there"
else
  it_fail "MKDIR as uid 1000 on a uid=0 $kind: $line (directory there: $([ -d "$mnt/d1" ] && echo yes || echo no))"
fi
line=$(caller 3 "$mnt" 1000 mkdir d1)
[ "$(st_of "$line")" = EXIST ] && it_pass "MKDIR of the name again: EXIST" ||
  it_fail "MKDIR of the name again: $line, want EXIST"
line=$(caller 3 "$mnt" 1000 fill f1 1)
it_log "CREATE + 1 MiB as uid 1000: $line"
[ "$(st_of "$line")" = OK ] && [ "$(stat -c %s "$mnt/f1")" = $((1 << 20)) ] &&
  it_pass "CREATE and 1 MiB WRITE + COMMIT as uid 1000: OK" ||
  it_fail "CREATE and WRITE as uid 1000: $line, size $(stat -c %s "$mnt/f1" 2>&1)"
it_check_alive "the creates on $kind"
