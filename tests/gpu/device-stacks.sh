#!/bin/bash
# -k on the GPU machine (device tool), from the repository root, with a
# static cudatrace and these sources carried in $C (default .carry/stacks).
# Traces saxpy, PyTorch, CuPy and JAX with -k and libioctlunwind preloaded
# (an independent unwinder), checks one against the other, then times a
# cudaMemGetInfo loop untraced / traced / traced with -k, alternating.
set -u
C=${C:-$(pwd)/.carry/stacks}
O=${OUT:-/tmp/out}
W=/tmp/stw
CT=$C/cudatrace-static
REPS=${REPS:-3}
N=${N:-20000}
mkdir -p "$W" "$O"
{
	date -u; uname -r; cat /proc/driver/nvidia/version; nvidia-smi -L
	python3 -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
	python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
	python3 -c 'import jax; print("jax", jax.__version__)' 2>&1 | tail -1
} > "$O/env.txt" 2>&1
nvcc -o "$W/saxpy" tests/gpu/saxpy.cu && nvcc -o "$W/meminfo" "$C/meminfo_loop.cu" &&
	gcc -O2 -shared -fPIC -o "$W/libioctlunwind.so" "$C/ioctl_unwind.c" -ldl ||
	{ echo "build failed"; exit 1; }

cap() {
	local name=$1; shift
	mkdir -p "$O/$name.uw"
	timeout 120 "$CT" -k -w "$O/$name.ctrace" -- env LD_PRELOAD="$W/libioctlunwind.so" \
		IOCTLUNWIND_DIR="$O/$name.uw" "$@" > "$W/$name.out" 2> "$O/$name.err"
	echo "== $name rc=$? $(tail -n 2 "$O/$name.err" | tr '\n' ' ')"
	tail -n 1 "$W/$name.out"
}
cap saxpy "$W/saxpy"
cap torch python3 tests/gpu/torch_matmul.py
cap cupy python3 "$C/cupy_sum.py"
cap jax python3 "$C/jax_sum.py"
python3 "$C/stacks_check.py" "$CT" "$O" saxpy torch cupy jax | tee "$O/check.txt"
"$CT" -r "$O/torch.ctrace" -c --summary-by=api > "$O/torch.byapi.txt" 2>&1
head -n 12 "$O/torch.byapi.txt"

# Cost per call: in-process ns per cudaMemGetInfo, alternating.
for i in $(seq "$REPS"); do
	echo "cost untraced rep=$i $("$W/meminfo" "$N")"
	echo "cost traced rep=$i $("$CT" -w "$W/nok.ctrace" -- "$W/meminfo" "$N" 2> "$W/nok.err") [$(tail -n 1 "$W/nok.err")]"
	echo "cost traced-k rep=$i $("$CT" -k -w "$W/k.ctrace" -- "$W/meminfo" "$N" 2> "$W/k.err") [$(tail -n 2 "$W/k.err" | tr '\n' ' ')]"
done | tee "$O/cost.txt"
ls -l "$W/nok.ctrace" "$W/k.ctrace" | tee -a "$O/cost.txt"
for f in nok k; do
	echo "$f calls $("$CT" -r "$W/$f.ctrace" -c -j 2>/dev/null | grep -c '"type":"summary"') rows; ioctls $("$CT" -r "$W/$f.ctrace" -j 2>/dev/null | grep -c '"type":"ioctl"')"
done | tee -a "$O/cost.txt"
cd "$O" && tar czf stacks-out.tgz ./*.ctrace ./*.uw ./*.err && rm -rf ./*.ctrace ./*.uw
