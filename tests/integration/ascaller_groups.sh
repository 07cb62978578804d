#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# WRITEs as the caller carry the caller's auxiliary groups (issue 42 item 9b): over NFSv3
# (it_caller3 -G), uid 1000 (gid 1000) with the auxiliary group 2000 sends an 8-byte WRITE +
# COMMIT (and a 1 MiB one)
#   into a root:2000 0660 file: OK, written (as FSAL_VFS and a local write by such a user);
#   into a root:2001 0660 file (a group it is not in): ACCES, nothing written;
#   into a root:2000 02660 file: OK, and the set-group-id bit stays (the kernel keeps it for a
#   writer in the file's group, clears it for any other: the check that sees whether the
#   module's write ran with the caller's supplementary groups; the first two are decided by
#   ganesha's own access check before the module writes).
# On the worker thread (default) and on the engine's threads (Worker_Write_Max = 0), an
# export each. FSAL_VFS (--fsal VFS) answers the same.
# Usage: ascaller_groups.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3

# grp_case DIR FILE GROUP MODE WANT-STATUS WANT-MODE WHAT [KiB]
grp_case() {
  local dir=$1 f=$2 grp=$3 mode=$4 wst=$5 wmode=$6 what=$7 kib=${8:-} line st m
  printf 'original' > "$dir/$f"
  chown "0:$grp" "$dir/$f" && chmod "$mode" "$dir/$f"
  line=$(timeout -k 5 240 "$DC_IT_BIN/it_caller3" -H 127.0.0.1 -p "$GSH_NFS_PORT" \
    -M "$GSH_MNT_PORT" -e "$dir" -u 1000 -g 1000 -G 2000 poke "$f" $kib 2>&1 | tail -n1)
  st=$(st_of "$line")
  m=$(stat -c %a "$dir/$f")
  it_log "uid 1000 (aux 2000) $f (0:$grp $mode${kib:+, $kib KiB}): $line, mode $m"
  if [ "$wst" = OK ]; then
    [ "$st" = OK ] || { it_fail "$what: the WRITE answered: $line"; rm -f "$dir/$f"; return; }
    [ "$(head -c 8 "$dir/$f")" = "written!" ] || it_fail "$what: the data was not written"
  else
    [ "$st" = "$wst" ] || it_fail "$what: the WRITE answered: $line, want $wst"
    [ "$(cat "$dir/$f")" = original ] || it_fail "$what: the file changed"
  fi
  if [ "$m" = "$wmode" ]; then it_pass "$what: $st, mode $m"; else it_fail "$what: mode $m, want $wmode"; fi
  rm -f "$dir/$f"
}
cases() { # EXPORT-DIR PATH-NAME
  local dir=$1 name=$2 kib sz
  for kib in "" 1024; do
    sz=${kib:+1MiB}; sz=${sz:-8B}
    grp_case "$dir" "g0660$sz" 2000 0660 OK 660 "$name $sz WRITE into root:2000 0660" $kib
    grp_case "$dir" "o0660$sz" 2001 0660 ACCES 660 "$name $sz WRITE into root:2001 0660" $kib
    grp_case "$dir" "s2660$sz" 2000 2660 OK 2660 "$name $sz WRITE into root:2000 02660" $kib
  done
}
serve() { # "DIR|PARAMS" ...: export i+1 = DIR (with the DONTCACHE params)
  local conf=$IT_WORK/ganesha.conf i=0 e
  for e in "$@"; do
    i=$((i + 1))
    mkdir -p "${e%%|*}" && chmod 1777 "${e%%|*}"
    echo "${e%%|*}|$i|$(it_fsal_body_files $i "${e#*|}")"
  done | it_conf "$conf"
  IT_STARTS=$((IT_STARTS + 1))
  it_start "$conf" "$IT_WORK/ganesha.$IT_STARTS.log"
}

e=$IT_WORK/exp
if it_is_dontcache; then
  serve "$e/worker|" "$e/pool|Bench { Worker_Write_Max = 0; }"
  cases "$e/worker" worker
  cases "$e/pool" engine
else
  serve "$e/worker|"
  cases "$e/worker" "$DC_TEST_FSAL"
fi
it_check_alive "the WRITEs with auxiliary groups"
