#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# A 10,000-entry directory through the FSAL under test: 8,000 files made on the server's disk
# before ganesha starts, 2,000 created through NFS, then listed completely with READDIR and
# READDIRPLUS (small replies, cookies resumed across hundreds of calls and across connections)
# and libnfs's opendir/readdir: every name once, no duplicates; then removals are seen.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_bigdir
N=${IT_BIGDIR_N:-10000}
PRE=$((N * 8 / 10))

mkdir -p "$IT_EXP/big"
(cd "$IT_EXP/big" && seq -f 'f%05g' 0 $((PRE - 1)) | xargs touch) || it_die "populating failed"
[ "$(ls -U "$IT_EXP/big" | wc -l)" = "$PRE" ] || it_die "populating made the wrong count"

echo "$IT_EXP|1|$(it_fsal_body)" | it_conf "$IT_WORK/ganesha.conf"
it_start "$IT_WORK/ganesha.conf"
it_run it_bigdir -e "$IT_EXP" -d big -n "$N" -c "$PRE"
it_check_alive "listing the big directory"
got=$(ls -U "$IT_EXP/big" | wc -l)
want=$((N - (N + 9) / 10))
[ "$got" = "$want" ] || it_fail "on disk after the run: $got entries, want $want"
