#!/usr/bin/env bash
# Every FSAL_DONTCACHE mode end to end: for each Write_Mode x Flush_Mode (and the
# three Read_Modes in turn), with every export parameter set away from its
# default, 32 concurrent libnfs writers (UNSTABLE, DATA_SYNC, FILE_SYNC writes,
# overlapping rewrites, COMMITs) write, and every acknowledged byte reads back
# identical through NFS. The stats file must show the configured modes and the
# work counted where that mode puts it. Also: each config/*.conf example loads.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "modes are FSAL_DONTCACHE's"
FT_BIN=$DC_BUILD_DIR/tests/faults
[ -x "$FT_BIN/ft_writer" ] && [ -x "$FT_BIN/ft_verify" ] || it_die "ft_writer/ft_verify not built in $FT_BIN"

jget() { # jget FILE JQ-FILTER (applied to the engine object)
  jq -r ".engine | $2" "$1"
}

read_modes=(buffered dontcache direct)
n=0
for wm in dontcache buffered direct dropbehind; do
  for fm in coalesced inline; do
    rm_=${read_modes[$((n % 3))]}
    n=$((n + 1))
    tag=$wm-$fm
    dir=$IT_WORK/exp-$tag
    mkdir -p "$dir" "$IT_WORK/rec-$tag"
    body="Name = DONTCACHE; Write_Mode = $wm; Read_Mode = $rm_; Flush_Mode = $fm;"
    body+=" Max_Inflight_Bytes = 33554432; Inflight_Wait_Ms = 20000;"
    body+=" Flush_File_Bytes = 1048576; Flush_Export_Bytes = 4194304; Flush_Interval_Ms = 200;"
    body+=" Handle_Key_File = $IT_WORK/key-$tag; Stats_File = $IT_WORK/stats-$tag.json;"
    wwm=$(( n % 2 ? 1048576 : 0 ))   # every write on the worker thread, or none
    body+=" Worker_Write_Max = $wwm;"
    echo "$dir|1|$body" | it_conf "$IT_WORK/$tag.conf"
    cat >> "$IT_WORK/$tag.conf" <<CONF
DONTCACHE { Engine_Threads = 3; Ring_Entries = 64; Use_Io_Uring = $([ $fm = inline ] && echo false || echo true); Stats_Interval_Ms = 200; Malloc_Tuning = $([ $fm = inline ] && echo false || echo true); Engine_Nice = 7; }
CONF
    it_start "$IT_WORK/$tag.conf" "$IT_WORK/$tag.log"
    nices=$(ps -L -o ni=,comm= -p "$GSH_PID" | awk '$2 ~ /^dcio-/ {print $1}' | sort -u | tr '\n' ' ')
    [ "$nices" = "7 " ] && it_pass "$tag: engine threads run at Engine_Nice 7" ||
      it_fail "$tag: engine threads' nice values '$nices', want 7"
    it_run -t 180 "$FT_BIN/ft_writer" -e "$dir" -r "$IT_WORK/rec-$tag" -n 32 -L $((3 * 1024 * 1024)) \
      -W $((1024 * 1024)) -b 262144 -q 4 -s 20 -c 524288 -S $n >/dev/null
    it_run -t 180 "$FT_BIN/ft_verify" -e "$dir" "$IT_WORK/rec-$tag"/*.rec >/dev/null &&
      it_pass "$tag (Read_Mode=$rm_): 32 writers, every acknowledged byte read back"
    gsh_stop || it_fail "$tag: ganesha exited non-zero on SIGTERM"
    s=$IT_WORK/stats-$tag.json
    [ -s "$s" ] || { it_fail "$tag: no stats file"; continue; }
    got=$(jget "$s" '"\(.write_mode) \(.read_mode) \(.flush_mode) \(.backend)"')
    want="$wm $rm_ $fm $([ $fm = inline ] && echo pool || echo io_uring)"
    [ "$got" = "$want" ] && it_pass "$tag: stats show $want" || it_fail "$tag: stats show '$got', want '$want'"
    counted=$(jget "$s" ".writes.$wm.bytes")
    [ "${counted:-0}" -gt 0 ] && it_pass "$tag: $counted bytes counted as $wm writes" ||
      it_fail "$tag: no bytes counted under writes.$wm"
    [ "$(jget "$s" '.group_commit.requests')" -gt 0 ] || it_fail "$tag: no group-commit requests counted"
    ww=$(jget "$s" '.worker_writes.ops')
    if [ $wwm -gt 0 ] && [ $fm = coalesced ] && [ $wm != direct ]; then
      [ "$ww" -gt 0 ] && it_pass "$tag: $ww writes issued on the worker (Worker_Write_Max = $wwm)" ||
        it_fail "$tag: Worker_Write_Max = $wwm but no write was issued on the worker"
    else
      [ "$ww" = 0 ] || it_fail "$tag: $ww writes on the worker with Worker_Write_Max = $wwm, $fm, $wm"
    fi
    [ "$(jget "$s" '.reads.ops')" -gt 0 ] || it_fail "$tag: no reads counted"
    [ "$(jget "$s" '.inflight.peak <= .inflight.limit')" = true ] ||
      it_fail "$tag: in-flight peak above Max_Inflight_Bytes"
    if [ $wm = dropbehind ] && [ $fm = coalesced ]; then
      [ "$(jget "$s" '.flusher.passes')" -gt 0 ] && it_pass "$tag: flusher passes counted" ||
        it_fail "$tag: dropbehind made no flusher pass"
      [ "$(jget "$s" '.flusher.inline_kicks')" = 0 ] || it_fail "$tag: coalesced mode kicked writeback inline"
    elif [ $wm = dropbehind ]; then
      [ "$(jget "$s" '.flusher.inline_kicks')" -gt 0 ] && it_pass "$tag: writeback kicked by the writers (inline)" ||
        it_fail "$tag: inline dropbehind kicked no writeback"
    fi
  done
done

# The shipped examples load as they are (paths and ports adapted to this sandbox; ganesha 6.5
# also needs Allow_Set_Io_Flusher_Fail here, as in tests/lib/ganesha.sh's gsh_conf).
for ex in "$IT_TOP"/config/*.conf; do
  name=$(basename "$ex" .conf)
  dir=$IT_WORK/ex-$name
  mkdir -p "$dir"
  sed -e "s#/srv/[A-Za-z0-9_-]*#$dir#g" \
      -e "s#^\(NFS_CORE_PARAM {\)#\1 NFS_Port = $GSH_NFS_PORT; MNT_Port = $GSH_MNT_PORT; NLM_Port = $((GSH_NFS_PORT + 2)); Rquota_Port = $((GSH_NFS_PORT + 3)); Enable_UDP = false; Plugins_Dir = $IT_PLUGINS; ${GSH_ROOT:+Allow_Set_Io_Flusher_Fail = true;}#" \
      -e "s#^\(NFSV4 {\)#\1 RecoveryRoot = $IT_WORK/recov;#" \
      -e "s#^\(\s*FSAL {\)#\1 Handle_Key_File = $IT_WORK/key-ex-$name; Stats_File = $IT_WORK/stats-ex-$name.json;#" \
      "$ex" > "$IT_WORK/ex-$name.conf"
  it_start "$IT_WORK/ex-$name.conf" "$IT_WORK/ex-$name.log"
  echo "example $name" > "$IT_WORK/src.txt"
  if timeout -k 5 60 nfs-cp "$IT_WORK/src.txt" "$(it_url "$dir/f")" >/dev/null &&
     cmp -s "$IT_WORK/src.txt" "$dir/f"; then
    it_pass "config/$name.conf loads and serves"
  else
    it_fail "config/$name.conf: could not write through it"
  fi
  gsh_stop || it_fail "config/$name.conf: ganesha exited non-zero"
done
