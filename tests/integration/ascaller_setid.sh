#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# WRITEs as the caller clear set-id bits as a local user's write does (issue 36): over NFSv3
# and NFSv4.2 (it_caller3/it_caller4), an 8-byte WRITE + COMMIT
#   as uid 1000 into a root-owned 06777 file: 0777 (no CAP_FSETID: both bits cleared);
#   as uid 1000 into a root:1000 02775 file (the caller's group): 0775;
#   as root (No_Root_Squash) into a root-owned 06777 file: 06777 kept;
#   as root through a Root_Squash export with Anonymous_Uid/Gid = 1000: squashed, 0777.
# And a SETATTR size (NFSv3) as uid 1000 of a root-owned 06777 file runs as the caller too:
# 0777, as the kernel's own server and a local truncate make it (DONTCACHE; FSAL_VFS
# truncates as root and keeps 06777: printed).
# Each as an 8-byte WRITE and a 1 MiB one, on every path a WRITE takes in the module: the
# worker thread (default), the engine's pool (Worker_Write_Max = 0), Write_Mode = direct
# (range lock, O_DIRECT middle) on the worker and on the pool, Flush_Mode = inline, each an
# export of its own; squashed on the worker and, after a restart, on the pool. The data is written each
# time. Before issue 36 the module wrote as root and every file kept its bits. FSAL_VFS
# (--fsal VFS: the default export and the squashed one) answers the same.
# Usage: ascaller_setid.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS
. "$(dirname "$0")/../lib/harness.sh"
. "$(dirname "$0")/../lib/ascaller.sh"
it_need_prog it_caller3 it_caller4

setid_case() { # VERS EXPORT-DIR UID FILE OWNER:GROUP MODE WANT WHAT [KiB]
  local v=$1 dir=$2 uid=$3 f=$4 own=$5 mode=$6 want=$7 what=$8 kib=${9:-} line m
  printf 'original' > "$dir/$f"
  chown "$own" "$dir/$f" && chmod "$mode" "$dir/$f"
  line=$(caller "$v" "$dir" "$uid" poke "$f" $kib)
  it_log "v$v uid $uid $f ($mode${kib:+, $kib KiB}): $line"
  [ "$(st_of "$line")" = OK ] || it_fail "$what: the WRITE answered: $line"
  [ "$(head -c 8 "$dir/$f")" = "written!" ] || it_fail "$what: the data was not written"
  m=$(stat -c %a "$dir/$f")
  if [ "$m" = "$want" ]; then it_pass "$what: mode $m"; else it_fail "$what: mode $m, want $want"; fi
  rm -f "$dir/$f"
}
# cases EXPORT-DIR PATH-NAME: every case over v3 and v4, 8 bytes and 1 MiB
cases() {
  local dir=$1 name=$2 v kib sz
  for v in 3 4; do
    for kib in "" 1024; do
      sz=${kib:+1MiB}; sz=${sz:-8B}
      setid_case $v "$dir" 1000 "s6777v$v$sz" 0:0 6777 777 "$name v$v $sz uid 1000 WRITE into root's 06777" $kib
      setid_case $v "$dir" 1000 "g2775v$v$sz" 0:1000 2775 775 "$name v$v $sz uid 1000 WRITE into root:1000 02775" $kib
      setid_case $v "$dir" 0 "r6777v$v$sz" 0:0 6777 6777 "$name v$v $sz root WRITE into root's 06777" $kib
    done
  done
}
squashed() { # EXPORT-DIR PATH-NAME
  local v
  for v in 3 4; do
    setid_case $v "$1" 0 "q6777v$v" 0:0 6777 777 "$2 v$v squashed root (Anonymous_Uid 1000) WRITE into root's 06777"
  done
}
truncate_case() { # EXPORT-DIR WANT WHAT
  local f=$1/trunc6777 line m
  printf 'original' > "$f"
  chown 0:0 "$f" && chmod 6777 "$f"
  line=$(caller 3 "$1" 1000 trunc trunc6777 4)
  m=$(stat -c %a "$f")
  it_log "v3 SETATTR size 4 as uid 1000 of root's 06777: $line, mode $m, size $(stat -c %s "$f")"
  [ "$(st_of "$line")" = OK ] && [ "$(stat -c %s "$f")" = 4 ] || it_fail "$3: $line, size $(stat -c %s "$f")"
  if [ -z "$2" ]; then
    echo "# $3: mode $m"
  elif [ "$m" = "$2" ]; then
    it_pass "$3: mode $m"
  else
    it_fail "$3: mode $m, want $2"
  fi
  rm -f "$f"
}
# serve "DIR|PARAMS" ...: export i+1 = DIR (with the DONTCACHE params); the last one is
# squashed (Root_Squash, Anonymous_Uid/Gid 1000)
serve() {
  local conf=$IT_WORK/ganesha.conf i=0 e n=$#
  for e in "$@"; do
    i=$((i + 1))
    mkdir -p "${e%%|*}" && chmod 1777 "${e%%|*}"
    echo "${e%%|*}|$i|$(it_fsal_body_files $i "${e#*|}")"
  done | it_conf "$conf"
  awk -v last="Export_Id = $n;" 'index($0, last) { sq = 1 }
       sq && /Squash = No_Root_Squash/ {
         sub(/Squash = No_Root_Squash;/, "Squash = Root_Squash; Anonymous_Uid = 1000; Anonymous_Gid = 1000;")
         sq = 0 }
       { print }' "$conf" > "$conf.new" && mv "$conf.new" "$conf"
  grep -q 'Anonymous_Uid = 1000' "$conf" || it_die "cannot write the Root_Squash export"
  [ -n "${IT_CONF_EXTRA:-}" ] && echo "$IT_CONF_EXTRA" >> "$conf"
  IT_STARTS=$((IT_STARTS + 1))
  it_start "$conf" "$IT_WORK/ganesha.$IT_STARTS.log"
}

e=$IT_WORK/exp
if it_is_dontcache; then
  serve "$e/worker|" "$e/pool|Bench { Worker_Write_Max = 0; }" "$e/direct|Write_Mode = direct;" \
    "$e/pooldirect|Write_Mode = direct; Bench { Worker_Write_Max = 0; }" \
    "$e/inline|Bench { Flush_Mode = inline; }" "$e/sq|"
  grep -q 'engine started: .*thread pool' "$IT_LOG" || it_fail "the engine did not start its pool"
  cases "$e/worker" worker
  truncate_case "$e/worker" 777 "v3 SETATTR size as uid 1000 of root's 06777"
  cases "$e/pool" pool
  cases "$e/direct" direct
  cases "$e/pooldirect" pool-direct
  cases "$e/inline" inline
  squashed "$e/sq" worker
  it_check_alive "the set-id WRITEs"
  gsh_stop || it_fail "ganesha did not stop cleanly"
  serve "$e/poolsq|Bench { Worker_Write_Max = 0; }"
  squashed "$e/poolsq" pool
else
  serve "$e/worker|" "$e/sq|"
  cases "$e/worker" "$DC_TEST_FSAL"
  squashed "$e/sq" "$DC_TEST_FSAL"
  truncate_case "$e/worker" "" "$DC_TEST_FSAL v3 SETATTR size as uid 1000 of root's 06777"
fi
it_check_alive "the set-id WRITEs"
