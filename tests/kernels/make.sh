#!/bin/sh
# Makes the fatbins and cubins tests/unit/test_kernel_names.c reads, from
# k.cu, with nvcc 13.0 (V13.0.88).  Run from this folder; the outputs are
# committed (a few KB each), so the tests need no CUDA.
set -eu
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
$NVCC -fatbin -arch=sm_90 --compress-mode=none -o k_plain.fatbin k.cu
$NVCC -fatbin -arch=sm_90 --compress-mode=speed -Xfatbin=-compress-all -o k_lz4.fatbin k.cu
$NVCC -fatbin -arch=sm_90 -Xfatbin=-compress-all -o k_zstd.fatbin k.cu
$NVCC -fatbin -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-o k_two.fatbin k.cu
$NVCC -cubin -arch=sm_90 -o k.cubin k.cu
./section.py k.cubin .text.k_add k_add.code
# the same code under three names (k_twins.cu)
$NVCC -fatbin -arch=sm_90 --compress-mode=none -o k_twins.fatbin k_twins.cu
$NVCC -cubin -arch=sm_90 -o k_twins.cubin k_twins.cu
./section.py k_twins.cubin .text.k_twin_a k_twin.code
