#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace carried as ./cudatrace-static (make STATIC=1 here,
# carry cudatrace-static).  The four gaps of issue 21 closed after the
# first H100 runs (docs/GPUWORK.md), on real CUDA work:
#   1. rings that went round: the loss counted as a lower bound (100,000
#      launches a second, polled at 50 and 200 Hz);
#   2. GPFIFO entries by kind (control entries, level, sync, fetch), and
#      the acceptance program still exact;
#   3. "after": every launch's tie checked against the trace's own calls
#      (tests/gpu/gpuwork_tie.cu, the acceptance program, PyTorch steps);
#   4. -p on a CUDA program already running: said at the start and end.
# A summary to stdout (the lines to look for start with "== "); traces,
# decoded JSON and logs in $OUT/gpuwork-gaps.tgz.
set -u
CT=$(pwd)/cudatrace-static
O=${OUT:-/tmp/out}
W=/tmp/gwg
CHECK="python3 tests/gpu/gpuwork_check.py"
mkdir -p "$W" "$O/gwg"
{
	date -u; uname -a; cat /proc/driver/nvidia/version; nvidia-smi -L
	nvcc --version | tail -2; "$CT" --version
} > "$O/gwg/env.txt" 2>&1
for p in accept rate tie; do
	src=tests/gpu/gpuwork_$p.cu
	nvcc -O2 -arch=sm_90 -o "$W/$p" "$src" || { echo "cannot build $src"; exit 1; }
done

# cap NAME HZ CMD...: capture CMD with --gpu-work=HZ to $W/NAME.ctrace,
# decode it to $W/NAME.jsonl (with -v, every entry and method, unless
# PLAIN=1: a 100,000-launch run would make hundreds of MB); prints the
# closing gpu-work lines.
cap() {
	local name=$1 hz=$2; shift 2
	local opt=--gpu-work=$hz
	[ "$hz" = default ] && opt=--gpu-work
	"$CT" "$opt" -z -w "$W/$name.ctrace" -- "$@" > "$W/$name.out" 2> "$W/$name.err"
	echo "== $name rc=$?"
	grep -h 'gpu-work:' "$W/$name.err"
	if [ "${PLAIN:-0}" = 1 ]; then
		"$CT" -r "$W/$name.ctrace" --json > "$W/$name.jsonl" 2> /dev/null
	else
		"$CT" -r "$W/$name.ctrace" --json -v > "$W/$name.jsonl" 2> /dev/null
	fi
	cp "$W/$name.ctrace" "$W/$name.out" "$W/$name.err" "$O/gwg/"
}

echo "== 1. loss in ring wraps (lower bound)"
for hz in 50 200; do
	PLAIN=1 cap rate-$hz "$hz" "$W/rate" 100000 1
	cat "$W/rate-$hz.out"
	$CHECK ring "$W/rate-$hz.jsonl" 100001
	$CHECK count "$W/rate-$hz.jsonl"
done

echo "== 2. entries by kind; the acceptance program exact"
cap accept default "$W/accept"
head -1 "$W/accept.out"
$CHECK accept "$W/accept.out" "$W/accept.jsonl"
$CHECK entries "$W/accept.jsonl"
cap rate-1k 200 "$W/rate" 1000 1
$CHECK entries "$W/rate-1k.jsonl"

echo "== 3. after which driver call"
cap tie 1000 "$W/tie" 30
$CHECK tie "$W/tie.jsonl"
$CHECK tieprog "$W/tie.out" "$W/tie.jsonl"
grep -m3 ' LAUNCH .* after ' <("$CT" -r "$W/tie.ctrace" 2> /dev/null)
$CHECK tie "$W/accept.jsonl"
cap torch default python3 tests/gpu/torch_steps.py 20
$CHECK tie "$W/torch.jsonl"
$CHECK entries "$W/torch.jsonl"

echo "== 4. -p on a running CUDA program"
"$W/rate" 2000 4 > "$W/late.out" &
late=$!
sleep 2   # its context, channels and first launches are made
"$CT" --gpu-work -p "$late" -w "$W/late.ctrace" 2> "$W/late.err"
wait "$late"
grep -h 'gpu-work' "$W/late.err"
cp "$W/late.err" "$W/late.out" "$O/gwg/"

cp "$W"/accept.jsonl "$W"/tie.jsonl "$O/gwg/" 2> /dev/null
cd "$O" && tar czf gpuwork-gaps.tgz gwg && rm -rf gwg
ls -la "$O"
