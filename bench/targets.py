# SPDX-License-Identifier: MIT
"""The figures of issue 13 (cost at the floor), each printed beside its
target, for `make bench` (bench.py runs measure() first and prints table()
last).  Everything is measured in this run, alternating the cases, so that
the ratios hold on a machine shared with other load:

  tax      getppid, which cudatrace does not trace, in blocks of one
           process (bench/attach_windows.py) while each is attached in turn:
           an empty raw sys_enter program (the floor of the tracepoint
           approach), two empty raw programs (sys_enter + sys_exit), a
           system-wide cudatrace and `cudatrace -p` of that process
  costs    bench/costs: each piece a traced call is made of, on its own
  traced   the RM_CONTROL burst untraced and under `cudatrace -w FILE --`
  bpf      each BPF program's ns per run (kernel.bpf_stats_enabled), in the
           getppid loop and in the traced burst, beside an empty program's
           (what the measuring itself costs)
  start-up `cudatrace --device CTL -w FILE -- stamp`: from start until the
           command runs, and from the command's end until cudatrace exits

Burst loss and decode rates come from sections 4 and 5 (note()).
"""
import json
import os
import statistics
import subprocess
import time

import attach_windows

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
B = os.path.join(ROOT, "build", "bench")
FLOOR, FLOOR_OBJ = os.path.join(B, "floor"), os.path.join(B, "floor.bpf.o")
COSTS, COSTS_OBJ = os.path.join(B, "costs"), os.path.join(B, "costs.bpf.o")
BLOCKS = os.path.join(B, "syscall_blocks")
STAMP = os.path.join(B, "stamp")

FIG = {}      # name -> value, filled by measure() and note()
BPF = []      # (where, program, runs, ns per run)


def note(name, value):
    FIG[name] = value


def _gen(gen, args):
    out = subprocess.run([gen] + args, capture_output=True, text=True, check=True).stdout.split()
    return float(out[3]), float(out[5])      # wall ns, cpu ns per call


def _start(cmd, word):
    """Starts a tracer and waits until it says `word` on stderr."""
    err = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "ct-bench-tracer.err"), "w+")
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    deadline = time.time() + 60
    while True:
        err.seek(0)
        if word in err.read():
            return p, err
        if p.poll() is not None or time.time() > deadline:
            p.kill()
            err.seek(0)
            raise RuntimeError("%s did not start: %s" % (cmd[0], err.read()))
        time.sleep(0.01)


def _stop(p, err):
    p.send_signal(2)
    p.wait()
    err.close()


def _bpf_stats(on):
    path = "/proc/sys/kernel/bpf_stats_enabled"
    old = open(path).read().strip()
    with open(path, "w") as f:
        f.write("1" if on else "0")
    return old


def _prog_runs():
    """{(id, name): (run_cnt, run_time_ns)} of the loaded BPF programs."""
    out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True)
    progs = json.loads(out.stdout or "[]")
    return {(p["id"], p.get("name", "?")): (p.get("run_cnt", 0), p.get("run_time_ns", 0))
            for p in progs}


def _record_runs(where, before, after, min_runs=1000):
    for key, (cnt, ns) in sorted(after.items()):
        c0, n0 = before.get(key, (0, 0))
        if cnt - c0 >= min_runs:
            BPF.append((where, key[1], cnt - c0, (ns - n0) / (cnt - c0)))


def _tax(ct, ctl, out, reps):
    """attach_windows: getppid blocks of one process while each tracer is
    attached in turn, against the untraced stretches between."""
    configs = [
        ("floor", [FLOOR, FLOOR_OBJ, "floor_enter"], "attached"),
        ("two raw hooks", [FLOOR, FLOOR_OBJ, "floor_enter", "floor_exit"], "attached"),
        ("cudatrace system-wide", [ct, "--device", ctl, "-w", out], "tracing"),
        # its design with empty programs (after it: it mounts tracefs if missing)
        ("floor + exit tracepoint", [FLOOR, FLOOR_OBJ, "floor_enter", "floor_exit_ioctl"],
         "attached"),
        # the traced process's own other calls: its exits pass a raw sys_exit program
        ("cudatrace -p", [ct, "--device", ctl, "-w", out, "-p", "{pid}"], "tracing"),
    ]
    res = attach_windows.measure(BLOCKS, configs, windows=max(reps, 4),
                                 tmp=os.environ.get("TMPDIR", "/tmp"))
    note("tax", attach_windows.summary(res)[0])   # name -> (p10, p25, median, blocks)


def _costs():
    """bench/costs: each piece of a traced call on its own, ns per run."""
    p = subprocess.run([COSTS, COSTS_OBJ, "20000", "5"], capture_output=True, text=True,
                       check=True)
    lines = p.stdout.splitlines()
    first = dict(f.split("=") for f in lines[0].split()[1:])
    pieces = [dict(f.split("=") for f in ln.split()[1:]) for ln in lines[1:]]
    note("costs", (float(first["ring_first_pass_run_ns"]), pieces))


def _traced(ct, gen, ctl, n, reps, out):
    res = {"untraced": [], "traced": []}
    args = ["-f", ctl, "control", str(n)]
    for _ in range(reps):
        res["untraced"].append(_gen(gen, args))
        res["traced"].append(_gen(ct, ["--device", ctl, "-w", out, "--", gen] + args))
    note("traced", {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
                    for k, v in res.items()})


def _bpf(ct, gen, ctl, other, n, out):
    old = _bpf_stats(True)
    try:
        fl = _start([FLOOR, FLOOR_OBJ, "floor_enter"], "attached")
        b = _prog_runs()
        _gen(gen, ["-f", other, "getppid", str(n)])
        _record_runs("getppid, empty program", b, _prog_runs())
        _stop(*fl)
        tr = _start([ct, "--device", ctl, "-w", out], "tracing")
        b = _prog_runs()
        _gen(gen, ["-f", other, "getppid", str(n)])
        _record_runs("getppid, cudatrace system-wide", b, _prog_runs())
        _stop(*tr)
        b = _prog_runs()
        # the tracer's programs are gone when it exits: read them from inside
        shot = out + ".progs"
        subprocess.run([ct, "--device", ctl, "-w", out, "--", "sh", "-c",
                        "%s -f %s control %d >/dev/null && bpftool prog show -j > %s" %
                        (gen, ctl, n, shot)], capture_output=True, check=True)
        after = {(p["id"], p.get("name", "?")): (p.get("run_cnt", 0), p.get("run_time_ns", 0))
                 for p in json.load(open(shot))}
        os.unlink(shot)
        _record_runs("traced RM_CONTROL burst", b, after)
    finally:
        _bpf_stats(old == "1")


def _startup(ct, ctl, reps, out):
    up, down = [], []
    for _ in range(reps):
        t0 = time.monotonic_ns()
        p = subprocess.run([ct, "--device", ctl, "-w", out, "--", STAMP], capture_output=True,
                           text=True, check=True)
        t1 = time.monotonic_ns()
        stamp = int(p.stdout.split()[1])
        up.append((stamp - t0) / 1e6)
        down.append((t1 - stamp) / 1e6)
    note("startup", (statistics.median(up), min(up), max(up)))
    note("exit", (statistics.median(down), min(down), max(down)))


def measure(ct, gen, ctl, other, work, n, reps, progress):
    """Runs the tax, traced, bpf and start-up measurements."""
    out = os.path.join(work, "targets.ctrace")
    _tax(ct, ctl, out, reps)
    progress("targets: tax on getppid done")
    _costs()
    progress("targets: costs of the pieces done")
    _traced(ct, gen, ctl, n, reps * 2, out)
    progress("targets: traced burst done")
    _bpf(ct, gen, ctl, other, n, out)
    progress("targets: bpf_stats done")
    _startup(ct, ctl, reps * 2, out)
    progress("targets: start-up and exit done")
    for f in (out,):
        if os.path.exists(f):
            os.unlink(f)


def _fmt(v):
    return "{:,.0f}".format(v)


def table(out, big_n):
    """Prints each figure beside its target: met or not."""
    rows = []

    def row(figure, measured, target, met):
        rows.append((figure, measured, target, "-" if met is None else ("yes" if met else "NO")))

    tax = FIG.get("tax")
    if tax and "bare" in tax and "floor" in tax:
        bare = tax["bare"][1]   # 25th percentiles
        added = tax["floor"][1] - bare

        def ratio(k):
            return (tax[k][1] - bare) / added if added > 0 and k in tax else float("nan")
        row("untraced syscall (getppid), ns/call, 25th percentile of blocks",
            "bare %s; floor (empty raw sys_enter) +%s; two empty raw hooks %.2fx; empty "
            "sys_enter + sys_exit_ioctl %.2fx; cudatrace system-wide +%s = %.2fx floor" %
            (_fmt(bare), _fmt(added), ratio("two raw hooks"), ratio("floor + exit tracepoint"),
             _fmt(tax.get("cudatrace system-wide", (0, float("nan")))[1] - bare),
             ratio("cudatrace system-wide")), "<= 1.3x floor",
            ratio("cudatrace system-wide") <= 1.3)
        row("  the traced process's own other calls (-p: exits on a raw sys_exit)",
            "%.2fx floor" % ratio("cudatrace -p"), "<= 1.3x floor", ratio("cudatrace -p") <= 1.3)
    tr = FIG.get("traced")
    if tr:
        (uw, uc), (tw, tc) = tr["untraced"], tr["traced"]
        row("traced RM_CONTROL (stand-in), added wall ns/call",
            "+%s (untraced %s, traced %s; CPU +%s)" % (_fmt(tw - uw), _fmt(uw), _fmt(tw),
                                                      _fmt(tc - uc)), "<= +250", tw - uw <= 250)
    for key, label, target in (("startup", "start-up: start to command running, ms", 100),
                               ("exit", "exit: command ended to cudatrace gone, ms", 50)):
        if key in FIG:
            med, lo, hi = FIG[key]
            row(label, "%.0f (min %.0f, max %.0f)" % (med, lo, hi), "<= %d" % target,
                med <= target)
    if "burst_lost" in FIG:
        row("%s-call burst, default ring: records lost" % _fmt(big_n), _fmt(FIG["burst_lost"]),
            "0", FIG["burst_lost"] == 0)
    for key, label, target in (("decode_text", "decode to text, calls per CPU-second", 2e6),
                               ("decode_json", "decode to JSON, calls per CPU-second", 1e6)):
        if key in FIG:
            row(label, _fmt(FIG[key]), ">= " + _fmt(target), FIG[key] >= target)
    print("== issue 13: each figure beside its target (measured in this run)", file=out)
    w = [max(len(r[i]) for r in rows + [("figure", "measured", "target", "met")])
         for i in range(3)]
    for r in [("figure", "measured", "target", "met")] + rows:
        print("%s  %s  %s  %s" % (r[0].ljust(w[0]), r[1].ljust(w[1]), r[2].ljust(w[2]), r[3]),
              file=out)
    if FIG.get("costs"):
        first, pieces = FIG["costs"]
        print("\nWhat each piece of a traced call costs (bench/costs: one piece per program on "
              "raw sys_enter, exit_raw on raw sys_exit, median of 5 rounds; run ns includes the "
              "guard's, added is wall "
              "ns/call over the guard alone):", file=out)
        for f in pieces:
            print("  %-14s run %6.1f ns  added %6.1f" %
                  (f["piece"], float(f["run_ns"]), float(f["added_ns"])), file=out)
        print("  (the ring's first pass, before the rounds: ring_reserve %.1f ns per run)" % first,
              file=out)
    if BPF:
        print("\nBPF programs, ns per run (kernel.bpf_stats_enabled=1; the empty program's "
              "figure is what measuring costs):", file=out)
        for where, name, runs, ns in BPF:
            print("  %-34s %-16s %10s runs  %6.0f ns/run" % (where, name, _fmt(runs), ns),
                  file=out)
