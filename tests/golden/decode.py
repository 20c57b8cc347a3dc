# SPDX-License-Identifier: MIT
"""Golden decode: the exact text cudatrace prints for real H100 traces,
against expected output kept in tests/golden/*.txt (strace's habit), and
JSON that parses for every trace.  After a deliberate change to the
decoder, regenerate with tests/golden/update.sh and review the diff."""
import difflib
import glob
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# name of expected file -> cudatrace arguments (besides -r TRACE)
CASES = {
    "h100-saxpy.v.txt": ("h100-saxpy.ctrace", ["-v", "-T"]),
    "h100-torch_train.txt": ("h100-torch_train.ctrace", ["-T"]),
}

t = Tap()
for expected, (trace, args) in sorted(CASES.items()):
    p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", trace), "--color=never"] + args)
    want = open(os.path.join(HERE, expected)).read()
    diff = list(difflib.unified_diff(want.splitlines(), p.stdout.splitlines(),
                                     "expected", "got", lineterm="", n=0))
    t.ok(p.returncode == 0 and not diff, "%s %s matches %s" % (trace, " ".join(args), expected),
         "\n".join(diff[:20]))

for trace in sorted(glob.glob(os.path.join(ROOT, "traces", "*.ctrace"))):
    p = run([CUDATRACE, "-r", trace, "--json"])
    try:
        objs = [json.loads(l) for l in p.stdout.splitlines()]
        good = p.returncode == 0 and objs[0]["type"] == "meta" and objs[-1]["type"] == "trailer"
    except ValueError as e:
        good, objs = False, str(e)
    t.ok(good, "%s: every --json line parses, meta first, trailer last" % os.path.basename(trace))
# -r needs no privilege: decode as nobody, with no capabilities.
if os.geteuid() == 0:
    # binary and trace copied where nobody can reach them (/root is 0700)
    pub = scratch_dir("ct-nobody-")
    os.chmod(pub, 0o755)
    shutil.copy(CUDATRACE, os.path.join(pub, "cudatrace"))
    shutil.copy(os.path.join(ROOT, "traces", "h100-saxpy.ctrace"), pub)
    os.chmod(os.path.join(pub, "h100-saxpy.ctrace"), 0o644)
    p = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
             os.path.join(pub, "cudatrace"), "-r", os.path.join(pub, "h100-saxpy.ctrace")])
    shutil.rmtree(pub)
    t.ok(p.returncode == 0 and p.stdout.count(" ioctl(") == 477,
         "-r as an unprivileged user decodes the trace", p.stderr)
else:
    t.skip("-r as an unprivileged user", "already not root; every run here is one")
t.done()
