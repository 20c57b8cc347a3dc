#!/bin/sh
# Regenerates the expected outputs of tests/golden/decode.py after a
# deliberate change to the decoder.  Review `git diff tests/golden` before
# committing: every changed line is a change users will see.
set -eu
cd "$(dirname "$0")/../.."
./cudatrace -r traces/h100-saxpy.ctrace --color=never -v -T > tests/golden/h100-saxpy.v.txt
./cudatrace -r traces/h100-torch_train.ctrace --color=never -T > tests/golden/h100-torch_train.txt
# tests/golden/compat.py: the --compat report (exits 1: these traces are not clean)
./cudatrace -r traces/h100-torch_matmul-k.ctrace --compat=gvisor > tests/golden/compat-torch_matmul-k.txt 2>/dev/null || true
./cudatrace -r traces/h100-torch_train.ctrace --compat=gvisor > tests/golden/compat-torch_train.txt 2>/dev/null || true
./cudatrace -r traces/h100-saxpy.ctrace --compat=gvisor:20240313.5c64bbab3 > tests/golden/compat-saxpy-2024.txt 2>/dev/null || true
