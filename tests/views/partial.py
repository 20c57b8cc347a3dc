# SPDX-License-Identifier: MIT
"""A trace without its trailer is partial, wherever it was cut (issue 33,
item 4): at a record boundary, inside a record, inside a zstd frame, it
decodes what it holds, says so in one line, and exits 1; with
--allow-partial the same, exit 0.  A damaged trace exits 1 either way, and
--allow-partial goes with -r only.  No root needed."""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
tmp = scratch_dir("ct-partial-")
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
full = open(SAXPY, "rb").read()


def record_ends(data):
    """Offsets where each record ends (records padded to 8 bytes)."""
    off, ends = 16, []
    while off + 8 <= len(data):
        off += (struct.unpack_from("<I", data, off + 4)[0] + 7) & ~7
        ends.append(off)
    return ends


ends = record_ends(full)
at = ends[200]
cuts = {"at a record boundary": full[:at], "13 bytes into the next record": full[:at + 13],
        "inside a record's payload": full[:ends[201] - 8]}
z = subprocess.run(["zstd", "-q", "-c"], input=open(os.path.join(
    ROOT, "traces", "h100-torch_train.ctrace"), "rb").read(), stdout=subprocess.PIPE).stdout
cuts["inside a zstd frame"] = z[:len(z) // 2]

whole = run([CUDATRACE, "-r", SAXPY])
for how, data in cuts.items():
    path = os.path.join(tmp, "cut.ctrace")
    open(path, "wb").write(data)
    p = run([CUDATRACE, "-r", path])
    q = run([CUDATRACE, "-r", path, "--allow-partial"])
    line = p.stderr.strip()
    t.ok(p.returncode == 1 and p.stderr.count("\n") == 1 and
         ("has no trailer" in line or "cut short" in line or "ends inside" in line) and
         line.endswith("; a partial trace: exit 1 (--allow-partial: 0)"),
         "cut %s: exit 1, one line that says it is partial and what gives exit 0" % how,
         (p.returncode, p.stderr))
    t.ok(q.returncode == 0 and q.stdout == p.stdout and q.stdout and
         q.stderr.strip() == line[:-len("; a partial trace: exit 1 (--allow-partial: 0)")],
         "cut %s, --allow-partial: exit 0, the same events, the same line without the hint"
         % how, (q.returncode, q.stderr))
    if how.startswith("at a"):
        # The call the cut left waiting for its exit ends "= ? <unfinished>".
        done = [l for l in p.stdout.splitlines() if not l.endswith("<unfinished>")]
        t.ok(0 < len(done) < whole.stdout.count("\n") and
             whole.stdout.splitlines()[:len(done)] == done,
             "cut %s: the events before the cut, as the whole trace prints them (%d lines)"
             % (how, len(done)))

# Damage is not a cut: --allow-partial does not take it.
bad = bytearray(full[:at])
struct.pack_into("<I", bad, ends[100] + 4, 0x7fffffff)   # a size that cannot be
path = os.path.join(tmp, "bad.ctrace")
open(path, "wb").write(bad)
for extra in ([], ["--allow-partial"]):
    p = run([CUDATRACE, "-r", path] + extra)
    t.ok(p.returncode == 1 and "impossible size" in p.stderr and
         "a partial trace" not in p.stderr,
         "a damaged record%s: exit 1, said, no word of partial" % (" " + extra[0] if extra else ""),
         p.stderr)

# A whole trace: exit 0, nothing said, with or without --allow-partial.
p = run([CUDATRACE, "-r", SAXPY, "--allow-partial"])
t.ok(p.returncode == 0 and not p.stderr and p.stdout == whole.stdout,
     "a whole trace with --allow-partial: exit 0, nothing said, the same output", p.stderr)

p = run([CUDATRACE, "--allow-partial", "--device", "/dev/null", "--", "true"])
t.ok(p.returncode == 2 and "--allow-partial goes with -r FILE" in p.stderr,
     "--allow-partial live: exit 2, it goes with -r", p.stderr)
t.done()
