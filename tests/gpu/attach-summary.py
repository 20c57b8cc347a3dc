# SPDX-License-Identifier: MIT
"""Summary of tests/gpu/device-attach.sh's output (stdin): for each build
and mode, cudaMemGetInfo ns per call in the traced windows and in the gaps
between them (blocks wholly inside), and the median over windows of
(traced window - the gap just before it).  The driver's latency is
bimodal on the H100 (blocks of ~4.5 and ~6.5 us per call, in traced and
untraced stretches alike), so the 10th and 25th percentiles, which stay in
the fast mode, are printed too: their difference is the steadier figure."""
import re
import statistics
import sys
from collections import defaultdict

blocks, windows = defaultdict(list), defaultdict(list)
for line in sys.stdin:
    m = re.match(r"attach (\S+) block (\d+) ns_per_call ([\d.]+)", line)
    if m:
        blocks[m.group(1)].append((int(m.group(2)), float(m.group(3))))
    m = re.match(r"window (\S+) (\d+) (\d+) (\d+)", line)
    if m:
        windows[m.group(1)].append(tuple(int(x) for x in m.groups()[1:]))


def inside(bl, lo, hi, width):
    """Blocks that ran wholly in [lo, hi]: a block ends at t, began ~width before."""
    return [ns for t, ns in bl if t - width >= lo and t <= hi]


med = statistics.median


def pct(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


for key in sorted(windows):
    bl = sorted(blocks[key])
    if len(bl) < 2:
        continue
    width = med(b[0] - a[0] for a, b in zip(bl, bl[1:]))
    traced, gaps, deltas = [], [], []
    prev_end = bl[0][0] - width
    for on, off, detached in windows[key]:
        t = inside(bl, on, off, width)
        g = inside(bl, prev_end, on - 50_000_000, width)
        traced += t
        gaps += g
        if t and g:
            deltas.append(med(t) - med(g))
        prev_end = detached + 50_000_000
    if traced and gaps:
        print("%-16s traced %7.1f ns/call (%d blocks)  untraced %7.1f (%d)  "
              "window - gap before: median %+.1f ns/call (%s)" %
              (key, med(traced), len(traced), med(gaps), len(gaps),
               med(deltas) if deltas else float("nan"),
               " ".join("%+.0f" % d for d in deltas)))
        print("%-16s traced - untraced at the 10th percentile %+.0f ns/call, at the 25th %+.0f" %
              (key, pct(traced, .1) - pct(gaps, .1), pct(traced, .25) - pct(gaps, .25)))
