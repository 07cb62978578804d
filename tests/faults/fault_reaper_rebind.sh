#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# ganesha 6.5's fd reaper against a global fd reopened through another export (issue 42
# item 5), under valgrind memcheck. lru_try_one takes the last fd of the fd LRU, drops
# fsal_fd_mutex and then reads fd->fsal_export three times without a lock (a reference on
# its owning export, the op context, get_fsal_obj_hdl; release_op_context puts the
# context's export). The module used to repoint that field to the export of the request that
# reopened a closed global fd, so the three reads could name two exports: the reference
# taken on one, the other put. An LD_PRELOAD library (ft_reaper_hook) holds the reaper right
# after its first read, deterministically:
#   one ext4, export 1 = M/one, export 2 = M/two; M/one/f hard-linked as M/two/f (one
#   object, seen through both); f looked up and read through export 1 (its global fd opens
#   there), the hook armed: the reaper takes f's fd and stops after its reference on
#   export 1; an NFSv3 REMOVE of one/f closes the fd (its close waits for the reaper, so the
#   REMOVE waits); f read through export 2 reopens the global fd; DBus RemoveExport 1; the
#   reaper goes on. Then f is read through export 2 again (reaper rounds every second), the
#   exports listed, and ganesha shut down.
# Before the fix the reaper built its context on export 2 and put it, one reference export 2
# never had: export 2 was freed while still exported (valgrind: invalid reads, or a crash).
# PASS: the hook held the reaper, every read answered the file's data, ganesha shut down
# cleanly and valgrind found no invalid access anywhere.
# ganesha 4.3 has no fd reaper of its own (MDCACHE closes through the FSAL): skipped there.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the module's global fd; FSAL_VFS has its own"
[ -n "${GSH_ROOT:-}" ] || it_skip "ganesha 4.3 has no fd reaper (lru_try_one is 6.5's)"
command -v valgrind >/dev/null || it_skip "valgrind not installed (scripts/setup.sh installs it)"
hook_so=$DC_FT_BIN/libft_reaper_hook.so
[ -f "$hook_so" ] || it_die "$hook_so is not built"
it_need_prog ft_rm
M=$IT_WORK/m H=$IT_WORK/hook
mkdir -p "$H"
cp "$hook_so" "$IT_WORK/" || it_die "cannot copy the hook"
it_loop_ext4 "$IT_WORK/disk.img" 128M "$M" || it_die "cannot make the ext4 export"
mkdir -p "$M/one" "$M/two"
head -c $((256 << 10)) /dev/urandom > "$M/one/f"
ln "$M/one/f" "$M/two/f" || it_die "cannot link f"
# under valgrind with the hook preloaded, the fd reaper every second closing every idle
# global fd
it_vg_two_exports "$M" "env LD_PRELOAD=$IT_WORK/libft_reaper_hook.so FT_REAPER_HOOK_DIR=$H" \
  --leak-check=no
url1=$(it_url "$M/one/f") url2=$(it_url "$M/two/f")
read_ok() { # read_ok URL WHAT: the file's data comes back
  rm -f "$IT_WORK/back"
  timeout -k 2 120 nfs-cp "$1" "$IT_WORK/back" >/dev/null 2>&1 &&
    cmp -s "$IT_WORK/back" "$M/two/f" && it_pass "$2" || it_fail "$2: no data or other data"
}

# 1. f's object made and its global fd opened through export 1, then the reaper held on it
read_ok "$url1" "f read through export 1"
sleep 4 # the reaper closes that fd; its next open is the one the hook catches
touch "$H/arm"
read_ok "$url1" "f read through export 1 again (global fd open in export 1)"
for _ in $(seq 600); do [ -e "$H/paused" ] && break; sleep 0.1; done
[ -e "$H/paused" ] || it_die "the fd reaper never reached the hook within 60 s"
it_pass "the fd reaper holds f's global fd after its reference on the fd's export"

# 2. while it is held: the fd closed by a REMOVE through export 1, reopened through export 2,
# export 1 removed
"$DC_FT_BIN/ft_rm" -H 127.0.0.1 -p "$GSH_NFS_PORT" -M "$GSH_MNT_PORT" -e "$M/one" f \
  > "$IT_WORK/rm.out" 2>&1 &
rm_pid=$!
IT_EXTRA_PIDS+=("$rm_pid")
sleep 5
kill -0 "$rm_pid" 2>/dev/null && it_log "the REMOVE waits (its close waits for the reaper)" ||
  it_log "the REMOVE answered before the reaper went on: $(cat "$IT_WORK/rm.out")"
read_ok "$url2" "f read through export 2 while the reaper is held (global fd reopened)"
timeout -k 2 120 dbus-send --system --print-reply --reply-timeout=110000 \
  --dest=org.ganesha.nfsd /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.RemoveExport \
  uint16:1 > "$IT_WORK/remove.out" 2>&1 &
remove_pid=$!
IT_EXTRA_PIDS+=("$remove_pid")
sleep 5
touch "$H/go"
it_log "the reaper goes on"
wait "$rm_pid" && it_pass "REMOVE of one/f answered OK" ||
  it_fail "REMOVE of one/f: $(cat "$IT_WORK/rm.out")"
wait "$remove_pid" && it_pass "RemoveExport 1 answered" ||
  it_fail "RemoveExport 1: $(cat "$IT_WORK/remove.out")"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died after the reaper went on"

# 3. export 2 goes on serving f with the reaper closing its fd every second
for round in 1 2 3; do
  read_ok "$url2" "f read through export 2 (round $round)"
  sleep 3
  kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died (round $round)"
done
timeout -k 2 60 dbus-send --system --print-reply --dest=org.ganesha.nfsd \
  /org/ganesha/nfsd/ExportMgr org.ganesha.nfsd.exportmgr.ShowExports > "$IT_WORK/exports.txt" 2>&1
grep -q "$M/two" "$IT_WORK/exports.txt" && ! grep -q "$M/one\"" "$IT_WORK/exports.txt" &&
  it_pass "ShowExports lists export 2 only" ||
  it_fail "ShowExports: $(tr '\n' ' ' < "$IT_WORK/exports.txt" | cut -c1-300)"
timeout -k 2 60 nfs-ls "$(it_url "$M/two")" > /dev/null 2>&1 &&
  it_pass "export 2 still lists its root" || it_fail "export 2 does not list its root"
kill -0 "$GSH_PID" 2>/dev/null || it_die "ganesha died"
it_vg_stop
vg=$(ls "$IT_WORK"/vg.*.log 2>/dev/null | head -1)
[ -n "$vg" ] && grep -q "ERROR SUMMARY" "$vg" || it_die "valgrind report incomplete (shutdown clean=$IT_VG_CLEAN)"
inv=$(grep -cE '^==[0-9]+== (Invalid (read|write|free)|Mismatched free)' "$vg")
[ "$inv" = 0 ] && it_pass "valgrind: no invalid access" || {
  grep -A25 -m3 -E '^==[0-9]+== (Invalid (read|write|free)|Mismatched free)' "$vg" >&2
  it_fail "valgrind: $inv invalid accesses (first above)"
}
[ "$IT_VG_CLEAN" = yes ] && it_pass "clean shutdown" || it_fail "ganesha did not shut down within 180 s"
