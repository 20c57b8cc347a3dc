#!/bin/bash
# Runs on the GPU machine (device tool), from the repository root, with a
# static cudatrace in .devcarry/cudatrace-static and graph_probe built
# here (nvcc -O2 -arch=sm_90 -o .devcarry/graph_probe tests/gpu/graph_probe.cu;
# built on the GPU machine if absent).  --gpu-work on CUDA graphs and
# clusters of shapes the H200 probe did not have (docs/GPUWORK.md, "Graphs
# and clusters"): a graph behind stream work, a fork-join graph, a memset
# node, a cudaLaunchKernelEx cluster; three seeds (R = 2 + seed % 7), each
# checked by tests/gpu/graph_check.py; with -vv, the QMD fields of each.
# Output: $OUT/graph/*, a summary on stdout.
set -u
C=$(pwd)/.devcarry
CT=$C/cudatrace-static
O=${OUT:-/tmp/out}/graph
mkdir -p "$O"
P=$C/graph_probe
[ -x "$P" ] || { nvcc -O2 -arch=sm_90 -o /tmp/graph_probe tests/gpu/graph_probe.cu && P=/tmp/graph_probe; } || exit 1
{ date -u; cat /proc/driver/nvidia/version; nvidia-smi -L; } > "$O/env.txt" 2>&1
for seed in 1 4 7; do
	GK=$O/s$seed
	"$CT" --gpu-work -z -w "$GK.ctrace" -- "$P" "$seed" > "$GK.out" 2> "$GK.err"
	echo "== seed $seed rc=$? $(grep -h 'gpu-work' "$GK.err" | tr '\n' ' ')"
	"$CT" -r "$GK.ctrace" --json > "$GK.jsonl" 2> "$GK.decode.err"
	python3 tests/gpu/graph_check.py "$GK.out" "$GK.jsonl"
	cat "$GK.decode.err"
	"$CT" -r "$GK.ctrace" -v 2> /dev/null | grep -E 'QMD-LOAD|EMPTY-QMD|GRAPH-LAUNCH|UNSEEN' > "$GK.qmds.txt"
done
# The -c table of one run: launches, graph launches, unseen QMDs.
"$CT" -r "$O/s1.ctrace" -c 2> /dev/null | sed -n '/GPU work/,$p'
