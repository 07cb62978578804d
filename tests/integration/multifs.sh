#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Many exports, many filesystems (issue 16). Three fresh ext4 loop filesystems: A exported as
# export 1, B as export 2, C mounted at sub/ inside A. The root of every fresh ext4 has the
# same kernel file handle, so a module that keys objects by the kernel handle alone mixes
# them up (export 2 never answered; sub/ was missing from A's listing).
# Phase 1, over NFSv3 and NFSv4 (libnfs nfs-ls/nfs-cp/nfs-cat): each root lists what its own
# filesystem holds and nothing of another's (a marker file per filesystem), sub/ is listed in
# A and crossed, files written through each land on their own filesystem (checked on the
# server: st_dev) and read back; each filesystem reports its own fsid (NFSv3 GETATTR).
# Phase 2: handles made through each (A's root, C under A, B) survive a restart (it_handles).
# Phase 3, nested exports and a hard link across them, one directory exported twice with
# different options: export 1 = N (no squash, RW), export 2 = N/inner (Root_Squash, RW),
# export 3 = N/inner again under Pseudo /again (RO, NFSv4 only: v3 MOUNT finds export 2 by
# that path). N/x.txt and N/inner/x-link.txt are one inode (one MDCACHE object): it reads
# through each export, a write through export 1 shows through the others, a file root
# creates through 2 belongs to the anonymous uid and through 1 to root, a create through 3
# is refused; a handle export 1 minted (N/x.txt, outside 2's tree) is refused by export 2.
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_handles
command -v nfs-ls >/dev/null || it_skip "libnfs-utils (nfs-ls, nfs-cp, nfs-cat) not installed"
A=$IT_WORK/a B=$IT_WORK/b
it_loop_ext4 "$IT_WORK/a.img" 32M "$A" -m 0 || it_die "cannot make ext4 A"
it_loop_ext4 "$IT_WORK/b.img" 32M "$B" -m 0 || it_die "cannot make ext4 B"
mkdir -p "$A/sub"
it_loop_ext4 "$IT_WORK/c.img" 32M "$A/sub" -m 0 || it_die "cannot make ext4 C under A"
for d in "$A:A" "$B:B" "$A/sub:C"; do
  echo "${d##*:}" > "${d%:*}/marker-${d##*:}"
  echo "${d##*:}" > "${d%:*}/marker"
done
devA=$(stat -c %d "$A") devB=$(stat -c %d "$B") devC=$(stat -c %d "$A/sub")
[ "$devA" != "$devC" ] && [ "$devA" != "$devB" ] || it_die "the three filesystems share a device"

conf=$IT_WORK/ganesha.conf
{ echo "$A|1|$(it_fsal_body "Handle_Key_File = $IT_WORK/k1.key;")"
  echo "$B|2|$(it_fsal_body "Handle_Key_File = $IT_WORK/k2.key;")"; } | it_conf "$conf"
it_start "$conf" "$IT_WORK/ganesha.1.log"

T=20
ls_of() { timeout -k 2 $T nfs-ls "$(it_url "$1" "$2")" 2>&1 | awk '{print $NF}' | sort | tr '\n' ' '; }
cat_of() { timeout -k 2 $T nfs-cat "$(it_url "$1" "${2:-3}")" 2>/dev/null; }

for v in 3 4; do
  la=$(ls_of "$A" $v) lb=$(ls_of "$B" $v) lc=$(ls_of "$A/sub" $v)
  it_log "v$v: A: $la| B: $lb| A/sub: $lc"
  [[ " $la" == *" marker-A "* && " $la" == *" sub "* && " $la" != *marker-B* &&
     " $la" != *marker-C* ]] && it_pass "v$v: export 1 lists its own files and sub" ||
    it_fail "v$v: export 1 lists '$la' (want marker-A and sub, no marker-B/C)"
  [[ " $lb" == *" marker-B "* && " $lb" != *marker-A* && " $lb" != *marker-C* ]] &&
    it_pass "v$v: export 2 (another disk) answers with its own files" ||
    it_fail "v$v: export 2 lists '$lb' (want marker-B only)"
  [[ " $lc" == *" marker-C "* && " $lc" != *marker-A* && " $lc" != *marker-B* ]] &&
    it_pass "v$v: sub/ (a filesystem mounted in export 1) is crossed" ||
    it_fail "v$v: sub/ lists '$lc' (want marker-C only)"
  for p in "$A:A" "$B:B" "$A/sub:C"; do
    got=$(cat_of "${p%:*}/marker" $v)
    [ "$got" = "${p##*:}" ] && it_pass "v$v: ${p%:*}/marker reads ${p##*:}" ||
      it_fail "v$v: ${p%:*}/marker reads '$got', want ${p##*:}"
  done
  # writes land on their own filesystem and read back
  for p in "$A:$devA" "$B:$devB" "$A/sub:$devC"; do
    dir=${p%:*} dev=${p##*:} name=w$v-$RANDOM.bin
    # (libnfs 4.0's nfs-cp fails NFSv4 writes past a few KiB, against FSAL_VFS alike)
    if [ $v = 3 ]; then size=$((300 * 1024 + 3)); else size=2000; fi
    head -c $size /dev/urandom > "$IT_WORK/src.bin"
    rm -f "$IT_WORK/back.bin"
    if timeout -k 2 $T nfs-cp "$IT_WORK/src.bin" "$(it_url "$dir/$name" $v)" >/dev/null 2>&1 &&
       timeout -k 2 $T nfs-cp "$(it_url "$dir/$name" $v)" "$IT_WORK/back.bin" >/dev/null 2>&1 &&
       cmp -s "$IT_WORK/src.bin" "$IT_WORK/back.bin"; then
      it_pass "v$v: $dir/$name written and read back"
    else
      it_fail "v$v: $dir/$name: write or read-back failed"
    fi
    [ -f "$dir/$name" ] && [ "$(stat -c %d "$dir/$name")" = "$dev" ] &&
      cmp -s "$IT_WORK/src.bin" "$dir/$name" &&
      it_pass "v$v: $name is on the server in $dir's filesystem" ||
      it_fail "v$v: $name is not on $dir's filesystem (dev $dev) with its content"
  done
done
# the fsid clients see: one per filesystem
fa=$("$DC_IT_BIN/it_handles" -e "$A" fsid 2>/dev/null | sed -n 's/^fsid //p')
fc=$("$DC_IT_BIN/it_handles" -e "$A" -d sub fsid 2>/dev/null | sed -n 's/^fsid //p')
fb=$("$DC_IT_BIN/it_handles" -e "$B" fsid 2>/dev/null | sed -n 's/^fsid //p')
it_log "fsid: A $fa, A/sub $fc, B $fb"
[ -n "$fa" ] && [ -n "$fc" ] && [ -n "$fb" ] && [ "$fa" != "$fc" ] && [ "$fa" != "$fb" ] &&
  [ "$fb" != "$fc" ] && it_pass "each filesystem reports its own fsid" ||
  it_fail "fsids: A '$fa', A/sub '$fc', B '$fb' (want three different)"

# Phase 2: handles through each filesystem survive a restart
it_run it_handles -e "$A" save "$IT_WORK/hA.txt"
it_run it_handles -e "$A" -d sub save "$IT_WORK/hC.txt"
it_run it_handles -e "$B" save "$IT_WORK/hB.txt"
gsh_stop || it_fail "ganesha exited non-zero on SIGTERM"
rm -f "$A/h/doomed" "$A/sub/h/doomed" "$B/h/doomed"
it_start "$conf" "$IT_WORK/ganesha.2.log"
it_run it_handles -e "$A" check "$IT_WORK/hA.txt" && it_pass "export 1's handles after a restart"
it_run it_handles -e "$A" check "$IT_WORK/hC.txt" && it_pass "sub/'s handles after a restart"
it_run it_handles -e "$B" check "$IT_WORK/hB.txt" && it_pass "export 2's handles after a restart"
it_check_alive "phase 2"
gsh_stop

# Phase 3: nested exports, a hard link across them, one path exported twice
N=$IT_WORK/n
mkdir -p "$N/inner"
echo nested > "$N/x.txt"
ln "$N/x.txt" "$N/inner/x-link.txt"
chmod 0777 "$N" "$N/inner"
body1=$(it_fsal_body "Handle_Key_File = $IT_WORK/n1.key;")
body2=$(it_fsal_body "Handle_Key_File = $IT_WORK/n2.key;")
body3=$(it_fsal_body "Handle_Key_File = $IT_WORK/n3.key;")
{ echo "$N|1|$body1"; echo "$N/inner|2|$body2"; } | it_conf "$conf"
sed -i '/Export_Id = 2;/,/^}/ s/Squash = No_Root_Squash;/Squash = Root_Squash; Anonymous_Uid = 65534; Anonymous_Gid = 65534;/' "$conf"
grep -q 'Squash = Root_Squash' "$conf" || it_die "could not set export 2's squash"
cat >> "$conf" <<CONF
EXPORT {
  Export_Id = 3; Path = $N/inner; Pseudo = /again;
  Access_Type = RO; Squash = No_Root_Squash;
  Protocols = 3, 4; SecType = sys; Transports = TCP;
  FSAL { $body3 }
}
CONF
it_start "$conf" "$IT_WORK/ganesha.3.log"
for v in 3 4; do
  urls=("$N/x.txt" "$N/inner/x-link.txt")
  [ $v = 4 ] && urls+=("/again/x-link.txt")
  for u in "${urls[@]}"; do
    got=$(cat_of "$u" $v)
    [ "$got" = nested ] && it_pass "v$v: $u reads the linked file" ||
      it_fail "v$v: $u reads '$got', want 'nested'"
  done
  echo "v$v" > "$IT_WORK/small.txt"
  if [ $v = 4 ]; then
    timeout -k 2 $T nfs-cp "$IT_WORK/small.txt" "$(it_url "/again/ro-$v.txt" $v)" >/dev/null 2>&1 &&
      it_fail "v$v: a file was created through the read-only export 3" ||
      it_pass "v$v: export 3 (RO) refuses a create"
    [ -e "$N/inner/ro-$v.txt" ] && it_fail "v$v: ro-$v.txt exists on the server"
  fi
  timeout -k 2 $T nfs-cp "$IT_WORK/small.txt" "$(it_url "$N/inner/sq-$v.txt" $v)" >/dev/null 2>&1 &&
    [ "$(stat -c %u "$N/inner/sq-$v.txt" 2>/dev/null)" = 65534 ] &&
    it_pass "v$v: root's file through export 2 (Root_Squash) belongs to 65534" ||
    it_fail "v$v: export 2 create as squashed root: owner $(stat -c %u "$N/inner/sq-$v.txt" 2>&1)"
  timeout -k 2 $T nfs-cp "$IT_WORK/small.txt" "$(it_url "$N/ns-$v.txt" $v)" >/dev/null 2>&1 &&
    [ "$(stat -c %u "$N/ns-$v.txt" 2>/dev/null)" = 0 ] &&
    it_pass "v$v: root's file through export 1 (no squash) belongs to root" ||
    it_fail "v$v: export 1 create as root: owner $(stat -c %u "$N/ns-$v.txt" 2>&1)"
done
# written through export 1, then linked into export 2's tree (on the server) and read
# through 2 and 3: one object, whichever export it is seen through (nfs-cp only creates)
printf 'through-export-1\n' > "$IT_WORK/w1.txt"
timeout -k 2 $T nfs-cp "$IT_WORK/w1.txt" "$(it_url "$N/y.txt")" >/dev/null 2>&1 &&
  [ "$(cat_of "$N/y.txt")" = through-export-1 ] ||
  it_fail "write and read of y.txt through export 1 failed"
ln "$N/y.txt" "$N/inner/y-link.txt"
# y.txt is 0660 root's (nfs-cp's mode): export 3 (no squash) reads the link, export 2
# squashes root to 65534, which may not: the same object under each export's own rule
for u in "/again/y-link.txt:4"; do
  got=$(cat_of "${u%:*}" "${u##*:}")
  [ "$got" = through-export-1 ] && it_pass "v${u##*:}: ${u%:*} shows export 1's write" ||
    it_fail "v${u##*:}: ${u%:*} reads '$got' after export 1's write"
done
for v in 3 4; do
  got=$(cat_of "$N/inner/y-link.txt" $v)
  [ -z "$got" ] && it_pass "v$v: export 2 (root squashed) may not read root's 0660 y-link.txt" ||
    it_fail "v$v: export 2 read '$got' of root's 0660 file as squashed root"
done
# a handle export 1 minted for N/x.txt is not export 2's to accept
if it_is_dontcache; then
  it_run it_handles -e "$N/inner" forge -S -x "$N" && it_pass "export 2 refuses export 1's handles"
else
  it_log "forged handles: FSAL_VFS does not MAC its handles (fault_handles measures it)"
fi
it_check_alive "phase 3"
