# SPDX-License-Identifier: MIT
"""The real -k trace (traces/h100-torch_matmul-k.ctrace, PyTorch on an H100)
decoded here, on a machine without its binaries: every ioctl has a stack,
an api and a caller; the api of every call agrees with the independent
unwinder of the same run (traces/h100-torch_matmul-k.unwind, written by
tests/gpu/ioctl_unwind.c: libgcc's _Unwind_Backtrace + dladdr, naming
libcuda.so* frames only); the views by api and caller; the text form."""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
TRACE = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
LOG = os.path.join(ROOT, "traces", "h100-torch_matmul-k.unwind")


def ioctls(*extra):
    p = run([CUDATRACE, "-r", TRACE, "--json"] + list(extra))
    return [e for e in map(json.loads, p.stdout.splitlines()) if e["type"] == "ioctl"]


calls = ioctls()
t.ok(len(calls) == 559, "559 ioctls", len(calls))
t.ok(all(e.get("stack") and e.get("api") and e.get("caller") for e in calls),
     "every ioctl has a stack, an api and a caller (libcuda and NVML entry points)",
     collections.Counter((e.get("api"), e.get("caller")) for e in calls
                         if not (e.get("api") and e.get("caller"))).most_common(3))
t.ok(all(f["pc"].startswith("0x") for e in calls for f in e["stack"]),
     "every frame has its pc")

# The independent unwinder, call by call on each thread, libcuda.so* only.
log = collections.defaultdict(list)
for line in open(LOG):
    tid, req, api, _caller = line.split()
    log[int(tid)].append((int(req, 16), None if api == "-" else api))
mine = collections.defaultdict(list)
for e in sorted(ioctls("--api-lib", "libcuda.so*"), key=lambda e: e["ts_ns"]):
    mine[e["tid"]].append((int(e["request"], 16), e.get("api")))
t.ok(mine == log, "api of all 559 calls (libcuda.so* only) equals the LD_PRELOAD "
     "unwinder's, call for call on each thread",
     [(a, b) for tid in mine for a, b in zip(mine[tid], log.get(tid, [])) if a != b][:5])

p = run([CUDATRACE, "-r", TRACE, "-c", "--summary-by=api"])
t.ok(p.returncode == 0 and "cuMemAlloc_v2" in p.stdout and "cuInit" in p.stdout and
     "nvmlInit" in p.stdout, "-c --summary-by=api lists cuInit, cuMemAlloc_v2, nvmlInit*",
     p.stdout[:800])
p = run([CUDATRACE, "-r", TRACE, "-c", "--summary-by=caller", "--json"])
rows = [json.loads(l) for l in p.stdout.splitlines()]
t.ok(sum(r["calls"] for r in rows) == 590 and any(r["caller"] == "cudaMalloc" for r in rows),
     "--summary-by=caller: 590 calls (ioctls and mmaps), cudaMalloc among the callers")
p = run([CUDATRACE, "-r", TRACE, "-e", "api=cuMemAlloc*", "-e", "caller=cudaMalloc"])
lines = [l for l in p.stdout.splitlines() if not l.startswith(" > ")]
t.ok(lines and all("[cuMemAlloc_v2 <- cudaMalloc]" in l for l in lines if " ioctl(" in l),
     "-e api=cuMemAlloc* -e caller=cudaMalloc: only those calls, tagged so", lines[:3])
t.ok(" > libcuda.so.580.159.04(cuMemAlloc_v2+0x20) [0x" in p.stdout,
     "text frames as strace -k: module(sym+0xoff) [0xpc]")
# Perfetto: one slice per API call, around the slices of its ioctls.
pf = os.path.join(scratch_dir("ct-stacks-"), "t.json")
p = run([CUDATRACE, "-r", TRACE, "-c", "--perfetto", pf])
ev = json.load(open(pf))["traceEvents"]
apis = [e for e in ev if e.get("cat") == "api"]
ioc = [e for e in ev if e.get("cat") == "ioctl"]
outside = [e for e in ioc if not any(
    a["tid"] == e["tid"] and a["ts"] <= e["ts"] and e["ts"] + e["dur"] <= a["ts"] + a["dur"]
    for a in apis)]
t.ok(p.returncode == 0 and apis and not outside and
     sum(a["args"]["calls"] for a in apis) == 590,
     "--perfetto: %d API slices hold all 559 ioctl slices and count all 590 calls" % len(apis),
     outside[:3])
os.unlink(pf)
t.done()
