# SPDX-License-Identifier: MIT
"""Issue 33, item 7: --summary-by=py on a -k trace taken before -k read
Python frames (traces/h100-torch_matmul-k.ctrace: PyTorch under CPython
3.12, native stacks only) said "capture with --py-stack or -k" and put all
590 calls in one "(no Python frame)" row.  It now charges each call made
from Python to the function the interpreter called, from its native stack
("python -> libtorch_python.so(...THPVariable_randn...)"); the counts are
checked here against the JSON stacks, walked independently.  A trace with
Python frames (h100-torch_matmul-py) is summarized by Python lines as
before, and a trace without stacks keeps its advice."""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json, run  # noqa: E402

t = Tap()
K = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
PY = os.path.join(ROOT, "traces", "h100-torch_matmul-py.ctrace")
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
INTERPRETER = re.compile(r"(lib)?python3")


def python_callee(stack):
    """The frame just inside the innermost interpreter frame, as module(sym)."""
    for i, f in enumerate(stack):
        if i and INTERPRETER.match(f.get("module", "")):
            inner = stack[i - 1]
            if INTERPRETER.match(inner.get("module", "")):
                return None
            return "%s(%s)" % (inner["module"], inner["sym"]) if inner.get("sym") \
                else inner["module"]
    return None


def summary(trace):
    p = run([CUDATRACE, "-r", trace, "-c", "--summary-by=py", "--json"], timeout=300)
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return p, {r["py"]: r["calls"] for r in rows if r.get("type") == "summary" and r.get("by") == "py"}


want = collections.Counter()
for e in decode_json(K):
    if e["type"] in ("ioctl", "mmap", "munmap"):
        callee = python_callee(e.get("stack") or [])
        want["python -> " + callee if callee else "(no Python frame)"] += 1
p, got = summary(K)
t.ok(p.returncode == 0 and got == dict(want) and len(got) > 2,
     "-k trace without Python frames: %d rows by what Python called, %d calls, as its stacks say"
     % (len(got), sum(got.values())), (p.stderr, got, dict(want)))
randn = [k for k in got if "THPVariable_randn" in k]
t.ok(len(randn) == 1 and got[randn[0]] == 394 and got.get("(no Python frame)") == 3,
     "torch.randn's 394 calls in one row; 3 calls from no Python at all", got)
t.ok("capture with --py-stack or -k" not in p.stderr and
     "has call stacks but no Python frames" in p.stderr,
     "it says the trace has stacks but no Python frames, not to capture with -k", p.stderr)
p = run([CUDATRACE, "-r", K, "-c", "--summary-by=py"], timeout=300)
t.ok(p.returncode == 0 and p.stdout.startswith(
     "cudatrace summary by py (0 calls with a Python stack, 587 charged by their native stack "
     "to the function Python called (\"python -> \" rows), 3 without)\n"),
     "text: the header counts the calls charged by their native stack", p.stdout[:300])

p, got = summary(PY)
t.ok(p.returncode == 0 and sum(got.values()) == 590 and
     all(re.match(r"/\S+\.py:\d+ ", k) for k in got) and not p.stderr,
     "a trace with Python frames: rows by Python line, as before", (p.stderr, got))
p, got = summary(SAXPY)
t.ok(p.returncode == 0 and list(got) == ["(no Python frame)"] and
     "capture with --py-stack or -k" in p.stderr,
     "a trace without stacks: one row, and the advice to capture with --py-stack or -k",
     (p.stderr, got))
t.done()
