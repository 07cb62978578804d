#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# WRITEs as the caller clear set-id bits as a local user's write does (issue 36): over NFSv3
# and NFSv4.2 (it_caller3/it_caller4), an 8-byte WRITE + COMMIT
#   as uid 1000 into a root-owned 06777 file: 0777 (no CAP_FSETID: both bits cleared);
#   as uid 1000 into a root:1000 02775 file (the caller's group): 0775;
#   as root (No_Root_Squash) into a root-owned 06777 file: 06777 kept;
#   as root through a Root_Squash export with Anonymous_Uid/Gid = 1000: squashed, 0777.
# The data is written each time. Before issue 36 the module wrote as root and every file kept
# its bits. FSAL_VFS (--fsal VFS) answers the same.
# Usage: ascaller_setid.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3 it_caller4

exp=$IT_WORK/exp
mkdir -p "$exp/sq" && chmod 1777 "$exp" "$exp/sq"
conf=$IT_WORK/ganesha.conf
{
  echo "$exp|1|$(it_fsal_body_files 1)"
  echo "$exp/sq|2|$(it_fsal_body_files 2)"
} | it_conf "$conf"
awk '/Export_Id = 2;/ { two = 1 }
     two && /Squash = No_Root_Squash/ {
       sub(/Squash = No_Root_Squash;/, "Squash = Root_Squash; Anonymous_Uid = 1000; Anonymous_Gid = 1000;")
       two = 0 }
     { print }' "$conf" > "$conf.new" && mv "$conf.new" "$conf"
grep -q 'Anonymous_Uid = 1000' "$conf" || it_die "cannot write the Root_Squash export"
it_start "$conf"

setid_case() { # VERS EXPORT-DIR UID FILE OWNER:GROUP MODE WANT WHAT
  local v=$1 dir=$2 uid=$3 f=$4 own=$5 mode=$6 want=$7 what=$8 line m
  printf 'original' > "$dir/$f"
  chown "$own" "$dir/$f" && chmod "$mode" "$dir/$f"
  line=$(caller "$v" "$dir" "$uid" poke "$f")
  it_log "v$v uid $uid $f ($mode): $line"
  [ "$(st_of "$line")" = OK ] || it_fail "$what: the WRITE answered: $line"
  [ "$(head -c 8 "$dir/$f")" = "written!" ] || it_fail "$what: the data was not written"
  m=$(stat -c %a "$dir/$f")
  if [ "$m" = "$want" ]; then it_pass "$what: mode $m"; else it_fail "$what: mode $m, want $want"; fi
  rm -f "$dir/$f"
}
for v in 3 4; do
  setid_case $v "$exp" 1000 "s6777v$v" 0:0 6777 777 "v$v uid 1000 WRITE into root's 06777"
  setid_case $v "$exp" 1000 "g2775v$v" 0:1000 2775 775 "v$v uid 1000 WRITE into root:1000 02775"
  setid_case $v "$exp" 0 "r6777v$v" 0:0 6777 6777 "v$v root WRITE into root's 06777"
  setid_case $v "$exp/sq" 0 "q6777v$v" 0:0 6777 777 "v$v squashed root (Anonymous_Uid 1000) WRITE into root's 06777"
done
it_check_alive "the set-id WRITEs"
