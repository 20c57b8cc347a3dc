# SPDX-License-Identifier: MIT
"""--max-size counts the bytes written to disk, compressed ones with -z
(issue 33, item 3): -z --max-size 20K --rotate 3 made files of about
1.3 KB, 20K of records before compression, and kept 166 of 10,000 calls.
Now every file but the last reaches 20 KiB on disk and passes it by at most
its trailer and a record, and the three kept hold thousands of calls."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("-z --max-size")
tmp = scratch_dir("ct-maxz-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
MAX = 20 << 10
SLACK = 4096   # the last record and the trailer, compressed, and zstd's frame end


def kept(prefix):
    names = sorted((f for f in os.listdir(tmp) if f.startswith(prefix + ".")),
                   key=lambda f: int(f.rsplit(".", 1)[1]))
    return [os.path.join(tmp, f) for f in names]


def calls(path):
    p = run([CUDATRACE, "-r", path])
    return p.returncode, p.stdout.count(" ioctl(")


rot = os.path.join(tmp, "z.ctrace")
p = run([CUDATRACE, "--device", ctl, "-w", rot, "-z", "--max-size", "20K", "--rotate", "3",
         "--", NVFAKE, "-f", ctl, "burst", "10000"])
files = kept("z.ctrace")
sizes = [os.path.getsize(f) for f in files]
last = int(files[-1].rsplit(".", 1)[1]) if files else -1
t.ok(p.returncode == 0 and len(files) == 3 and
     all(open(f, "rb").read(4) == b"\x28\xb5\x2f\xfd" for f in files),
     "-z --rotate 3: three zstd files kept", (files, p.stderr))
t.ok(all(MAX <= s < MAX + SLACK for s in sizes[:-1]) and 0 < sizes[-1] < MAX + SLACK,
     "each full file is 20 KiB on disk, compressed, plus at most %d bytes (%s)" % (SLACK, sizes),
     sizes)
n = [calls(f) for f in files]
t.ok(all(rc == 0 for rc, _ in n) and sum(c for _, c in n) > 1000,
     "every kept file decodes whole, with its trailer; together %d of 10000 calls (166 "
     "when the uncompressed bytes were counted)" % sum(c for _, c in n), n)
t.ok(10000 // (last + 1) > 600,
     "%d files made for 10000 calls: %d calls a file (about 75 when the uncompressed "
     "bytes were counted)" % (last + 1, 10000 // (last + 1)))

# Without -z, the same rule, counted as written.
plain = os.path.join(tmp, "p.ctrace")
p = run([CUDATRACE, "--device", ctl, "-w", plain, "--max-size", "20K", "--rotate", "3",
         "--", NVFAKE, "-f", ctl, "burst", "2000"])
sizes = [os.path.getsize(f) for f in kept("p.ctrace")]
t.ok(p.returncode == 0 and len(sizes) == 3 and
     all(MAX <= s < MAX + SLACK for s in sizes[:-1]),
     "plain: each full file is 20 KiB plus at most its trailer and a record (%s)" % sizes,
     (sizes, p.stderr))

# --max-size without --rotate stops there, -z too.
one = os.path.join(tmp, "one.ctrace")
p = run([CUDATRACE, "--device", ctl, "-w", one, "-z", "--max-size", "20K",
         "--", NVFAKE, "-f", ctl, "burst", "10000"])
size = os.path.getsize(one)
rc, c = calls(one)
t.ok("reached --max-size; stopping" in p.stderr and MAX <= size < MAX + SLACK and rc == 0 and
     c > 1000, "-z --max-size 20K alone: stops at %d bytes on disk, %d calls, trailer there"
     % (size, c), (size, c, p.stderr))
t.done()
