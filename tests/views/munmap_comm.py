# SPDX-License-Identifier: MIT
"""Issue 33, item 6: a munmap record carries no comm (its type is released),
so the decoder names it after its thread's last comm, else its process's.
On every real trace with a munmap: the text line has the name (not
"572/572  munmap", two spaces), the JSON has "comm", --sqlite's calls.comm
is not empty, and the name is the one its thread's other calls have."""
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json, run, scratch_dir  # noqa: E402

t = Tap()
tmp = scratch_dir("ct-munmap-comm-")
# The traces in traces/ that have munmaps (ctx_create: 1, nccl: 2 by nvidia-smi).
TRACES = {"h100-ctx_create": 1, "h200x2-nccl-allreduce": 2}
LINE = re.compile(r"^\S+ (\d+)/(\d+) (\S+ )?munmap\(")

for name, want in TRACES.items():
    tr = os.path.join(ROOT, "traces", name + ".ctrace")
    p = run([CUDATRACE, "-r", tr], timeout=300)
    text = [LINE.match(l) for l in p.stdout.splitlines() if " munmap(" in l]
    t.ok(p.returncode == 0 and len(text) == want and all(m and m.group(3) for m in text),
         "%s: the %d munmap lines have a command name" % (name, want),
         [l for l in p.stdout.splitlines() if " munmap(" in l])

    ev = decode_json(tr)
    mu = [e for e in ev if e["type"] == "munmap"]
    # The comm each thread's own calls (ioctl, mmap) carry, last seen before its munmap.
    last, expect = {}, []
    for e in ev:
        if e["type"] in ("ioctl", "mmap"):
            last[e["tid"]] = e["comm"]
        elif e["type"] == "munmap":
            expect.append(last.get(e["tid"]))
    t.ok(len(mu) == want and all(expect) and [e.get("comm") for e in mu] == expect,
         "%s: JSON munmaps have \"comm\", their thread's (%s)" % (name, expect),
         [e.get("comm") for e in mu])

    db = os.path.join(tmp, name + ".db")
    p = run([CUDATRACE, "-r", tr, "--sqlite", db, "-c"], timeout=300)
    rows = [r[0] for r in sqlite3.connect(db).execute(
        "SELECT comm FROM calls WHERE syscall = 'munmap' ORDER BY start_ns")]
    t.ok(p.returncode == 0 and rows == expect,
         "%s: --sqlite calls.comm of the munmaps is their thread's" % name, (p.stderr, rows))
t.done()
