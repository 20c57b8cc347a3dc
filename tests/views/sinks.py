# SPDX-License-Identifier: MIT
"""Where decoded output goes: an output that is the trace being read (-o,
--perfetto, --sqlite; by name, hard link or standard input) is refused
before anything is opened, the trace untouched; -o - and --perfetto - are
standard output, no file named "-"; write failures of --perfetto and
--sqlite (/dev/full, a full file system: a 64 KiB tmpfs, as root) exit 1,
name the cause (No space left on device) and leave no cut file, and an
existing database keeps what it had."""
import hashlib
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
tmp = scratch_dir("ct-sinks-")
SRC = os.path.join(ROOT, "traces", "h100-torch_matmul.ctrace")
SMALL = os.path.join(ROOT, "traces", "h100-ctx_create.ctrace")


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


# --- an output that is the input -------------------------------------------
trace = os.path.join(tmp, "t.ctrace")
open(trace, "wb").write(open(SRC, "rb").read())
before = digest(trace)
link = os.path.join(tmp, "link.ctrace")
os.link(trace, link)
for opt in ("-o", "--perfetto", "--sqlite"):
    for out, how in ((trace, "its name"), (link, "a hard link to it"),
                     (os.path.join(tmp, ".", "t.ctrace"), "another spelling")):
        p = run([CUDATRACE, "-r", trace, opt, out, "-c"])
        t.ok(p.returncode == 2 and "is the trace being read" in p.stderr and
             digest(trace) == before,
             "-r t.ctrace %s %s: exit 2, says why, the trace untouched" % (opt, how), p.stderr)
with open(trace, "rb") as f:
    p = run([CUDATRACE, "-r", "-", "-o", trace, "-c"], stdin=f)
t.ok(p.returncode == 2 and "is the trace being read" in p.stderr and digest(trace) == before,
     "-r - < t.ctrace -o t.ctrace: refused too (standard input's file)", p.stderr)
p = run([CUDATRACE, "-r", trace, "-o", os.path.join(tmp, "other.txt"), "-c"])
t.ok(p.returncode == 0, "another file is written as before", p.stderr)

# --- "-" is standard output --------------------------------------------------
cwd = os.path.join(tmp, "cwd")
os.mkdir(cwd)
p = run([CUDATRACE, "-r", SMALL, "-o", "-", "-c"], cwd=cwd)
want = run([CUDATRACE, "-r", SMALL, "-c"]).stdout
t.ok(p.returncode == 0 and p.stdout == want and want and not os.listdir(cwd),
     "-o - writes to standard output, no file named -", (p.stderr, os.listdir(cwd)))
p = run([CUDATRACE, "-r", SMALL, "--perfetto", "-"], cwd=cwd)
try:
    doc = json.loads(p.stdout)
except ValueError as e:
    doc = {"error": str(e)}
t.ok(p.returncode == 0 and len(doc.get("traceEvents", [])) > 100 and not os.listdir(cwd),
     "--perfetto - writes the timeline alone to standard output (%d events), no file"
     % len(doc.get("traceEvents", [])), (p.stderr, p.stdout[:200]))
txt = os.path.join(tmp, "events.txt")
p = run([CUDATRACE, "-r", SMALL, "--perfetto", "-", "-o", txt], cwd=cwd)
t.ok(p.returncode == 0 and p.stdout.startswith('{"traceEvents":[') and
     p.stdout.endswith("}}\n") and open(txt).read() == run([CUDATRACE, "-r", SMALL]).stdout,
     "--perfetto - -o FILE: the timeline on standard output, the events in FILE", p.stderr)
for args, why in ((["-o", "-", "--perfetto", "-"], "both want standard output"),
                  (["--perfetto", "-", "-c"], "send the -c/-C table to a file"),
                  (["--sqlite", "-"], "needs a file")):
    p = run([CUDATRACE, "-r", SMALL] + args, cwd=cwd)
    t.ok(p.returncode == 2 and why in p.stderr and not os.listdir(cwd),
         "%s: refused (exit 2), says why" % " ".join(args), p.stderr)

p = run([CUDATRACE, "--perfetto", "-", "--", "true"], cwd=cwd)
t.ok(p.returncode == 2 and "the traced command writes to standard output" in p.stderr,
     "--perfetto - with a command to trace: refused (exit 2), says why", p.stderr)

# --- write failures: /dev/full -----------------------------------------------
p = run([CUDATRACE, "-r", SRC, "--perfetto", "/dev/full", "-c"])
t.ok(p.returncode == 1 and "No space left on device" in p.stderr and
     "Input/output error" not in p.stderr,
     "--perfetto /dev/full: exit 1, No space left on device", p.stderr)
p = run([CUDATRACE, "-r", SRC, "--sqlite", "/dev/full", "-c"])
t.ok(p.returncode == 1 and "not a regular file" in p.stderr,
     "--sqlite /dev/full: exit 1, a database needs a regular file", p.stderr)
with open("/dev/full", "w") as devfull:
    p = subprocess.run([CUDATRACE, "-r", SRC, "--perfetto", "-", "-o",
                        os.path.join(tmp, "x.txt")], stdout=devfull, stderr=subprocess.PIPE,
                       text=True, timeout=120)
t.ok(p.returncode == 1 and "No space left on device" in p.stderr,
     "--perfetto - into /dev/full: exit 1, No space left on device", p.stderr)

# --- write failures: a full file system --------------------------------------
full = os.path.join(tmp, "full")
os.mkdir(full)
t.skip_rest("a full file system (a 64 KiB tmpfs)", "needs root to mount it" if os.geteuid() else None)
m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "ct-sinks", full],
                   capture_output=True, text=True)
if m.returncode != 0:
    t.skip("a full file system (a 64 KiB tmpfs)", "mount failed: " + m.stderr.strip())
    t.done()
try:
    old = os.path.join(full, "t.json")
    open(old, "w").write('{"traceEvents":[]}\n')
    p = run([CUDATRACE, "-r", SRC, "--perfetto", old, "-c"])
    t.ok(p.returncode == 1 and "No space left on device" in p.stderr and
         os.listdir(full) == ["t.json"] and open(old).read() == '{"traceEvents":[]}\n',
         "--perfetto on a full file system: exit 1, No space left on device, no cut file, "
         "the file that was there kept", (p.stderr, os.listdir(full)))
    os.unlink(old)
    db = os.path.join(full, "new.db")
    p = run([CUDATRACE, "-r", SRC, "--sqlite", db, "-c"])
    t.ok(p.returncode == 1 and "disk is full" in p.stderr and
         "I/O error" not in p.stderr and not os.listdir(full),
         "--sqlite, a new database on a full file system: exit 1, says the disk is full, "
         "leaves nothing", (p.stderr, os.listdir(full)))
    # An existing database: made elsewhere, copied in; a trace too large for
    # the space left goes in whole or not at all.
    small_db = os.path.join(tmp, "small.db")
    c = sqlite3.connect(small_db)
    c.execute("CREATE TABLE mine(x)")
    c.execute("INSERT INTO mine VALUES (42)")
    c.commit()
    c.close()
    db = os.path.join(full, "have.db")
    open(db, "wb").write(open(small_db, "rb").read())
    had = digest(db)
    p = run([CUDATRACE, "-r", SRC, "--sqlite", db, "-c"])
    c = sqlite3.connect(db)
    tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    rows = c.execute("SELECT count(*) FROM calls").fetchone()[0] if "calls" in tables else 0
    mine = c.execute("SELECT x FROM mine").fetchall()
    c.close()
    t.ok(p.returncode == 1 and "disk is full" in p.stderr and rows == 0 and mine == [(42,)] and
         sorted(os.listdir(full)) == ["have.db"],
         "--sqlite, an existing database on a full file system: exit 1, no call added, its "
         "own rows kept (was %s..., %d calls)" % (had[:8], rows), (p.stderr, os.listdir(full)))
finally:
    subprocess.run(["umount", full])
t.done()
