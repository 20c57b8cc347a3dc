# SPDX-License-Identifier: MIT
"""Writes a CUDA program whose launches are known, for --gpu-work's checks
on the GPU machine (issues 30 and 32): K kernels with random names and
bodies, launched in random order with random grids and blocks; optionally
a kernel whose code is about 400 KB (uploaded by copy engine), a thread
block cluster kernel, a CUDA graph of three kernels launched R times, and
device-to-device copies and memsets (CUDA's own kernels on Hopper).  The
program exits right after its last synchronize (or GK_SLEEP_MS later).

    gen_kernels.py --seed S --kernels K [--big] [--cluster] [--graph R]
                   [--d2d N] [--memset N] OUT.cu MANIFEST.json

MANIFEST.json lists every launch the program makes, in order: name (the
mangled name nvcc gives an extern "C" kernel is the name itself), grid and
block in blocks and threads, cluster shape, graph launch number.
"""
import argparse
import json
import random
import string

p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, default=1)
p.add_argument("--kernels", type=int, default=5)
p.add_argument("--launches", type=int, default=0, help="launches of the K kernels (default 2K)")
p.add_argument("--big", action="store_true")
p.add_argument("--cluster", action="store_true")
p.add_argument("--graph", type=int, default=0, help="graph launches R")
p.add_argument("--d2d", type=int, default=0)
p.add_argument("--memset", type=int, default=0)
p.add_argument("out")
p.add_argument("manifest")
a = p.parse_args()
rnd = random.Random(a.seed)


def name():
    return "k_" + "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(6, 14)))


def body(n_ops):
    ops = []
    for _ in range(n_ops):
        c1, c2 = rnd.uniform(0.5, 1.5), rnd.uniform(-2, 2)
        ops.append("\tx = fmaf(x, %.6ff, %.6ff);" % (c1, c2))
        if rnd.random() < 0.3:
            ops.append("\tx = x * x * %.6ff;" % rnd.uniform(0.001, 0.01))
    return "\n".join(ops)


names = []
src = ['#include <cstdio>', '#include <cstdlib>', '#include <unistd.h>', '#include <cuda_runtime.h>',
       '#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { '
       'fprintf(stderr, "%s:%d %s\\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)']
for _ in range(a.kernels):
    n = name()
    while n in names:
        n = name()
    names.append(n)
    src.append('extern "C" __global__ void %s(float *p, int n)\n{\n'
               '\tint i = blockIdx.x * blockDim.x + threadIdx.x + '
               '(blockIdx.y + blockIdx.z * gridDim.y) * gridDim.x * blockDim.x;\n'
               '\tif (i >= n) return;\n\tfloat x = p[i];\n%s\n\tp[i] = x;\n}\n' % (n, body(rnd.randint(1, 40))))
big = None
if a.big:
    big = name()
    src.append('extern "C" __global__ void %s(float *p, int n)\n{\n'
               '\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i >= n) return;\n'
               '\tfloat x = p[i];\n%s\n\tp[i] = x;\n}\n' % (big, body(24000)))
clus = None
if a.cluster:
    clus = name()
    src.append('extern "C" __global__ void __cluster_dims__(2, 1, 1) %s(float *p, int n)\n{\n'
               '\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n'
               '\tif (i < n) p[i] = p[i] * 2.0f + 1.0f;\n}\n' % clus)
graph = []
if a.graph:
    graph = [name() for _ in range(3)]
    for g in graph:
        src.append('extern "C" __global__ void %s(float *p, int n)\n{\n'
                   '\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n'
                   '\tif (i < n) p[i] = p[i] * %.4ff + %.4ff;\n}\n' % (g, rnd.uniform(0.5, 1.5), rnd.uniform(-1, 1)))

N = 1 << 22
launches = []
main = ['int main(void)', '{', '\tfloat *d, *e;', '\tint n = %d;' % N,
        '\tCK(cudaMalloc(&d, n * sizeof(float)));', '\tCK(cudaMalloc(&e, n * sizeof(float)));',
        '\tCK(cudaMemset(d, 0, n * sizeof(float)));', '\tCK(cudaDeviceSynchronize());']
order = [rnd.choice(names) for _ in range(a.launches or 2 * a.kernels)]
for k in order:
    gx, gy, gz = rnd.randint(1, 300), rnd.randint(1, 4), rnd.randint(1, 3)
    bx = rnd.choice([32, 64, 96, 128, 256, 512])
    main.append('\t%s<<<dim3(%d, %d, %d), dim3(%d)>>>(d, n);' % (k, gx, gy, gz, bx))
    launches.append({"kernel": k, "grid": [gx, gy, gz], "block": [bx, 1, 1]})
if big:
    main.append('\t%s<<<dim3(64), dim3(128)>>>(d, n);' % big)
    launches.append({"kernel": big, "grid": [64, 1, 1], "block": [128, 1, 1], "big": True})
if clus:
    gx = 2 * rnd.randint(10, 400)
    main.append('\t%s<<<dim3(%d), dim3(128)>>>(d, n);' % (clus, gx))
    launches.append({"kernel": clus, "grid": [gx, 1, 1], "block": [128, 1, 1], "cluster": [2, 1, 1]})
for i in range(a.d2d):
    size = rnd.randint(1, 1 << 20) * 4
    main.append('\tCK(cudaMemcpyAsync(e, d, %d, cudaMemcpyDeviceToDevice));' % size)
    launches.append({"copy": "d2d", "bytes": size})
for i in range(a.memset):
    size = rnd.randint(1, 1 << 20) * 4
    main.append('\tCK(cudaMemsetAsync(e, %d, %d));' % (rnd.randint(0, 255), size))
    launches.append({"memset": size})
if graph:
    main += ['\tcudaStream_t s;', '\tCK(cudaStreamCreate(&s));', '\tcudaGraph_t g;', '\tcudaGraphExec_t ge;',
             '\tCK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));']
    shapes = []
    for k in graph:
        gx, bx = rnd.randint(1, 500), rnd.choice([64, 128, 256])
        main.append('\t%s<<<dim3(%d), dim3(%d), 0, s>>>(d, n);' % (k, gx, bx))
        shapes.append((k, gx, bx))
    main += ['\tCK(cudaStreamEndCapture(s, &g));', '\tCK(cudaGraphInstantiate(&ge, g, 0));']
    for r in range(a.graph):
        main.append('\tCK(cudaGraphLaunch(ge, s));')
        for k, gx, bx in shapes:
            launches.append({"kernel": k, "grid": [gx, 1, 1], "block": [bx, 1, 1], "graph_launch": r + 1})
    main.append('\tCK(cudaStreamSynchronize(s));')
main += ['\tCK(cudaGetLastError());', '\tCK(cudaDeviceSynchronize());',
         '\t/* GK_SLEEP_MS: stay a while after the work (the easy path) */',
         '\tif (getenv("GK_SLEEP_MS")) usleep(1000 * atoi(getenv("GK_SLEEP_MS")));', '\treturn 0;', '}']
src += main
with open(a.out, "w") as f:
    f.write("\n".join(src) + "\n")
with open(a.manifest, "w") as f:
    json.dump({"seed": a.seed, "launches": launches}, f, indent=1)
