# SPDX-License-Identifier: MIT
"""Per-GPU attribution on the real two-GPU trace (two H200s, a two-process
PyTorch NCCL all-reduce, one process per GPU): calls on /dev/nvidiaN are GPU
N, calls on nvidiactl are attributed through the RM objects they name, and
each worker's calls fall mostly on its own GPU."""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json, run  # noqa: E402

t = Tap()
ev = decode_json(os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace"))
meta = ev[0]
t.ok(meta["type"] == "meta" and len(meta.get("gpu", [])) == 2 and
     all("H200" in g for g in meta["gpu"]), "header lists both GPUs", meta.get("gpu"))
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
# UVM names GPUs by UUID: header (bus id, UUID) + CARD_INFO (bus id, minor)
# say which /dev/nvidiaN that is, recomputed here independently.
bus_of = {g.split()[1]: g.split()[0] for g in meta["gpu"]}
minor_of = {}
for e in calls:
    if e["name"] == "NV_ESC_CARD_INFO" and e.get("ret") == 0:
        for c in e["args"]:
            minor_of["%04x:%02x:%02x.%x" % (c["pci_info.domain"], c["pci_info.bus"],
                                            c["pci_info.slot"], c["pci_info.function"])] = \
                c["minor_number"]
by_uuid = [e for e in calls if e["name"] in ("UVM_REGISTER_GPU", "UVM_REGISTER_CHANNEL",
                                              "UVM_REGISTER_GPU_VASPACE")]
want_gpu = [minor_of.get(bus_of.get(e["args"].get("gpu_uuid") or e["args"].get("gpuUuid")))
            for e in by_uuid]
t.ok(by_uuid and all(w is not None and e.get("gpu") == w for e, w in zip(by_uuid, want_gpu)) and
     set(want_gpu) == {0, 1},
     "%d UVM calls that name a GPU by UUID are attributed to its /dev/nvidiaN" % len(by_uuid),
     [(e["name"], e.get("gpu"), w) for e, w in zip(by_uuid, want_gpu)][:6])

# ATTACH_GPUS_TO_FD names the GPU by the RM's gpu id: CARD_INFO's gpu_id
# and minor_number say which /dev/nvidiaN that is.
minor_of_id = {}
for e in calls:
    if e["name"] == "NV_ESC_CARD_INFO" and e.get("ret") == 0:
        for c in e["args"]:
            minor_of_id[c["gpu_id"]] = c["minor_number"]
att = [e for e in calls if e["name"] == "NV_ESC_ATTACH_GPUS_TO_FD"]
t.ok(att and all(len(e["gpu_ids"]) == 1 and
                 e.get("gpu") == minor_of_id.get(int(e["gpu_ids"][0], 16)) for e in att) and
     {e.get("gpu") for e in att} == {0, 1},
     "%d ATTACH_GPUS_TO_FD calls attributed to the GPU they attach" % len(att),
     [(e["gpu_ids"], e.get("gpu")) for e in att][:4])

# Across processes: NCCL's cuMem IPC hands each worker's buffers to the other
# through export fds (EXPORT_OBJECTS_TO_FD in one process, the fd over a
# unix socket, IMPORT_OBJECTS_FROM_FD in the other).  Every imported handle
# must name the other worker's object.
imports = [e for e in calls if e.get("cmd") == "0x3d0c" and e["pid"] in workers]
links = collections.Counter()
unlinked = []
for e in imports:
    for o in e["params"]["objects"]:
        m = re.search(r"imported from pid (\d+) (0x[0-9a-f]+)$", o.get("handle_name", ""))
        if m:
            links[(e["pid"], int(m.group(1)))] += 1
        else:
            unlinked.append(o)
t.ok(imports and not unlinked and
     set(links) == {(workers[0], workers[1]), (workers[1], workers[0])},
     "each of %d imported handles names the other worker's exported object: %s"
     % (sum(links.values()), dict(links)), unlinked[:3])


def handles_in(e):
    """Every (field, handle, name) in the call's arguments and params."""
    out = []
    for part in (e.get("args", {}), e.get("params", {})):
        for k, v in part.items():
            if k + "_name" in part:
                out.append((k, v, part[k + "_name"]))
            if isinstance(v, list):
                out += [(k, o["handle"], o.get("handle_name", "")) for o in v
                        if isinstance(o, dict) and "handle" in o]
    return out


# One object from creation to use: created in B, exported by B, imported by A
# under a new handle, then used by A.
imp = imports[0]
obj = imp["params"]["objects"][0]
src_pid, src_h = map(lambda x: int(x, 0), re.search(
    r"imported from pid (\d+) (0x[0-9a-f]+)$", obj["handle_name"]).groups())
made = [e for e in calls if e["pid"] == src_pid and e["name"] == "NV_ESC_RM_ALLOC" and
        int(e["args"]["hObjectNew"], 16) == src_h and e["ts_ns"] < imp["ts_ns"]]
exported = [e for e in calls if e["pid"] == src_pid and e.get("cmd") == "0x3d0b" and
            e["ts_ns"] < imp["ts_ns"] and
            any(int(o["handle"], 16) == src_h for o in e["params"]["objects"])]
used = [e for e in calls if e["pid"] == imp["pid"] and e["ts_ns"] > imp["ts_ns"] and
        any(h == obj["handle"] and n == obj["handle_name"] for _, h, n in handles_in(e))]
t.ok(made and exported and used,
     "followed: pid %d allocates %#x (%s), exports it; pid %d imports it as %s and uses it in %s"
     % (src_pid, src_h, made[-1]["args"].get("hClass_name") if made else "?", imp["pid"],
        obj["handle"], ", ".join(sorted({e.get("cmd_name", e["name"]) for e in used}))),
     (len(made), len(exported), len(used)))

# -c --summary-by=gpu: one group per GPU (and one for calls with no GPU known),
# adding up to every call of the trace.
p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace"),
         "-c", "--summary-by=gpu", "--json"])
rows = [r for r in map(json.loads, p.stdout.splitlines()) if r["type"] == "summary"]
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
