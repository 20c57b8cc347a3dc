#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace and prebuilt programs carried in .devcarry/ (made here
# by tests/gpu/gen_kernels.py and nvcc -arch=sm_90, so the cubins that the
# tests use are those of the binaries that ran).  Takes the real data that
# the kernel-name and GPU-work tests here are built on: --gpu-work traces of
#   probe  K kernels, a cluster launch, a graph launched R times, D2D copies
#          and memsets (GK_SLEEP_MS=300: the easy path, all work seen)
#   big    a kernel of about 400 KB (its code uploaded by copy engine)
#   torch  a small PyTorch conv net, 3 steps
# and what the programs printed.  Output: $OUT/*.ctrace, $OUT/env.txt.
set -u
C=$(pwd)/.devcarry
CT=$C/cudatrace-static
O=${OUT:-/tmp/out}
{
	date -u; uname -a; cat /proc/driver/nvidia/version; nvidia-smi -L
	nvcc --version | tail -2; python3 -c 'import torch; print("torch", torch.__version__)'
} > "$O/env.txt" 2>&1
for p in probe big; do
	GK_SLEEP_MS=300 "$CT" --gpu-work -z -w "$O/$p.ctrace" -- "$C/$p" > "$O/$p.out" 2> "$O/$p.err"
	echo "== $p rc=$? $(grep -h 'gpu-work' "$O/$p.err" | tr '\n' ' ')"
	"$CT" -r "$O/$p.ctrace" | grep -c 'LAUNCH' 
	cuobjdump -lelf "$C/$p" >> "$O/env.txt" 2>&1
done
# The same probe exiting at once, as today's capture sees it.
"$CT" --gpu-work -w /tmp/fast.ctrace -- "$C/probe" > /dev/null 2> /tmp/fast.err
echo "== probe, no sleep: $("$CT" -r /tmp/fast.ctrace | grep -c LAUNCH) launch lines; $(grep -h gpu-work /tmp/fast.err | tr '\n' ' ')"
cat > /tmp/torch_conv.py <<'PY'
import time, torch
m = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                        torch.nn.Linear(8 * 30 * 30, 10)).cuda()
opt = torch.optim.Adam(m.parameters())
x = torch.randn(16, 3, 32, 32, device="cuda")
for _ in range(3):
    opt.zero_grad(); m(x).sum().backward(); opt.step()
torch.cuda.synchronize(); time.sleep(0.3)
PY
"$CT" --gpu-work -z -w "$O/torch.ctrace" -- python3 /tmp/torch_conv.py > /dev/null 2> "$O/torch.err"
echo "== torch rc=$? $(grep -h 'gpu-work' "$O/torch.err" | tr '\n' ' ')"
ls -la "$O"
