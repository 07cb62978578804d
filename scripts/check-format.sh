#!/usr/bin/env bash
# Fails (and lists the files) when clang-format, with the repository's
# .clang-format, would change any C source or header of the module, its tests
# or the bench. Fix with: clang-format -i FILE...
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
echo "check-format: every C file formatted"
