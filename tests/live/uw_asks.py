# SPDX-License-Identifier: MIT
"""-k's unwind tables asked for as the last capture's stacks asked (issue
31): a capture keeps, beside the symbol indexes, which files' tables its
kernel walks wanted and which FDEs of each lazy one; the next capture asks
for them as soon as a process maps the file, not at its first stack that
needs them.  stackprog's loop (100 calls, a pause, 200 more) with every
file lazy: the first capture copies most of its 200 stacks (each new FDE
is asked for by a copy, and the 200 calls outrun the capture), the second
walks all 200 in the kernel.  Then: whole tables kept as such, and their
rows kept for the next capture to read rather than build (uw_kept.c: a
damaged one refused and built again), kept asks that are not of the
format left unread and written anew, `off` keeps nothing, and a folder
that cannot be written is said.  Last, a machine's first capture: a copy
that lacks a table wakes the capture at once, to ask for it; and a walk
that meets a frame without a table below the thread's last walk's frames
goes on past it, sending only the stack between."""
import glob
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import BUILD, CUDATRACE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("unwind-table asks tests")
tmp = scratch_dir("ct-uwasks-")
dev = os.path.join(tmp, "nvidiactl")
open(dev, "w").close()
SRC = os.path.join(BUILD, "stacks")
bins = os.path.join(tmp, "bin")
os.makedirs(bins)
for f in ("stackprog", "libcuda.so.1"):
    shutil.copy2(os.path.join(SRC, f), bins)
PROG, LIB = os.path.join(bins, "stackprog"), os.path.join(bins, "libcuda.so.1")
CALLS = 200


def capture(cache, lazy=True, check=False):
    env = dict(os.environ, CUDATRACE_SYMBOL_CACHE=cache)
    env.pop("CT_UNWIND_CHECK", None)
    if check:
        env["CT_UNWIND_CHECK"] = "1"
    if lazy:
        env["CT_KT_LAZY_MIN"] = "1"
    else:
        env.pop("CT_KT_LAZY_MIN", None)
    return run([CUDATRACE, "-k", "--device", dev, "-w", os.path.join(tmp, "t.ctrace"), "--",
                PROG, LIB, dev, "loop", str(CALLS), "300"], env=env)


def figures(err):
    """(walked in the kernel, copies for a lazy FDE not built, (files, FDEs) asked as kept)."""
    w = re.search(r"stacks walked in the kernel (\d+)", err)
    lz = re.search(r"(\d+) for a lazy file's FDE not built yet", err)
    k = re.search(r"(\d+) files' tables asked for as the last capture's stacks asked "
                  r"\((\d+) lazy FDEs\)", err)
    return (int(w.group(1)) if w else -1, int(lz.group(1)) if lz else 0,
            (int(k.group(1)), int(k.group(2))) if k else None)


def tables(err):
    """(read as kept, their rows, kept refused, kept for the next), or None."""
    m = re.search(r"\((\d+) of them as the last capture kept them, (\d+) rows; (\d+) kept "
                  r"tables refused and built again; (\d+) kept for the next\)", err)
    return tuple(int(x) for x in m.groups()) if m else None


def kernel_walks_differ(err):
    m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", err)
    return (int(m.group(1)), int(m.group(2))) if m else None


def kept(cache):
    """{file: (whole, [addresses])} of the asks kept in cache."""
    out = {}
    for path in glob.glob(os.path.join(cache, "*.uwask")):
        lines = open(path).read().splitlines()
        whole = lines[1:] == ["whole"]
        out[path] = (whole, [int(x, 16) for x in lines[2:]] if not whole else [])
        if lines[0] != "cudatrace-uw-asks 1" or not (whole or lines[1] == "lazy %d" % (len(lines) - 2)):
            out[path] = None
    return out


# 1. Lazy tables: the FDEs kept, and asked for before the stacks.
cache = os.path.join(tmp, "cache")
p1 = capture(cache)
w1, lazy1, k1 = figures(p1.stderr)
t.ok(p1.returncode == 0 and w1 >= 0 and k1 is None,
     "first capture: no asks kept before it (walked %d in the kernel, %d copies for a lazy FDE)"
     % (w1, lazy1), p1.stderr[-1500:])
asks = kept(cache)
t.ok(len(asks) >= 2 and all(v and not v[0] and v[1] for v in asks.values()),
     "its asks kept: %d files, each lazy with the FDEs its stacks asked for (%s)"
     % (len(asks), ", ".join(str(len(v[1])) if v else "bad" for v in asks.values())), asks)
nfdes = sum(len(v[1]) for v in asks.values() if v)
p2 = capture(cache)
w2, lazy2, k2 = figures(p2.stderr)
t.ok(p2.returncode == 0 and k2 == (len(asks), nfdes),
     "second capture: %s files' tables and %d lazy FDEs asked for as kept (said: %s)"
     % (len(asks), nfdes, k2), p2.stderr[-1500:])
t.ok(w2 >= CALLS and lazy2 == 0,
     "second capture: the %d calls after the pause walked in the kernel (%d walked, %d copies "
     "for a lazy FDE; the first capture: %d walked, %d such copies)" % (CALLS, w2, lazy2, w1, lazy1),
     p2.stderr[-1500:])

# 2. Whole tables (the default size for lazy): kept as such.
whole_cache = os.path.join(tmp, "whole")
p = capture(whole_cache, lazy=False)
asks = kept(whole_cache)
t.ok(p.returncode == 0 and len(asks) >= 2 and all(v and v[0] for v in asks.values()),
     "whole tables kept as 'whole' (%d files)" % len(asks), (asks, p.stderr[-800:]))
p = capture(whole_cache, lazy=False)
_, _, k = figures(p.stderr)
t.ok(p.returncode == 0 and k == (len(asks), 0),
     "the next capture asks for the %d whole tables at once (said: %s)" % (len(asks), k),
     p.stderr[-800:])

# 2b. Whole tables: their rows kept, and the next capture reads them
# rather than building them; the kernel walks from them as it does from
# built ones; a damaged table is refused, built again and kept anew.
rows_cache = os.path.join(tmp, "rows")
p = capture(rows_cache, lazy=False)
tb = tables(p.stderr)
files = glob.glob(os.path.join(rows_cache, "*.uwrows"))
t.ok(p.returncode == 0 and tb and tb[0] == 0 and tb[3] >= 2 and len(files) == tb[3],
     "first capture: %s whole tables built and kept (%d files)" % (tb and tb[3], len(files)),
     p.stderr[-800:])
p = capture(rows_cache, lazy=False, check=True)
tb2, kw = tables(p.stderr), kernel_walks_differ(p.stderr)
t.ok(p.returncode == 0 and tb2 and tb and tb2[0] == tb[3] and tb2[1] > 0 and tb2[3] == 0,
     "the next capture reads the %s tables as kept (%s rows), builds none" %
     (tb and tb[3], tb2 and tb2[1]), p.stderr[-800:])
t.ok(kw and kw[0] == 0 and kw[1] >= CALLS,
     "and walks in the kernel from them as the copy unwinds (CT_UNWIND_CHECK: %s of %s differ)"
     % (kw or ("?", "?")), p.stderr[-800:])
with open(files[0], "r+b") as f:   # a byte of a row changed: its hash no longer holds
    f.seek(os.path.getsize(files[0]) - 3)
    b = f.read(1)
    f.seek(-1, 1)
    f.write(bytes([b[0] ^ 0x40]))
p = capture(rows_cache, lazy=False)
tb3 = tables(p.stderr)
t.ok(p.returncode == 0 and tb3 and tb3[2] == 1 and tb3[3] == 1 and tb and tb3[0] == tb[3] - 1,
     "a damaged table is refused, built again and kept anew (said: %s)" % (tb3,),
     p.stderr[-800:])
p = capture(rows_cache, lazy=False)
tb4 = tables(p.stderr)
t.ok(p.returncode == 0 and tb4 and tb and tb4[0] == tb[3] and tb4[2] == 0,
     "... and read as kept by the capture after (said: %s)" % (tb4,), p.stderr[-800:])

# 3. Kept asks not of the format: left unread, then written anew.
for path in glob.glob(os.path.join(cache, "*.uwask")):
    with open(path, "w") as f:
        f.write("cudatrace-uw-asks 1\nlazy 3\n10\n")
p = capture(cache)
_, _, k = figures(p.stderr)
t.ok(p.returncode == 0 and k is None, "asks cut short are not used (said: %s)" % (k,),
     p.stderr[-800:])
t.ok(all(v and v[1] for v in kept(cache).values()), "and are written anew, whole",
     kept(cache))

# 4. off keeps nothing; a folder that cannot be written is said.
p = capture("off", lazy=False)
t.ok(p.returncode == 0 and figures(p.stderr)[2] is None and tables(p.stderr) is None and
     not os.path.exists("off"),
     "CUDATRACE_SYMBOL_CACHE=off: nothing kept, nothing asked", p.stderr[-600:])
blocker = os.path.join(tmp, "a-file")
open(blocker, "w").close()
p = capture(os.path.join(blocker, "cache"))
t.ok(p.returncode == 0 and
     re.search(r"the unwind tables' asks of \d+ files not kept in \S+ \(", p.stderr),
     "a cache folder that cannot be made: said, and the capture goes on", p.stderr[-800:])
p = capture(os.path.join(blocker, "cache"), lazy=False)
t.ok(p.returncode == 0 and
     re.search(r"the unwind tables of \d+ files not kept in \S+ \(", p.stderr),
     "... and the whole tables that could not be kept too", p.stderr[-800:])

# 5. A copy that lacks a table wakes the capture at once (bpf/stacks.bpf.h,
# copy_wake_flags), so it asks for the table within ms, not at the
# reader's next poll (100 ms): a Python loop paced at 1,000 calls a
# second, a machine's first capture.  Slept through, 114-122 of its 600
# stacks were copied here (the first 100 ms or so); woken, 14-26.
PACED_CALLS = 300
loop = os.path.join(os.path.dirname(__file__), "..", "python", "pyloop.py")
env = dict(os.environ, CUDATRACE_SYMBOL_CACHE=os.path.join(tmp, "paced"))
for k in ("CT_UNWIND_CHECK", "CT_KT_LAZY_MIN"):
    env.pop(k, None)
p = run([CUDATRACE, "-k", "--device", dev, "-o", os.devnull, "--", sys.executable, loop, dev,
         str(PACED_CALLS), "0", "1000"], env=env)
copied = re.search(r"copied (\d+)", p.stderr)
woke = re.search(r"; (\d+) of these woke the capture at once", p.stderr)
copied, woke = (int(copied.group(1)) if copied else -1), (int(woke.group(1)) if woke else 0)
walked = figures(p.stderr)[0]
t.ok(p.returncode == 0 and 1 <= woke <= copied,
     "a copy that lacks a table wakes the capture at once (%d of %d copies did)" % (woke, copied),
     p.stderr[-800:])
t.ok(0 <= copied <= 60,
     "so a paced loop's stacks are walked in the kernel within ms of its first: %d of %d "
     "copied (at most 60)" % (copied, walked + copied), p.stderr[-800:])

# 6. Past a frame without a table, through the thread's last walk
# (kwalk.bpf.h, kw_gap): stackprog's calls through via_a, paced, walked
# in the kernel once their FDEs are built; then through via_b, whose FDE
# the first of them meets unbuilt.  Its caller's frame is the last walk's,
# where it was: the kernel sends the stack between (a CT_REC_KSTACK_GAP of
# tens of bytes) rather than copying it all, and the capture walks it and
# joins the two, as the copy's unwinding would (CT_UNWIND_CHECK).
env = dict(os.environ, CUDATRACE_SYMBOL_CACHE=os.path.join(tmp, "gaps"), CT_KT_LAZY_MIN="1",
           CT_UNWIND_CHECK="1")
p = run([CUDATRACE, "-k", "--device", dev, "-o", os.devnull, "--", PROG, LIB, dev, "gaps", "50",
         "3000"], env=env)
gaps = re.search(r"through the thread's last walk (\d+) \(([\d.]+) KiB of stack each, sent for "
                 r"the capture to walk between; (\d+) not joined", p.stderr)
kw = kernel_walks_differ(p.stderr)
ends = re.search(r"stack ends: (\d+) complete", p.stderr)
t.ok(p.returncode == 0 and gaps and int(gaps.group(1)) >= 1 and int(gaps.group(3)) == 0 and
     float(gaps.group(2)) < 4,
     "a new frame without a table, below the last walk's: walked past, the stack between sent "
     "(%s)" % (gaps.group(0) if gaps else "no gaps said"), p.stderr[-1200:])
t.ok(kw and kw[0] == 0 and kw[1] >= 50 and ends and int(ends.group(1)) == 100,
     "and joined as the copy's unwinding walks the same calls (CT_UNWIND_CHECK: %s of %s "
     "differ; %s of 100 complete)" % (tuple(kw or ("?", "?")) + (ends.group(1) if ends else "?",)),
     p.stderr[-1200:])
t.done()
