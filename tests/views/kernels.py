# SPDX-License-Identifier: MIT
"""The views of --gpu-work's kernel names (docs/KERNELS.md), on
traces/kernels/probe-named.ctrace: the H200 probe trace with the
KERNEL_NAME records tests/unit/test_kernel_names.c found for it offline
(from probe's .nv_fatbin).  Text and JSON launches carry the name, -c
has a table per kernel that agrees with the launches, -e kernel= keeps
exactly the launches of matching kernels, --summary-by=kernel prints the
table even for a trace with no name."""
import collections
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json  # noqa: E402

t = Tap()
TR = os.path.join(ROOT, "traces", "kernels", "probe-named.ctrace")
PLAIN = os.path.join(ROOT, "traces", "kernels", "probe.ctrace")


def run(*args):
    return subprocess.run([CUDATRACE, "-r"] + list(args), capture_output=True, text=True)


ev = decode_json(TR)
launches = [e for e in ev if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
named = [e for e in launches if "kernel" in e]
# 20 on the stream, and the graph's 3 kernels at each of its 4 launches
t.ok(len(launches) == 32 and len(named) == 30, "32 launches, 30 named",
     (len(launches), len(named)))
t.ok(all(e["kernel_mangled"] == e["kernel"] and
         (e.get("kernel_module") == "probe" and e["kernel_found"] == "inline" or
          "kernel_module" not in e and e["kernel_found"] == "jit") for e in named),
     "extern \"C\" names: mangled as demangled; module (none for jit:) and how", named[:1])
by_kernel = collections.Counter(e["kernel"] for e in named)
t.ok(by_kernel["k_vcyrsz"] == 3 and by_kernel["jit:0d0be55a85e42164"] == 4,
     "k_vcyrsz launched 3 times, CUDA's own inline kernel 4 (a jit: id)", by_kernel)

text = run(TR).stdout.splitlines()
t.ok(sum("COMPUTE LAUNCH k_vcyrsz grid=(" in l for l in text) == 3,
     "text: the name before the grid")

rows = [e for e in decode_json(TR, "-c") if e["type"] == "kernel-summary"]
got = {r["kernel"]: r for r in rows}
want_blocks = collections.Counter()
for e in launches:
    want_blocks[e.get("kernel", "unnamed %s" % e["program"])] += \
        e["grid"]["x"] * e["grid"]["y"] * e["grid"]["z"]
t.ok(len(rows) == 11 and all(got[k]["blocks"] == v for k, v in want_blocks.items()),
     "-c: a row per kernel (11), blocks as the launches add up", (len(rows), want_blocks))
t.ok(got["k_vcyrsz"]["launches"] == 3 and got["k_vcyrsz"]["grids"] == 3 and
     got["k_vcyrsz"]["threads"] == sum(
         e["grid"]["x"] * e["grid"]["y"] * e["grid"]["z"] * e["block"]["x"] * e["block"]["y"] *
         e["block"]["z"] for e in named if e["kernel"] == "k_vcyrsz"),
     "-c: k_vcyrsz's launches, distinct grids and threads", got.get("k_vcyrsz"))

f = [e for e in decode_json(TR, "-e", "kernel=k_v*") if e["type"] == "gpu-work"]
t.ok(len(f) == 5 and all(e.get("kernel", "").startswith("k_v") for e in f),
     "-e kernel=k_v*: the 5 launches of k_vcyrsz and k_vsqnqereqqaoy, nothing else",
     [e.get("kernel", e["type"]) for e in f][:8])
f = [e for e in decode_json(TR, "-e", "kernel=jit:*") if e["type"] == "gpu-work"]
t.ok(len(f) == 7, "-e kernel=jit:*: CUDA's own two kernels, 7 launches", len(f))

pf = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ct-kernels-%d.json" % os.getpid())
run(TR, "--perfetto", pf)
try:
    import json
    d = json.load(open(pf))
    names = collections.Counter(e["name"] for e in (d["traceEvents"] if isinstance(d, dict) else d)
                                if e.get("cat") == "gpu-work" and e["name"] != "COPY")
finally:
    os.unlink(pf)
t.ok(names["k_vcyrsz"] == 3 and names["LAUNCH"] == 2,
     "--perfetto: launch instants named by kernel (LAUNCH where not named)", names)

db = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ct-kernels-%d.db" % os.getpid())
run(TR, "--sqlite", db)
try:
    import sqlite3
    c = sqlite3.connect(db)
    rows = dict(c.execute("SELECT coalesce(kernel, '-'), count(*) FROM launches GROUP BY 1"))
    c.close()
finally:
    os.unlink(db)
t.ok(rows.get("k_vcyrsz") == 3 and rows.get("-") == 2 and sum(rows.values()) == 32,
     "--sqlite: launches, with their kernel (NULL where not named)", rows)

p = run(PLAIN, "-c")
t.ok("cudatrace kernels" not in p.stdout, "-c on a trace with no name: no kernels table")
p = run(PLAIN, "-c", "--summary-by=kernel")
t.ok("cudatrace kernels (--gpu-work)" in p.stdout and "unnamed 0x7f2c537a0000" in p.stdout,
     "--summary-by=kernel: the table, by program address", p.stdout[-400:])
t.done()
