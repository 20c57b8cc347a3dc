# SPDX-License-Identifier: MIT
"""cudatrace benchmark, run by `make bench` (bench/run.sh builds what it needs
first).  Everything is measured in one run on stand-in files (--device), no
GPU needed, and printed as one table; docs/PERFORMANCE.md explains it.

  1  a burst of N NVIDIA-shaped ioctls, RM_CONTROL only and a cudaMalloc-like
     mix, untraced and under six tracers: ns per call, calls captured and
     lost, the tracer's peak RSS
  2  the cost cudatrace adds, running system-wide, to ioctls it does not trace
  3  paced load for RATE_SECS seconds to a trace file: the highest rate
     captured with 0 lost, and what loses
  4  a BIG-call burst at full speed to a file
  5  offline decoding (-r, text and --json) of the traces of 4 and 1

Knobs (environment): BENCH_N (100000), BENCH_REPS (5), BENCH_RATE_SECS (10),
BENCH_RATES ("100000 200000 400000 800000 0"; 0 = as fast as it goes),
BENCH_BIG (1000000), BENCH_TMP (where the stand-ins and traces go; default
/var/tmp, a disk, not tmpfs), BENCH_QUICK=1 (small sizes, for trying it out),
BENCH_ONLY=targets (only issue 13's figures: bench/targets.py, ~1 minute),
BENCH_CT (another cudatrace binary to measure, e.g. an older build).
"""
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import targets

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CT = os.environ.get("BENCH_CT") or os.path.join(ROOT, "cudatrace")
GEN = os.path.join(ROOT, "build", "bench", "ioctl_mix")
PRELOAD = os.path.join(ROOT, "build", "bench", "preload_logger.so")
RUSAGE = os.path.join(ROOT, "build", "bench", "rusage_run")
BT = os.path.join(ROOT, "bench", "ioctl32.bt")

QUICK = os.environ.get("BENCH_QUICK") == "1"
N = int(os.environ.get("BENCH_N", 20000 if QUICK else 100000))
REPS = int(os.environ.get("BENCH_REPS", 2 if QUICK else 5))
RATE_SECS = float(os.environ.get("BENCH_RATE_SECS", 2 if QUICK else 10))
RATES = [int(r) for r in os.environ.get("BENCH_RATES", "100000 200000 400000 800000 0").split()]
BIG = int(os.environ.get("BENCH_BIG", 100000 if QUICK else 1000000))
DECODE_REPS = 2 if QUICK else 3
NCPU = os.cpu_count() or 1
T_START = time.time()

W = tempfile.mkdtemp(prefix="ct-bench-", dir=os.environ.get("BENCH_TMP", "/var/tmp"))
CTL = os.path.join(W, "nvidiactl")      # stand-ins
UVM = os.path.join(W, "nvidia-uvm")
OTHER = os.path.join(W, "other")        # a file nobody traces (section 2)
for f in (CTL, UVM, OTHER):
    open(f, "w").close()
INO_CTL, INO_UVM = str(os.stat(CTL).st_ino), str(os.stat(UVM).st_ino)
DEV = ["--device", CTL, "--device", UVM]

GEN_RE = re.compile(r"sent (\d+) ns_per_ioctl ([\d.]+) cpu_ns_per_ioctl ([\d.]+) "
                    r"seconds ([\d.]+) rate (\d+) maxrss_kb (\d+)")
CT_RE = re.compile(r"(\d+) events captured, (\d+) lost")


def path(name):
    return os.path.join(W, name)


def loadavg():
    return os.getloadavg()[0]


def progress(msg):
    print("  [%5.0fs] %s (load %.1f)" % (time.time() - T_START, msg, loadavg()), file=sys.stderr,
          flush=True)


def read_rusage(fname):
    """(maxrss_kb, cpu_s) as bench/rusage_run wrote them."""
    m = re.search(r"maxrss_kb (\d+) utime_s ([\d.]+) stime_s ([\d.]+)", open(fname).read())
    return int(m.group(1)), float(m.group(2)) + float(m.group(3))


class Run:
    """One command under bench/rusage_run: its output, exit status, peak RSS
    (the largest of the command and its descendants) and CPU time (summed)."""

    def __init__(self, cmd, env=None, timeout=300, want_gen=True):
        self.out, self.err, ru = path("run.out"), path("run.err"), path("run.rusage")
        full_env = dict(os.environ, **(env or {}))
        t0 = time.perf_counter()
        with open(self.out, "w") as o, open(self.err, "w") as e:
            p = subprocess.Popen([RUSAGE, ru] + cmd, stdout=o, stderr=e, env=full_env,
                                 stdin=subprocess.DEVNULL)
            try:
                self.rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.terminate()
                self.rc = p.wait()
        self.wall = time.perf_counter() - t0
        self.stdout = open(self.out).read()
        self.stderr = open(self.err).read()
        self.maxrss_kb, self.cpu_s = read_rusage(ru)
        m = CT_RE.search(self.stderr)
        self.ct = (int(m.group(1)), int(m.group(2))) if m else None
        if not want_gen:
            return
        gens = [m.groups() for m in GEN_RE.finditer(self.stdout)]
        if not gens:
            last = (self.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError("%s: exit status %d, no generator result: %s\n%s" %
                               (cmd[0], self.rc, last, " ".join(cmd)))
        self.sent = sum(int(g[0]) for g in gens)
        self.ns = statistics.mean(float(g[1]) for g in gens)
        self.cpu_ns = statistics.mean(float(g[2]) for g in gens)
        self.rate = sum(float(g[4]) for g in gens)
        # the tracer's CPU: the whole tree's less the generator's loops
        self.tracer_cpu_s = self.cpu_s - sum(int(g[0]) * float(g[2]) / 1e9 for g in gens)


def gen_cmd(work, n):
    return [GEN, "-f", CTL] + (["-u", UVM] if work == "mix" else []) + [work, str(n)]


def count_lines(fname, pred=None):
    n = 0
    with open(fname, "rb") as f:
        for line in f:
            if pred is None or pred(line):
                n += 1
    return n


def rm(*names):
    for n in names:
        try:
            os.unlink(n)
        except FileNotFoundError:
            pass


# --- the table ----------------------------------------------------------------

# Rows per section (run order and print order differ); a row is a tuple of
# cells or, for a heading, a string.
SECTIONS = {}
ROWS = []


def section(n):
    global ROWS
    ROWS = SECTIONS.setdefault(n, [])


def fmt_int(v):
    return "-" if v is None else "{:,}".format(int(v))


def fmt_f(v, d=0):
    return "-" if v is None else ("{:,.%df}" % d).format(v)


def fmt_mb(kb):
    return "-" if kb is None else "%.1f MB" % (kb / 1024)


def row(case, ns=None, cpu=None, ratio=None, rate=None, captured="-", lost="-", rss_kb=None,
        tcpu=None, note=""):
    if isinstance(ratio, tuple):
        ratio = "%.1fx / %.1fx" % ratio
    elif ratio is not None:
        ratio = "%.1fx" % ratio
    ROWS.append((case, fmt_f(ns), fmt_f(cpu), ratio or "-",
                 fmt_f(rate), captured, lost, fmt_mb(rss_kb),
                 "-" if tcpu is None else "%.2f s" % tcpu, note))


def title(text):
    ROWS.append(text)


def print_table(out):
    head = ("case", "ns/call", "cpu ns/call", "x untraced wall / cpu", "calls/s", "captured", "lost",
            "max RSS", "tracer CPU", "notes")
    rows = [r for n in sorted(SECTIONS) for r in SECTIONS[n]]
    data = [r for r in rows if not isinstance(r, str)]
    widths = [max(len(head[i]), *(len(r[i]) for r in data)) for i in range(len(head) - 1)]

    def line(cells):
        parts = [cells[0].ljust(widths[0])]
        parts += [c.rjust(w) for c, w in zip(cells[1:-1], widths[1:])]
        return "  ".join(parts) + "  " + cells[-1]
    print(line(head), file=out)
    print(line(["-" * w for w in widths] + ["-----"]), file=out)
    for r in rows:
        print(r if isinstance(r, str) else line(r), file=out)


# --- 1: bursts under each tracer -------------------------------------------------

def bt_pages():
    """bpftrace perf buffer pages per CPU for 64 MiB in all, cudatrace's ring."""
    pages = 64 * 1024 * 1024 // 4096 // NCPU
    p = 1
    while p * 2 <= pages:
        p *= 2
    return p


def section1():
    title("== 1. burst of %s ioctls on a --device stand-in, median of %d runs "
          "(load %.1f on %d CPUs at start)" % (fmt_int(N), REPS, loadavg(), NCPU))
    out = path("tracer.out")
    pages = bt_pages()

    def cfg_untraced(work):
        return gen_cmd(work, N), None, None

    def cfg_ct_w(work):
        return [CT] + DEV + ["-w", out, "--"] + gen_cmd(work, N), None, "ct"

    def cfg_ct_live(work):
        return [CT] + DEV + ["-o", "/dev/null", "--"] + gen_cmd(work, N), None, "ct"

    def cfg_strace(work):
        return (["strace", "-f", "-e", "trace=ioctl", "-o", out] + gen_cmd(work, N), None,
                "strace")

    def cfg_bt(work, env):
        return (["bpftrace", "-o", out, BT, INO_CTL, INO_UVM, "-c", " ".join(gen_cmd(work, N))],
                env, "bt")

    def cfg_preload(work):
        return gen_cmd(work, N), {"LD_PRELOAD": PRELOAD, "PRELOAD_LOG": out}, "lines"

    configs = [
        ("untraced", "untraced", cfg_untraced),
        ("ct-w", "cudatrace -w FILE", cfg_ct_w),
        ("ct-live", "cudatrace -o /dev/null (live decode)", cfg_ct_live),
        ("strace", "strace -f -e trace=ioctl -o FILE", cfg_strace),
        ("bt", "bpftrace bench/ioctl32.bt (default buffer)",
         lambda w: cfg_bt(w, {"BPFTRACE_PERF_RB_PAGES": "64"})),
        ("bt64", "bpftrace, %d pages/CPU (64 MiB)" % pages,
         lambda w: cfg_bt(w, {"BPFTRACE_PERF_RB_PAGES": str(pages)})),
        ("preload", "LD_PRELOAD bench/preload_logger.so", cfg_preload),
    ]
    works = ["control", "mix"]
    res = {(w, k): [] for w in works for k, _, _ in configs}
    failed = {}
    for rep in range(REPS):
        for w in works:
            for k, _, build in configs:
                cmd, env, kind = build(w)
                rm(out)
                try:
                    r = Run(cmd, env)
                    if r.rc != 0:
                        raise RuntimeError("exit status %d" % r.rc)
                except (OSError, RuntimeError) as e:
                    # one tool failing (no bpftrace, a kernel it cannot
                    # handle) leaves its row empty, not the whole table
                    if k == "untraced" or k.startswith("ct"):
                        raise
                    why = (str(e).strip().splitlines() or ["failed"])[0][:80]
                    failed[(w, k)] = why
                    progress("%s %s failed: %s" % (w, k, why))
                    continue
                cap = lost = None
                if kind == "ct":
                    cap, lost = r.ct
                elif kind == "strace":
                    cap = count_lines(out, lambda l: b"ioctl(" in l)
                    lost = r.sent - cap
                elif kind == "bt":
                    cap = count_lines(out, lambda l: l[:1].isdigit())
                    text = open(out, errors="replace").read() + r.stderr
                    lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", text))
                elif kind == "lines":
                    cap = count_lines(out)
                    lost = r.sent - cap
                tcpu = None if kind in (None, "lines") else r.tracer_cpu_s
                res[(w, k)].append((r.ns, r.cpu_ns, cap, lost, r.maxrss_kb, tcpu))
                if k == "ct-w" and w == "mix" and rep == REPS - 1:
                    os.replace(out, path("mix.ctrace"))
                rm(out)
            progress("section 1: %s, run %d of %d done" % (w, rep + 1, REPS))
    base = {}
    unit = {"ct-w": "rec", "ct-live": "rec", "strace": "lines", "bt": "ev", "bt64": "ev",
            "preload": "lines"}
    for w in works:
        title("-- %s: %s" % (w, "RM_CONTROL, 32-byte NVOS54 + 64-byte params" if w == "control"
                              else "RM_ALLOC/RM_CONTROL/UVM_CREATE_EXTERNAL_RANGE/"
                                   "UVM_MAP_EXTERNAL_ALLOCATION (9264 B)/UVM_FREE/"
                                   "RM_CONTROL/RM_FREE"))
        for k, label, _ in configs:
            rs = res[(w, k)]
            if not rs:
                row("%s  %s" % (w, label), note="failed: " + failed.get((w, k), "?"))
                continue
            ns = statistics.median(x[0] for x in rs)
            cpu = statistics.median(x[1] for x in rs)
            if k == "untraced":
                base[w] = (ns, cpu)
            caps = [x[2] for x in rs]
            losts = [x[3] for x in rs]
            note = "ns/call min-max %s-%s" % (fmt_f(min(x[0] for x in rs)),
                                              fmt_f(max(x[0] for x in rs)))
            if k == "untraced":
                note += "; RSS is the generator's"
            elif k == "preload":
                note += "; RSS, CPU: generator + logger (one process)"
            elif k.startswith("ct"):
                note += "; rec = records: enter + exit per call"
            if caps[0] is None:
                cap_s = lost_s = "-"
            else:
                cap_s = "%s %s" % (fmt_int(statistics.median(caps)), unit[k])
                lost_s = fmt_int(statistics.median(losts))
                if max(losts) != min(losts):
                    lost_s += " (%s-%s)" % (fmt_int(min(losts)), fmt_int(max(losts)))
            tcpu = None if rs[0][5] is None else statistics.median(x[5] for x in rs)
            row("%s  %s" % (w, label), ns, cpu, (ns / base[w][0], cpu / base[w][1]), 1e9 / ns,
                cap_s, lost_s,
                max(x[4] for x in rs), tcpu, note)
    return base


# --- 2: system-wide, ioctls on a file it does not trace ----------------------------

def start_tracer(args):
    err = path("sys.err")
    e = open(err, "w")
    p = subprocess.Popen([RUSAGE, path("sys.rusage"), CT] + args, stdout=subprocess.DEVNULL,
                         stderr=e, stdin=subprocess.DEVNULL)
    deadline = time.time() + 60
    while "tracing" not in open(err).read():
        if p.poll() is not None or time.time() > deadline:
            p.kill()
            raise RuntimeError("cudatrace did not start: " + open(err).read())
        time.sleep(0.02)
    return p, e, err


def stop_tracer(p, e, err):
    p.send_signal(signal.SIGINT)    # rusage_run passes it on
    p.wait()
    e.close()
    m = CT_RE.search(open(err).read())
    return read_rusage(path("sys.rusage")), (int(m.group(1)), int(m.group(2))) if m else None


def section2():
    title("== 2. cost on ioctls cudatrace does not trace: system-wide `cudatrace --device "
          "STANDIN -w FILE`, generator on another file, %d x 3 runs each, alternating "
          "(load %.1f)" % (REPS, loadavg()))
    un, tr, rss, caps, tcpu = [], [], [], [], []
    cmd = [GEN, "-f", OTHER, "control", str(N)]
    for _ in range(REPS):
        for _ in range(3):
            r = Run(cmd)
            un.append((r.ns, r.cpu_ns))
        p, e, err = start_tracer(["--device", CTL, "-w", path("sys.ctrace")])
        for _ in range(3):
            r = Run(cmd)
            tr.append((r.ns, r.cpu_ns))
        (m, c), ct = stop_tracer(p, e, err)
        rss.append(m)
        tcpu.append(c)
        caps.append(ct)
        rm(path("sys.ctrace"))
    u_ns = statistics.median(x[0] for x in un)
    u_cpu = statistics.median(x[1] for x in un)
    t_ns = statistics.median(x[0] for x in tr)
    t_cpu = statistics.median(x[1] for x in tr)
    row("other file  untraced", u_ns, u_cpu, (1.0, 1.0), 1e9 / u_ns,
        note="ns/call min-max %s-%s" % (fmt_f(min(x[0] for x in un)), fmt_f(max(x[0] for x in un))))
    row("other file  cudatrace system-wide running", t_ns, t_cpu, (t_ns / u_ns, t_cpu / u_cpu),
        1e9 / t_ns,
        "%s rec" % fmt_int(statistics.median(c[0] for c in caps if c)),
        fmt_int(statistics.median(c[1] for c in caps if c)), max(rss), statistics.median(tcpu),
        "added %+.0f ns/call wall, %+.0f ns/call CPU; min-max %s-%s; rec: other processes' "
        "NVIDIA calls (none here); tracer CPU: whole session" % (t_ns - u_ns, t_cpu - u_cpu, fmt_f(min(x[0] for x in tr)),
                                      fmt_f(max(x[0] for x in tr))))


# --- 3: paced load to a file -----------------------------------------------------------

def section3():
    title("== 3. paced RM_CONTROL load for %g s, `cudatrace -w FILE -- ioctl_mix --rate R` "
          "(load %.1f)" % (RATE_SECS, loadavg()))
    secs = str(RATE_SECS)
    cases = []
    for r in RATES:
        cases.append(("target %s/s" % (fmt_int(r) if r else "max"), [],
                      [GEN, "-f", CTL, "--rate", str(r), "--seconds", secs, "control"]))
    # Beyond: shorter (each writes GBs), more load or a smaller ring.
    bs = str(min(RATE_SECS, 3))
    g = " ".join([GEN, "-f", CTL, "--rate", "0", "--seconds", bs, "control"])
    two = ["sh", "-c", "%s & %s; wait" % (g, g)]
    cases.append(("beyond (%s s): 2 processes at max" % bs, [], two))
    cases.append(("beyond (%s s): 2 processes at max, -b 1" % bs, ["-b", "1"], two))
    cases.append(("beyond (%s s): mix at max, -b 1" % bs, ["-b", "1"],
                  [GEN, "-f", CTL, "-u", UVM, "--rate", "0", "--seconds", bs, "mix"]))
    best = None
    for label, opts, gcmd in cases:
        tr = path("rate.ctrace")
        r = Run([CT] + DEV + opts + ["-w", tr, "--"] + gcmd, timeout=RATE_SECS * 10 + 120)
        size = os.path.getsize(tr)
        rm(tr)
        cap, lost = r.ct
        if lost == 0 and not label.startswith("beyond") and \
                (best is None or r.rate > best):
            best = r.rate
        wall = r.sent / r.rate if r.rate else 0
        row(label, None, r.cpu_ns, None, r.rate,
            "%s rec" % fmt_int(cap), fmt_int(lost), r.maxrss_kb, r.tracer_cpu_s,
            "%s calls sent; trace %.0f MB, %.0f MB/s%s" %
            (fmt_int(r.sent), size / 1e6, size / 1e6 / wall if wall else 0,
             "; lost %.1f%% of records" % (100.0 * lost / (cap + lost)) if lost else "") +
            ("; -b 1: 1 MiB ring instead of 64" if opts else ""))
        progress("section 3: %s done" % label)
    return best


# --- 4: a big burst -------------------------------------------------------------------

def section4(base):
    title("== 4. %s-call RM_CONTROL burst at full speed, `cudatrace -w FILE` (load %.1f)" %
          (fmt_int(BIG), loadavg()))
    tr = path("big.ctrace")
    r = Run([CT] + DEV + ["-w", tr, "--"] + gen_cmd("control", BIG), timeout=600)
    cap, lost = r.ct
    targets.note("burst_lost", lost)
    size = os.path.getsize(tr)
    row("control %s calls, cudatrace -w FILE" % fmt_int(BIG), r.ns, r.cpu_ns,
        (r.ns / base["control"][0], r.cpu_ns / base["control"][1]), r.rate, "%s rec" % fmt_int(cap), fmt_int(lost), r.maxrss_kb,
        r.tracer_cpu_s, "trace %.0f MB = %.0f B/call; whole command %.2f s (BPF load/attach included)" %
        (size / 1e6, size / r.sent, r.wall))
    return tr, r.sent


# --- 5: offline decoding ---------------------------------------------------------------

def trace_calls(tr):
    q = subprocess.run([CT, "-r", tr, "-c"], capture_output=True, text=True)
    m = re.search(r"all calls: (\d+)", q.stdout)
    return int(m.group(1)) if m else 0


def section5(traces):
    title("== 5. offline decode, `cudatrace -r FILE -o /dev/null`, median of %d (load %.1f)" %
          (DECODE_REPS, loadavg()))
    for label, tr in traces:
        size = os.path.getsize(tr)
        calls = trace_calls(tr)
        for fmt, extra in (("text", []), ("--json", ["--json"])):
            times, rss, cpu = [], 0, []
            for _ in range(DECODE_REPS):
                r = Run([CT, "-r", tr, "-o", "/dev/null"] + extra, want_gen=False)
                if r.rc != 0:
                    raise RuntimeError("decode of %s failed: %s" % (tr, r.stderr))
                times.append(r.wall)
                cpu.append(r.cpu_s)
                rss = max(rss, r.maxrss_kb)
            t, c = statistics.median(times), statistics.median(cpu)
            if "control" in label:
                targets.note("decode_text" if fmt == "text" else "decode_json", calls / c)
            row("decode %s, %s" % (label, fmt), None, None, None, calls / t, "-", "-", rss, c,
                "%.0f MB of trace in %.2f s = %.0f MB/s, %s records/s, %.0f B/call; "
                "by CPU time: %s calls/s, %.0f MB/s" %
                (size / 1e6, t, size / 1e6 / t, fmt_f(2 * calls / t), size / calls,
                 fmt_f(calls / c), size / 1e6 / c))
        progress("section 5: %s done" % label)


def machine():
    model = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"Hypervisor vendor:\s*(.+)", lscpu)
        if m:
            model += " (virtual machine, %s)" % m.group(1).strip()
    except OSError:
        pass
    mem = int(open("/proc/meminfo").readline().split()[1]) // 1024
    ver = subprocess.run([CT, "-V"], capture_output=True, text=True).stdout.strip().splitlines()
    def version(cmd):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
        except OSError:
            out = ""
        return out.splitlines()[0] if out else cmd[0] + " (version unknown)"
    bt, st = version(["bpftrace", "--version"]), version(["strace", "-V"])
    df = shutil.disk_usage(W)
    return ["machine: %d CPUs (nproc), %s, %d MiB RAM" % (NCPU, model, mem),
            "kernel:  %s %s" % (platform.system(), platform.release()),
            "tools:   %s; %s; %s" % (ver[0] if ver else "cudatrace", bt, st),
            "files:   %s (%.0f GB free)" % (W, df.free / 1e9),
            "load:    %.2f %.2f %.2f at start (1, 5, 15 min)%s" %
            (os.getloadavg() + ("  -- BUSY: more runnable tasks than CPUs, figures taken "
                                "under load" if os.getloadavg()[0] > NCPU else "",))]


def main():
    lines = machine()
    for l in lines:
        print(l, flush=True)
    progress("work folder %s; N=%d, %d runs each" % (W, N, REPS))
    # 3 runs last: it writes GBs, and the write-back would slow the decoding of 5.
    best = None
    try:
        targets.measure(CT, GEN, CTL, OTHER, W, N, REPS, progress)
        if os.environ.get("BENCH_ONLY") == "targets":
            raise StopIteration
        section(1)
        base = section1()
        section(2)
        section2()
        section(4)
        big, _ = section4(base)
        section(5)
        section5([("sect. 4 control trace", big), ("sect. 1 mix trace", path("mix.ctrace"))])
        rm(big, path("mix.ctrace"))
        section(3)
        best = section3()
    except StopIteration:
        pass
    finally:
        shutil.rmtree(W, ignore_errors=True)
    end = os.getloadavg()
    os.makedirs(os.path.join(ROOT, "build", "bench"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "bench", "results.txt"), "w") as f:
        for out in (sys.stdout, f):
            report(out, lines, best, end)


def report(out, lines, best, end):
    def p(*a):
        print(*a, file=out)
    if out is not sys.stdout:   # stdout had these at the start
        for l in lines:
            p(l)
    p()
    if SECTIONS:
        print_table(out)
        p()
    targets.table(out, BIG)
    p()
    if best:
        p("highest paced rate captured with 0 lost (one process, 64 MiB ring, %g s): "
          "%s calls/s" % (RATE_SECS, fmt_int(best)))
    if not SECTIONS:
        p("bench took %.0f s (table also in build/bench/results.txt)" % (time.time() - T_START))
        return
    p("ns/call: wall clock of the generator's loop / calls; cpu ns/call: the generator's own "
      "CPU time (BPF work is charged to it) / calls; x untraced: of each")
    p("max RSS: peak RSS of the largest process in the tracer's tree (the generator alone "
      "is ~1.5 MB); untraced/LD_PRELOAD: the generator's own")
    p("tracer CPU: CPU seconds of the tracer's process tree less the generator's loop, per "
      "run (start-up included: BPF load, bpftrace's compile); decode: cudatrace -r's")
    p("load:    %.2f %.2f %.2f at end%s" % (end + ("  -- BUSY" if end[0] > NCPU else "",)))
    p("bench took %.0f s (table also in build/bench/results.txt)" % (time.time() - T_START))

if __name__ == "__main__":
    main()
