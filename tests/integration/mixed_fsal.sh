#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# FSAL_VFS and FSAL_DONTCACHE exports in one ganesha (issue 39). One ganesha exports a
# filesystem through one FSAL (ganesha's process_claim, as for every FSAL that claims its
# filesystems): bench/run.sh's compete scenario once put its FSAL_VFS neighbour on the
# module's filesystem and every module run of it failed.
# 1. VFS export 1 and DONTCACHE export 2 on one ext4 loop filesystem: export 2 is refused
#    at start with a CRIT line of the module naming both exports, their paths, the
#    filesystem and FSAL VFS (before: only ganesha's "Filesystem X already exported by FSAL
#    VFS for export path <export 2's>" and "its filesystem cannot be claimed: Invalid
#    argument"); export 1 still serves, export 2 is not mounted.
# 2. The other order (DONTCACHE first): ganesha refuses the VFS export in its own words
#    ("already exported by FSAL DONTCACHE"), the module's export serves.
# 3. Each on its own filesystem (what compete does now): both serve a file round trip.
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "mixes FSAL_VFS with FSAL_DONTCACHE (run it with the module)"
command -v nfs-cp >/dev/null || it_skip "libnfs-utils (nfs-cp, nfs-cat) not installed"
A=$IT_WORK/a B=$IT_WORK/b
it_loop_ext4 "$IT_WORK/a.img" 32M "$A" -m 0 || it_die "cannot make ext4 A"
it_loop_ext4 "$IT_WORK/b.img" 32M "$B" -m 0 || it_die "cannot make ext4 B"
mkdir -p "$A/v" "$A/d" "$B/d"
head -c 300000 /dev/urandom > "$IT_WORK/src.bin"
T=20

# roundtrip DIR: nfs-cp a file in and read it back through the export of DIR (NFSv3)
roundtrip() {
  local dir=$1 name=rt.$RANDOM
  timeout -k 2 $T nfs-cp "$IT_WORK/src.bin" "$(it_url "$dir/$name")" >/dev/null 2>&1 &&
    timeout -k 2 $T nfs-cat "$(it_url "$dir/$name")" 2>/dev/null | cmp -s - "$IT_WORK/src.bin"
}
dc() { echo "Name = DONTCACHE; Handle_Key_File = $IT_WORK/k$1.key;"; }

# 1. VFS first, then DONTCACHE, one filesystem
{ echo "$A/v|1|Name = VFS;"; echo "$A/d|2|$(dc 2)"; } | it_conf "$IT_WORK/c1.conf"
it_start "$IT_WORK/c1.conf" "$IT_WORK/ganesha.1.log"
log=$IT_WORK/ganesha.1.log
line=$(grep 'DONTCACHE export 2 (Path ' "$log" | grep ' refused: ' | head -1)
if [[ $line == *CRIT*"DONTCACHE export 2 (Path $A/d) refused: its filesystem $A is exported by FSAL VFS through export 1 (Path $A/v); one ganesha exports a filesystem through one FSAL only"* ]]; then
  it_pass "DONTCACHE after VFS on one filesystem: ${line#*:FSAL :}"
else
  it_fail "no CRIT naming both exports: $(grep -E 'CRIT' "$log" | grep -v -i -E 'dbus|krb5|keytab' | head -3 | cut -c 60- | tr '\n' ' ')"
fi
roundtrip "$A/v" && it_pass "the VFS export still serves" || it_fail "the VFS export does not serve"
roundtrip "$A/d" && it_fail "the refused DONTCACHE export serves" || it_pass "the refused DONTCACHE export is not served"
gsh_stop

# 2. DONTCACHE first, then VFS: ganesha's own refusal of the VFS export
{ echo "$A/d|2|$(dc 2)"; echo "$A/v|1|Name = VFS;"; } | it_conf "$IT_WORK/c2.conf"
it_start "$IT_WORK/c2.conf" "$IT_WORK/ganesha.2.log"
log=$IT_WORK/ganesha.2.log
grep -q "CRIT :Filesystem $A already exported by FSAL DONTCACHE for export path $A/v" "$log" &&
  it_pass "VFS after DONTCACHE: ganesha refuses the VFS export naming FSAL DONTCACHE" ||
  it_fail "VFS after DONTCACHE: $(grep -E 'CRIT' "$log" | grep -v -i -E 'dbus|krb5|keytab' | head -3 | cut -c 60- | tr '\n' ' ')"
roundtrip "$A/d" && it_pass "the DONTCACHE export serves" || it_fail "the DONTCACHE export does not serve"
gsh_stop

# 3. each on its own filesystem
{ echo "$A/d|2|$(dc 2)"; echo "$B/d|3|Name = VFS;"; } | it_conf "$IT_WORK/c3.conf"
it_start "$IT_WORK/c3.conf" "$IT_WORK/ganesha.3.log"
grep -q ' refused: \|already exported' "$IT_WORK/ganesha.3.log" &&
  it_fail "two filesystems: a refusal in the log: $(grep ' refused: \|already exported' "$IT_WORK/ganesha.3.log" | head -1)"
roundtrip "$A/d" && roundtrip "$B/d" && it_pass "DONTCACHE and VFS on their own filesystems both serve" ||
  it_fail "two filesystems: a round trip failed"
gsh_stop
