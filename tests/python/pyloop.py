# SPDX-License-Identifier: MIT
"""N driver calls from a Python stack DEPTH frames deep, for the cost of
Python frames per call (bench/py_costs.py).  Stand-in: libc's ioctl on
DEVICE through ctypes (the GIL released, as PyTorch does); --torch:
torch.cuda.mem_get_info (cudaMemGetInfo, one ioctl).  Prints:
pyloop calls N depth D ns_per_call X call_ns Y
(Y: the calls alone, without the loop and the pacing's waits.)
PYLOOP_TRACER_PID=PID adds bpf_ns Z: the BPF time of PID's programs
(run_time_ns, with kernel.bpf_stats_enabled) per call of the timed loop.
RATE (calls per second, optional): paced, for the loss check.
DEPTH: N frames of one recursive function, or Nd: N functions of their own.
Usage: pyloop.py (DEVICE | --torch) N DEPTH [RATE]"""
import os
import sys
import time


def make_call(target):
    if target == "--torch":
        import torch
        torch.cuda.mem_get_info()
        return torch.cuda.mem_get_info
    import ctypes
    libc = ctypes.CDLL(None)
    libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
    fd = os.open(target, os.O_RDONLY)
    return lambda: libc.ioctl(fd, 0x4d2, None)


def loop(call, n, rate=0):
    """The loop's ns per call, and the calls' own (what pacing does not
    dilute: clock reads around each call, the same in every mode)."""
    clock = time.perf_counter_ns
    t0 = clock()
    gap = 10**9 // rate if rate else 0
    inside = 0
    for i in range(n):
        while gap and clock() - t0 < i * gap:
            pass
        t = clock()
        call()
        inside += clock() - t
    return (clock() - t0) / n, inside / n


def at_depth(d, call, n, rate=0):
    return at_depth(d - 1, call, n, rate) if d > 0 else loop(call, n, rate)


def distinct_chain(d):
    """d + 1 functions of their own, f0 calling f1 ... calling loop: as
    deep as at_depth(d), but, as in a real program, no code object twice."""
    src = "".join("def f%d(call, n, rate):\n    return f%d(call, n, rate)\n" % (i, i + 1)
                  for i in range(d))
    src += "def f%d(call, n, rate):\n    return loop(call, n, rate)\n" % d
    scope = {"loop": loop}
    exec(compile(src, "<chain>", "exec"), scope)
    return lambda _d, call, n, rate=0: scope["f0"](call, n, rate)


def bpf_ns(pid):
    """The BPF programs' time so far (run_time_ns, kernel.bpf_stats_enabled)
    summed over the programs whose fds process pid holds (the tracer's)."""
    total = 0
    for fd in os.listdir("/proc/%d/fdinfo" % pid):
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                info = f.read()
        except OSError:
            continue
        for line in info.splitlines():
            if line.startswith("run_time_ns:"):
                total += int(line.split()[1])
    return total


call = make_call(sys.argv[1])
n, arg = int(sys.argv[2]), sys.argv[3]
depth = int(arg.rstrip("d"))
run_at = distinct_chain(depth) if arg.endswith("d") else at_depth
rate = int(sys.argv[4]) if len(sys.argv) > 4 else 0
run_at(depth, call, min(n, 2000), rate)  # warm up, paced as the loop
# -k builds its unwind tables from the first stacks it copies: a pause
# here keeps that one-time work out of the timed calls.
time.sleep(float(os.environ.get("PYLOOP_WARM_PAUSE", "0")))
tracer = int(os.environ.get("PYLOOP_TRACER_PID", "0"))
bpf0 = bpf_ns(tracer) if tracer else 0
loop_ns, call_ns = run_at(depth, call, n, rate)
bpf = " bpf_ns %.1f" % ((bpf_ns(tracer) - bpf0) / n) if tracer else ""
print("pyloop calls %d depth %s ns_per_call %.1f call_ns %.1f%s" % (n, arg, loop_ns, call_ns, bpf))
