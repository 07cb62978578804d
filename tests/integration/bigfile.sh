#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# 256 MiB written through the FSAL under test with nfs-cp (NFSv3) and read back with nfs-cp:
# the source, the file on the server's disk and the copy read back have equal sha256; then the
# same with the raw API (it_io rw: UNSTABLE and FILE_SYNC 1 MiB writes, COMMIT verifiers).
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io
MB=${IT_BIGFILE_MB:-256}

src=$IT_WORK/src.bin
back=$IT_WORK/back.bin
head -c "$((MB * 1024 * 1024))" /dev/urandom > "$src" || it_die "cannot make the source file"
want=$(sha256sum < "$src" | cut -d' ' -f1)

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"

t0=$(date +%s%N)
timeout -k 5 240 nfs-cp "$src" "$(it_url "$IT_EXP/big.bin")" >/dev/null || it_fail "nfs-cp to the server failed"
t1=$(date +%s%N)
it_log "wrote $MB MiB in $(( (t1 - t0) / 1000000 )) ms"
# Page-cache residency of the file just written (before anything reads it back): with
# RWF_DONTCACHE the kernel drops the pages once written back, so for DONTCACHE (default
# Write_Mode=dontcache on ext4) most of it must be gone; stock VFS keeps it all cached.
resident_pct() { # percent of the file's pages in the page cache
  local res size
  res=$(fincore -b -n -o RES "$1" 2>/dev/null | tr -d ' ') || return 1
  size=$(stat -c %s "$1")
  [ -n "$res" ] && [ "$size" -gt 0 ] && echo $((res * 100 / size))
}
if ! command -v fincore >/dev/null; then
  it_is_dontcache && it_skip_part "fincore (util-linux) not installed: residency after the write not checked"
else
  pct=
  for i in $(seq 40); do
    pct=$(resident_pct "$IT_EXP/big.bin") || break
    it_is_dontcache || break
    [ "${pct:-100}" -le 25 ] && break
    sleep 0.25
  done
  it_log "page cache holds ${pct:-?}% of the $MB MiB file after the write"
  if it_is_dontcache; then
    [ -n "$pct" ] && [ "$pct" -le 25 ] &&
      it_pass "written data left the page cache (${pct}% resident)" ||
      it_fail "after a $MB MiB dontcache write ${pct:-?}% of the file is still in the page cache (want <= 25%)"
  fi
fi
disk=$(sha256sum < "$IT_EXP/big.bin" | cut -d' ' -f1)
[ "$disk" = "$want" ] && it_pass "file on the server's disk has the source's sha256" ||
  it_fail "sha256 on disk $disk != source $want (size $(stat -c %s "$IT_EXP/big.bin"))"
timeout -k 5 240 nfs-cp "$(it_url "$IT_EXP/big.bin")" "$back" >/dev/null || it_fail "nfs-cp from the server failed"
t2=$(date +%s%N)
it_log "read $MB MiB in $(( (t2 - t1) / 1000000 )) ms"
got=$(sha256sum < "$back" | cut -d' ' -f1)
[ "$got" = "$want" ] && it_pass "$MB MiB read back with the same sha256" ||
  it_fail "sha256 read back $got != source $want (size $(stat -c %s "$back"))"
rm -f "$back" "$src"

it_run it_io -e "$IT_EXP" rw 32
it_check_alive "the large transfers"
