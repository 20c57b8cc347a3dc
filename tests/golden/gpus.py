# SPDX-License-Identifier: MIT
"""Per-GPU attribution on the real two-GPU trace (two H200s, a two-process
PyTorch NCCL all-reduce, one process per GPU): calls on /dev/nvidiaN are GPU
N, calls on nvidiactl are attributed through the RM objects they name, and
each worker's calls fall mostly on its own GPU."""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json, run  # noqa: E402

t = Tap()
ev = decode_json(os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace"))
meta = ev[0]
t.ok(meta["type"] == "meta" and "H200" in meta.get("gpu", ""), "header lists the GPUs",
     meta.get("gpu"))
procs = {e["pid"]: e["argv"] for e in ev if e["type"] == "proc"}
workers = sorted(p for p, argv in procs.items()
                 if argv[-1].endswith("nccl_allreduce.py") and not any("torchrun" in a for a in argv))
t.ok(len(workers) == 2, "two worker processes described", procs)
calls = [e for e in ev if e["type"] == "ioctl"]
node = [e for e in calls if e["path"].startswith("/dev/nvidia") and e["path"][11:].isdigit()]
t.ok(node and all(e.get("gpu") == int(e["path"][11:]) for e in node),
     "every call on /dev/nvidiaN is attributed to GPU N (%d calls)" % len(node))
ctl = [e for e in calls if e["path"] == "/dev/nvidiactl" and "gpu" in e]
t.ok(len(ctl) > 1000, "%d nvidiactl calls attributed to a GPU through their objects" % len(ctl))
# torchrun started rank 0 first: the lower pid
for rank, pid in enumerate(workers):
    per = collections.Counter(e.get("gpu") for e in calls if e["pid"] == pid and "gpu" in e)
    t.ok(per and per.most_common(1)[0][0] == rank,
         "worker %d (pid %d) works mostly on GPU %d: %s" % (rank, pid, rank, dict(per)))
# -c --summary-by=gpu: one group per GPU (and one for calls with no GPU known),
# adding up to every call of the trace.
p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace"),
         "-c", "--summary-by=gpu", "--json"])
rows = [json.loads(l) for l in p.stdout.splitlines()]
per_group = collections.Counter()
for r in rows:
    if r["kind"] != "ctrl":   # RM controls are a breakdown of NV_ESC_RM_CONTROL
        per_group[r["group"]] += r["calls"]
want = collections.Counter()
for e in ev:
    if e["type"] in ("ioctl", "mmap", "munmap"):
        want["gpu unknown" if e.get("gpu") is None else "gpu %d" % e["gpu"]] += 1
t.ok(p.returncode == 0 and per_group == want and {"gpu 0", "gpu 1"} <= set(per_group),
     "-c --summary-by=gpu: per-GPU tables adding up to the calls: %s" % dict(per_group),
     (dict(per_group), dict(want), p.stderr))
t.done()
