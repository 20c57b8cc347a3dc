# SPDX-License-Identifier: MIT
"""Calls ioctl on DEVICE from a stack DEPTH functions deep (DEPTH recursive
calls of one function), as fast as it can, until the file STOP exists:
for tests that stop the capture in the middle of a loop (a ring that
fills), whatever the machine's speed.
Usage: loop_until.py DEVICE DEPTH STOP"""
import ctypes
import os
import sys

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def loop(fd, stop, d):
    if d:
        return loop(fd, stop, d - 1)
    n = 0
    while True:
        for _ in range(1000):
            libc.ioctl(fd, 0x4d2, None)
        n += 1000
        if os.path.exists(stop):
            return n


def main():
    fd = os.open(sys.argv[1], os.O_RDONLY)
    print("loop_until calls %d" % loop(fd, sys.argv[3], int(sys.argv[2])))


main()
