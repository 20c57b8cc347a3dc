# SPDX-License-Identifier: MIT
"""Medians of tests/gpu/device-perf.sh's lines (stdin): per build, the
cudaMemGetInfo ns per call and the difference of each traced run from the
untraced run just before it, the same for the stand-in, start-up and exit ms, and each BPF program's
ns per run (median over runs).  (The tax on getppid: bench/attach_windows.py prints its own lines.)"""
import re
import statistics
import sys
from collections import defaultdict

med = statistics.median
vals, bpf = defaultdict(list), defaultdict(list)
pairs = defaultdict(list)   # (kind, build) -> traced - the untraced run before it
last_untraced = {}          # kind -> the last untraced figure


def paired(kind, label, build, ns):
    """Keeps ns under (label, build), and its difference from the untraced run before."""
    vals[(label, build)].append(ns)
    if build == "untraced":
        last_untraced[kind] = ns
    elif kind in last_untraced:
        pairs[(kind, build)].append(ns - last_untraced[kind])


for line in sys.stdin:
    m = re.match(r"perf (\w+) build=(\S+) (?:run=(\d+) )?(.*)", line)
    if not m:
        continue
    kind, build, run, rest = m.groups()
    if kind == "memgetinfo":
        paired(kind, "memgetinfo", build,
               float(re.search(r"ns_per_call ([\d.]+)", rest).group(1)))
    elif kind == "stand":
        paired(kind, "stand cpu ns", build,
               float(re.search(r"cpu_ns_per_ioctl ([\d.]+)", rest).group(1)))
    elif kind == "startup":
        up, down = re.search(r"startup_ms=(-?\d+) exit_ms=(-?\d+)", rest).groups()
        vals[("startup ms", build)].append(int(up))
        vals[("exit ms", build)].append(int(down))
    elif kind == "bpf":
        f = dict(re.findall(r"(\w+): (\d+)", rest))
        if int(f.get("run_cnt", 0)) > 0:
            bpf[(build, run or "1")].append(
                (int(f["prog_id"]), int(f["run_cnt"]), int(f["run_time_ns"])))
for (kind, build), v in sorted(vals.items()):
    print("%-12s %-9s median %9.1f  (%d runs: %s)" % (kind, build, med(v), len(v),
                                                     " ".join("%.0f" % x for x in v)))
for (kind, build), d in sorted(pairs.items()):
    label, unit = {"memgetinfo": ("memgetinfo", "ns/call"),
                   "stand": ("stand-in", "CPU ns/call")}[kind]
    print("%-12s %-9s traced - untraced run before it: median %+.1f %s (%s)" %
          (label, build, med(d), unit, " ".join("%+.0f" % x for x in d)))
# Program k of a run is the k-th loaded (sys_enter, sys_exit, then the
# process hooks): its ns per run, median over the runs of each build.
by_prog = defaultdict(list)
for (build, run), progs in bpf.items():
    for k, (_, cnt, ns) in enumerate(sorted(progs)):
        by_prog[(build, k)].append((cnt, ns / cnt))
for build in sorted({b for b, _ in by_prog}):
    print("bpf          %-9s %s" % (build, "; ".join(
        "prog %d: %.0f runs, %.0f ns/run (%s)" % (
            k, med(c for c, _ in v), med(x for _, x in v), " ".join("%.0f" % x for _, x in v))
        for (b, k), v in sorted(by_prog.items()) if b == build)))
