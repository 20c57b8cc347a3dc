#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What -k costs a C program per call, and whether it loses records.

Cost: tests/stacks/stackprog's loop (one call of the stand-in driver, one
ioctl, a shallow stack of 5 frames: ioctl < drv_submit < fakeCtxSync <
loop < main), traced, in each mode given, alternating, REPS times; for each
run the BPF programs' ns per call (run_time_ns summed over the tracer's
programs, kernel.bpf_stats_enabled, read before and after the loop), the
loop's CPU ns per call, and the closing line's bytes a stack record.
The loop starts with 100 calls and a pause of 300 ms, in which the capture
builds the tables -k walks from (once a file, not a call).  --deep: the
same loop below 7 frames of 16 KiB (stackprog deep: 15 frames, 112 KiB
from sp to _start, deeper than -k's largest copy).  --tall: below 96
small frames (stackprog tall: about 100 frames in 20 KiB, the shape of
PyTorch's native stacks).  --ring MIB: the cost runs' ring (-b), large
enough that the reader, which an unpaced loop outruns, is never half a
ring behind: past that mark every record wakes it (the brake before the
ring overflows), and the figures would be the wakeups'.

Loss: nvfake's two threads of CALLS RM_CONTROL each, unpaced, with the
default ring, in each -k mode: records lost.

  stack_costs.py --ct CUDATRACE [--compare OTHER] [--calls N] [--reps R]
                 [--modes traced,k,k-copy] [--loss-calls 300000] [--pin L,T] [--deep | --tall]
                 [--ring MIB]

Modes: traced (no -k), k (-k as built: the kernel's walk), k-copy (-k with
CT_STACK_COPY=1: the stack copied and unwound by the capture, as before);
--compare OTHER adds OTHER's -k (k-other) in turn with the others; the
modes after the first run in the order given, then reversed, rep by rep."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

from py_costs import in_turn

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build")
PROG = os.path.join(BUILD, "stacks", "stackprog")
LIB = os.path.join(BUILD, "stacks", "libcuda.so.1")
NVFAKE = os.path.join(BUILD, "nvfake")
# Run inside the capture, by sh whose parent is cudatrace: the BPF time of
# the tracer's programs so far.
BPF_NS = ("import os,sys\np=int(sys.argv[1]);t=0\n"
          "for fd in os.listdir('/proc/%d/fdinfo'%p):\n"
          " try: s=open('/proc/%d/fdinfo/%s'%(p,fd)).read()\n"
          " except OSError: continue\n"
          " t+=sum(int(l.split()[1]) for l in s.splitlines() if l.startswith('run_time_ns:'))\n"
          "print(t)\n")


def stats_on(on):
    path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(path).read().strip()
    with open(path, "w") as f:
        f.write("1" if on else "0")
    return old


def mode_args(a, name):
    """(cudatrace, its arguments, extra environment) of a mode."""
    if name == "traced":
        return a.ct, [], {}
    if name == "k":
        return a.ct, ["-k"], {}
    if name == "k-copy":
        return a.ct, ["-k"], {"CT_STACK_COPY": "1"}
    if name == "k-other":
        return a.compare, ["-k"], {}
    sys.exit("stack_costs: unknown mode %r" % name)


def pinned(cpu):
    return ["taskset", "-c", cpu] if cpu else []


def cost_run(a, name, dev, out, helper):
    ct, args, env = mode_args(a, name)
    loop_cpu, tracer_cpu = a.pin.split(",") if a.pin else (None, None)
    # 100 calls and a pause of 300 ms first: the capture builds -k's
    # tables, whose cost is once a file, not a call.
    script = ("b0=$(python3 %s $PPID); %s %s %s %s loop %d 300; b1=$(python3 %s $PPID); "
              "echo bpf_total $((b1 - b0))" % (helper, " ".join(pinned(loop_cpu)), PROG, LIB,
                                              dev, a.calls, helper))
    if a.deep or a.tall:
        script = script.replace(" loop %d 300;" % a.calls, " %s %d 300;"
                                % ("deep" if a.deep else "tall", a.calls))
    if a.ring:
        args = args + ["-b", str(a.ring)]
    p = subprocess.run(pinned(tracer_cpu) + [ct] + args + ["--device", dev, "-w", out, "--",
                                                           "sh", "-c", script],
                       capture_output=True, text=True, env=dict(os.environ, **env))
    cpu = re.search(r"cpu_ns_per_call ([\d.]+)", p.stdout)
    bpf = re.search(r"bpf_total (\d+)", p.stdout)
    lost = re.search(r"(\d+) lost", p.stderr)
    rec = re.search(r"([\d.]+) bytes a stack record", p.stderr)
    return (float(cpu.group(1)) if cpu else float("nan"),
            int(bpf.group(1)) / a.calls if bpf else float("nan"),
            int(lost.group(1)) if lost else -1, float(rec.group(1)) if rec else float("nan"),
            p.stderr)


def loss_run(a, name, dev, out):
    ct, args, env = mode_args(a, name)
    p = subprocess.run([ct] + args + ["--device", dev, "-w", out, "--", NVFAKE, "-f", dev,
                                      "threads", "2", str(a.loss_calls)],
                       capture_output=True, text=True, env=dict(os.environ, **env))
    ev = re.search(r"(\d+) events captured, (\d+) lost", p.stderr)
    rec = re.search(r"([\d.]+) bytes a stack record", p.stderr)
    busy = re.search(r"unwound (\d+) stacks \((\d+) frames\) in ([\d.]+) ms", p.stderr)
    return ev, rec, busy, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ct", required=True)
    ap.add_argument("--compare")
    ap.add_argument("--calls", type=int, default=50000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default="traced,k,k-copy")
    ap.add_argument("--loss-calls", type=int, default=300000)
    ap.add_argument("--pin")
    ap.add_argument("--deep", action="store_true")
    ap.add_argument("--tall", action="store_true")
    ap.add_argument("--ring", type=int, help="the cost runs' ring in MiB (-b)")
    a = ap.parse_args()
    modes = a.modes.split(",") + (["k-other"] if a.compare else [])
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        dev = os.path.join(tmp, "nvidiactl")
        open(dev, "w").close()
        helper = os.path.join(tmp, "bpf_ns.py")
        with open(helper, "w") as f:
            f.write(BPF_NS)
        out = os.path.join(tmp, "t.ctrace")
        old = stats_on(True)
        try:
            for rep in range(a.reps):
                for name in in_turn(modes, rep):
                    cpu, bpf, lost, rec, err = cost_run(a, name, dev, out, helper)
                    res.setdefault(name, []).append((cpu, bpf, lost, rec))
                    print("stack-cost rep=%d mode=%s cpu_ns=%.0f bpf_ns=%.0f lost=%d "
                          "bytes_per_stack_record=%.0f" % (rep + 1, name, cpu, bpf, lost, rec))
                    if lost < 0:
                        print("  (no closing line) " + err.strip().replace("\n", " | "))
        finally:
            stats_on(old == "1")
        base = statistics.median(x[1] for x in res["traced"])
        print("stack-cost medians over %d reps, %d calls%s (delta: BPF ns over plain tracing):"
              % (a.reps, a.calls, ", deep stack" if a.deep else ", tall stack" if a.tall else ""))
        for name in modes:
            v = res[name]
            b = statistics.median(x[1] for x in v)
            print("  %-8s cpu %7.0f ns/call  bpf %6.0f ns/call (%+6.0f)  bytes/stack record "
                  "%6.0f  lost max %d" % (name, statistics.median(x[0] for x in v), b, b - base,
                                          statistics.median(x[3] for x in v),
                                          max(x[2] for x in v)))
        for name in [m for m in modes if m != "traced"] if a.loss_calls else []:
            ev, rec, busy, err = loss_run(a, name, dev, out)
            if not ev:
                print("stack-loss mode=%s: no closing line: %s" % (name, err.strip()[-300:]))
                continue
            events, lost = int(ev.group(1)), int(ev.group(2))
            print("stack-loss mode=%s: 2 threads x %d calls unpaced: %d events, %d lost "
                  "(%.1f%%), %s bytes a stack record, capture %s" %
                  (name, a.loss_calls, events, lost, 100.0 * lost / max(1, events + lost),
                   rec.group(1) if rec else "?",
                   "%.1f us a stack" % (float(busy.group(3)) * 1000 / max(1, int(busy.group(1))))
                   if busy else "?"))


if __name__ == "__main__":
    main()
