#!/bin/bash
# Runs on the GPU machine (device tool): issue 13's figures for one or more
# builds of cudatrace, alternated within one run so that they compare.
#   CTS="name=/path/to/cudatrace ..."  builds to compare (static builds)
#   TOOLS=DIR  static bench/ helpers: ioctl_mix, stamp, floor, floor.bpf.o,
#              syscall_blocks, costs, costs.bpf.o
#   REPS (7), CALLS (20000); CTARGS: more options (--device F, to try it here)
#   PIN: runs the timed loops under it (default taskset -c 2 where there is
#   taskset: one CPU for untraced and traced runs alike)
# Prints lines "perf KIND build=NAME run=I ...", then their medians
# (perf-summary.py).
#  memgetinfo: memgetinfo_loop's in-process ns per cudaMemGetInfo, untraced
#              runs alternating with each build's traced run
#  startup:    cudatrace -w F -- stamp: ms from start until the command runs,
#              ms from its end until cudatrace has exited
#  stand:      the stand-in (RM_CONTROL on a regular file, --device), CPU ns
#              per call, untraced runs alternating with each build's traced run
#  tax:        getppid in blocks of one process, while an empty raw sys_enter
#              program (floor), empty raw sys_enter + sys_exit programs
#              (floor2), each build system-wide and each build -p of it are
#              attached in turn (bench/attach_windows.py: 25th percentiles)
#  costs:      bench/costs: each piece of a traced call on its own
#  bpf:        each BPF program's ns per run (bpf_stats) in a traced loop, REPS
#              times alternating; medians by program (in load order)
set -u
SRC=$(cd "$(dirname "$0")" && pwd)
W=${WORK:-/tmp/ctperf}
REPS=${REPS:-7}
CALLS=${CALLS:-20000}
TOOLS=${TOOLS:?TOOLS=DIR with ioctl_mix stamp floor floor.bpf.o syscall_blocks costs costs.bpf.o}
PIN=${PIN-$(command -v taskset > /dev/null && echo taskset -c 2)}
mkdir -p "$W"
. "$SRC/lib.sh"
# MGI=PROGRAM instead of building memgetinfo_loop (to try the script without a GPU)
cuda_program "$W/memgetinfo_loop" "$SRC/memgetinfo_loop.cu" "${MGI:-}" || exit 1

measure() {
for i in $(seq "$REPS"); do
	for b in $CTS; do
		name=${b%%=*} ct=${b#*=}
		echo "perf memgetinfo build=untraced run=$i $($PIN "$W/memgetinfo_loop" "$CALLS" | tail -n 1)"
		echo "perf memgetinfo build=$name run=$i $("$ct" ${CTARGS:-} -w "$W/m.ctrace" -- \
			$PIN "$W/memgetinfo_loop" "$CALLS" 2> "$W/m.err" | tail -n 1) [$(tail -n 1 "$W/m.err")]"
	done
done
# The stand-in: an RM_CONTROL on a regular file, CPU ns per call
for i in $(seq "$REPS"); do
	for b in $CTS; do
		name=${b%%=*} ct=${b#*=}
		echo "perf stand build=untraced run=$i $($PIN "$TOOLS/ioctl_mix" -f "$W/ctl" control 200000)"
		echo "perf stand build=$name run=$i $("$ct" --device "$W/ctl" -w "$W/c.ctrace" -- \
			$PIN "$TOOLS/ioctl_mix" -f "$W/ctl" control 200000 2> /dev/null)"
	done
done
for i in $(seq "$REPS"); do
	for b in $CTS; do
		name=${b%%=*} ct=${b#*=}
		# stamp prints CLOCK_MONOTONIC: it times the start and the end too
		t0=$("$TOOLS/stamp"); t0=${t0#stamp }
		st=$("$ct" ${CTARGS:-} -w "$W/s.ctrace" -- "$TOOLS/stamp" 2> /dev/null)
		t1=$("$TOOLS/stamp"); t1=${t1#stamp }
		st=${st#stamp }
		echo "perf startup build=$name run=$i startup_ms=$(((st - t0) / 1000000)) exit_ms=$(((t1 - st) / 1000000))"
	done
done
# Untraced getppid in blocks of one process while each tracer is attached
# in turn (bench/attach_windows.py), and what each piece of a traced call costs
ctlist=()
for b in $CTS; do ctlist+=(--ct "$b"); done
python3 "$SRC/../../bench/attach_windows.py" --blocks "$TOOLS/syscall_blocks" \
	--floor "$TOOLS/floor" --floor-obj "$TOOLS/floor.bpf.o" "${ctlist[@]}" \
	--ctargs "${CTARGS:-}" --windows "$REPS" --pin "$PIN" --tmp "$W"
"$TOOLS/costs" "$TOOLS/costs.bpf.o" 20000 "$REPS"
# Per-program run time, read from the tracer's own fdinfo (no bpftool there).
old=$(cat /proc/sys/kernel/bpf_stats_enabled)
echo 1 > /proc/sys/kernel/bpf_stats_enabled
for i in $(seq "$REPS"); do
	for b in $CTS; do
		name=${b%%=*} ct=${b#*=}
		"$ct" ${CTARGS:-} -w "$W/b.ctrace" -- sh -c "'$W/memgetinfo_loop' $CALLS > /dev/null;
			for f in /proc/\$PPID/fdinfo/*; do
				grep -q '^run_cnt' \$f 2> /dev/null || continue
				echo \"perf bpf build=$name run=$i \$(grep -E '^(prog_id|run_time_ns|run_cnt)' \$f | tr '\n\t' '  ')\"
			done" 2> /dev/null
	done
done
echo "$old" > /proc/sys/kernel/bpf_stats_enabled
}
measure | tee "$W/perf.log"
echo "== medians"
python3 "$SRC/perf-summary.py" < "$W/perf.log"
