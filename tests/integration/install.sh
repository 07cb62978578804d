#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The installed module works in a stock setup: `cmake --install BUILD` puts libfsaldontcache.so
# in ganesha's FSAL directory, and ganesha started with a config WITHOUT Plugins_Dir loads it from
# there and serves a libnfs client (data written and read back, namespace ops).
# Modifies the system (installs the module): runs only when DC_TEST_INSTALL=1 (tests/run.sh
# --install); otherwise reports SKIP. With GSH_ROOT (tests/run.sh --ganesha 6) the system is
# the Debian 13 root: the build tree of the module under test (DC_MODULE, built inside the
# root) is installed there with `cmake --install` run inside the root (scripts/debian13.sh).
. "$(dirname "$0")/../lib/harness.sh"
it_need_prog it_io
fsal_dir=/usr/lib/x86_64-linux-gnu/ganesha
installed=$fsal_dir/libfsaldontcache.so

[ "${DC_TEST_INSTALL:-0}" = 1 ] || it_skip "set DC_TEST_INSTALL=1 (tests/run.sh --install) to install into $fsal_dir"
it_is_dontcache || it_skip "installing applies to the DONTCACHE module only"

if [ -n "${GSH_ROOT:-}" ]; then
  mod_build=$(dirname "$(dirname "$IT_MODULE")")
  bash "$IT_TOP/scripts/debian13.sh" --build "$mod_build" cmake --install /build \
    > "$IT_WORK/install.log" 2>&1 ||
    { cat "$IT_WORK/install.log"; it_die "cmake --install $mod_build inside $GSH_ROOT failed"; }
  installed_at=$GSH_ROOT$installed   # the same file, seen from here
else
  cmake --install "$DC_BUILD_DIR" > "$IT_WORK/install.log" 2>&1 ||
    { cat "$IT_WORK/install.log"; it_die "cmake --install $DC_BUILD_DIR failed"; }
  installed_at=$installed
fi
[ -f "$installed_at" ] && it_pass "installed $installed_at" || it_die "$installed_at missing after cmake --install"
# cmake rewrites the RPATH on install, so compare the GNU build ids, not the bytes.
build_id() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: *//p'; }
bid=$(build_id "$IT_MODULE")
[ -n "$bid" ] && [ "$(build_id "$installed_at")" = "$bid" ] &&
  it_pass "installed module is the built one (build id $bid)" ||
  it_fail "$installed_at is not $IT_MODULE (build ids '$(build_id "$installed_at")' vs '$bid')"

# A config without Plugins_Dir: ganesha's own FSAL directory.
GSH_PLUGINS_DIR=
echo "$IT_EXP|1|Name = DONTCACHE;" | it_conf "$IT_WORK/ganesha.conf"
grep -q Plugins_Dir "$IT_WORK/ganesha.conf" && it_die "config unexpectedly names Plugins_Dir"
it_start "$IT_WORK/ganesha.conf"
grep -q "$installed" "/proc/$GSH_PID/maps" && it_pass "ganesha mapped $installed" ||
  it_fail "ganesha did not load $installed (maps: $(grep -o '/[^ ]*fsal[^ ]*' /proc/$GSH_PID/maps | sort -u | tr '\n' ' '))"
it_run it_io -e "$IT_EXP" rw 8
echo hello > "$IT_WORK/hello.txt"
timeout -k 2 30 nfs-cp "$IT_WORK/hello.txt" "$(it_url "$IT_EXP/hello.txt")" >/dev/null &&
  [ "$(timeout -k 2 30 nfs-cat "$(it_url "$IT_EXP/hello.txt")")" = hello ] &&
  it_pass "nfs-cp / nfs-cat through the installed module" || it_fail "nfs-cp / nfs-cat failed"
timeout -k 2 30 nfs-ls "$(it_url "$IT_EXP" 4)" | grep -q hello.txt &&
  it_pass "NFSv4 listing through the installed module" || it_fail "NFSv4 nfs-ls failed"
it_check_alive "serving from the installed module"
