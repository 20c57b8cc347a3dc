#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace carried as ./cudatrace-static.  --gpu-work (issue 21,
# docs/GPUWORK.md): the acceptance program twice (random N, M, sizes),
# launch rates against poll rates, PyTorch steps, JAX and CuPy.  Traces
# and logs go to $OUT/gpuwork.tgz; a summary to stdout.
set -u
CT=$(pwd)/cudatrace-static
O=${OUT:-/tmp/out}
W=/tmp/gw
CHECK="python3 tests/gpu/gpuwork_check.py"
mkdir -p "$W" "$O/gw"
{
	date -u; uname -a; cat /proc/driver/nvidia/version; nvidia-smi -L
	nvcc --version | tail -2
} > "$O/gw/env.txt" 2>&1
nvcc -O2 -arch=sm_90 -o "$W/accept" tests/gpu/gpuwork_accept.cu || exit 1
nvcc -O2 -arch=sm_90 -o "$W/rate" tests/gpu/gpuwork_rate.cu || exit 1

# cap NAME HZ CMD...: capture CMD with --gpu-work=HZ to $W/NAME.ctrace,
# decode it to $W/NAME.jsonl.
cap() {
	local name=$1 hz=$2; shift 2
	local opt=--gpu-work=$hz
	[ "$hz" = default ] && opt=--gpu-work
	CUDATRACE_GPUWORK_PROBE=1 "$CT" "$opt" -z -w "$W/$name.ctrace" -- "$@" \
		> "$W/$name.out" 2> "$W/$name.err"
	echo "== $name rc=$? $(grep -h 'gpu-work:' "$W/$name.err")"
	"$CT" -r "$W/$name.ctrace" --json > "$W/$name.jsonl" 2> /dev/null
}

for i in 1 2 3; do
	cap accept$i default "$W/accept"
	head -1 "$W/accept$i.out"
	$CHECK accept "$W/accept$i.out" "$W/accept$i.jsonl"
	$CHECK count "$W/accept$i.jsonl"
	cp "$W/accept$i.ctrace" "$W/accept$i.out" "$W/accept$i.err" "$O/gw/"
done
grep -h probe "$W/accept1.err" | head -12

# The poller's own cost with the channels of one idle CUDA process.
for hz in 1000 200 50; do
	cap idle-$hz "$hz" "$W/rate" 0 2
	echo "idle hz $hz: $(grep -h 'gpu-work:' "$W/idle-$hz.err")"
done
for rate in 1000 10000 100000; do
	for hz in 1000 200 50; do
		cap rate-$rate-$hz "$hz" "$W/rate" "$rate" 1
		echo "rate $rate hz $hz: $(cat "$W/rate-$rate-$hz.out") $($CHECK count "$W/rate-$rate-$hz.jsonl")"
		cp "$W/rate-$rate-$hz.err" "$O/gw/"
	done
done

cap torch default python3 tests/gpu/torch_steps.py 20
tail -1 "$W/torch.out"
$CHECK steps "$W/torch.jsonl" 25
$CHECK count "$W/torch.jsonl"
cap jax default python3 tests/gpu/jax_sum.py
tail -1 "$W/jax.out"; $CHECK count "$W/jax.jsonl"
cap cupy default python3 tests/gpu/cupy_sum.py
tail -1 "$W/cupy.out"; $CHECK count "$W/cupy.jsonl"
cp "$W/torch.ctrace" "$W/torch.err" "$W/jax.err" "$W/cupy.err" "$O/gw/"
cd "$O" && tar czf gpuwork.tgz gw && rm -rf gw
ls -la "$O"
