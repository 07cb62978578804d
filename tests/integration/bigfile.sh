#!/usr/bin/env bash
# 256 MiB written through the FSAL under test with nfs-cp (NFSv3) and read back with nfs-cp:
# the source, the file on the server's disk and the copy read back have equal sha256; then the
# same with the raw API (it_io rw: UNSTABLE and FILE_SYNC 1 MiB writes, COMMIT verifiers).
. "$(dirname "$0")/common.sh"
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
