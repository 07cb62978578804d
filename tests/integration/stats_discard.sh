#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A stats file's rewrite frees no disk blocks (bench/RESULTS.md, "Which effects are this
# machine's"). The writers renamed a fresh file over the old one, which was freed; ext4 mounted `discard`
# without a journal discards what it frees as it frees it, and the device ran each discard
# behind the exports' writeback: on the bench's host every writer of the disk stopped for
# 0.5-2 s at each rewrite. Stats_File and Prometheus_File on an ext4 loop filesystem (no
# journal, mounted -o discard), rewritten every 100 ms for 3 s: the loop device completes at
# most 2 discards (it completed one per rewrite before); meanwhile each file is one of its two
# keep files (.<name>.keep-a, .keep-b: regular, root's, 0644, the file at the final name with 2
# links) and always parses; after shutdown the keep names are gone and each file is left with
# one link and complete contents.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the stats files are FSAL_DONTCACHE's"
command -v jq >/dev/null || it_skip "jq is not installed"

S=$IT_WORK/stats
it_loop_ext4 "$IT_WORK/s.img" 64M "$S" -O ^has_journal -m 0 || it_die "cannot make ext4 for the stats files"
mount -o remount,discard "$S" || it_die "cannot remount $S with discard"
dev=${IT_LOOP_DEV#/dev/}
[ "$(cat /sys/block/$dev/queue/discard_max_bytes 2>/dev/null || echo 0)" -gt 0 ] ||
  it_skip "loop device $dev takes no discard"
discards() { awk '{print $12}' /sys/block/$dev/stat; }

echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $IT_WORK/key-1; Stats_File = $S/stats.json; Prometheus_File = $S/dc.prom;" |
  it_conf "$IT_WORK/ganesha.conf"
echo "DONTCACHE { Stats_Interval_Ms = 100; }" >> "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
sleep 0.5
sync -f "$S/stats.json" 2>/dev/null
d0=$(discards) ino=() bad=0
for i in $(seq 30); do
  jq -e '.export_id == 1' "$S/stats.json" >/dev/null 2>&1 || bad=$((bad + 1))
  grep -q '^dontcache_.*export_id="1"' "$S/dc.prom" || bad=$((bad + 1))
  ino+=("$(stat -c %i "$S/stats.json")")
  sleep 0.1
done
d1=$(discards)
n=$(printf '%s\n' "${ino[@]}" | sort -u | wc -l)
it_log "discards during 3 s of 100 ms rewrites: $((d1 - d0)); distinct inodes at stats.json: $n"
[ $((d1 - d0)) -le 2 ] && it_pass "30 rewrites of 2 files made $((d1 - d0)) discards (at most 2)" ||
  it_fail "30 rewrites of 2 files made $((d1 - d0)) discards: a rewrite frees the file it replaces"
[ "$bad" = 0 ] && it_pass "both files parsed at every one of 30 reads" || it_fail "$bad reads found a file incomplete"
[ "$n" = 2 ] && it_pass "stats.json alternates between 2 files (its keep files)" ||
  it_fail "stats.json was $n different files in 30 reads (expected the 2 keep files)"
# keeps_ok F: F is one of its keep files right now. The writer rewrites every 100 ms and
# the stat calls below are not one snapshot: a rewrite between them (F linked to the other
# keep) looks inconsistent, so the state is sampled up to 10 times, 30 ms apart.
keeps_ok() {
  local f=$1 ka=$S/.$1.keep-a kb=$S/.$1.keep-b
  [ -f "$ka" ] && [ -f "$kb" ] && [ ! -L "$ka" ] && [ ! -L "$kb" ] &&
    [ "$(stat -c '%a %u' "$ka" "$kb" | sort -u)" = "644 0" ] &&
    [ "$(stat -c %h "$S/$f")" = 2 ] &&
    { [ "$(stat -c %i "$S/$f")" = "$(stat -c %i "$ka")" ] || [ "$(stat -c %i "$S/$f")" = "$(stat -c %i "$kb")" ]; }
}
for f in stats.json dc.prom; do
  ok=0
  for _ in $(seq 10); do keeps_ok "$f" && { ok=1; break; }; sleep 0.03; done
  if [ $ok = 1 ]; then
    it_pass "$f is one of its keep files (2 links; both keeps root's 0644 regular files)"
  else
    it_fail "$f and its keeps: $(ls -lia "$S" | tr '\n' ';')"
  fi
done
left=$(ls -A "$S" | grep -v -x -e stats.json -e dc.prom -e lost+found -e '\.stats\.json\.keep-[ab]' -e '\.dc\.prom\.keep-[ab]')
[ -z "$left" ] && it_pass "no temporary file left beside them" || it_fail "left in $S: $left"

it_check_alive "the stats writer"
gsh_stop && it_pass "ganesha stopped cleanly" || it_fail "ganesha exited non-zero on SIGTERM"
left=$(ls -A "$S" | grep -v -x -e stats.json -e dc.prom -e lost+found)
[ -z "$left" ] && it_pass "after shutdown only the two files are left (keep names removed)" ||
  it_fail "left in $S after shutdown: $left"
[ "$(stat -c %h "$S/stats.json" "$S/dc.prom" | sort -u)" = 1 ] &&
  jq -e '.export_id == 1' "$S/stats.json" >/dev/null 2>&1 &&
  grep -q '^dontcache_.*export_id="1"' "$S/dc.prom" &&
  it_pass "both files keep their final contents with one link" ||
  it_fail "after shutdown: $(ls -li "$S/stats.json" "$S/dc.prom" 2>&1 | tr '\n' ';')"
