#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# libFuzzer (issue 5 item 4): tests/fuzz/fuzz_handle.c (handle_codec.c: dc_fh_verify_wire,
# dc_fh_parse_host, MAC round trip / tamper) and tests/fuzz/fuzz_config.c (io/modes.c:
# dcio_parse_*_mode), built with clang -fsanitize=fuzzer,address,undefined, each run for
# FUZZ_SECONDS (15; longer by hand: FUZZ_SECONDS=3600). Any crash, leak, sanitizer report or
# broken property fails the test; prints the executions of each target.
# Usage: fault_fuzz.sh [BUILD_DIR]   env: FUZZ_SECONDS, FUZZ_JOBS
. "$(dirname "$0")/../lib/harness.sh"
secs=${FUZZ_SECONDS:-15}
src=$IT_TOP/FSAL_DONTCACHE
cc=$(command -v clang || command -v clang-14) ||
  it_skip "clang not installed (scripts/setup.sh installs it)"
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -D_GNU_SOURCE=1 -Wall -Wextra)
declare -A srcs=(
  [handle]="$IT_TOP/tests/fuzz/fuzz_handle.c $src/handle_codec.c"
  [config]="$IT_TOP/tests/fuzz/fuzz_config.c $src/io/modes.c"
)
declare -A incs=([handle]="-I$src" [config]="-I$src/io")
total=0 summary=""
for t in handle config; do
  set -- ${srcs[$t]}
  for f in "$@"; do [ -f "$f" ] || it_die "$t: $f missing"; done
  "$cc" "${flags[@]}" ${incs[$t]} "$@" -o "$IT_WORK/fuzz_$t" 2> "$IT_WORK/cc_$t.log" ||
    { cat "$IT_WORK/cc_$t.log" >&2; it_die "cannot build fuzz_$t (needs clang + libclang-rt-14-dev)"; }
  grep -q warning "$IT_WORK/cc_$t.log" && cat "$IT_WORK/cc_$t.log" >&2
  mkdir -p "$IT_WORK/corpus_$t"
  # seeds
  if [ $t = config ]; then
    for w in dontcache buffered direct dropbehind coalesced inline DONTCACHE Direct x ""; do
      printf '%s' "$w" > "$IT_WORK/corpus_$t/$(echo "seed$w" | md5sum | cut -c1-8)"
    done
  else
    head -c 64 /dev/urandom > "$IT_WORK/corpus_$t/rand"
    printf '0123456789abcdef\x01\x08\x00\x00\x00\x01\x02\x03\x04\x05\x06\x07' > "$IT_WORK/corpus_$t/ext4"
  fi
  log=$IT_WORK/fuzz_$t.log
  (cd "$IT_WORK" && "./fuzz_$t" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=1024 "corpus_$t" > "$log" 2>&1)
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  it_log "fuzz_$t: exit $rc, ${execs:-?} executions, corpus $(ls "$IT_WORK/corpus_$t" | wc -l)"
  if [ $rc != 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
    grep -E -A15 'ERROR|runtime error|deadly signal' "$log" | head -40 >&2
    mkdir -p "$IT_TOP/out/fuzz" 2>/dev/null && cp "$IT_WORK"/crash-* "$IT_WORK"/leak-* "$IT_WORK"/timeout-* "$IT_TOP/out/fuzz/" 2>/dev/null
    it_die "fuzz_$t found a problem after ${execs:-?} executions (inputs saved in out/fuzz/)"
  fi
  total=$((total + ${execs:-0}))
  summary="$summary fuzz_$t=${execs:-0}"
done
it_pass "executions:$summary total=$total seconds_each=$secs"
