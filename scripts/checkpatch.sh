#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# ganesha's checkpatch.pl with ganesha's own configuration (src/scripts/checkpatch.conf of
# the source tree the build unpacks: third_party/nfs-ganesha-4.3) over every C file of the
# module. A finding kept on purpose is listed, one line with its reason, in
# scripts/checkpatch.suppress ("FILE:TYPE  reason"). Exit 1 on any other finding, 2 when the
# ganesha source is missing (scripts/setup.sh unpacks it).
#   usage: scripts/checkpatch.sh [--fix]   (--fix: checkpatch's own --fix-inplace, then
#          clang-format; review the result)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
cp=$top/third_party/nfs-ganesha-4.3/src/scripts
[ -f "$cp/checkpatch.pl" ] && [ -f "$cp/checkpatch.conf" ] ||
  { echo "checkpatch: $cp/checkpatch.pl missing (scripts/setup.sh)" >&2; exit 2; }
# one option or "--ignore TYPE" a line: split into words (the file has no globs)
read -ra opts <<<"$(grep -v '^#' "$cp/checkpatch.conf" | tr '\n' ' ')"
fix=()
[ "${1:-}" = --fix ] && fix=(--fix-inplace)
mapfile -t files < <(git ls-files 'FSAL_DONTCACHE/*.[ch]')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in "${files[@]}"; do
  perl "$cp/checkpatch.pl" "${opts[@]}" "${fix[@]}" --file --terse --no-summary \
    --show-types "$f" 2>/dev/null
done > "$out"
[ ${#fix[@]} -gt 0 ] && clang-format -i "${files[@]}"
bad=0
while IFS= read -r line; do
  f=${line%%:*}
  type=$(sed -nE 's/.*(WARNING|ERROR|CHECK):([A-Z_]+):.*/\2/p' <<<"$line")
  if grep -qE "^$f:$type[[:space:]]" scripts/checkpatch.suppress 2>/dev/null; then
    continue
  fi
  echo "$line"
  bad=$((bad + 1))
done < "$out"
if [ $bad -gt 0 ]; then
  echo "checkpatch: $bad finding(s) (ganesha's checkpatch.conf); fix them or justify each in scripts/checkpatch.suppress"
  exit 1
fi
echo "checkpatch: FSAL_DONTCACHE clean with ganesha's configuration"
