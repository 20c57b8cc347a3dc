# SPDX-License-Identifier: MIT
"""Code objects freed and their memory reused: each round compiles a new
function f_<i> from source, calls it (an ioctl with request 0x1000 + i) and
drops it.  tests/live/python.py checks that no ioctl is ever charged to
another round's function: a name is right or it is "?".  Usage:
codechurn.py DEVICE ROUNDS"""
import ctypes
import gc
import os
import sys

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]

fd = os.open(sys.argv[1], os.O_RDONLY)
for i in range(int(sys.argv[2])):
    src = "def f_%d(fd, ioctl):\n    ioctl(fd, %d, None)\n" % (i, 0x1000 + i)
    ns = {}
    exec(compile(src, "<gen %d>" % (i % 7), "exec"), ns)
    ns["f_%d" % i](fd, libc.ioctl)
    del ns
    gc.collect()
os.close(fd)
