#!/bin/sh
# SPDX-License-Identifier: MIT
# The symbol index's first-run cost (capture/stacks/symindex.c): a made-up
# library of N symbols (JAX's ten files hold 1.45 million) in shuffled
# table order, indexed REPS times from its table and REPS times mapped
# back from the cache, each checked against libdw at sampled addresses.
# Prints ms to build and ns a symbol, and the cache file's size.
#   bench/symindex.sh [N] [REPS]      (after make tests-build)
set -eu
cd "$(dirname "$0")/.."
N=${1:-1450000}
REPS=${2:-5}
W=build/bench/symindex
CHECK=build/stacks/symindex_check
[ -x "$CHECK" ] || { echo "symindex.sh: build $CHECK first: make tests-build" >&2; exit 1; }
mkdir -p "$W"
LIB=$W/libbig$N.so
if [ ! -f "$LIB" ]; then
	python3 bench/biglib.py "$N" 7 > "$W/big.s"
	cc -shared -nostdlib "$W/big.s" -o "$LIB"
	rm -f "$W/big.s"
fi
run() {   # run LABEL [ENV...]: build_ms of each rep, and a lookup's ns
	label=$1; shift
	ms=""; ns=""
	for i in $(seq "$REPS"); do
		line=$(env "$@" CT_SYMINDEX_STEPS=200000000 "$CHECK" "$LIB")
		case $line in ok*) ;; *) echo "symindex.sh: $line" >&2; exit 1 ;; esac
		ms="$ms $(echo "$line" | awk '{ print $7 }')"
		ns="$ns $(echo "$line" | awk '{ print $9 }')"
	done
	echo "$ms" | awk -v n="$N" -v label="$label" '{ min = 1e9; for (i = 1; i <= NF; i++) if ($i + 0 < min) min = $i;
		printf "%s:%s ms (%d reps; the least %.1f ms, %.1f ns a symbol)\n", label, $0, NF, min, min * 1e6 / n }'
	# The check's lookups are few and far apart (libdw scans the whole
	# table between them): each reads its buckets the first time, from
	# caches that libdw's scan emptied, as a first run's naming does.
	echo "  a lookup:$ns ns"
}
run "symbol index of $N symbols, from the table"
rm -rf "$W/cache"
env CT_SYMINDEX_CACHE="$W/cache" CT_SYMINDEX_STEPS=200000000 "$CHECK" "$LIB" > /dev/null
run "the same, mapped back from the cache" CT_SYMINDEX_CACHE="$W/cache"
echo "cache file: $(du -k "$W"/cache/*.symx | awk '{ print $1 }') KiB"
