#!/bin/bash
# Python frames on the GPU machine (device tool), from the repository root,
# with a static cudatrace and libioctlcount.so carried in $C (default
# .carry/python).  Checks that PyTorch allocations are charged to the right
# function and line, how many calls of PyTorch, JAX and CuPy programs carry
# Python frames, the cost per call of --py-stack and -k, and takes the
# PyTorch -k trace for traces/.  Everything it produces goes to $OUT.
set -u
C=${C:-$(pwd)/.carry/python}
O=${OUT:-/tmp/out}
W=/tmp/pyw
CT=$C/cudatrace-static
N=${N:-20000}
REPS=${REPS:-3}
mkdir -p "$W" "$O"
{
	date -u; uname -r; cat /proc/driver/nvidia/version; nvidia-smi -L; python3 -V
	python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
	python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
	python3 -c 'import jax; print("jax", jax.__version__)' 2>&1 | tail -1
} > "$O/env.txt" 2>&1
cat "$O/env.txt"
P=tests/gpu

# 1. Allocations charged to their function and line, twice (sizes drawn anew).
for run in 1 2; do
	timeout 120 "$CT" --py-stack -w "$W/alloc.ctrace" -- env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
		python3 $P/py_alloc.py > "$W/alloc.json" 2> "$W/alloc.err"
	echo "== alloc run $run: $(tail -n 2 "$W/alloc.err" | tr '\n' ' ')"
	python3 $P/py_check.py "$CT" alloc "$W/alloc.ctrace" "$W/alloc.json" | tail -n 7
done
timeout 120 "$CT" -k -w "$W/alloc-k.ctrace" -- env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
	python3 $P/py_alloc.py > "$W/alloc.json" 2> "$W/alloc.err"
echo "== alloc -k: $(tail -n 3 "$W/alloc.err" | tr '\n' ' ')"
python3 $P/py_check.py "$CT" alloc "$W/alloc-k.ctrace" "$W/alloc.json" | tail -n 1

# 2. Coverage: PyTorch training, JAX, CuPy, with -k (merged) and --py-stack.
cap() {
	local name=$1 mode=$2; shift 2
	timeout 180 "$CT" $mode -w "$W/$name.ctrace" -- "$@" > "$W/$name.out" 2> "$W/$name.err"
	echo "== $name ($mode) rc=$? $(tail -n 3 "$W/$name.err" | tr '\n' ' ')"
	python3 $P/py_check.py "$CT" cover "$W/$name.ctrace" "$name"
}
cap torch_train-k -k python3 $P/torch_train.py 50
cap torch_train-py --py-stack python3 $P/torch_train.py 50
cap jax-k -k python3 $P/jax_sum.py
cap cupy-k -k python3 $P/cupy_sum.py
cap cupy-py --py-stack python3 $P/cupy_sum.py

# 3. The trace for traces/: PyTorch matmul with -k, counted by an LD_PRELOAD counter.
"$CT" -k -w "$O/h100-torch_matmul-py.ctrace" -- env LD_PRELOAD="$C/libioctlcount.so" \
	IOCTLCOUNT_OUT="$O/h100-torch_matmul-py.count" python3 $P/torch_matmul.py \
	> "$W/tm.out" 2> "$W/tm.err"
echo "== torch_matmul -k: $(tail -n 3 "$W/tm.err" | tr '\n' ' ')"
python3 $P/py_check.py "$CT" cover "$O/h100-torch_matmul-py.ctrace" torch_matmul

# 4. Cost per call: torch.cuda.mem_get_info at depth 0 and 30, alternating.
for i in $(seq "$REPS"); do
	for d in 0 30; do
		echo "cost untraced d=$d rep=$i $(python3 $P/py_memgetinfo.py "$N" $d)"
		echo "cost traced d=$d rep=$i $("$CT" -w "$W/c.ctrace" -- python3 $P/py_memgetinfo.py "$N" $d 2>"$W/c.err") [$(tail -n 1 "$W/c.err")]"
		echo "cost py-stack d=$d rep=$i $("$CT" --py-stack -w "$W/c.ctrace" -- python3 $P/py_memgetinfo.py "$N" $d 2>"$W/c.err") [$(tail -n 2 "$W/c.err" | tr '\n' ' ')]"
		echo "cost k d=$d rep=$i $("$CT" -k -w "$W/c.ctrace" -- python3 $P/py_memgetinfo.py "$N" $d 2>"$W/c.err") [$(tail -n 3 "$W/c.err" | tr '\n' ' ')]"
	done
done | tee "$O/cost.txt"
