#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# The module's .so exports only its entry points (issue 38): every symbol
# `nm -D --defined-only` lists carries the module's dc_ prefix, and the
# registration entry point is among them (so an empty or failed nm does not
# pass). Before -fvisibility=hidden some 200 names were exported, the engine's
# unprefixed ones (file_get, pool_start, req_new...) among them.
# Usage: module_symbols.sh LIBFSALDONTCACHE.SO
set -u
so=${1:?usage: module_symbols.sh LIBFSALDONTCACHE.SO}
command -v nm >/dev/null || { echo "nm not installed" >&2; exit 77; }
syms=$(nm -D --defined-only "$so" | awk 'NF >= 3 {print $3}') || { echo "FAIL: nm -D $so failed"; exit 1; }
bad=$(printf '%s\n' "$syms" | grep -v '^dc_' | grep -v '^$')
n=$(printf '%s\n' "$syms" | grep -c .)
rc=0
if [ -n "$bad" ]; then
  echo "FAIL: $(printf '%s\n' "$bad" | wc -l) of $n exported symbols lack the dc_ prefix:"
  printf '  %s\n' $bad | head -n 40
  rc=1
fi
printf '%s\n' "$syms" | grep -qx dc_init || { echo "FAIL: dc_init (the module's registration) is not exported"; rc=1; }
[ $rc = 0 ] && echo "PASS: $n exported symbols, all dc_: $(printf '%s ' $syms)"
exit $rc
