#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Fails when the units of FSAL_DONTCACHE/ depend on each other in a circle.
# A unit is X.c with its X.h (a header without a .c is a unit of its own),
# named by its path under FSAL_DONTCACHE/ (io/engine, file, ...).
#  1. includes: every `#include "..."` of a .c/.h of FSAL_DONTCACHE/ that
#     names one of its files (next to the includer, or from FSAL_DONTCACHE/)
#     is an edge between their units; no build needed.
#  2. calls (with a build directory): a symbol an io/ object file uses and
#     another io/ object file defines (nm) is an edge between their units.
# Each graph goes through tsort (coreutils), which names the loop it finds.
# Usage: check-deps.sh [-v] [BUILD_DIR]   (-v: print each graph's layer
# order, bottom first: a unit uses only units printed before it)
set -u
export LC_ALL=C # sort and join alike
top=$(cd "$(dirname "$0")/.." && pwd)
mod="$top/FSAL_DONTCACHE"
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
build=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# unit of a file path under $mod: without the extension
unit() { local p=${1#"$mod"/}; echo "${p%.[ch]}"; }

# tsort input is "lower upper" (upper uses lower): the order is bottom first
check() { # name edge-file
	local name=$1 edges=$2
	if ! tsort "$edges" >"$tmp/order" 2>"$tmp/err"; then
		echo "check-deps: the $name graph of FSAL_DONTCACHE/ has a circle:"
		sed 's/^tsort: [^:]*: input contains a loop:/ units in a loop:/; s/^tsort: /   /' "$tmp/err"
		fail=1
		return
	fi
	if [ $verbose = 1 ]; then
		# a unit's layer: one above the highest unit it uses
		echo "check-deps: $name layers, bottom first (a unit uses only units of layers below its own):"
		awk 'NR == FNR { if ($1 != $2) dep[$2] = dep[$2] " " $1; next }
		     { n = split(dep[$1], d, " "); l = 0
		       for (i = 1; i <= n; i++) if (lv[d[i]] + 1 > l) l = lv[d[i]] + 1
		       lv[$1] = l; at[l] = at[l] " " $1; if (l > top) top = l }
		     END { for (l = 0; l <= top; l++) printf "  %2d:%s\n", l, at[l] }' \
			"$edges" "$tmp/order" | fold -s -w 78 | sed 's/^\([^ ]\)/       \1/'
	fi
}

# 1. include graph
: >"$tmp/inc"
while IFS= read -r f; do
	u=$(unit "$f")
	echo "$u $u" >>"$tmp/inc" # every unit is in the order
	dir=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while IFS= read -r inc; do
			for cand in "$dir/$inc" "$mod/$inc"; do
				if [ -f "$cand" ]; then
					t=$(unit "$(realpath -s "$cand" | sed 's#/[^/]*/\.\./#/#g')")
					[ "$t" != "$u" ] && echo "$t $u" >>"$tmp/inc"
					break
				fi
			done
		done
done < <(find "$mod" -name '*.[ch]' | sort)
check include "$tmp/inc"

# 2. call graph of io/ (needs the objects of a build)
objdir=${build:+$build/FSAL_DONTCACHE/io/CMakeFiles/dcio.dir}
if [ -z "$build" ]; then
	[ $verbose = 1 ] && echo "check-deps: no build directory given: io/'s call graph not checked"
elif ! ls "$objdir"/*.c.o >/dev/null 2>&1; then
	echo "check-deps: no io/ objects in $objdir: io/'s call graph not checked"
else
	: >"$tmp/defs"
	: >"$tmp/calls"
	objs=()
	for o in "$objdir"/*.c.o; do # not those of sources since removed
		[ -f "$mod/io/$(basename "$o" .o)" ] && objs+=("$o")
	done
	for o in "${objs[@]}"; do
		u=io/$(basename "$o" .c.o)
		echo "$u $u" >>"$tmp/calls"
		nm --defined-only "$o" | awk -v u="$u" '$2 ~ /^[TDBRCVW]$/ { print $3, u }' >>"$tmp/defs"
	done
	sort -u "$tmp/defs" >"$tmp/defs.s"
	for o in "${objs[@]}"; do
		u=io/$(basename "$o" .c.o)
		nm --undefined-only "$o" | awk '{ print $NF }' | sort -u |
			join - "$tmp/defs.s" | awk -v u="$u" '$2 != u { print $2, u }' >>"$tmp/calls"
	done
	sort -u "$tmp/calls" -o "$tmp/calls"
	check call "$tmp/calls"
fi
[ $fail = 0 ] || exit 1
echo "check-deps: FSAL_DONTCACHE/'s units include${build:+ and call} each other without a circle"
