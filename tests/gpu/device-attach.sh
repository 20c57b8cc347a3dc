#!/bin/bash
# Runs on the GPU machine (device tool): what tracing adds to one
# cudaMemGetInfo, inside one process.  memgetinfo_blocks runs for a while;
# each build in CTS attaches to it (-p, and system-wide) for a second, then
# detaches, WINDOWS times.  Blocks wholly inside a traced window count as
# traced, blocks wholly inside the gaps as untraced; attach-summary.py
# prints the medians and the median of (traced window - the gap before it).
#   CTS="name=/path/to/cudatrace ..."  TOOLS=DIR with stamp
#   WINDOWS (10), PIN (taskset -c 2); CTARGS: more options (--device F)
set -u
SRC=$(cd "$(dirname "$0")" && pwd)
W=${WORK:-/tmp/ctattach}
WINDOWS=${WINDOWS:-10}
TOOLS=${TOOLS:?TOOLS=DIR with stamp}
PIN=${PIN-$(command -v taskset > /dev/null && echo taskset -c 2)}
mkdir -p "$W"
. "$SRC/lib.sh"
# MGB=PROGRAM instead of building memgetinfo_blocks (to try the script without a GPU)
cuda_program "$W/mgb" "$SRC/memgetinfo_blocks.cu" "${MGB:-}" || exit 1
stamp() { local s; s=$("$TOOLS/stamp"); echo "${s#stamp }"; }
for b in $CTS; do
	name=${b%%=*} ct=${b#*=}
	for mode in p system; do
		$PIN "$W/mgb" $((WINDOWS * 3 + 4)) 2000 > "$W/blocks" &
		sleep 2
		lp=$(pgrep -n -f "$W/mgb")
		for i in $(seq "$WINDOWS"); do
			args=(-w "$W/a.ctrace")
			[ "$mode" = p ] && args+=(-p "$lp")
			"$ct" ${CTARGS:-} "${args[@]}" 2> "$W/a.err" &
			cp=$!
			until_word "$W/a.err" tracing 6
			on=$(stamp); sleep 1; off=$(stamp)
			kill -INT $cp; wait $cp
			echo "window $name-$mode $on $off $(stamp)"
			sleep 1
		done
		wait
		sed "s/^/attach $name-$mode /" "$W/blocks"
	done
done
