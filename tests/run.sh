#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The test runner: unit tests (ctest, one line per test), then every scenario
# tests/integration/*.sh, tests/faults/*.sh (fault_*.sh) and tests/ha/*.sh (two heads; all on
# tests/lib/harness.sh) and
# bench/smoke.sh if present, each with a timeout. One line per test: "PASS name (Ns)", "FAIL name (Ns)" (followed by the tail of its
# log) or "SKIP name (Ns)"; the last line is exactly "N passed, M failed". Exit status non-zero
# if anything failed. Logs go to BUILD_DIR/test-logs/.
#
# usage: tests/run.sh [BUILD_DIR] [--san SAN_BUILD_DIR] [--install] [--fsal DONTCACHE|VFS]
#                     [--ganesha 4|6] [--module PATH] [--prefix P] [--no-unit] [--no-scenarios]
#                     [--only REGEX]
#   BUILD_DIR   a configured and built tree (default: build)
#   --san       also run the unit tests of a -DDC_SANITIZE=ON (ASan+UBSan) build, named "<test>[san]"
#   --install   also run the install scenario (cmake --install BUILD_DIR into ganesha's FSAL
#               directory, then a config without Plugins_Dir); sets DC_TEST_INSTALL=1
#   --fsal      FSAL under test for the integration scenarios (default DONTCACHE)
#   --ganesha   6: the scenarios run ganesha 6.5 in the Debian 13 root (scripts/setup.sh
#               --ganesha 6) by exporting GSH_ROOT (tests/lib/ganesha.sh); 4 (default): the host's
#   --module    the module the scenarios load (sets DC_MODULE; default: BUILD_DIR's). With
#               --ganesha 6: the one built inside the Debian 13 root, e.g.
#               scripts/debian13.sh --build B13 ... then --module B13/FSAL_DONTCACHE/libfsaldontcache.so
#   --prefix P  put P before every test name, logs in BUILD_DIR/test-logs-P (scripts/test.sh:
#               "g6:" for the run against 6.5)
#   --no-unit   skip the unit tests (they do not depend on ganesha: scripts/test.sh runs them once)
#   --no-scenarios  run only the unit tests (scripts/test.sh runs them before the scenarios of
#               the two ganesha releases, which then run side by side)
#   --only      run only tests whose name matches REGEX
# Environment: DC_UNIT_TIMEOUT (s, default 600), DC_TEST_TIMEOUT (s per scenario, default 180;
# a scenario may ask for more with a "# run.sh timeout: N" line in its header).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=
san=
only=
prefix=
no_unit=0
no_scen=0
export DC_TEST_FSAL=${DC_TEST_FSAL:-DONTCACHE}
while [ $# -gt 0 ]; do
  case $1 in
    --install) export DC_TEST_INSTALL=1 ;;
    --fsal) export DC_TEST_FSAL=$2; shift ;;
    --only) only=$2; shift ;;
    --module) export DC_MODULE=$(readlink -f "$2"); shift ;;
    --prefix) prefix=$2; shift ;;
    --no-unit) no_unit=1 ;;
    --no-scenarios) no_scen=1 ;;
    --ganesha)
      case $2 in
        4|4.3) unset GSH_ROOT ;;
        6|6.5) export GSH_ROOT=${DC_DEBIAN13_ROOT:-$top/third_party/debian13-root}
               [ -x "$GSH_ROOT/usr/bin/ganesha.nfsd" ] ||
                 { echo "run.sh: no ganesha in $GSH_ROOT: run scripts/setup.sh --ganesha 6" >&2; exit 2; } ;;
        *) echo "run.sh: --ganesha takes 4 or 6" >&2; exit 2 ;;
      esac
      shift ;;
    --san) san=$2; shift ;;
    -h|--help) sed -n '3,25p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
build=${build:-$top/build}
[ -d "$build" ] || { echo "run.sh: no build directory $build (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
build=$(cd "$build" && pwd)
logs=$build/test-logs${prefix:+-${prefix//[^A-Za-z0-9]/}}
# a run of only the units or only the scenarios keeps the other part's logs
[ $no_unit = 1 ] || [ $no_scen = 1 ] || rm -rf "$logs"
mkdir -p "$logs"
export DC_BUILD_DIR=$build
unit_timeout=${DC_UNIT_TIMEOUT:-600}
script_timeout=${DC_TEST_TIMEOUT:-180}

passed=0 failed=0 skipped=0
failed_names=() skipped_names=()

now_ms() { date +%s%3N; }
secs() { local ms=$1; printf '%d.%d' $((ms / 1000)) $(((ms % 1000) / 100)); }

report() { # report STATUS NAME MS LOG
  local st=$1 name=$prefix$2 ms=$3 log=$4
  case $st in
    PASS) passed=$((passed + 1)) ;;
    SKIP) skipped=$((skipped + 1)); skipped_names+=("$name") ;;
    *) failed=$((failed + 1)); failed_names+=("$name") ;;
  esac
  echo "$st $name ($(secs "$ms")s)"
  if [ "$st" = FAIL ]; then
    # The failed checks first (scenarios print "FAIL: ..." and programs "not ok - ...", CUnit
    # "Test: name ...FAILED" and then "1. file.c:line  - expression"), then the end of the log.
    echo "  ---- failed checks in $log"
    grep -E '^(not ok|FAIL:|CRASH:)|\*\*\*Failed|Timeout|timed out|\.\.\.FAILED|^ +[0-9]+\. [^ ]+:[0-9]+ ' \
      "$log" | head -n 40 | cut -c1-300 | sed 's/^/  | /'
    echo "  ---- last lines"
    grep -v ':DBUS :\|krb5\|keytab\|gssd_refresh\|svc_vc_wait\|^ok' "$log" | tail -n 12 | cut -c1-300 | sed 's/^/  | /'
    echo "  ----"
  fi
}

selected() { [ -z "$only" ] || [[ $1 =~ $only ]]; }

# ---- unit tests: one ctest invocation per test, so each has its own log and time.
run_units() { # run_units BUILD_DIR SUFFIX
  local dir=$1 sfx=$2 t log re t0 rc ms units
  if [ ! -f "$dir/CTestTestfile.cmake" ]; then
    echo "run.sh: $dir has no CTestTestfile.cmake: no unit tests registered" >&2
    return
  fi
  mapfile -t units < <(ctest --test-dir "$dir" -N 2>/dev/null |
                       sed -n 's/^ *Test *#[0-9]*: *\(.*\)$/\1/p')
  for t in "${units[@]}"; do
    selected "$t$sfx" || continue
    log=$logs/unit-$t$sfx.log
    re=$(printf '%s' "$t" | sed 's/[][\.*^$+?(){}|]/\\&/g')
    t0=$(now_ms)
    timeout -k 10 "$((unit_timeout + 30))" \
      ctest --test-dir "$dir" -R "^${re}\$" --output-on-failure --timeout "$unit_timeout" \
      > "$log" 2>&1
    rc=$?
    ms=$(($(now_ms) - t0))
    if grep -q '\*\*\*Skipped\|(Skipped)' "$log"; then
      report SKIP "$t$sfx" "$ms" "$log"
    elif [ $rc -eq 0 ] && grep -q "100% tests passed" "$log"; then
      report PASS "$t$sfx" "$ms" "$log"
    else
      report FAIL "$t$sfx" "$ms" "$log"
    fi
  done
}
[ $no_unit = 1 ] || run_units "$build" ""
if [ -n "$san" ] && [ $no_unit = 0 ]; then
  [ -d "$san" ] || { echo "run.sh: no sanitizer build directory $san" >&2; exit 2; }
  run_units "$(cd "$san" && pwd)" "[san]"
fi

# ---- integration scenarios, the two-heads scenarios (tests/ha), then the bench smoke test.
scripts=("$top"/tests/integration/*.sh "$top"/tests/faults/*.sh "$top"/tests/ha/*.sh)
[ -f "$top/bench/smoke.sh" ] && scripts+=("$top/bench/smoke.sh")
[ -x "$build/bench/dcbench" ] && export DCBENCH=${DCBENCH:-$build/bench/dcbench}

[ $no_scen = 1 ] && scripts=()
for s in "${scripts[@]}"; do
  name=$(basename "$s" .sh)
  [ "$s" = "$top/bench/smoke.sh" ] && name=bench_smoke
  selected "$name" || continue
  log=$logs/$name.log
  # a scenario that needs longer says so in its header: "# run.sh timeout: N" (seconds)
  limit=$(sed -n '1,40s/^# run\.sh timeout: *\([0-9][0-9]*\)$/\1/p' "$s" | head -n 1)
  [ -n "$limit" ] && [ "$limit" -gt "$script_timeout" ] || limit=$script_timeout
  t0=$(now_ms)
  DC_TEST_LOGDIR=$logs/$name.d timeout -k 15 "$limit" bash "$s" > "$log" 2>&1 < /dev/null
  rc=$?
  ms=$(($(now_ms) - t0))
  case $rc in
    0) report PASS "$name" "$ms" "$log" ;;
    77) report SKIP "$name" "$ms" "$log" ;;
    124|137) echo "(timed out after ${limit}s)" >> "$log"; report FAIL "$name" "$ms" "$log" ;;
    *) report FAIL "$name" "$ms" "$log" ;;
  esac
done

[ $skipped -gt 0 ] && echo "skipped: ${skipped_names[*]}"
[ $failed -gt 0 ] && echo "failed: ${failed_names[*]}"
echo "logs: $logs"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
