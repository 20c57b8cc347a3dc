#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a capture's start costs, by mode: `cudatrace MODE -- true` on a
stand-in device, REPS times in turn with the other modes (and with
--compare OTHER's build), and for each its wall time, its CPU (user and
system: the kernel's verifier is system time) and the verifier's own
figures for its largest program (CT_BPF_VERIFIER_STATS=1).

  load_cost.py [--ct CUDATRACE] [--compare OTHER] [--reps R] [--modes M;M;...]

Prints one line a run, then each mode's medians.  OTHER must be a build
that says the verifier's figures too, else its columns read -1.  Root."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LINE = re.compile(r"^cudatrace: verifier: (\S+): (-?\d+) instructions processed "
                  r"\(limit -?\d+\), (-?\d+) us$")
MODES = "plain;-k;--py-stack;-k --py-stack --gpu-work"


def one_start(ct, opts, dev, out):
    """(wall s, CPU s, largest program, its instructions, its verifier ms)."""
    env = dict(os.environ, CT_BPF_VERIFIER_STATS="1")
    args = [ct, "--device", dev, "-w", out] + opts + ["--", "true"]
    t0 = time.monotonic()
    p = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("load_cost: %s failed:\n%s" % (" ".join(args), err[-800:]))
    progs = [(int(m.group(2)), m.group(1), int(m.group(3)))
             for m in map(LINE.match, err.splitlines()) if m]
    insns, name, us = max(progs) if progs else (-1, "-", -1)
    return wall, ru.ru_utime + ru.ru_stime, name, insns, us / 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ct", default=os.path.join(ROOT, "cudatrace"))
    ap.add_argument("--compare")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--modes", default=MODES)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("load_cost: needs root (it loads the BPF programs)")
    builds = [("this", a.ct)] + ([("other", a.compare)] if a.compare else [])
    modes = [m.strip() for m in a.modes.split(";") if m.strip()]
    tmp = tempfile.mkdtemp(prefix="ct-load-")
    dev, out = os.path.join(tmp, "nvidiactl"), os.path.join(tmp, "t.ctrace")
    open(dev, "w").close()
    rows = {}
    for rep in range(1, a.reps + 1):
        for mode in modes:
            opts = [] if mode == "plain" else mode.split()
            for build, ct in builds:
                r = one_start(ct, opts, dev, out)
                rows.setdefault((mode, build), []).append(r)
                print("load-cost rep=%d build=%s mode=%s wall_ms=%.0f cpu_ms=%.0f "
                      "largest=%s insns=%d verifier_ms=%.0f" %
                      ((rep, build, mode, r[0] * 1e3, r[1] * 1e3) + r[2:]), flush=True)
    print("load-cost medians over %d reps (%s):" % (a.reps, os.uname().nodename))
    for (mode, build), rs in rows.items():
        med = lambda i: statistics.median(r[i] for r in rs)  # noqa: E731
        print("  %-30s %-5s wall %6.0f ms  cpu %6.0f ms  %s %7d insns, verifier %6.0f ms" %
              (mode, build, med(0) * 1e3, med(1) * 1e3, rs[0][2], rs[0][3], med(4)))


if __name__ == "__main__":
    main()
