# SPDX-License-Identifier: MIT
"""--gpu-work's chain following on real graphs (docs/GPUWORK.md, "Graphs
and clusters"): traces/h200-graph-probe.ctrace is graph_probe's run on an
H200 (tests/gpu/graph_probe.cu, seed 4: a linear graph behind stream work,
a fork-join graph, a memset-and-kernel graph, each launched R times, and a
cluster launch).  tests/gpu/graph_check.py, the check the GPU machine runs,
must find every launch of the program's own list (traces/h200-graph-probe.out)
in the decode: each graph launch with all its kernels, the fork-join's join
node included (started by two DECREMENT_DEPENDENCEs, not a SCHEDULE)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json  # noqa: E402

t = Tap()
TR = os.path.join(ROOT, "traces", "h200-graph-probe.ctrace")
WANT = os.path.join(ROOT, "traces", "h200-graph-probe.out")

with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
    p = subprocess.run([CUDATRACE, "-r", TR, "--json"], stdout=f, stderr=subprocess.PIPE,
                       text=True)
    f.flush()
    t.ok(p.returncode == 0, "the trace decodes", p.stderr[-300:])
    c = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "gpu", "graph_check.py"),
                        WANT, f.name], capture_output=True, text=True)
t.ok(c.stdout.strip().endswith("VERDICT ok"), "graph_check: every launch of the program found",
     c.stdout[-600:])

ev = [e for e in decode_json(TR) if e["type"] == "gpu-work"]
joins = [e for e in ev if e["kind"] == "LAUNCH" and e["grid"]["x"] == 404]
heads = [e for e in ev if e["kind"] == "GRAPH-LAUNCH" and e["qmd"] == "0x204c00800"]
t.ok(len(heads) == 6 and len(joins) == 6 and
     [j["graph_launch"] for j in joins] == list(range(1, 7)),
     "the fork-join graph: 6 launches, its join node (grid 404) at each", (len(heads), len(joins)))
t.ok(all(h["kernels"] == 3 and h["unseen"] == 0 for h in heads),
     "each fork-join launch starts its 3 nodes after the head, none unseen",
     [(h["kernels"], h["unseen"]) for h in heads])
t.done()
