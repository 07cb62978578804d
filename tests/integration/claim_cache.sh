#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Lookups into filesystems the module cannot export cost no mount-table scan each (issue 37).
# A procfs (ganesha 4.3 and 6.5 list none) and a tmpfs (6.5 lists none; 4.3 does, and the module
# exports it) are mounted inside the export; a client then LOOKUPs their mount points 2000 times
# each (nfs-ls, bounded in time). Each such LOOKUP used to re-read the mount table under
# ganesha's global fs_lock and claim the export's filesystems again (a new claim map each time;
# ganesha logs "Root fs for export" at INFO per claim). With the negative answer cached until
# the mount table changes: at most one claim per export after the first LOOKUP, ganesha's RSS
# flat, the export still served; then a new mount inside the export (a mount event) is crossed
# by the next LOOKUP (4.3: a tmpfs, claimed and listed).
. "$(dirname "$0")/../lib/harness.sh"
it_is_dontcache || it_skip "the module's claim of filesystems under an export; FSAL_VFS has its own"
GSH_FSAL_LOG=INFO # ganesha's "Root fs for export" line, one per claim_posix_filesystems
export GSH_FSAL_LOG
mkdir -p "$IT_EXP/proc" "$IT_EXP/tmp" "$IT_EXP/later"
mount -t proc proc "$IT_EXP/proc" || it_die "cannot mount proc in the export"
IT_MOUNTS+=("$IT_EXP/proc")
it_tmpfs "$IT_EXP/tmp" 8m
echo hello > "$IT_EXP/plain"
it_serve "$IT_EXP"

claims() { grep -c "Root fs for export" "$IT_LOG"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$GSH_PID/status"; }
lookup() { timeout -k 2 20 nfs-ls "$(it_url "$IT_EXP/$1")" > /dev/null 2>&1; }

# first LOOKUPs of each (the first may claim once)
lookup proc; lookup tmp
c0=$(claims) r0=$(rss_kib)
n=0 end=$((SECONDS + 120))
while [ $n -lt 2000 ] && [ $SECONDS -lt $end ]; do
  lookup proc; lookup tmp
  n=$((n + 1))
done
c1=$(claims) r1=$(rss_kib)
it_log "$n rounds of LOOKUP proc + tmp: claims logged $c0 -> $c1, ganesha RSS $r0 -> $r1 KiB"
[ "$n" -ge 100 ] || it_die "only $n rounds in 120 s: the scenario did not loop"
[ $((c1 - c0)) -le 2 ] &&
  it_pass "$n rounds of LOOKUPs into unexportable mounts: $((c1 - c0)) claims of the export (at most 2)" ||
  it_fail "each LOOKUP into an unexportable mount claimed again: $((c1 - c0)) claims in $n rounds"
[ $((r1 - r0)) -le 2048 ] && it_pass "ganesha's RSS flat ($r0 -> $r1 KiB)" ||
  it_fail "ganesha's RSS grew by $((r1 - r0)) KiB in $n rounds"
warns=$(grep -c "cannot be exported: no file handles\|claiming the filesystems under" "$IT_LOG")
[ "$warns" -le 3 ] && it_pass "the warnings are not repeated per LOOKUP ($warns lines)" ||
  it_fail "$warns warning lines for $n rounds"
timeout -k 2 20 nfs-cat "$(it_url "$IT_EXP/plain")" 2>/dev/null | grep -q hello &&
  it_pass "the export still serves" || it_fail "the export no longer serves plain"

# a mount event: a filesystem mounted inside the export now is claimed at its first LOOKUP
# (ganesha 4.3 lists tmpfs; 6.5 lists neither it nor procfs, so an ext4 there)
it_loop_ext4 "$IT_WORK/later.img" 64M "$IT_EXP/later" || it_die "cannot mount ext4 at later/"
echo inside > "$IT_EXP/later/f"
timeout -k 2 20 nfs-cat "$(it_url "$IT_EXP/later/f")" 2>/dev/null | grep -q inside &&
  it_pass "a filesystem mounted after the loop is crossed (the mount event ends the cache)" ||
  it_fail "later/f (a filesystem mounted after the loop) could not be read"
it_check_alive "the LOOKUP loop and the new mount"
