# SPDX-License-Identifier: MIT
"""Golden --compat=gvisor: the exact report cudatrace prints for real H100
traces (with and without -k stacks, against the latest gVisor and a 2024
snapshot that has no capabilities), kept in tests/golden/compat-*.txt.
After a deliberate change to the report, regenerate with
tests/golden/update.sh and review the diff."""
import difflib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# expected file -> (trace, cudatrace arguments besides -r TRACE, exit status)
CASES = {
    "compat-torch_matmul-k.txt": ("h100-torch_matmul-k.ctrace", ["--compat=gvisor"], 1),
    "compat-torch_train.txt": ("h100-torch_train.ctrace", ["--compat=gvisor"], 1),
    "compat-saxpy-2024.txt": ("h100-saxpy.ctrace", ["--compat=gvisor:20240313.5c64bbab3"], 1),
}

t = Tap()
for expected, (trace, args, status) in sorted(CASES.items()):
    p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", trace)] + args)
    want = open(os.path.join(HERE, expected)).read()
    diff = list(difflib.unified_diff(want.splitlines(), p.stdout.splitlines(),
                                     "expected", "got", lineterm="", n=0))
    t.ok(p.returncode == status and not diff, "%s %s matches %s (exit %d)" % (
        trace, " ".join(args), expected, p.returncode), "\n".join(diff[:20]))
t.done()
