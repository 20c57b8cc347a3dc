#!/bin/bash
# Runs on the two-GPU machine (device tool, nvidia-h200-x2), from the
# repository root, with a static cudatrace and libioctlcount.so in .devcarry/.
# Captures, system-wide, a two-process PyTorch NCCL all-reduce and checks it
# against the LD_PRELOAD count.  NVLink multicast stays off everywhere.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
B=$(pwd)/.devcarry
O=${OUT:-/tmp/out}
W=/tmp/ctwork
mkdir -p "$W" "$O"
{ date -u; uname -r; cat /proc/driver/nvidia/version; nvidia-smi -L; nvidia-smi topo -m
  python3 -c 'import torch; print("torch", torch.__version__, "gpus", torch.cuda.device_count(), "nccl", torch.cuda.nccl.version())'
} > "$O/env.txt" 2>&1
cat "$O/env.txt"
"$B/cudatrace" -z -w "$O/nccl.ctrace" 2> "$W/ct.err" &
ct=$!
while ! grep -q tracing "$W/ct.err"; do sleep 0.1; done
rm -f "$W/nccl.count"
LD_PRELOAD="$B/libioctlcount.so" IOCTLCOUNT_OUT="$W/nccl.count" \
	torchrun --standalone --nproc_per_node=2 tests/gpu/nccl_allreduce.py 2>&1 | tail -5
sleep 0.5
kill -INT $ct; wait $ct
cat "$W/ct.err"
cp "$W/nccl.count" "$O/nccl.count"
grep '^ioctlcount' "$W/nccl.count"
ls -la "$O"
