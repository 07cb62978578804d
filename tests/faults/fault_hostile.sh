#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Hostile requests (issue 8): as a non-root caller (uid 1000 on a No_Root_Squash export, and
# uid 0 on a Root_Squash export, mapped to the anonymous uid 65534), every data-changing NFSv3
# procedure and the NFSv4 ones libnfs sends (OPEN for write / with truncate / upgrade, CREATE,
# SETATTR size/mode/owner/times, REMOVE, RENAME, LINK, MKDIR, ...) against files and
# directories the caller may not change: each is refused with the kernel server's status and
# nothing changes on disk (size, mode, owner, times, links, content checksum, directory
# entries, checked on the server before and after each request). A 0444 file created by the
# caller is written through the handle / open that created it (v3 UNCHECKED, GUARDED,
# EXCLUSIVE; v4 OPEN CREATE). Boundary offsets (0, 2^31, 2^32, 2^63-1, 2^63, 2^64-1, lengths
# that overflow) as WRITE, READ, COMMIT and SETATTR size over v3 and v4: FBIG/INVAL, nothing
# written, READs past EOF answer 0 bytes and eof.
# Usage: fault_hostile.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_hostile
it_loop_ext4 "$IT_WORK/disk.img" 256M "$IT_WORK/exp" || it_die "cannot make the ext4 export"
A=$IT_WORK/exp/a
B=$IT_WORK/exp/b
mkdir -p "$A" "$B" && chmod 755 "$A" "$B"

# export 1: /x, No_Root_Squash (as every test); export 2: /y, Root_Squash, anonymous 65534
conf=$IT_WORK/ganesha.conf
printf '%s|/x|1|%s\n%s|/y|2|%s\n' "$A" "$(it_fsal_body_files 1)" "$B" "$(it_fsal_body_files 2)" |
  gsh_conf "$conf" "$IT_WORK"
awk '/Export_Id = 2;/ { two = 1 }
     two && /Squash = No_Root_Squash/ {
       sub(/Squash = No_Root_Squash;/, "Squash = Root_Squash; Anonymous_Uid = 65534; Anonymous_Gid = 65534;")
       two = 0 }
     { print }' "$conf" > "$conf.new" && mv "$conf.new" "$conf"
grep -q 'Squash = Root_Squash' "$conf" || it_die "cannot write the Root_Squash export"
it_start "$conf" "$IT_WORK/ganesha.1.log"
common=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -f "$DC_TEST_FSAL")

fails=0 checks=0 passed=0 first=
run() {
  local out rc line
  out=$("$DC_FT_BIN/ft_hostile" "${common[@]}" "${IT_ZERO_READ[@]}" "${IT_GSH6[@]}" "$@" 2>&1)
  rc=$?
  echo "$out" >&2
  line=$(echo "$out" | grep '^ft_hostile:' | tail -n1)
  checks=$((checks + $(it_kv checks "$line"))) passed=$((passed + $(it_kv passed "$line")))
  if [ $rc != 0 ]; then
    fails=$((fails + 1))
    [ -n "$first" ] || first="$*: $(echo "$out" | grep -E '^not ok|ft_hostile' | head -3 | tr '\n' ';')"
  fi
}
it_log "uid 1000 on /x (No_Root_Squash), with boundary offsets"
run -e "$A" -4 /x -u 1000 -g 1000 -o 1000 -b
it_log "uid 0 on /y (Root_Squash -> 65534)"
run -e "$B" -4 /y -u 0 -g 0 -o 65534
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died: $first"
gsh_stop || it_die "ganesha did not stop cleanly"
[ $fails = 0 ] || it_die "$first checks=$checks passed=$passed"
it_pass "checks=$checks passed=$passed"
