# SPDX-License-Identifier: MIT
"""--sqlite during a live capture (stand-in files): the rows are the calls
nvfake made, committed when the capture ends; with -w it is refused."""
import os
import signal
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, run, scratch_dir,  # noqa: E402
                 start_tracer)

t = Tap()
t.live_capture_or_skip("live --sqlite")
tmp = scratch_dir("ct-sqlive-")
ctl = os.path.join(tmp, "nvidiactl")
uvm = os.path.join(tmp, "nvidia-uvm")
for f in (ctl, uvm):
    open(f, "w").close()
db = os.path.join(tmp, "live.db")
tracer = start_tracer(["--device", ctl, "--device", uvm, "--sqlite", db, "-c", "-o",
                       os.path.join(tmp, "table.txt")])
p1 = run([NVFAKE, "-f", ctl, "burst", "3000", "0x20800110"])
p2 = run([NVFAKE, "-f", ctl, "-u", uvm, "script"])
tracer.send_signal(signal.SIGINT)
_, err = tracer.communicate(timeout=60)
t.ok(tracer.returncode == 0 and "0 lost" in err, "live capture with --sqlite ended, 0 lost", err)
c = sqlite3.connect(db)
n = c.execute("SELECT count(*) FROM calls WHERE name = 'NV2080_CTRL_CMD_GPU_GET_NAME_STRING'"
              " AND comm = 'nvfake' AND failed = 1").fetchone()[0]
t.ok(n == 3000, "3,000 rows of the burst's command, each failed (ENOTTY): %d" % n)
kinds = dict(c.execute("SELECT syscall, count(*) FROM calls WHERE pid != ? GROUP BY syscall",
                       (0,)).fetchall())
t.ok(kinds.get("mmap") == 1 and kinds.get("munmap") == 1 and
     c.execute("SELECT count(*) FROM mmaps").fetchone()[0] == 1,
     "script mode's mmap and munmap are there (and one mmaps row)", kinds)
hdr = c.execute("SELECT count(*) FROM traces").fetchone()[0]
procs = c.execute("SELECT count(DISTINCT pid) FROM processes WHERE comm = 'nvfake'").fetchone()[0]
t.ok(hdr == 1 and procs == 2, "one trace row; the two nvfake processes (%d)" % procs)
c.close()
p = run([CUDATRACE, "--device", ctl, "-w", os.path.join(tmp, "x.ctrace"), "--sqlite", db,
         "-d", "1"])
t.ok(p.returncode != 0 and "--sqlite" in p.stderr and "-r FILE afterwards" in p.stderr,
     "-w with --sqlite: refused, says to use -r afterwards", p.stderr)
t.done()
