#!/bin/sh
# Regenerates the expected outputs of tests/golden/decode.py after a
# deliberate change to the decoder.  Review `git diff tests/golden` before
# committing: every changed line is a change users will see.
set -eu
cd "$(dirname "$0")/../.."
./cudatrace -r traces/h100-saxpy.ctrace --color=never -v -T > tests/golden/h100-saxpy.v.txt
./cudatrace -r traces/h100-torch_train.ctrace --color=never -T > tests/golden/h100-torch_train.txt
