# SPDX-License-Identifier: MIT
"""Calls from random depths, in two threads at once.  Thread T's call at
depth D (D frames of down() above run()) through leaf L (0: down() makes
the call; 1: tip() does, called by down()) asks request 0x3000 | T << 9 |
L << 8 | D.  A call keeps the thread's last depth half the time, so
consecutive stacks share all their frames, all but the innermost one or
two, or only some outer ones: the kernel leaves out of a record the frames
the thread's last record had (bpf/pysent.bpf.h), and tests/live/python.py
checks that every call's stack comes back whole, frame for frame.
Usage: depths.py DEVICE CALLS SEED"""
import ctypes
import os
import random
import sys
import threading
import time

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
MAX_DEPTH = 40


def tip(fd, req):
    libc.ioctl(fd, req, None)


def down(fd, req, d, leaf):
    if d:
        down(fd, req, d - 1, leaf)
    elif leaf:
        tip(fd, req)
    else:
        libc.ioctl(fd, req, None)


def run(fd, n, seed, t):
    rng = random.Random(seed + t)
    d = 0
    for _ in range(n):
        if rng.randrange(2):
            d = rng.randrange(MAX_DEPTH + 1)
        leaf = rng.randrange(2)
        down(fd, 0x3000 | t << 9 | leaf << 8 | d, d, leaf)


fd = os.open(sys.argv[1], os.O_RDONLY)
n, seed = int(sys.argv[2]), int(sys.argv[3])
other = threading.Thread(target=run, args=(fd, n, seed, 1))
other.start()
run(fd, n, seed, 0)
other.join()
os.close(fd)
time.sleep(0.2)   # alive while the capture reads the last code objects
