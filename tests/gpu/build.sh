#!/bin/sh
# Build the CUDA workloads into the folder $1 with nvcc's default options
# (cudart linked statically, as most applications ship it).  NVCCFLAGS adds
# flags, e.g. NVCCFLAGS=-arch=sm_90 to skip the PTX JIT on an H100.
set -eu
out=${1:?usage: build.sh OUTDIR}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for prog in saxpy malloc_loop ctx_create memgetinfo_loop; do
	# shellcheck disable=SC2086  # NVCCFLAGS is a word list
	nvcc ${NVCCFLAGS:-} -o "$out/$prog" "$src/$prog.cu"
	echo "built $out/$prog"
done
