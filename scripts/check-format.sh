#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Fails (and lists the files) when clang-format, with the repository's
# .clang-format, would change any C source or header of the module, its tests
# or the bench (fix with: clang-format -i FILE...), or when a source, script,
# CMake or config file lacks the project's licence line
# (SPDX-License-Identifier: LGPL-3.0-or-later, on line 1, or 2 after a #!), or when ganesha's
# checkpatch.pl (scripts/checkpatch.sh) reports a finding in FSAL_DONTCACHE/, or when
# FSAL_DONTCACHE/'s units include each other in a circle, or io/'s object files call
# each other in one (scripts/check-deps.sh; the calls when ${BUILD_DIR:-build} holds a build).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
command -v clang-format >/dev/null || { echo "check-format: clang-format missing (scripts/setup.sh)" >&2; exit 2; }
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files 'FSAL_DONTCACHE/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]')
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted as .clang-format says:"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
nolic=()
while IFS= read -r f; do
  head -n 2 "$f" | grep -q 'SPDX-License-Identifier: LGPL-3.0-or-later' || nolic+=("$f")
done < <(git ls-files '*.[ch]' '*.sh' '*.txt' '*.conf' .ci/run scripts/dontcache-stat)
if [ ${#nolic[@]} -gt 0 ]; then
  echo "check-format: ${#nolic[@]} file(s) without the SPDX licence line:"
  printf '  %s\n' "${nolic[@]}"
  exit 1
fi
# ganesha's checkpatch.pl with ganesha's checkpatch.conf (scripts/checkpatch.sh): clean, or
# each finding kept on purpose justified in scripts/checkpatch.suppress
bash "$top/scripts/checkpatch.sh" || exit 1
# the units of FSAL_DONTCACHE/ in layers (io/README.md): no circle of includes, nor of
# calls between io/'s object files when a build is there (scripts/check-deps.sh)
deps_build=${BUILD_DIR:-$top/build}
[ -d "$deps_build/FSAL_DONTCACHE/io" ] || deps_build=
bash "$top/scripts/check-deps.sh" $deps_build || exit 1
echo "check-format: every C file formatted, every file carries its SPDX line, checkpatch clean, no circle of units"
