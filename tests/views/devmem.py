# SPDX-License-Identifier: MIT
"""The device memory table of -c: on the H100 capture of
tests/gpu/malloc_steps.cu (cudaMalloc 1, 2, 4 GiB; tests/gpu/device-memory.sh)
the three largest video allocations are exactly 4, 2 and 1 GiB, the peak
equals what --metrics served live at the 4 GiB step of the same run, and
all is freed at the end; on every real trace what each process allocated
it freed (they all exit); the text table and the JSON rows agree."""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
DATA = os.path.join(os.path.dirname(__file__), "data")
STEPS = os.path.join(DATA, "h100-malloc_steps.ctrace")
GiB = 1 << 30


def mem_rows(trace):
    p = run([CUDATRACE, "-r", trace, "-c", "-j"])
    return [r for r in map(json.loads, filter(None, p.stdout.splitlines()))
            if r.get("type") == "device_memory"]


rows = {(r["comm"], r["kind"]): r for r in mem_rows(STEPS)}
video = rows.get(("malloc_steps", "video"))
t.ok(video is not None, "malloc_steps: a video row")
if video:
    big = [a["bytes"] for a in video["largest"][:3]]
    t.ok(big == [4 * GiB, 2 * GiB, 1 * GiB], "largest video allocations: 4, 2, 1 GiB", big)
    t.ok(all(a["class"] == "NV01_MEMORY_LOCAL_USER" and a["parent_class"] == "NV01_DEVICE_0"
             for a in video["largest"][:3]), "each held by an NV01_MEMORY_LOCAL_USER object "
         "under NV01_DEVICE_0")
    t.ok(video["held_bytes"] == 0 and video["allocs"] == video["frees"] and
         video["seen_start"], "all freed at the end; its start was seen")
    # What --metrics served at each pause of the same run (series file).
    served = {}
    step = None
    for line in open(os.path.join(DATA, "h100-malloc_steps.series.txt")):
        m = re.match(r"== step (\S+)", line)
        if m:
            step = m.group(1)
        m = re.search(r'cudatrace_device_memory_bytes\{.*kind="video"\} (\d+)', line)
        if m:
            served[step] = int(m.group(1))
    t.ok(served.get("malloc_4_GiB") == video["peak_bytes"],
         "peak (%d) equals the gauge served live at the 4 GiB pause (%s)"
         % (video["peak_bytes"], served.get("malloc_4_GiB")))
    steps = [served.get(k) for k in ("context", "malloc_1_GiB", "malloc_2_GiB", "malloc_4_GiB",
                                     "freed")]
    t.ok(None not in steps and [b - a for a, b in zip(steps, steps[1:])] ==
         [1 * GiB, 2 * GiB, 4 * GiB, -7 * GiB], "live gauge rose by 1, 2, 4 GiB and fell by 7",
         steps)

p = run([CUDATRACE, "-r", STEPS, "-c"])
text = p.stdout[p.stdout.find("device memory"):]
t.ok(re.search(r"malloc_steps\s+0 video\s+0 B\s+7\.5 GiB", text) is not None,
     "text table: held 0 B, peak 7.5 GiB", text[:600])
t.ok("4.0 GiB  NV01_MEMORY_LOCAL_USER" in text, "text: the 4 GiB allocation and its object")

# --perfetto: a "device memory" counter per process follows the same figures.
pf = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ct-devmem-%d.json" % os.getpid())
p = run([CUDATRACE, "-r", STEPS, "--perfetto", pf, "-c"])
ev = [e for e in json.load(open(pf))["traceEvents"] if e.get("name") == "device memory"]
os.unlink(pf)
vid = [e["args"]["gpu0 video bytes"] for e in ev
       if e["pid"] == video["pid"] and "gpu0 video bytes" in e["args"]]
t.ok(ev and all(e["ph"] == "C" for e in ev) and max(vid) == video["peak_bytes"] and vid[-1] == 0,
     "--perfetto: a device memory counter track, peak %s, ends at 0" % (max(vid) if vid else None))

# The counters do not depend on the order of a hash map: cudatrace seeds
# its maps anew in each process, and a free that takes a whole tree (a
# client, a process's exit) once emitted its steps in that map's order.
TRAIN = os.path.join(ROOT, "traces", "h100-torch_train.ctrace")
outs = []
for i in range(3):
    run([CUDATRACE, "-r", TRAIN, "--perfetto", pf, "-c"])
    outs.append(open(pf, "rb").read())
    os.unlink(pf)
t.ok(outs[0] and outs.count(outs[0]) == 3,
     "--perfetto: the same trace decoded three times gives the same timeline")

# The H100 traces run one program to its exit: all it allocated is freed.
for tr in sorted(glob.glob(os.path.join(ROOT, "traces", "h100-*.ctrace"))):
    rs = mem_rows(tr)
    bad = [r for r in rs if r["held_bytes"] or r["allocs"] != r["frees"]]
    t.ok(rs and not bad, "%s: %d rows, every process freed all it allocated"
         % (os.path.basename(tr), len(rs)), bad)
# The NCCL capture ended before its processes exited (no exit records):
# the workers still hold memory; the launcher's only allocation is virtual.
rs = mem_rows(os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace"))
held = {(r["comm"], r["gpu"], r["kind"]) for r in rs if r["held_bytes"]}
t.ok(("python", 0, "video") in held and ("python", 1, "video") in held and
     not any(k[0] == "pt_elastic" and k[2] != "virtual" for k in held),
     "NCCL trace: the two workers hold video memory on GPU 0 and 1 when it ends", sorted(held))
t.done()
