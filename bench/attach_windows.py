# SPDX-License-Identifier: MIT
"""What tracers add to a call, read inside one process: a block program
(bench/blocks.h: syscall_blocks, getppid, which cudatrace does not trace;
tests/gpu/memgetinfo_blocks, cudaMemGetInfo, which it does) runs short
blocks on one CPU while each tracer in turn is attached for a window and
detached again, several times over.  Blocks wholly inside a tracer's
windows are its; blocks wholly inside the gaps are untraced.  Separate runs
of a loop differ by more than an empty BPF program costs (±20 ns against
~20 ns on the GPU machine), and cudaMemGetInfo's latency is bimodal on the
H100 (~4.5 and ~6.5 us, in stretches); blocks of one process, compared at
their 10th and 25th percentiles, which stay in the fast mode, do not.

Used by bench/targets.py (make bench) and, on the GPU machine, by
tests/gpu/device-perf.sh (the tax, against empty programs) and
device-attach.sh (cudaMemGetInfo):
  attach_windows.py --blocks B [--block N] [--floor F --floor-obj O] \\
                    --ct NAME=PATH... [--ctargs "--device FILE"] [--windows N] \\
                    [--window SECONDS] [--pin "taskset -c 2"]
"""
import argparse
import os
import subprocess
import sys
import threading
import time

MARGIN_NS = 50_000_000   # blocks this close to an attach or detach count for neither


def _wait_word(p, err_path, word, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        with open(err_path) as f:
            if word in f.read():
                return True
        if p.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def _pct(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


def measure(blocks, configs, windows=8, window_s=0.5, block=5000, pin=(), tmp="/tmp"):
    """configs: [(name, argv, word)], argv may hold "{pid}" (the block
    process).  Returns {name: [ns per call of its blocks]} with "bare" for
    the gaps, or raises RuntimeError when a tracer does not start."""
    total = windows * len(configs) * (window_s * 2 + 0.5) + 10
    gen = subprocess.Popen(list(pin) + [blocks, str(total), str(block)],
                           stdout=subprocess.PIPE, text=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(gen.stdout), daemon=True)
    reader.start()
    spans = []   # (name, on, off): traced; gaps are what no span covers
    err_path = os.path.join(tmp, "ct-attach-windows.err")
    try:
        time.sleep(window_s)
        for _ in range(windows):
            for name, argv, word in configs:
                argv = [a.replace("{pid}", str(gen.pid)) for a in argv]
                with open(err_path, "w") as err:
                    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err,
                                         stdin=subprocess.DEVNULL)
                if not _wait_word(p, err_path, word):
                    p.kill()
                    raise RuntimeError("%s did not start: %s" % (argv[0], open(err_path).read()))
                on = time.monotonic_ns()
                time.sleep(window_s)
                off = time.monotonic_ns()
                p.send_signal(2)
                p.wait()
                spans.append((name, on, off, time.monotonic_ns()))
                time.sleep(window_s)
    finally:
        gen.kill()
        gen.wait()
        reader.join(timeout=5)
    return _assign(lines, spans)


def _assign(lines, spans):
    blocks = []
    for ln in lines:
        f = ln.split()
        if len(f) == 4 and f[0] == "block":
            blocks.append((int(f[1]), float(f[3])))
    res = {"bare": []}
    if len(blocks) < 2:
        return res
    width = sorted(b[0] - a[0] for a, b in zip(blocks, blocks[1:]))[len(blocks) // 2]
    busy = [(on - MARGIN_NS, det + MARGIN_NS) for _, on, _, det in spans]
    for end, ns in blocks:
        start = end - width
        span = next((s for s in spans if start >= s[1] and end <= s[2]), None)
        if span:
            res.setdefault(span[0], []).append(ns)
        elif busy and start > busy[0][0] and end < busy[-1][1] and \
                not any(start < hi and end > lo for lo, hi in busy):
            res["bare"].append(ns)
    return res


def summary(res, floor="floor"):
    """{name: (p10, p25, median, blocks)} and the lines that say it: each
    beside the untraced blocks, and as a multiple of the floor's addition
    where there is a floor."""
    out, lines = {}, []
    for name, v in res.items():
        if v:
            out[name] = (_pct(v, .1), _pct(v, .25), _pct(v, .5), len(v))
    if "bare" not in out:
        return out, ["windows: too few untraced blocks to compare"]
    bare = out["bare"]
    added = out[floor][1] - bare[1] if floor in out else 0
    for name, (p10, p25, p50, n) in sorted(out.items(), key=lambda kv: kv[1][1]):
        ratio = "" if name == "bare" or added <= 0 else "  = %.2fx the floor" % ((p25 - bare[1]) / added)
        lines.append("windows %-22s p10 %+8.1f  p25 %8.1f ns/call (%+7.1f)  median %8.1f  "
                     "%4d blocks%s" % (name, p10 - bare[0], p25, p25 - bare[1], p50, n, ratio))
    return out, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--blocks", required=True, help="a block program (bench/blocks.h)")
    ap.add_argument("--block", type=int, default=5000, help="calls per block")
    ap.add_argument("--floor", help="bench/floor: empty programs beside the tracers")
    ap.add_argument("--floor-obj")
    ap.add_argument("--ct", action="append", default=[], help="NAME=PATH of a cudatrace build")
    ap.add_argument("--ctargs", default="")
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--window", type=float, default=0.5, help="seconds attached, and between")
    ap.add_argument("--pin", default="")
    ap.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    out = os.path.join(a.tmp, "ct-attach-windows.ctrace")
    configs = []
    if a.floor:
        configs += [("floor", [a.floor, a.floor_obj, "floor_enter"], "attached"),
                    ("floor2", [a.floor, a.floor_obj, "floor_enter", "floor_exit"], "attached")]
    for spec in a.ct:
        name, path = spec.split("=", 1)
        base = [path] + a.ctargs.split() + ["-w", out]
        configs.append((name + " system-wide", base, "tracing"))
        configs.append((name + " -p", base + ["-p", "{pid}"], "tracing"))
    if a.floor:   # after cudatrace, which mounts tracefs where it is missing
        configs.append(("floor+exit tp",
                        [a.floor, a.floor_obj, "floor_enter", "floor_exit_ioctl"], "attached"))
    res = measure(a.blocks, configs, a.windows, a.window, a.block, a.pin.split(), a.tmp)
    for line in summary(res)[1]:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
