#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The stats writers never write through a name someone else put there (issue 17 item 1).
# Export 1 writes Stats_File and Prometheus_File into a group-writable directory (allowed, as a
# node_exporter textfile directory often is) where symlinks to root-owned files were planted at
# the names the writer used to open with O_CREAT|O_TRUNC (<file>.tmp) and at the keep files'
# names (.<file>.keep-a/-b, stats_discard.sh), a FIFO at another keep name, and the
# Prometheus_File itself is a symlink: both files are written as regular 0644 files, the link
# at the final name is replaced, and the files the links point to keep their contents and mode;
# no temporary file is left behind (nor a keep file after shutdown). Export 2's Stats_File is in
# a world-writable directory without the sticky bit and export 3's in a directory owned by uid
# 1000: neither is written, the log says why at start and when the writer refuses; export 2's
# Prometheus_File in a sticky world-writable directory (/tmp-like) is written.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the stats files are FSAL_DONTCACHE's"
command -v jq >/dev/null || it_skip "jq is not installed"

S=$IT_WORK/textfile W=$IT_WORK/open T=$IT_WORK/sticky U=$IT_WORK/user
mkdir -p "$S" "$W" "$T" "$U" "$IT_WORK/exp2" "$IT_WORK/exp3"
chown 0:1000 "$S" && chmod 0775 "$S"
chmod 0777 "$W"
chmod 1777 "$T"
chown 1000:1000 "$U" && chmod 0755 "$U"
victim=$IT_WORK/victim victim2=$IT_WORK/victim2
printf 'precious\n' > "$victim"
printf 'also precious\n' > "$victim2"
chmod 0600 "$victim" "$victim2"
sum0=$(sha256sum "$victim" "$victim2")
ln -s "$victim" "$S/stats.json.tmp"
ln -s "$victim" "$S/dc.prom.tmp"
ln -s "$victim2" "$S/dc.prom"
# the keep files' names are known in advance (.<name>.keep-a/-b): a link and a FIFO planted there
ln -s "$victim" "$S/.stats.json.keep-a"
ln -s "$victim2" "$S/.stats.json.keep-b"
mkfifo "$S/.dc.prom.keep-a"

{
  echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-1; Stats_File = $S/stats.json; Prometheus_File = $S/dc.prom;"
  echo "$IT_WORK/exp2|2|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-2; Stats_File = $W/stats.json; Prometheus_File = $T/dc2.prom;"
  echo "$IT_WORK/exp3|3|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-3; Stats_File = $U/stats.json;"
} | it_conf "$IT_WORK/ganesha.conf"
echo "DONTCACHE { Stats_Interval_Ms = 200; }" >> "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
sleep 1.5 # several rewrites

[ "$(sha256sum "$victim" "$victim2")" = "$sum0" ] &&
  [ "$(stat -c %a "$victim") $(stat -c %a "$victim2")" = "600 600" ] &&
  it_pass "the files the planted links point to are unchanged (contents, mode 0600)" ||
  it_fail "a planted link was followed: victim now '$(head -c 80 "$victim")', victim2 '$(head -c 80 "$victim2")', modes $(stat -c %a "$victim" "$victim2" | tr '\n' ' ')"
for f in "$S/stats.json" "$S/dc.prom" "$T/dc2.prom"; do
  if [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c '%a %u' "$f")" = "644 0" ]; then
    it_pass "$f written: a regular file, 0644, root's"
  else
    it_fail "$f: $(ls -l "$f" 2>&1)"
  fi
done
jq -e '.export_id == 1 and (.engine.writes | type == "object")' "$S/stats.json" >/dev/null 2>&1 &&
  it_pass "Stats_File holds the export's stats" || it_fail "Stats_File: $(head -c 200 "$S/stats.json")"
grep -q '^dontcache_.*export_id="1"' "$S/dc.prom" && it_pass "Prometheus_File holds export 1's figures" ||
  it_fail "Prometheus_File: $(head -c 200 "$S/dc.prom")"
grep -q '^dontcache_.*export_id="2"' "$T/dc2.prom" 2>/dev/null &&
  it_pass "a sticky world-writable directory is written to" || it_fail "no $T/dc2.prom"
left=$(ls -A "$S" | grep -v -x -e stats.json -e dc.prom -e stats.json.tmp -e dc.prom.tmp \
  -e '\.stats\.json\.keep-[ab]' -e '\.dc\.prom\.keep-[ab]')
[ -z "$left" ] && it_pass "no temporary file left in $S (only the keep files, stats_discard.sh)" ||
  it_fail "left in $S: $left"
[ -L "$S/stats.json.tmp" ] && [ -L "$S/dc.prom.tmp" ] &&
  it_pass "the planted links themselves are left alone" || it_fail "a planted .tmp link was removed or replaced"

[ ! -e "$W/stats.json" ] && it_pass "nothing written in the world-writable directory $W" ||
  it_fail "$W/stats.json written in a world-writable directory"
[ ! -e "$U/stats.json" ] && it_pass "nothing written in the directory owned by uid 1000" ||
  it_fail "$U/stats.json written in a directory owned by uid 1000"
left=$(find "$W" "$U" -mindepth 1)
[ -z "$left" ] && it_pass "no file at all in $W and $U" || it_fail "files in $W or $U: $left"
grep -q "DONTCACHE export 2: Stats_File $W/stats.json: its directory $W is writable by everyone (mode 0777, no sticky bit): refused" "$IT_LOG" &&
  it_pass "start: the world-writable directory is named as refused" ||
  it_fail "no start line refusing $W"
grep -q "DONTCACHE export 2: cannot write Stats_File $W/stats.json: its directory $W is writable by everyone" "$IT_LOG" &&
  it_pass "the writer logs its refusal" || it_fail "no line from the writer refusing $W/stats.json"
grep -q "DONTCACHE export 3: Stats_File $U/stats.json: its directory $U is owned by uid 1000, not root: refused" "$IT_LOG" &&
  it_pass "the directory owned by uid 1000 is named as refused" || it_fail "no line refusing $U"
n=$(grep -c "cannot write Stats_File $W/stats.json" "$IT_LOG")
[ "$n" -le 1 ] && it_pass "the writer's refusal is rate-limited ($n line in 1.5 s of 200 ms rewrites)" ||
  it_fail "the writer's refusal logged $n times in 1.5 s"

# made safe, the directory is written to at the next rewrite
chmod 0755 "$W"
for i in $(seq 30); do [ -f "$W/stats.json" ] && break; sleep 0.1; done
[ -f "$W/stats.json" ] && it_pass "once $W is no longer world-writable, its Stats_File is written" ||
  it_fail "$W/stats.json not written after chmod 0755"
it_check_alive "the stats writers"
gsh_stop && it_pass "ganesha stopped cleanly" || it_fail "ganesha exited non-zero on SIGTERM"
[ "$(sha256sum "$victim" "$victim2")" = "$sum0" ] &&
  it_pass "the victims are unchanged after the final write at shutdown" ||
  it_fail "a planted link was followed at shutdown"
left=$(ls -A "$S" | grep -v -x -e stats.json -e dc.prom -e stats.json.tmp -e dc.prom.tmp)
[ -z "$left" ] && it_pass "after shutdown no keep or temporary file is left in $S" ||
  it_fail "left in $S after shutdown: $left"
