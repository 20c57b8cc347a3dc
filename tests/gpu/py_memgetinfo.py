# SPDX-License-Identifier: MIT
"""torch.cuda.mem_get_info (cudaMemGetInfo: one driver ioctl) N times, from
a Python stack DEPTH frames deep.  Prints: py_memgetinfo depth D calls N
ns_per_call X.  For the cost of Python frames per traced call."""
import sys
import time

import torch


def loop(n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        torch.cuda.mem_get_info()
    return (time.perf_counter_ns() - t0) / n


def at_depth(d, n):
    return at_depth(d - 1, n) if d > 0 else loop(n)


n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
depth = int(sys.argv[2]) if len(sys.argv) > 2 else 0
torch.cuda.mem_get_info()
at_depth(depth, 2000)             # warm up
print("py_memgetinfo depth %d calls %d ns_per_call %.1f" % (depth, n, at_depth(depth, n)))
