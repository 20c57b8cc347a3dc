# SPDX-License-Identifier: MIT
"""N driver calls from a Python stack DEPTH frames deep, for the cost of
Python frames per call (bench/py_costs.py).  Stand-in: libc's ioctl on
DEVICE through ctypes (the GIL released, as PyTorch does); --torch:
torch.cuda.mem_get_info (cudaMemGetInfo, one ioctl).  Prints:
pyloop calls N depth D ns_per_call X
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
    t0 = time.perf_counter_ns()
    gap = 10**9 // rate if rate else 0
    for i in range(n):
        while gap and time.perf_counter_ns() - t0 < i * gap:
            pass
        call()
    return (time.perf_counter_ns() - t0) / n


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


call = make_call(sys.argv[1])
n, arg = int(sys.argv[2]), sys.argv[3]
depth = int(arg.rstrip("d"))
run_at = distinct_chain(depth) if arg.endswith("d") else at_depth
rate = int(sys.argv[4]) if len(sys.argv) > 4 else 0
run_at(depth, call, min(n, 2000))        # warm up
print("pyloop calls %d depth %s ns_per_call %.1f" % (n, arg, run_at(depth, call, n, rate)))
