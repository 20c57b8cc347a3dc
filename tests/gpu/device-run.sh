#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace and libioctlcount.so carried in .devcarry/.  Captures the
# real traces for traces/, checks each against an independent LD_PRELOAD
# count made in the same run, and times traced vs untraced workloads.
# Everything it produces goes to $OUT.
set -u
B=$(pwd)/.devcarry
O=${OUT:-/tmp/out}
W=/tmp/ctwork
CT=$B/cudatrace
LIB=$B/libioctlcount.so
REPS=${REPS:-5}
mkdir -p "$W" "$O/tr"

{
	date -u; uname -a; cat /proc/driver/nvidia/version; nvidia-smi -L
	nvcc --version | tail -2
	python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
	grep nvidia /proc/devices; ls -la /dev/nvidia*
} > "$O/env.txt" 2>&1
tests/gpu/build.sh "$W/bin" >> "$O/env.txt" 2>&1 || { cat "$O/env.txt"; exit 1; }

# cap NAME CMD...: capture CMD to $O/tr/NAME.ctrace with the counter preloaded.
cap() {
	local name=$1; shift
	rm -f "$W/$name.count"
	"$CT" -w "$O/tr/$name.ctrace" -- env LD_PRELOAD="$LIB" IOCTLCOUNT_OUT="$W/$name.count" \
		"$@" > "$W/$name.out" 2> "$W/$name.err"
	echo "== $name rc=$? $(tail -n 1 "$W/$name.err")"
	cat "$W/$name.out" | tail -n 2
	grep -h '^ioctlcount' "$W/$name.count"
	cp "$W/$name.count" "$O/tr/$name.count"
}

cap saxpy "$W/bin/saxpy"
cap malloc_loop "$W/bin/malloc_loop" 100
cap ctx_create "$W/bin/ctx_create"
cap torch_matmul python3 tests/gpu/torch_matmul.py
cap torch_train python3 tests/gpu/torch_train.py 50

# Overhead: the same command untraced and traced, alternating, REPS times.
ns() { date +%s%N; }
bench() {
	local name=$1; shift
	for i in $(seq "$REPS"); do
		t0=$(ns); "$@" > "$W/b.out" 2>&1; t1=$(ns)
		echo "bench $name untraced run=$i wall_ns=$((t1 - t0)) $(tail -n 1 "$W/b.out")"
		t0=$(ns); "$CT" -w "$W/b.ctrace" -- "$@" > "$W/b.out" 2> "$W/b.err"; t1=$(ns)
		echo "bench $name traced run=$i wall_ns=$((t1 - t0)) $(tail -n 1 "$W/b.out") [$(tail -n 1 "$W/b.err")]"
	done
}
bench malloc_loop "$W/bin/malloc_loop" 2000
bench ctx_create "$W/bin/ctx_create"
bench torch_train python3 tests/gpu/torch_train.py 300

cd "$O" && tar czf traces.tgz tr && rm -rf tr
