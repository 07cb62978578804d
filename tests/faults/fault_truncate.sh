#!/usr/bin/env bash
# A truncate ends the memory of ranges lost past the new size (issue 8 items 6, 7). Export: a
# small loop-mounted ext4 that a server-side filler file fills, leaving 3 MiB. Once per way a
# client truncates named in FT_TRUNCATE_HOW (default "setattr create": NFSv3 SETATTR size 0,
# and CREATE UNCHECKED with size 0, which ganesha turns into an open by name with O_TRUNC on a
# second handle of the file that MDCACHE then throws away: the truncate must reach the engine
# file the live handle's COMMITs use), `it_io lostrange`:
#   fill      UNSTABLE WRITEs until one fails with NOSPC past the first MiB; a whole-file
#             COMMIT must fail (the range is remembered lost)
#   guard     the filler REMOVEd through NFS, [0, 1 MiB) rewritten without a truncate: a
#             whole-file COMMIT must still fail (no false success for the range past it)
#   truncate  size 0, 1 MiB rewritten: the whole-file COMMIT must answer OK (Linux NFSv3
#             clients always COMMIT the whole file: before the fix it failed until restart)
#             and the data reads back.
# Stock VFS remembers nothing lost: its COMMIT answers are printed, the rest must hold.
# Usage: fault_truncate.sh [BUILD_DIR]   env: FT_FSAL / DC_TEST_FSAL = DONTCACHE|VFS
[ "${GSH_IN_NS:-}" = 1 ] || exec "$(dirname "$0")/../lib/in-ns.sh" "$0" "$@"
set -u
. "$(dirname "$0")/../faults/ftcommon.sh"
ft_init truncate "${1:-${DC_BUILD_DIR:-}}"
ft_need_module
IO=$(dirname "$FT_BIN")/integration/it_io
[ -x "$IO" ] || ft_result SKIP "it_io not built ($IO)"
mnt=$FT_WORK/exp
ft_loop_ext4 "$FT_WORK/disk.img" 32M "$mnt" -m 0 || ft_result FAIL "cannot make the ext4 export"
ft_start "$mnt"
mode=strict
[ "$FT_FSAL" = DONTCACHE ] || mode=info

sum=
for how in ${FT_TRUNCATE_HOW:-setattr create}; do
  avail=$(df -k --output=avail "$mnt" | tail -1)
  fallocate -l $(((avail - 3072) * 1024)) "$mnt/fill.$how" ||
    ft_result FAIL "cannot fill the filesystem"
  sync -f "$mnt"
  ft_log "$how: filled, $(df -h --output=used,avail "$mnt" | tail -1)"
  out=$(timeout -k 5 120 "$IO" "${FT_NFS[@]}" lostrange "fill.$how" "$how" "$mode" 2>&1)
  rc=$?
  echo "$out" >&2
  kill -0 "$GSH_PID" 2>/dev/null || ft_result FAIL "ganesha died ($how)"
  [ $rc = 0 ] || ft_result FAIL "$how: $(echo "$out" | grep '^not ok' | tr '\n' ';')"
  sum="$sum $how=$(echo "$out" | grep -c '^ok')/$(echo "$out" | grep -c '^\(not \)\?ok')"
done
ft_result PASS "checks passed:$sum (lost ranges remembered, not cleared by a partial rewrite, trimmed by the truncate)"
