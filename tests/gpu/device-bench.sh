#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace and libioctlcount.so carried in .devcarry/.  Checks the
# current build on real hardware (a capture against the independent count,
# system-wide capture, -p attach) and measures the traced/untraced ratio of
# real CUDA workloads.  Output: lines on stdout, files in $OUT.
set -u
B=$(pwd)/.devcarry
O=${OUT:-/tmp/out}
W=/tmp/ctwork
CT=$B/cudatrace
LIB=$B/libioctlcount.so
REPS=${REPS:-7}
mkdir -p "$W" "$O"
tests/gpu/build.sh "$W/bin" > "$W/build.log" 2>&1 || { cat "$W/build.log"; exit 1; }

echo "== check: saxpy against the LD_PRELOAD count"
"$CT" -w "$O/saxpy.ctrace" -- env LD_PRELOAD="$LIB" IOCTLCOUNT_OUT="$W/saxpy.count" \
	"$W/bin/saxpy" 2>&1 | tail -2
head -1 "$W/saxpy.count"
echo "trace: $("$CT" -r "$O/saxpy.ctrace" | grep -c ' ioctl(') ioctls"

echo "== check: system-wide capture while saxpy and torch_matmul run"
"$CT" -w "$O/system.ctrace" 2> "$W/sys.err" &
ctpid=$!
while ! grep -q tracing "$W/sys.err"; do sleep 0.1; done
"$W/bin/saxpy" > /dev/null
python3 tests/gpu/torch_matmul.py > /dev/null
kill -INT $ctpid; wait $ctpid; echo "rc=$?"; cat "$W/sys.err"
"$CT" -r "$O/system.ctrace" --json | grep '"type":"proc"' | cut -c1-200

echo "== check: -p attach to a running PyTorch loop"
python3 tests/gpu/torch_train.py 3000 > "$W/train.out" &
tpid=$!
sleep 6
"$CT" -p $tpid -w "$O/attach.ctrace" 2>&1 | tail -2
wait $tpid; tail -1 "$W/train.out"
echo "attach trace: $("$CT" -r "$O/attach.ctrace" | grep -c ' ioctl(') ioctls"

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
bench malloc_loop "$W/bin/malloc_loop" 5000
bench ctx_create "$W/bin/ctx_create"
bench torch_train python3 tests/gpu/torch_train.py 300

# Issue 13's figures for this build: cudaMemGetInfo pairs, start-up and exit,
# the tax on other system calls, per-program run time (device-perf.sh); the
# static bench helpers (ioctl_mix, stamp, floor, floor.bpf.o, syscall_blocks,
# costs, costs.bpf.o) in .devcarry/tools.
if [ -d "$B/tools" ]; then
	CTS="current=$CT" TOOLS="$B/tools" REPS="$REPS" tests/gpu/device-perf.sh
fi
