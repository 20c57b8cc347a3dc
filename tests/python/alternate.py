# SPDX-License-Identifier: MIT
"""Calls from three functions at one depth, and from one a frame deeper,
in an order drawn from SEED: the frames at each depth change from call to
call while the outer ones stay.  Request 0x2000 + k comes from f_k (f_3:
f_0 called through hop).  tests/live/python.py checks each call's
function; the checks the kernel keeps from the thread's last record (by
depth, bpf/pysent.bpf.h) must never hand one function's check to another.  Usage:
alternate.py DEVICE CALLS SEED"""
import ctypes
import os
import random
import sys
import time

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def f_0(fd, req):
    libc.ioctl(fd, req, None)


def f_1(fd, req):
    libc.ioctl(fd, req, None)


def f_2(fd, req):
    libc.ioctl(fd, req, None)


def hop(fd, req):
    f_0(fd, req)


def run(fd, n, seed):
    rng = random.Random(seed)
    order = [rng.randrange(4) for _ in range(n)]
    calls = (f_0, f_1, f_2, hop)
    for k in order:
        calls[k](fd, 0x2000 + k)
    return order


fd = os.open(sys.argv[1], os.O_RDONLY)
run(fd, int(sys.argv[2]), int(sys.argv[3]))
os.close(fd)
# Alive a little after the calls, as a program is: the capture reads new
# code objects while their process lives, and a loaded machine may have it
# a few ms behind 600 calls that take 10 ms (this test is of the checks the
# kernel keeps; programs that exit at once are tests/live/python.py's churn and
# fork tests').
time.sleep(0.2)
