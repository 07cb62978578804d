#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Two heads that start in the same second answer different write verifiers (issue 18).
# Two ganesha.nfsd over one export, one after the other, both with `-E EPOCH` of the same
# second: the server epoch (nfs_ServerEpoch) two heads started in the same second would
# have. Each answers an NFSv3 UNSTABLE WRITE + COMMIT (ft_writer, the verifier from its
# record) and an NFSv4.1 OPEN + WRITE + COMMIT (ha_verf).
#   v4    the module's NFSv4 verifier (get_write_verifier) must differ between the heads:
#         its per-process random part (before: epoch + a counter starting at 1, equal);
#   v3    ganesha builds the NFSv3 verifier itself from the epoch alone (no FSAL is asked,
#         4.3 and 6.5): with one epoch the heads answer the same one. That is printed, not
#         failed; then the operator's remedy (docs/design.md "Two heads": a distinct -E per head and
#         start) is checked: heads started with EPOCH*2+0 and EPOCH*2+1 answer different v3
#         verifiers, and different v4 ones.
# Against VFS (ganesha's own NFSv4 verifier, from the epoch too) the v4 part is printed and
# skipped (it_skip_part): VFS answers the same verifier from both heads.
# Usage: tests/ha/verifier.sh [BUILD_DIR]
. "$(dirname "$0")/../lib/harness.sh"
HA_BIN=${DC_HA_BIN:-$DC_BUILD_DIR/tests/ha}
it_need_prog ft_writer
[ -x "$HA_BIN/ha_verf" ] || it_die "test program missing: $HA_BIN/ha_verf (build the tree first)"

rec=$IT_WORK/rec
mkdir -p "$rec"
echo "$IT_EXP|1|$(it_fsal_body_files 1)" | it_conf "$IT_WORK/ganesha.conf"
nfs=(-H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$IT_EXP")

# head NAME EPOCH: start ganesha with -E EPOCH, read both verifiers, stop it.
# Sets V3_<NAME> and V4_<NAME>.
head_verfs() {
  local name=$1 epoch=$2 log=$IT_WORK/ganesha.$1.log out v3 v4
  IT_LOG=$log
  gsh_start "$IT_WORK/ganesha.conf" "$log" -E "$epoch" ||
    { tail -n 20 "$log"; it_die "head $name did not start (-E $epoch)"; }
  it_run -t 60 ft_writer "${nfs[@]}" -n 1 -P "$name" -r "$rec" -L 65536 -b 65536 -s 0 \
    -c 65536 -C > "$IT_WORK/writer.$name.out" 2>&1 || cat "$IT_WORK/writer.$name.out"
  v3=$(awk '$1 == "U" { print $5; exit }' "$rec/${name}_0.rec")
  out=$(timeout -k 5 60 "$HA_BIN/ha_verf" -H 127.0.0.1 -p "$GSH_NFS_PORT" -e "$IT_EXP" \
        -n "$name.v4" 2>&1) || it_fail "head $name: ha_verf: $out"
  v4=$(it_kv v4_commit "$(echo "$out" | grep '^ha_verf:')")
  gsh_stop
  [ -n "$v3" ] || it_die "head $name: no NFSv3 verifier in $rec/${name}_0.rec"
  [ -n "$v4" ] && [ "$v4" != - ] || it_die "head $name: no NFSv4.1 verifier: $out"
  printf -v "V3_$name" %s "$v3"
  printf -v "V4_$name" %s "$v4"
  it_log "head $name (-E $epoch): v3=$v3 v4.1=$v4"
}

epoch=$(date +%s)
head_verfs A "$epoch"
head_verfs B "$epoch"
echo "same second (-E $epoch on both): A v3=$V3_A v4.1=$V4_A, B v3=$V3_B v4.1=$V4_B"
if it_is_dontcache; then
  [ "$V4_A" != "$V4_B" ] &&
    it_pass "NFSv4.1: heads of one epoch answer different verifiers ($V4_A, $V4_B)" ||
    it_fail "NFSv4.1: heads of one epoch answer the same verifier $V4_A (a client failing over between them would not resend what it did not commit)"
  [ "${V4_A:0:8}" = "${V4_B:0:8}" ] &&
    it_pass "NFSv4.1: the epoch part is the same (${V4_A:0:8}): only the per-process part differs" ||
    it_fail "NFSv4.1: the epoch parts differ (${V4_A:0:8}, ${V4_B:0:8}) although -E was the same"
else
  echo "# $DC_TEST_FSAL NFSv4.1: A $V4_A, B $V4_B ($([ "$V4_A" = "$V4_B" ] && echo same || echo different))"
  it_skip_part "NFSv4.1 verifier distinct for one epoch: ganesha's own verifier ($DC_TEST_FSAL) comes from the epoch alone"
fi
[ "$V3_A" = "$V3_B" ] &&
  echo "# NFSv3: the same verifier $V3_A from both heads (ganesha's own, from the epoch: no FSAL can change it; remedy: a distinct -E per head)" ||
  echo "# NFSv3: different verifiers $V3_A, $V3_B for one epoch"

# The operator's remedy: a distinct epoch per head and start (docs/design.md "Two heads").
head_verfs C $((epoch * 2))
head_verfs D $((epoch * 2 + 1))
[ "$V3_C" != "$V3_D" ] &&
  it_pass "NFSv3: heads started with -E EPOCH*2+0 and EPOCH*2+1 answer different verifiers ($V3_C, $V3_D)" ||
  it_fail "NFSv3: distinct -E still gave the same verifier $V3_C"
[ "$V4_C" != "$V4_D" ] &&
  it_pass "NFSv4.1 with distinct -E: different verifiers ($V4_C, $V4_D)" ||
  it_fail "NFSv4.1 with distinct -E: the same verifier $V4_C"
for v in "$V4_C" "$V4_D"; do
  case " $V4_A $V4_B " in
    *" $v "*) it_fail "NFSv4.1 verifier $v repeats one of an earlier head" ;;
  esac
done
