#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# README command 2: install dependencies, build (plus an ASan/UBSan build of the
# engine and unit tests), run every test: the unit tests once, the integration and
# fault scenarios against Debian 12's ganesha 4.3 (the host) and against Debian 13's
# ganesha 6.5 (the root scripts/setup.sh --ganesha 6 makes, the module built inside
# it, clients from the host build; those tests are named "g6:<test>"). Ends with
# "N passed, M failed" counting both runs.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
set -e
BUILD_DIR=$build bash "$top/scripts/build.sh"
# The clean Debian 12 and 13 roots of the package scenario (tests/integration/package.sh),
# debootstrapped once per machine, and the build roots of scripts/package.sh made from them
# (the Build-Depends and lintian installed), and the qemu guest images of the node-crash
# scenarios (scripts/ha-guest-image.sh, from the bookworm root; and from the trixie root the
# Debian 13 one of guest_caps under 6.5), while the builds below and the first tests run.
# A build root or image that cannot be made fails only the scenarios needing it (each tries
# again and says why).
t_clean0=$(date +%s)
# In the order the tests need them: the 4.3 package and 6.5's (6.5's scenarios run beside
# 4.3's and reach theirs within minutes), then the node-crash guests (the end of 4.3's run).
(bash "$top/scripts/clean-root.sh" bookworm && bash "$top/scripts/clean-root.sh" trixie &&
 { bash "$top/scripts/package.sh" 4.3 --root-only || echo "test.sh: the 4.3 build root failed (above)"
   bash "$top/scripts/package.sh" 6.5 --root-only || echo "test.sh: the 6.5 build root failed (above)"
   bash "$top/scripts/ha-guest-image.sh" || echo "test.sh: the guest image failed (above)"
   bash "$top/scripts/ha-guest-image.sh" trixie ||
     echo "test.sh: the trixie guest image failed (above)"; }) \
  > "$build/clean-roots.log" 2>&1 &
clean_pid=$!
# ganesha 6.5: the Debian 13 root (debootstrap the first time) and the module built there,
# beside the sanitizer build and the 4.3 run (its 2-3 minutes, mostly downloads and unpacking,
# were on the critical path); the 6.5 run waits for it.
rm -f "$build/setup6.log"
(set +e
 { t0=$(date +%s)
   bash "$top/scripts/setup.sh" --ganesha 6 &&
   bash "$top/scripts/debian13.sh" --build "$build-g6" sh -c \
     "cmake -S /src -B /build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
      cmake --build /build -j$(nproc) --target fsaldontcache" &&
   echo "setup6: done in $(($(date +%s) - t0)) s"; } > "$build/setup6.log" 2>&1
 echo "setup6: exit $?" >> "$build/setup6.log") &
setup6_pid=$!
cmake -S "$top" -B "$build-san" -DCMAKE_BUILD_TYPE=Debug -DDC_SANITIZE=ON >/dev/null
cmake --build "$build-san" -j"$(nproc)"
# fio with its libnfs engine for bench_fio (a download: outside the tests' network namespaces)
bash "$top/bench/fio-build.sh" > "$build/fio-build.log" 2>&1 ||
  echo "test.sh: fio with its nfs engine did not build ($build/fio-build.log): bench_fio will skip"
set +e

# The tests start while the roots and the image may still be in the making: the scenarios
# needing one (package, node_crash, reclaim_v41) call the same scripts, which wait on the
# maker's lock and then find the cached result (or make it themselves and say why).
# The unit tests first (they do not depend on ganesha), then the scenarios of both releases
# side by side: each scenario has its own network and mount namespace (tests/lib/in-ns.sh),
# 6.5's ganesha runs in its own root, and the scenarios spend about half their time waiting
# (grace periods, guests, failovers), so two at once fill the 2 cores that one left half idle
# (28 minutes one after the other, 22 side by side). 6.5's lines come after 4.3's.
outu=$build/test-unit.out out4=$build/test-4.3.out out6=$build/test-6.5.out
bash "$top/tests/run.sh" "$build" --san "$build-san" --no-scenarios | tee "$outu"
(while kill -0 "$setup6_pid" 2>/dev/null && ! grep -q '^setup6: exit' "$build/setup6.log"; do
   sleep 1
 done
 t0=$(date +%s)
 if grep -q '^setup6: done in' "$build/setup6.log"; then
   # The second release runs the failover scenario's process-crash variants that differ by
   # ganesha ("shared", "health"; the key and verifier variants are the module's, run on 4.3
   # and by key_create/verifier on both), half the fuzzing time and half the engine-mode
   # configurations (the modes are the engine's; each flush mode and read mode still runs).
   HA_VARIANTS="shared health" FUZZ_SECONDS=8 MODES_ONLY="0 3 5 7" \
   bash "$top/tests/run.sh" "$build" --ganesha 6 --install --no-unit --prefix g6: \
     --module "$build-g6/FSAL_DONTCACHE/libfsaldontcache.so" > "$out6" 2>&1
 else
   { echo "FAIL g6:setup (the Debian 13 root or the module built in it; $build/setup6.log):"
     tail -n 30 "$build/setup6.log"
     echo "0 passed, 1 failed"; } > "$out6"
 fi
 echo $(($(date +%s) - t0)) > "$build/test-6.5.secs") &
run6_pid=$!
bash "$top/tests/run.sh" "$build" --install --no-unit | tee "$out4"
wait $clean_pid || { echo "test.sh: making the clean and build roots failed:"; cat "$build/clean-roots.log"; }
t_clean=$(($(date +%s -r "$build/clean-roots.log") - t_clean0))  # when it last wrote
wait $run6_pid
echo "---- ganesha 6.5 (ran beside the 4.3 scenarios; logs in $build/test-logs-g6)"
cat "$out6"
t_setup6=$(sed -n 's/^setup6: done in \([0-9]*\) s$/\1/p' "$build/setup6.log")
t_run6=$(cat "$build/test-6.5.secs" 2>/dev/null)

# house style: every C file as .clang-format says, the module's units in layers (one more
# test in the count)
if BUILD_DIR=$build bash "$top/scripts/check-format.sh"; then echo "PASS format"; pf=1 ff=0
else echo "FAIL format"; pf=0 ff=1; fi

count() { tail -n 1 "$1" | sed -n "s/^\([0-9]*\) passed, \([0-9]*\) failed$/\\$2/p"; }
pu=$(count "$outu" 1) fu=$(count "$outu" 2)
p4=$(count "$out4" 1) f4=$(count "$out4" 2) p6=$(count "$out6" 1) f6=$(count "$out6" 2)
echo "unit tests: ${pu:-?} passed, ${fu:-?} failed; ganesha 4.3: ${p4:-?} passed, ${f4:-?}" \
     "failed; ganesha 6.5: ${p6:-?} passed, ${f6:-?} failed; 6.5 setup+build ${t_setup6:-?}s" \
     "(beside), its tests ${t_run6:-?}s (beside 4.3's); clean and build roots ${t_clean:-?}s" \
     "(beside the builds)"
[ -n "$pu" ] && [ -n "$p4" ] && [ -n "$p6" ] || { echo "0 passed, 1 failed"; exit 1; }
echo "$((pu + p4 + p6 + pf)) passed, $((fu + f4 + f6 + ff)) failed"
[ $((fu + f4 + f6 + ff)) -eq 0 ]
