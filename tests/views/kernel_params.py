# SPDX-License-Identifier: MIT
"""--gpu-work launches' parameters and what CUDA's own copy and memset
kernels did (docs/GPUWORK.md, "Parameters"), on the H200 probe trace
(traces/kernels/probe.ctrace, tests/gpu/probe/probe.cu).

probe.cu launches its user kernels with (d, n = 4194304), memsets d
(16 MiB of 0) and, on Hopper through CUDA's own kernels, copies d to e
three times and memsets e three times, with sizes and values it fixes;
the graph's kernels, started by the GPU from QMDs loaded earlier, have no
parameters of their own send.  The names of CUDA's kernels come from the
capture (libcuda's code); this trace has none, so KERNEL_NAME records are
added to a copy of it, once as libcuda's (their operations are read) and
once as the program's own, ambiguous or named by size (they are not)."""
import json
import os
import sqlite3
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "hostile"))
from tap import CUDATRACE, ROOT, Tap, decode_json, scratch_dir  # noqa: E402
from hostile import records, raw_trace  # noqa: E402
from knames import kname, CT_KN_INLINE, CT_KN_COPY_SIZE, CT_KN_AMBIGUOUS  # noqa: E402

t = Tap()
TR = os.path.join(ROOT, "traces", "kernels", "probe.ctrace")
PID = 471
LIBCUDA = b"/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"


def le(b):
    return int.from_bytes(b, "little")


ev = decode_json(TR)
launches = [e for e in ev if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
stream = [e for e in launches if "graph_launch" not in e]
graph = [e for e in launches if "graph_launch" in e]
t.ok(len(stream) == 20 and all(e.get("params_offset") == "0x210" for e in stream),
     "each of the 20 launches by their own send has its parameters, at 0x210 in bank 0",
     [(e["grid"], e.get("params_offset")) for e in stream])
t.ok(len(graph) == 12 and all(e.get("params_offset") == "0x210" for e in graph),
     "the graph's 12 kernels (started by the GPU) show what was uploaded with their QMDs",
     [(e["grid"], e.get("params_offset")) for e in graph])

user = [e for e in stream + graph if e["smem"] == 1024]
d = le(bytes.fromhex(user[0]["params"])[:8]) if user else 0
t.ok(len(user) == 23 and all(len(e["params"]) == 24 and
                             bytes.fromhex(e["params"]) == struct.pack("<QI", d, 4194304)
                             for e in user),
     "the 11 user launches and 12 graph kernels were given (d, n = 4194304): 12 bytes", (len(user), hex(d)))

sets = [e for e in stream if e["block"]["x"] == 512]
copies = [e for e in stream if e["block"]["x"] == 256 and e["smem"] == 0]
tails = [e for e in copies if len(e["params"]) == 48]
e_ptr = le(bytes.fromhex(sets[1]["params"])[:8]) if len(sets) > 1 else 0
want_sets = [(d, 0, 16777216), (e_ptr, 0x99, 188696), (e_ptr, 0x77, 2552192),
             (e_ptr, 0x4f, 708696)]
got_sets = [(le(bytes.fromhex(e["params"])[0:8]), bytes.fromhex(e["params"])[8],
             4 * le(bytes.fromhex(e["params"])[16:24])) for e in sets]
t.ok(got_sets == want_sets, "the memsets' parameters: destination, byte, dwords x 4 as "
     "probe.cu asks", got_sets)


def with_names(*names):
    """probe.ctrace with KERNEL_NAME records (program, name, module, how,
    flags) after its first record."""
    data = raw_trace(TR)
    first = records(data)[0]
    cut = first[0] + first[1]
    extra = b"".join(kname(p, n + b"\0", m + b"\0", how=how, pid=PID, flags=fl, candidates=2 if fl else 0)
                     for p, n, m, how, fl in names)
    path = os.path.join(scratch_dir("ct-kparams-"), "named.ctrace")
    with open(path, "wb") as f:
        f.write(data[:cut] + extra + data[cut:])
    return path


def prog(e):
    return int(e["program"], 16)


set_prog, copy_prog = prog(sets[0]), prog(tails[0]) if tails else 0
named = with_names((set_prog, b"memset32", LIBCUDA, CT_KN_INLINE, 0),
                   (copy_prog, b"memcpy32_post", LIBCUDA, CT_KN_INLINE, 0))
nev = [e for e in decode_json(named) if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
ops = [(e["kernel"], e["op"]) for e in nev if "op" in e]
got = [(k, o["what"], int(o["dst"], 16), int(o.get("src", "0x0"), 16),
        int(o.get("fill", "0x0"), 16), o["bytes"]) for k, o in ops]
bulk = [818 * 256 * 16, 0, 806 * 256 * 16]   # the bulk kernel's share (not named)
want = [("memset32", "set", d, 0, 0, 16777216)] + \
       [("memcpy32_post", "copy", e_ptr + b, d + b, 0, size - b)
        for b, size in zip(bulk, [3351344, 349528, 3304936])] + \
       [("memset32", "set", e_ptr, 0, v, size)
        for v, size in [(0x99, 188696), (0x77, 2552192), (0x4f, 708696)]]
t.ok(got == want, "libcuda's memset32 and memcpy32_post: the 4 memsets and the 3 copies' "
     "rest after the bulk kernel, with destination, source, byte and size", got)

text = subprocess.run([CUDATRACE, "-r", named], capture_output=True, text=True).stdout
t.ok("memcpy32_post grid=(342,1,1) block=(256,1,1) smem=0 (copy 349528 B 0x%x -> 0x%x)"
     % (d, e_ptr) in text and
     "memset32 grid=(23,1,1) block=(512,1,1) smem=0 (set 188696 B at 0x%x to 0x99)" % e_ptr
     in text, "text: the operation after the grid")
t.ok(" params@" not in text, "text: the parameters only with -v")
verbose = subprocess.run([CUDATRACE, "-r", named, "-v"], capture_output=True, text=True).stdout
t.ok("params@0x210=%s " % sets[1]["params"] in verbose, "-v: the parameters' bytes")

rows = {r["kernel"]: r for r in decode_json(named, "-c") if r["type"] == "kernel-summary"}
t.ok(rows.get("memset32", {}).get("op_bytes") == 20226800 and
     rows["memset32"]["op"] == "set" and rows.get("memcpy32_post", {}).get("op_bytes") ==
     816 + 349528 + 3560 and rows["memcpy32_post"]["op"] == "copy",
     "-c: the kernels' rows add up the bytes they set and copied",
     {k: (v.get("op"), v.get("op_bytes")) for k, v in rows.items()})
ctext = subprocess.run([CUDATRACE, "-r", named, "-c"], capture_output=True, text=True).stdout
t.ok(" memset32 (20226800 B set)" in ctext and " memcpy32_post (353904 B copied)" in ctext,
     "-c text: the same, after the kernel's name")

db = os.path.join(scratch_dir("ct-kparams-db-"), "t.db")
p = subprocess.run([CUDATRACE, "-r", named, "--sqlite", db], capture_output=True, text=True)
rows = sqlite3.connect(db).execute(
    "SELECT kernel, op, op_bytes, op_src, op_dst, op_fill FROM launches WHERE op IS NOT NULL "
    "ORDER BY start_ns, rowid").fetchall() if p.returncode == 0 else []
t.ok([(k, w, b, d_, s_, f) for k, w, b, s_, d_, f in rows] ==
     [(k, w, b, ds, sr if w == "copy" else None, fl if w == "set" else None)
      for k, w, ds, sr, fl, b in want],
     "--sqlite: the same operations in launches (op, op_bytes, op_src, op_dst, op_fill)",
     (p.stderr[-300:], rows[:3]))
blobs = sqlite3.connect(db).execute("SELECT params FROM launches").fetchall() \
    if p.returncode == 0 else []
t.ok(len(blobs) == 32 and all(b[0] for b in blobs) and
     bytes(blobs[1][0]) == struct.pack("<QI", d, 4194304),
     "--sqlite: every launch's parameters as a BLOB", len(blobs))

pf = os.path.join(scratch_dir("ct-kparams-pf-"), "t.json")
p = subprocess.run([CUDATRACE, "-r", named, "--perfetto", pf], capture_output=True, text=True)
trace = json.load(open(pf)) if p.returncode == 0 else {}
evs = trace.get("traceEvents", trace) if isinstance(trace, (dict, list)) else []
pops = [(x["name"], x["args"]["op"], x["args"]["bytes"]) for x in evs
        if isinstance(x, dict) and x.get("cat") == "gpu-work" and "op" in x.get("args", {})]
t.ok(pops == [(k, w, b) for k, w, _, _, _, b in want],
     "--perfetto: each of CUDA's kernels' instants says what it did", (p.stderr[-300:], pops[:3]))

for what, module, how, flags in [("the program's own kernels of those names", b"probe",
                                  CT_KN_INLINE, 0),
                                 ("named by size only", LIBCUDA, CT_KN_COPY_SIZE, 0),
                                 ("ambiguous", LIBCUDA, CT_KN_INLINE, CT_KN_AMBIGUOUS)]:
    other = with_names((set_prog, b"memset32", module, how, flags),
                       (copy_prog, b"memcpy32_post", module, how, flags))
    oev = [e for e in decode_json(other) if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
    t.ok(not any("op" in e for e in oev) and sum("params" in e for e in oev) == 32,
         "%s: parameters shown, no operation read" % what)
t.done()
