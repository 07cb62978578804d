#!/usr/bin/env bash
# README command 2: install dependencies, build (plus an ASan/UBSan build of the
# engine and unit tests), run every test. Ends with "N passed, M failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
BUILD_DIR=$build bash "$top/scripts/build.sh"
cmake -S "$top" -B "$build-san" -DCMAKE_BUILD_TYPE=Debug -DDC_SANITIZE=ON >/dev/null
cmake --build "$build-san" -j"$(nproc)"
exec bash "$top/tests/run.sh" "$build" --san "$build-san" --install
