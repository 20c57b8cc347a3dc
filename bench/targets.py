# SPDX-License-Identifier: MIT
"""The figures of issue 13 (cost at the floor), each printed beside its
target, for `make bench` (bench.py runs measure() first and prints table()
last).  Everything is measured in this run, alternating the cases, so that
the ratios hold on a machine shared with other load:

  tax      a getppid loop, which cudatrace does not trace: bare, under an
           empty raw sys_enter program (the floor of the tracepoint
           approach), under two empty raw programs (sys_enter + sys_exit),
           under a system-wide cudatrace and while `cudatrace -- CMD` runs
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

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
B = os.path.join(ROOT, "build", "bench")
FLOOR, FLOOR_OBJ = os.path.join(B, "floor"), os.path.join(B, "floor.bpf.o")
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


def _tax(ct, gen, other, n, reps, ctl, out):
    configs = [
        ("bare", None, None),
        ("floor", [FLOOR, FLOOR_OBJ, "floor_enter"], "attached"),
        ("two raw hooks", [FLOOR, FLOOR_OBJ, "floor_enter", "floor_exit"], "attached"),
        ("cudatrace", [ct, "--device", ctl, "-w", out], "tracing"),
        # a command traced: its exits go through a raw sys_exit program
        ("cudatrace --", [ct, "--device", ctl, "-w", out, "--", "sh", "-c",
                          "echo tracing >&2; exec sleep 600"], "tracing"),
    ]
    res = {k: [] for k, _, _ in configs}
    for _ in range(reps):
        for k, cmd, word in configs:
            tracer = _start(cmd, word) if cmd else None
            for _ in range(3):
                res[k].append(_gen(gen, ["-f", other, "getppid", str(n)]))
            if tracer:
                _stop(*tracer)
    med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
           for k, v in res.items()}
    note("tax", med)


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
    _tax(ct, gen, other, n, reps, ctl, out)
    progress("targets: tax on getppid done")
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
    if tax:
        bare, floor, two, ct = (tax[k][1] for k in ("bare", "floor", "two raw hooks", "cudatrace"))
        added = floor - bare
        ratio = (ct - bare) / added if added > 0 else float("nan")
        row("untraced syscall (getppid), CPU ns/call",
            "bare %s; +%s floor (empty raw sys_enter); +%s two empty raw hooks; +%s cudatrace "
            "system-wide = %.2fx floor" % (_fmt(bare), _fmt(floor - bare), _fmt(two - bare),
                                           _fmt(ct - bare), ratio), "<= 1.3x floor", ratio <= 1.3)
        cmd = tax["cudatrace --"][1]
        row("  the same, while cudatrace -- CMD runs",
            "+%s = %.2fx floor (its exits on a raw sys_exit)" %
            (_fmt(cmd - bare), (cmd - bare) / added if added > 0 else float("nan")),
            "<= 1.3x floor", added > 0 and (cmd - bare) / added <= 1.3)
        wb, wf, wc = (tax[k][0] for k in ("bare", "floor", "cudatrace"))
        row("  the same, wall ns/call", "bare %s; floor +%s; cudatrace +%s" %
            (_fmt(wb), _fmt(wf - wb), _fmt(wc - wb)), "-", None)
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
    if BPF:
        print("\nBPF programs, ns per run (kernel.bpf_stats_enabled=1; the empty program's "
              "figure is what measuring costs):", file=out)
        for where, name, runs, ns in BPF:
            print("  %-34s %-16s %10s runs  %6.0f ns/run" % (where, name, _fmt(runs), ns),
                  file=out)
