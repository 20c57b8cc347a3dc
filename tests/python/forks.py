# SPDX-License-Identifier: MIT
"""Driver calls from child processes: os.fork, and multiprocessing's fork,
spawn and forkserver starts (tests/live/python.py).  Each call's request
says which function makes it; each of these children lives on a moment
after its call (a child that exits at once can be gone before the capture
reads its code objects: docs/RELIABILITY.md).  Then five forked children
that exit at once, calling a function their parent called before.
Usage: forks.py DEVICE"""
import ctypes
import multiprocessing as mp
import os
import sys
import time

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def in_parent():
    fd = os.open(sys.argv[1], os.O_RDONLY)
    libc.ioctl(fd, 0x501, None)


def in_forked_child():
    fd = os.open(sys.argv[1], os.O_RDONLY)
    libc.ioctl(fd, 0x502, None)
    time.sleep(0.2)


def shared(request):
    fd = os.open(sys.argv[1], os.O_RDONLY)
    libc.ioctl(fd, request, None)


def in_worker(request):
    fd = os.open(sys.argv[1], os.O_RDONLY)
    libc.ioctl(fd, request, None)
    time.sleep(0.2)


if __name__ == "__main__":
    in_parent()
    pid = os.fork()
    if pid == 0:
        in_forked_child()
        os._exit(0)
    os.waitpid(pid, 0)
    for request, start in ((0x503, "fork"), (0x504, "spawn"), (0x505, "forkserver")):
        p = mp.get_context(start).Process(target=in_worker, args=(request,))
        p.start()
        p.join()
    # Children that exit at once: their code objects are their parent's,
    # read by the capture before the fork (capture/python/pycode.h, inherit); one
    # read after a fork is not inherited (its number may be the child's).
    shared(0x506)
    time.sleep(0.2)    # the capture reads shared's code object (before any fork)
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            shared(0x507)
            os._exit(0)
        os.waitpid(pid, 0)
