#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What Python frames cost per traced call: a Python loop of N driver calls
(tests/python/pyloop.py) at stack depths 0 and 30, untraced, traced, traced
with --py-stack and with -k, alternating, REPS times.  For each run: the
loop's wall ns per call, and the BPF programs' own ns per call (their
run_time_ns from the tracer's fdinfo, kernel.bpf_stats_enabled, summed over
all programs, read by the loop before and after its timed calls: start-up
and warm-up are not in it; divided by N).  Prints one line per run and the medians, with
the difference to plain tracing.

  py_costs.py --ct CUDATRACE --python PYTHON (--device FILE | --torch)
              [--calls N] [--reps R] [--depths 0,30,30d] [--modes traced,k,k=8192]

--modes picks from untraced, traced, py-stack, k and k=BYTES (-k's size);
traced is always measured, as the base of the differences.  --compare
OTHER adds OTHER's run of each traced mode (MODE-other), in turn with the
others, for a before/after figure taken in one run; the modes after plain
tracing run in the order given, then reversed, rep by rep.  --depths takes N (one
recursive function N deep) and Nd (N + 1 functions of their own).

--pace RATE runs the timed loops at RATE calls a second: the capture
keeps up, as it does for real programs, and the figures are what each call
costs then; wall is then the calls' own time, without the pacing's waits.
Unpaced, a capture that falls behind (-k unwinds each stack) makes the
kernel wake it at every record once half its ring is queued, which the
traced thread pays for, or loses records, which cost nothing: a row with
records lost is marked, its figures are not a cost.

--warm-pause SECS (default 0.5): a pause after the warm-up calls, before
the timed ones, in which -k builds the unwind tables the kernel walks
stacks from (once a file, not a call).

--pin LOOP,TRACER runs the loop on CPU LOOP and cudatrace on CPU TRACER
(taskset): a loop that moves between CPUs, or shares one with the
capture, spreads one mode's BPF time over a factor of two between reps.
The summary gives each mode's median and, after it, its lowest rep."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOOP = os.path.join(HERE, "..", "tests", "python", "pyloop.py")
MODES = [("untraced", None), ("traced", []), ("py-stack", ["--py-stack"]), ("k", ["-k"])]


def in_turn(modes, rep):
    """The first mode (the base: plain tracing) first, then the others in
    the order given on even reps and reversed on odd ones (stack_costs.py
    too): on an H200 the mode run right after plain tracing measured
    400-500 ns more at depth 0 in every rep of one run, and 88 ns less run
    second (docs/PERFORMANCE.md)."""
    return [modes[0]] + (modes[1:] if rep % 2 == 0 else modes[:0:-1])


def pick_modes(names, compare):
    """The modes named (traced always), in the order given; a mode's
    arguments start with the cudatrace that runs it (None: the --ct one)."""
    known = dict(MODES)
    picked = [("traced", [])]
    for name in names.split(","):
        if name == "traced":
            continue
        if name.startswith("k="):
            picked.append((name, ["-k" + name[2:]]))
        elif name in known:
            picked.append((name, known[name]))
        else:
            sys.exit("py_costs: unknown mode %r (untraced, traced, py-stack, k, k=BYTES)" % name)
    picked = [(n, m if m is None else [None] + m) for n, m in picked]
    if compare:
        picked += [(n + "-other", [compare] + m[1:]) for n, m in picked
                   if m is not None and n != "traced"]
    return picked


def stats_on(on):
    path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(path).read().strip()
    with open(path, "w") as f:
        f.write("1" if on else "0")
    return old


def pinned(cpu):
    """The prefix that runs a command on one CPU (none: anywhere)."""
    return ["taskset", "-c", cpu] if cpu else []


def run(a, mode, depth, out, rate=0):
    target = "--torch" if a.torch else a.device
    loop = "%s %s %s %d %s %d" % (a.python, LOOP, target, a.calls, depth, rate)
    loop_cpu, tracer_cpu = a.pin.split(",") if a.pin else (None, None)
    if mode is None:
        p = subprocess.run(pinned(loop_cpu) + ["sh", "-c", loop], capture_output=True, text=True)
        return p.stdout, ""
    # The loop reads its tracer's BPF time around the timed loop alone
    # (taskset execs: sh's parent is cudatrace).
    script = "PYLOOP_TRACER_PID=$PPID PYLOOP_WARM_PAUSE=%g " % a.warm_pause + loop
    args = pinned(tracer_cpu) + [mode[0] or a.ct] + mode[1:] + ["-w", out]
    if not a.torch:
        args += ["--device", a.device]
    p = subprocess.run(args + ["--"] + pinned(loop_cpu) + ["sh", "-c", script],
                       capture_output=True, text=True)
    return p.stdout, p.stderr


def parse(stdout, stderr, paced=False):
    m = re.search(r"call_ns ([\d.]+)" if paced else r"ns_per_call ([\d.]+)", stdout)
    bpf = re.search(r"bpf_ns ([\d.]+)", stdout)
    lost = re.search(r"(\d+) lost", stderr)
    return (float(m.group(1)) if m else float("nan"), float(bpf.group(1)) if bpf else 0.0,
            int(lost.group(1)) if lost else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ct", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--device")
    ap.add_argument("--torch", action="store_true")
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--depths", default="0,30,30d")
    ap.add_argument("--modes", default=",".join(m for m, _ in MODES))
    ap.add_argument("--compare", help="another cudatrace, whose -k is measured too")
    ap.add_argument("--pace", type=int, default=0,
                    help="calls/s of the timed loops (0: as fast as they go)")
    ap.add_argument("--pin", help="LOOP_CPU,TRACER_CPU: the loop and cudatrace each on one CPU")
    ap.add_argument("--warm-pause", type=float, default=0.5,
                    help="seconds between the warm-up and the timed calls (-k builds its "
                         "unwind tables from the first stacks: once a file, not a call)")
    ap.add_argument("--rate", type=int, default=20000,
                    help="calls/s of the loss check (0: none)")
    a = ap.parse_args()
    if a.pin and not re.fullmatch(r"\d+,\d+", a.pin):
        sys.exit("py_costs: --pin wants two CPU numbers, LOOP,TRACER (e.g. 1,0)")
    depths = a.depths.split(",")
    modes = pick_modes(a.modes, a.compare)
    res = {}
    old = stats_on(True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "t.ctrace")
            for rep in range(a.reps):
                for depth in depths:
                    for name, mode in in_turn(modes, rep):
                        wall, bpf, lost = parse(*run(a, mode, depth, out, a.pace), bool(a.pace))
                        res.setdefault((name, depth), []).append((wall, bpf, lost))
                        print("py-cost rep=%d depth=%s mode=%s wall_ns=%.0f bpf_ns=%.0f lost=%d"
                              % (rep + 1, depth, name, wall, bpf, lost))
    finally:
        stats_on(old == "1")
    print("py-cost medians over %d reps, %d calls%s (delta: over plain tracing):" %
          (a.reps, a.calls, " at %d/s (wall: the calls' own time)" % a.pace if a.pace else ""))
    for depth in depths:
        base = res[("traced", depth)]
        bw = statistics.median(x[0] for x in base)
        bb = statistics.median(x[1] for x in base)
        for name, _ in modes:
            v = res[(name, depth)]
            w = statistics.median(x[0] for x in v)
            b = statistics.median(x[1] for x in v)
            low = min(x[1] for x in v)
            lost = max(x[2] for x in v)
            print("  depth %3s %-14s wall %8.0f ns/call (%+7.0f)  bpf %6.0f ns/call (%+6.0f; "
                  "lowest %6.0f, %+6.0f)  lost max %d%s"
                  % (depth, name, w, w - bw, b, b - bb, low, low - min(x[1] for x in base), lost,
                     "  (records lost: not a cost)" if lost else ""))
    if a.rate:
        loss_check(a, modes, depths, res)


def loss_check(a, modes, depths, res):
    """Records lost at --rate calls/s, for each traced mode and depth: from
    the timed runs where they ran at that rate (--pace), else runs of their
    own (ns/call: the calls' own time, or the paced loop's)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, mode in [m for m in modes if m[1] is not None]:
            for depth in depths:
                if a.pace == a.rate:
                    wall = statistics.median(x[0] for x in res[(name, depth)])
                    lost = max(x[2] for x in res[(name, depth)])
                else:
                    wall, _, lost = parse(*run(a, mode, depth, os.path.join(tmp, "r.ctrace"),
                                               a.rate))
                print("py-cost loss check: %d calls at %d/s, depth %s, %s: %d lost "
                      "(%.0f ns/call)" % (a.calls, a.rate, depth, name, lost, wall))


if __name__ == "__main__":
    main()
