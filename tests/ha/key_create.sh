#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Keys for a cluster (issue 18): `Handle_Key_Create = false` makes a head use the cluster's
# key or nothing.
#   missing   Handle_Key_Create = false and no Handle_Key_File (its directory missing too, as
#             on a head whose shared storage is not mounted): the export is not created
#             (ganesha refuses to start, or runs without it while a VFS export beside it is
#             served), a CRIT line names the file, and neither the file nor its directory
#             was made;
#   existing  Handle_Key_Create = false and the key there (16 bytes, 0600 root): the export
#             is served and the key is unchanged; handles it gives are valid on a second
#             start with the same key (it_handles save/check); a reload (SIGHUP) that
#             changes Handle_Key_Create keeps the export serving with its key;
#   readable  Handle_Key_Create = false and a key others can read (0644): refused as with the
#             default (a CRIT line naming the file), the file left as it was;
#   default   Handle_Key_Create left out (true): a missing key is created 0600, as before.
# DONTCACHE only (stock VFS has no key): skipped against VFS.
# Usage: tests/ha/key_create.sh [BUILD_DIR]
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "Handle_Key_Create is a DONTCACHE parameter ($DC_TEST_FSAL has no handle key)"
it_need_prog it_handles

good=$IT_WORK/good
mkdir -p "$good"
echo hello > "$good/f"
served() { # served PATH VERS: true if a libnfs client can list PATH
  timeout -k 2 20 nfs-ls "$(it_url "$1" "$2")" >/dev/null 2>&1
}

# ---- missing: no key, no directory
key=$IT_WORK/shared/keys/export-1.key
conf=$IT_WORK/missing.conf log=$IT_WORK/missing.log
{
  echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $key; Handle_Key_Create = false;"
  echo "$good|9|Name = VFS;"
} | it_conf "$conf"
IT_LOG=$log
if GSH_START_TRIES=100 gsh_start "$conf" "$log"; then
  served "$IT_EXP" 3 && it_fail "missing: the export is served over NFSv3 without its key" ||
    it_pass "missing: ganesha runs and does not serve the export over NFSv3"
  served "$IT_EXP" 4 && it_fail "missing: the export is served over NFSv4 without its key" ||
    it_pass "missing: not over NFSv4 either"
  served "$good" 3 && it_pass "missing: the VFS export beside it is served" ||
    it_fail "missing: the VFS export beside it is not served"
  gsh_stop
else
  it_pass "missing: ganesha refused to start"
fi
line=$(grep -F -- "$key" "$log" | grep ':CRIT :' | head -n1)
[ -n "$line" ] && it_pass "missing: a CRIT line names the file: ${line##*] }" ||
  { grep -v ':DBUS :\|krb5\|keytab\|gssd' "$log" | tail -n 8; it_fail "missing: no CRIT line names $key"; }
[ ! -e "$key" ] && [ ! -e "$(dirname "$key")" ] &&
  it_pass "missing: neither the key nor its directory was created" ||
  it_fail "missing: $(ls -ld "$(dirname "$key")" "$key" 2>&1 | tr '\n' ' ')"

# ---- existing: the cluster's key copied in
mkdir -p "$(dirname "$key")"
chmod 700 "$(dirname "$key")"
head -c 16 /dev/urandom > "$key"
chmod 600 "$key"
sum0=$(sha256sum < "$key")
echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $key; Handle_Key_Create = false;" |
  it_conf "$IT_WORK/existing.conf"
it_start "$IT_WORK/existing.conf" "$IT_WORK/existing.1.log"
served "$IT_EXP" 3 && it_pass "existing: the export is served with the key given" ||
  it_fail "existing: the export is not served"
it_run -t 60 it_handles -e "$IT_EXP" save "$IT_WORK/handles.txt" > "$IT_WORK/save.out" ||
  cat "$IT_WORK/save.out"
gsh_stop
rm -f "$IT_EXP/h/doomed"  # (it_handles check: a file removed while the server was down)
it_start "$IT_WORK/existing.conf" "$IT_WORK/existing.2.log"
if it_run -t 60 it_handles -e "$IT_EXP" check "$IT_WORK/handles.txt" > "$IT_WORK/check.out"; then
  it_pass "existing: handles of the first start are valid on the second (one key)"
else
  grep 'not ok' "$IT_WORK/check.out" | head -n 5
fi
# a reload does not read the key: Handle_Key_Create changed there applies at the next start
sed -i 's/Handle_Key_Create = false;/Handle_Key_Create = true;/' "$IT_WORK/existing.conf"
kill -HUP "$GSH_PID"
for _ in $(seq 100); do
  grep -q 'DONTCACHE export 1: reload: applied' "$IT_LOG" && break; sleep 0.1
done
line=$(grep 'DONTCACHE export 1: reload: applied' "$IT_LOG" | tail -n1)
[ -n "$line" ] && ! grep -q ':CRIT :.*Handle_Key' "$IT_LOG" && served "$IT_EXP" 3 &&
  it_pass "existing: a reload changing Handle_Key_Create keeps the export and its key: ${line##*] }" ||
  it_fail "existing: reload with Handle_Key_Create changed: ${line:-no reload summary}"
gsh_stop
[ "$(sha256sum < "$key")" = "$sum0" ] && it_pass "existing: the key file is unchanged" ||
  it_fail "existing: the key file changed"

# ---- readable: an existing key is checked as ever
bad=$IT_WORK/shared/keys/readable.key
head -c 16 /dev/urandom > "$bad"; chmod 644 "$bad"
sumb=$(sha256sum < "$bad")
conf=$IT_WORK/readable.conf log=$IT_WORK/readable.log
{
  echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $bad; Handle_Key_Create = false;"
  echo "$good|9|Name = VFS;"
} | it_conf "$conf"
IT_LOG=$log
if GSH_START_TRIES=100 gsh_start "$conf" "$log"; then
  served "$IT_EXP" 3 && it_fail "readable: the export is served with a key others can read" ||
    it_pass "readable: the export is not served"
  gsh_stop
else
  it_pass "readable: ganesha refused to start"
fi
line=$(grep -F -- "$bad" "$log" | grep ':CRIT :' | head -n1)
[ -n "$line" ] && it_pass "readable: a CRIT line names the file: ${line##*] }" ||
  it_fail "readable: no CRIT line names $bad"
[ "$(sha256sum < "$bad")" = "$sumb" ] && [ "$(stat -c %a "$bad")" = 644 ] &&
  it_pass "readable: the file is as it was" || it_fail "readable: the file changed"

# ---- default: created as before
key2=$IT_WORK/local/export-1.key
echo "$IT_EXP|1|Name = DONTCACHE; Handle_Key_File = $key2;" | it_conf "$IT_WORK/default.conf"
it_start "$IT_WORK/default.conf" "$IT_WORK/default.log"
gsh_stop
[ "$(stat -c '%s %a %u' "$key2" 2>/dev/null)" = "16 600 0" ] &&
  it_pass "default: Handle_Key_Create = true (left out) creates the key, 16 bytes 0600 root" ||
  it_fail "default: key $key2: $(stat -c '%s %a %u' "$key2" 2>&1)"
