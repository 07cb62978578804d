#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A reload that asks for a mode change to or from direct together with other changes (issue 17):
# the mode change is refused (files open their O_DIRECT descriptor when first opened: it needs a
# restart) and logged as refused, and every other change of the same reload is applied. Export 1
# (Write_Mode dontcache) is reloaded to Write_Mode direct with a new Max_Inflight_Bytes and
# Flush_Interval_Ms; export 2 (Write_Mode direct, Read_Mode direct) to Write_Mode buffered,
# Read_Mode buffered and Flush_Mode inline. Checked in the log (the refusal lines and each
# export's "reload: applied: ...; refused: ..." line) and in the stats files (modes kept, the
# other parameters changed); a file written and read back through each export afterwards.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "live reconfiguration is FSAL_DONTCACHE's"
command -v jq >/dev/null || it_skip "jq is not installed"

conf=$IT_WORK/ganesha.conf
E2=$IT_WORK/exp2
mkdir -p "$E2"
# mkconf W1 INFLIGHT1 INTERVAL1 W2 R2 FLUSH2
mkconf() {
  {
    echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $IT_WORK/k1; Stats_File = $IT_WORK/s1.json; Write_Mode = $1; Max_Inflight_Bytes = $2; Bench { Flush_Interval_Ms = $3; }"
    echo "$E2|2|Name = DONTCACHE; Handle_Key_File = $IT_WORK/k2; Stats_File = $IT_WORK/s2.json; Write_Mode = $4; Read_Mode = $5; Bench { Flush_Mode = $6; }"
  } | it_conf "$conf.new"
  echo "DONTCACHE { Stats_Interval_Ms = 200; }" >> "$conf.new"
  mv "$conf.new" "$conf"
}
jget() { jq -r ".engine | \"\(.write_mode) \(.read_mode) \(.flush_mode) \(.inflight.limit)\"" "$1" 2>/dev/null; }

mkconf dontcache 67108864 1000 direct direct coalesced
it_start "$conf"
[ "$(jget "$IT_WORK/s1.json")" = "dontcache buffered coalesced 67108864" ] &&
  [ "$(jget "$IT_WORK/s2.json")" = "direct direct coalesced 268435456" ] ||
  it_die "unexpected start: '$(jget "$IT_WORK/s1.json")' / '$(jget "$IT_WORK/s2.json")'"

mkconf direct 16777216 500 buffered buffered inline
kill -HUP "$GSH_PID"
for i in $(seq 100); do
  [ "$(grep -c 'reload: applied' "$IT_LOG")" -ge 2 ] && break
  sleep 0.1
done
l1=$(grep 'DONTCACHE export 1: reload: applied' "$IT_LOG" | tail -1)
l2=$(grep 'DONTCACHE export 2: reload: applied' "$IT_LOG" | tail -1)
[ -n "$l1" ] && [ -n "$l2" ] || it_die "no reload summary lines after SIGHUP: $(grep -m3 'reload' "$IT_LOG")"
it_log "export 1: ${l1##*: DONTCACHE }"
it_log "export 2: ${l2##*: DONTCACHE }"
check() { # LINE WANT...
  local line=$1 want; shift
  for want in "$@"; do
    case $line in
      *"$want"*) it_pass "summary has '$want'" ;;
      *) it_fail "summary '${line##*: DONTCACHE }' lacks '$want'" ;;
    esac
  done
}
check "$l1" "applied: Max_Inflight_Bytes 67108864 -> 16777216, Flush_Interval_Ms 1000 -> 500;" \
  "refused: Write_Mode (kept dontcache)"
check "$l2" "applied: Flush_Mode coalesced -> inline;" "refused: Write_Mode (kept direct), Read_Mode (kept direct)"
grep -q 'DONTCACHE export 1: reload: Write_Mode dontcache -> direct refused .*keeping dontcache' "$IT_LOG" &&
  it_pass "export 1: Write_Mode dontcache -> direct refused with its log line" ||
  it_fail "export 1: no line refusing Write_Mode dontcache -> direct"
grep -q 'DONTCACHE export 2: reload: Read_Mode direct -> buffered refused .*keeping direct' "$IT_LOG" &&
  it_pass "export 2: Read_Mode direct -> buffered refused with its log line" ||
  it_fail "export 2: no line refusing Read_Mode direct -> buffered"
grep -q 'reload refused' "$IT_LOG" && it_fail "a whole reload was refused: $(grep -m1 'reload refused' "$IT_LOG")"

sleep 0.6 # a stats rewrite
got1=$(jget "$IT_WORK/s1.json") got2=$(jget "$IT_WORK/s2.json")
[ "$got1" = "dontcache buffered coalesced 16777216" ] && it_pass "export 1 stats: $got1" ||
  it_fail "export 1 stats '$got1', want 'dontcache buffered coalesced 16777216'"
[ "$got2" = "direct direct inline 268435456" ] && it_pass "export 2 stats: $got2" ||
  it_fail "export 2 stats '$got2', want 'direct direct inline 268435456'"

# both exports still serve
head -c $((3 * 1024 * 1024 + 123)) /dev/urandom > "$IT_WORK/src"
for e in "$IT_EXP" "$E2"; do
  rm -f "$IT_WORK/back"
  if nfs-cp "$IT_WORK/src" "$(it_url "$e/f")" > "$IT_WORK/cp.out" 2>&1 &&
     nfs-cp "$(it_url "$e/f")" "$IT_WORK/back" >> "$IT_WORK/cp.out" 2>&1 &&
     cmp -s "$IT_WORK/src" "$IT_WORK/back"; then
    it_pass "$e: written and read back after the reload"
  else
    it_fail "$e: nfs-cp round trip after the reload failed: $(tr '\n' ' ' < "$IT_WORK/cp.out") $(cmp "$IT_WORK/src" "$IT_WORK/back" 2>&1)"
  fi
done
it_check_alive "the reload"
gsh_stop && it_pass "ganesha stopped cleanly" || it_fail "ganesha exited non-zero on SIGTERM"
