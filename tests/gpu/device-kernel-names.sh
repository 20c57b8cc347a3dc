#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace in .devcarry/cudatrace-static: --gpu-work's kernel names
# (docs/KERNELS.md) on real programs.  PASS/FAIL lines; output in $OUT.
#   gk      a program of K kernels of random names and bodies, generated and
#           compiled here at run time (tests/gpu/gen_kernels.py, nvcc for
#           this GPU), with a ~400 KB kernel (copy engine upload), a cluster
#           launch, a graph, D2D copies and memsets: every launch the
#           manifest names must be named right, the big kernel too
#   eager   the same program with CUDA_MODULE_LOADING=EAGER
#   torch-train, torch-infer, jax, cupy, triton: the share of launches
#           named (want 99%; the rest is counted with its reason on the
#           capture's closing line, printed here)
#   index   --kernels-of on libtorch_cuda.so (and libcuda.so.1, libcublas):
#           functions, time, memory of the index
set -u
C=$(pwd)/.devcarry
CT=${CT:-$C/cudatrace-static}
O=${OUT:-/tmp/out}
K=${K:-300}
T=/tmp/kn
mkdir -p "$O" "$T"
check() { python3 tests/gpu/kernel_names_check.py "$CT" "$@"; }
closing() { grep -h 'kernel names:\|gpu-work:' "$1" | sed 's/^/  /'; }

# 1. the generated program
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
python3 tests/gpu/gen_kernels.py --seed 11 --kernels "$K" --big --cluster --graph 3 --d2d 3 \
	--memset 3 "$T/gk.cu" "$T/gk.json"
if nvcc -O2 -arch="sm_${cap:-90}" -o "$T/gk" "$T/gk.cu" 2> "$T/nvcc.err"; then
	for mode in lazy eager; do
		env=""; [ $mode = eager ] && env="CUDA_MODULE_LOADING=EAGER"
		env $env GK_SLEEP_MS=300 "$CT" --gpu-work -z -w "$O/gk-$mode.ctrace" -- "$T/gk" \
			> /dev/null 2> "$O/gk-$mode.err"
		check "$O/gk-$mode.ctrace" "gk-$mode (K=$K)" --manifest "$T/gk.json"
		closing "$O/gk-$mode.err"
	done
else
	echo "FAIL gk: nvcc failed: $(tail -3 "$T/nvcc.err")"
fi

# 2. frameworks
cat > "$T/torch_infer.py" <<'PY'
import time, torch
m = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3), torch.nn.BatchNorm2d(16), torch.nn.ReLU(),
                        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                        torch.nn.Linear(16, 10)).cuda().eval()
x = torch.randn(32, 3, 64, 64, device="cuda")
with torch.no_grad():
    for _ in range(20):
        y = torch.softmax(m(x), 1)
torch.cuda.synchronize(); time.sleep(0.3)
PY
cat > "$T/triton_add.py" <<'PY'
import time, torch, triton, triton.language as tl
@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + i, tl.load(x + i, mask=i < n) + tl.load(y + i, mask=i < n), mask=i < n)
x = torch.randn(1 << 20, device="cuda"); y = torch.randn_like(x); o = torch.empty_like(x)
for _ in range(10):
    add[(triton.cdiv(x.numel(), 1024),)](x, y, o, x.numel(), BLOCK=1024)
torch.cuda.synchronize(); time.sleep(0.3)
PY
run_py() {   # LABEL SCRIPT ARGS...
	local label=$1; shift
	if ! python3 -c "import ${PYMOD:-torch}" 2> /dev/null; then
		echo "SKIP $label: python module ${PYMOD:-torch} not here"; return
	fi
	"$CT" --gpu-work -z -w "$O/$label.ctrace" -- python3 "$@" > "$O/$label.out" 2> "$O/$label.err"
	check "$O/$label.ctrace" "$label" --want 0.99
	closing "$O/$label.err"
}
run_py torch-train tests/gpu/torch_train.py 30
run_py torch-infer "$T/torch_infer.py"
PYMOD=jax run_py jax tests/gpu/jax_sum.py
PYMOD=cupy run_py cupy tests/gpu/cupy_sum.py
PYMOD=triton run_py triton "$T/triton_add.py"

# 3. the index's cost on the big libraries
tl=$(python3 -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2> /dev/null)
for f in "$tl/libtorch_cuda.so" "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')" \
	 "$(ls "$tl"/../../nvidia/cublas/lib/libcublasLt.so.* 2> /dev/null | head -1)"; do
	[ -f "$f" ] || continue
	/usr/bin/time -f "  wall %e s, max RSS %M KiB" "$CT" --kernels-of "$f" 2>&1 | sed 's/^/index: /'
done
ls -la "$O"
