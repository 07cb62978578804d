#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Bench { Dontcache_Kick } (issues 19, 38): what a WRITE issued on the worker thread becomes.
# For each value (inline, deferred, auto) ganesha is started with the default Worker_Write_Max
# (every WRITE on the worker), 8 MiB is written with nfs-cp and read back, and the stats file
# shows where the bytes went: inline with Bench { Kick_Us_Per_MiB = 0 } -> buffered
# (writes.dropbehind.issued_bytes, the flusher writes them back and drops them); inline with
# the default Kick_Us_Per_MiB -> its 1 MiB WRITEs RWF_DONTCACHE, the kernel kicking their
# writeback, while those kicks stay within the limit (worker_writes.kicked; at least the first
# one is), the rest buffered; deferred -> RWF_DONTCACHE (writes.dontcache.issued_bytes); auto ->
# what the export's probe found on its filesystem (a RWF_DONTCACHE write and cachestat of its
# pages: 6.18's ext4 kicks inline), all counted as worker writes. The export's start line
# names the decision and, for auto, the probe's figures. A value that is none of them is a
# config error naming Dontcache_Kick, and the export is not served.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "Dontcache_Kick is FSAL_DONTCACHE's"
command -v jq >/dev/null || it_skip "jq is not installed"

head -c $((8 * 1024 * 1024)) /dev/urandom > "$IT_WORK/src"

for case_ in inline:0 inline deferred auto; do
  k=${case_%%:*} lim=
  [ "$case_" != "$k" ] && lim=${case_#*:}
  IT_CONF_EXTRA="DONTCACHE { Stats_Interval_Ms = 200; Bench { Dontcache_Kick = $k; } }"
  it_serve "$IT_EXP" ${lim:+"Bench { Kick_Us_Per_MiB = $lim; }"}
  k=$k${lim:+ (Kick_Us_Per_MiB $lim)}
  grep -q "engine started:.*Dontcache_Kick ${k%% *}" "$IT_LOG" &&
    it_pass "$k: the engine's start line names Dontcache_Kick ${k%% *}" ||
    it_fail "$k: no engine start line with Dontcache_Kick ${k%% *}"
  line=$(grep -m1 -o "writeback kick [a-z]*: [^)]*" "$IT_LOG")
  want=${line#writeback kick }; want=${want%%:*}
  case ${k%% *} in
    auto)
      case $line in
        *": probed: a 4194304-byte RWF_DONTCACHE write left "*" pages dirty"*)
          it_pass "auto: the export probed its filesystem: ${line#writeback kick }" ;;
        *) it_fail "auto: the export's start line has no probe figures: '$line'" ;;
      esac ;;
    *)
      [ "$want" = "${k%% *}" ] && it_pass "$k: the export's start line says writeback kick $want" ||
        it_fail "$k: the export's start line says '$line'" ;;
  esac
  [ "$want" = inline ] && [ -z "$lim" ] && want=kick
  rm -f "$IT_WORK/back"
  f=f-${case_%%:*}-${lim:-d}
  if nfs-cp "$IT_WORK/src" "$(it_url "$IT_EXP/$f")" > "$IT_WORK/cp.out" 2>&1 &&
     nfs-cp "$(it_url "$IT_EXP/$f")" "$IT_WORK/back" >> "$IT_WORK/cp.out" 2>&1 &&
     cmp -s "$IT_WORK/src" "$IT_WORK/back"; then
    it_pass "$k: 8 MiB written and read back"
  else
    it_fail "$k: nfs-cp round trip failed: $(tr '\n' ' ' < "$IT_WORK/cp.out")"
  fi
  gsh_stop || it_fail "$k: ganesha exited non-zero on SIGTERM"
  s=$IT_WORK/export-1.stats.json
  j() { jq -r ".engine.$1 // 0" "$s" 2>/dev/null; }
  ww=$(j worker_writes.bytes) dc=$(j writes.dontcache.issued_bytes) db=$(j writes.dropbehind.issued_bytes)
  kk=$(j worker_writes.kicked)
  it_log "$k: worker_writes.bytes $ww, dontcache issued $dc, dropbehind issued $db, kicked $kk"
  [ "${ww:-0}" -ge $((8 * 1024 * 1024)) ] && it_pass "$k: every written byte issued on the worker ($ww)" ||
    it_fail "$k: worker_writes.bytes $ww < 8 MiB (default Worker_Write_Max takes every WRITE)"
  if [ $want = inline ]; then
    [ "${db:-0}" -ge $((8 * 1024 * 1024)) ] && [ "${dc:-0}" = 0 ] && [ "${kk:-0}" = 0 ] &&
      it_pass "$k: issued buffered for the flusher (dropbehind $db, dontcache $dc)" ||
      it_fail "$k: want buffered issue: dropbehind $db, dontcache $dc, kicked $kk"
  elif [ $want = kick ]; then
    [ "${kk:-0}" -ge 1 ] && [ "${dc:-0}" -ge $((kk * 1024 * 1024)) ] &&
      [ $((dc + db)) -ge $((8 * 1024 * 1024)) ] &&
      it_pass "$k: $kk 1 MiB WRITEs issued RWF_DONTCACHE with the kernel's kick (dontcache $dc, dropbehind $db)" ||
      it_fail "$k: want the 1 MiB WRITEs kicked: kicked $kk, dontcache $dc, dropbehind $db"
  else
    [ "${dc:-0}" -ge $((8 * 1024 * 1024)) ] && [ "${db:-0}" = 0 ] &&
      it_pass "$k: issued RWF_DONTCACHE (dontcache $dc, dropbehind $db)" ||
      it_fail "$k: want RWF_DONTCACHE issue: dontcache $dc, dropbehind $db"
  fi
  rm -f "$s"
done

# a bad value: refused, named, not served
conf=$IT_WORK/bad.conf log=$IT_WORK/bad.log
echo "$IT_EXP|1|$(it_fsal_body_files 1)" | it_conf "$conf"
echo "DONTCACHE { Bench { Dontcache_Kick = sometimes; } }" >> "$conf"
IT_LOG=$log
if GSH_START_TRIES=100 gsh_start "$conf" "$log"; then
  timeout -k 2 20 nfs-ls "$(it_url "$IT_EXP" 3)" >/dev/null 2>&1 &&
    it_fail "Dontcache_Kick = sometimes: the export is served" ||
    it_pass "Dontcache_Kick = sometimes: ganesha runs without the export"
  gsh_stop
else
  it_pass "Dontcache_Kick = sometimes: ganesha refused to start"
fi
grep -q 'CRIT.*Bench { Dontcache_Kick } = "sometimes" is not one of auto, inline, deferred' "$log" &&
  it_pass "the log names Dontcache_Kick" || it_fail "no CRIT line names Dontcache_Kick = sometimes"
