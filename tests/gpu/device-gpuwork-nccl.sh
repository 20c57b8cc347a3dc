#!/bin/bash
# Runs on the two-GPU machine (device tool, nvidia-h100-x2 or h200-x2), from
# the repository root, with a static cudatrace in .devcarry/cudatrace-static.
# A two-rank NCCL all-reduce (20 a rank) under --gpu-work, three times, with
# the poller's costs (CUDATRACE_GPUWORK_COSTS): lost entries, wraps, late
# polls, the longest reads (docs/GPUWORK.md, "Measured on the H200").
# Outputs: $OUT/nccl{1,2,3}.err, $OUT/nccl1.ctrace; one summary line a run.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
C=$(pwd)/.devcarry
O=${OUT:-/tmp/out}
mkdir -p "$O"
# CPU throttling of this machine's cgroup, if any: a throttled reader stalls whole polls
throttled() { grep -h 'nr_throttled\|throttled_usec' /sys/fs/cgroup/cpu.stat 2>/dev/null | tr '\n' ' '; }
for i in 1 2 3; do
	echo "cgroup before $i: $(throttled)"
	CUDATRACE_GPUWORK_COSTS=1 ALLREDUCE_ITERS=20 "$C/cudatrace-static" --gpu-work -z \
		-w "/tmp/n$i.ctrace" -- torchrun --standalone --nproc_per_node=2 \
		tests/gpu/nccl_allreduce.py > "/tmp/n$i.out" 2> "$O/nccl$i.err"
	echo "NCCL $i: $(grep -h 'gpu-work: [0-9]* channels\|costs' "$O/nccl$i.err" | tr '\n' ' ')"
	echo "cgroup after $i: $(throttled)"
done
cp /tmp/n1.ctrace "$O/nccl1.ctrace"
