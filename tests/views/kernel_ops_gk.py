# SPDX-License-Identifier: MIT
"""Kernel names and CUDA's own kernels' operations on a real H200 trace:
traces/kernels/h200-gk300.ctrace, `tests/gpu/device-kernel-names.sh`'s
generated program (tests/gpu/gen_kernels.py --seed 11 --kernels 300 --big
--cluster --graph 3 --d2d 3 --memset 3, lazy loading), captured with
--gpu-work by the static build of ebc3b9b on 2026-11-27 (two H200s,
driver 580.159.04, CUDA 13.0); traces/kernels/h200-gk300.json is the
generator's manifest of that run.  Every launch the manifest names is
named that, CUDA's own kernels are named, and what they did adds up to
what the program asked for (the sizes below are the generated program's
cudaMemcpyAsync and cudaMemsetAsync calls)."""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, decode_json  # noqa: E402

t = Tap()
TR = os.path.join(ROOT, "traces", "kernels", "h200-gk300.ctrace")
MAN = json.load(open(os.path.join(ROOT, "traces", "kernels", "h200-gk300.json")))
COPIES = [467088, 1527416, 1186280]                       # device to device, in order
SETS = [(3525080, 0x95), (768392, 0x76), (3445444, 0x45)]   # (bytes, value), in order

ev = decode_json(TR)
launches = [e for e in ev if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
t.ok(len(launches) == 620 and all("kernel" in e for e in launches),
     "620 launches, every one named", (len(launches), sum("kernel" in e for e in launches)))

by_shape = collections.defaultdict(set)
for l in MAN["launches"]:
    if "kernel" in l:
        by_shape[(tuple(l["grid"]), tuple(l["block"]))].add(l["kernel"])
checked, wrong = 0, []
for e in launches:
    want = by_shape.get(((e["grid"]["x"], e["grid"]["y"], e["grid"]["z"]),
                         (e["block"]["x"], e["block"]["y"], e["block"]["z"])))
    if want and len(want) == 1:
        checked += 1
        if e["kernel"] not in want:
            wrong.append((e["kernel"], want))
t.ok(checked == 599 and not wrong, "the manifest's 599 launches named as it says", wrong[:3])

own = [e for e in launches if e["kernel"] in ("memset32", "memcpy32_post", "memcpy128")]
t.ok(collections.Counter(e["kernel"] for e in own) ==
     {"memset32": 4, "memcpy32_post": 3, "memcpy128": 2} and
     all(e.get("kernel_module", "").split("/")[-1].startswith("libcuda.so") for e in own),
     "CUDA's own kernels named from libcuda: 4 memset32, 3 memcpy32_post, 2 memcpy128",
     collections.Counter(e["kernel"] for e in own))

# A device-to-device copy: memcpy128 for the bulk (16 bytes a thread, its
# grid's worth), then memcpy32_post for the rest, from where the bulk ended;
# or memcpy32_post alone.
copies, pending = [], None
for e in own:
    op = e.get("op") or {}
    if e["kernel"] == "memcpy128":
        pending = op
    elif e["kernel"] == "memcpy32_post":
        total = op.get("bytes", 0)
        if pending and int(op["dst"], 16) == int(pending["dst"], 16) + pending["bytes"]:
            total += pending["bytes"]
        pending = None
        copies.append(total)
t.ok(copies == COPIES, "device-to-device copies add up to what the program asked: %s" % copies,
     [(e["kernel"], e.get("op")) for e in own])
sets = [(e["op"]["bytes"], e["op"]["fill"]) for e in own
        if e["kernel"] == "memset32" and e.get("op", {}).get("fill") is not None]
t.ok(sets[-3:] == [(b, "0x%x" % v) for b, v in SETS],
     "the three cudaMemsetAsync: sizes and bytes", sets)
t.done()
