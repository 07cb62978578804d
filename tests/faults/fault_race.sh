#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The two name races of issue 36, lost on purpose (ft_race on tests/lib/nfs4c, NFSv4.1 as uid
# 1000). A local process started here as root (ft_race rename-*, bounded in time, killed by
# pid) renames root's files onto a name in a tight loop while the client uses the name:
#   create  the client REMOVEs and OPEN CREATE UNCHECKED4s race_c/name (a 0777 directory)
#           again and again; the renamer renames a link of root's 0600 secret onto every new
#           file at the name at once. PASS: no granted OPEN is of the secret (fileid), no READ
#           through an OPEN returns it, the secret is unchanged. The module made the handle
#           of the file it created by looking the name up again, and granted the OPEN on
#           whatever was there without a permission check ("created").
#   lookup  the renamer makes new pairs (uid 1000's 0666 file, root's 0600 file) and renames
#           each onto race_l/name in turn; the client sends LOOKUP + GETATTR fileid,mode.
#           PASS: every fileid comes with its own file's mode (and both kinds were seen). The
#           module's stat and handle were two lookups of the name: a rename between them
#           paired one file's attributes with the other's handle, which MDCACHE keeps and
#           checks READ against: PASS also needs that no READ returns root's file.
#   readdir the same through READDIR (FILEHANDLE, FILEID, MODE of each entry) and a READ
#           through the handle listed for the name.
#   mkdir   the client REMOVEs and CREATEs (NF4DIR, 0755) race_m/name again and again; the
#           renamer renames a new empty root 0700 directory onto every directory of uid 1000's
#           at the name. PASS: every directory CREATE answers is uid 1000's 0755 one (the
#           module looked the name up again after mkdirat and handed out root's).
# MDCACHE's dirent cache is off (Dir_Chunk = 0) so that every OPEN and LOOKUP by name reaches
# the FSAL (with it, only a name's first lookup in a while does: the same race, rarer).
# Stock FSAL_VFS (--fsal VFS) wins the create race and loses the lookup race (its lookup is
# fstatat then name_to_handle_at too) and the mkdir race (it looks the new name up again):
# those parts (and readdir, if it loses that one) are reported as skipped with their failure
# lines.
# Usage: fault_race.sh [BUILD_DIR]   env: DC_TEST_FSAL=DONTCACHE|VFS, FT_RACE_SECS (8)
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog ft_race
secs=${FT_RACE_SECS:-8}

echo "$IT_EXP|1|$(it_fsal_body_files 1)" | it_conf "$IT_WORK/ganesha.conf"
echo 'MDCACHE { Dir_Chunk = 0; }' >> "$IT_WORK/ganesha.conf"
"$DC_FT_BIN/ft_race" setup -l "$IT_EXP" || it_die "ft_race setup failed"
it_start "$IT_WORK/ganesha.conf"

for mode in create lookup readdir mkdir; do
  "$DC_FT_BIN/ft_race" "rename-$mode" -l "$IT_EXP" -u 1000 -t $((secs + 10)) \
    > "$IT_WORK/renamer-$mode.out" 2>&1 &
  rpid=$!
  IT_EXTRA_PIDS+=("$rpid")
  rc=0
  out=$(timeout -k 5 $((secs + 60)) "$DC_FT_BIN/ft_race" "$mode" -p "$GSH_NFS_PORT" \
        -e "$IT_EXP" -l "$IT_EXP" -u 1000 -t "$secs" 2>&1) || rc=$?
  kill "$rpid" 2>/dev/null
  wait "$rpid" 2>/dev/null
  echo "$out" >&2
  it_log "renamer: $(cat "$IT_WORK/renamer-$mode.out" 2>/dev/null | tr '\n' ' ')"
  line=$(echo "$out" | grep '^ft_race:' | tail -n1)
  it_check_alive "the $mode race"
  if [ $rc = 1 ] && [ $mode != create ] && ! it_is_dontcache; then
    # stock FSAL_VFS loses these two too (vfs_lookup: fstatat, then name_to_handle_at; its
    # mkdir looks the name up again): reported, not passed
    it_skip_part "the $mode race: stock FSAL_VFS loses it too: $(echo "$out" | grep -m1 '^not ok')"
  elif [ $rc = 0 ]; then
    it_pass "$line"
  else
    it_fail "ft_race $mode exited $rc: $(echo "$out" | grep -m3 '^not ok\|^#' | tr '\n' ';') $line"
  fi
done
gsh_stop || it_fail "ganesha did not stop cleanly"
