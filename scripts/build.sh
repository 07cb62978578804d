#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Installs dependencies (scripts/setup.sh) and builds into ${BUILD_DIR:-build}.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/build}
bash "$top/scripts/setup.sh"
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
