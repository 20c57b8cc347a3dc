#!/bin/bash
# Runs on the GPU machine (device tool): what tracing adds to one
# cudaMemGetInfo, inside one process.  memgetinfo_blocks runs for a while;
# each build in CTS attaches to it (-p, and system-wide) for a second, then
# detaches, WINDOWS times (bench/attach_windows.py, which prints the 10th
# and 25th percentiles and the median of the traced blocks against the
# untraced ones between the windows).
#   CTS="name=/path/to/cudatrace ..."
#   WINDOWS (10), PIN (taskset -c 2); CTARGS: more options (--device F)
set -u
SRC=$(cd "$(dirname "$0")" && pwd)
W=${WORK:-/tmp/ctattach}
PIN=${PIN-$(command -v taskset > /dev/null && echo taskset -c 2)}
mkdir -p "$W"
. "$SRC/lib.sh"
# MGB=PROGRAM instead of building memgetinfo_blocks (to try the script without a GPU)
cuda_program "$W/mgb" "$SRC/memgetinfo_blocks.cu" "${MGB:-}" || exit 1
ctlist=()
for b in $CTS; do ctlist+=(--ct "$b"); done
python3 "$SRC/../../bench/attach_windows.py" --blocks "$W/mgb" --block 2000 --window 1 \
	"${ctlist[@]}" --ctargs "${CTARGS:-}" --windows "${WINDOWS:-10}" --pin "$PIN" --tmp "$W"
