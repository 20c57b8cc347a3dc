# SPDX-License-Identifier: MIT
"""Makes ioctls on a stand-in device from known Python lines, for
tests/live/python.py.  Each call site is marked `# CALL <cmd> <qualname>`:
the test reads the marks from this file and expects every ioctl with that
request to be charged to that line and function.  Usage: callsites.py DEVICE
[--delete-self]."""
import asyncio
import ctypes
import fcntl
import os
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]


def poke(fd, cmd):
    """With the GIL held (fcntl.ioctl keeps it)."""
    try:
        fcntl.ioctl(fd, cmd, 0)   # CALL-SITE poke
    except OSError:
        pass


def plain(fd):
    libc.ioctl(fd, 0x101, None)  # CALL 0x101 plain


class Model:
    def forward(self, fd):
        libc.ioctl(fd, 0x102, None)  # CALL 0x102 Model.forward

    class Inner:
        def step(self, fd):
            libc.ioctl(fd, 0x103, None)  # CALL 0x103 Model.Inner.step


def recurse(fd, depth):
    if depth == 0:
        libc.ioctl(fd, 0x104, None)  # CALL 0x104 recurse
        return
    recurse(fd, depth - 1)


def gen(fd):
    for _ in range(2):
        libc.ioctl(fd, 0x105, None)  # CALL 0x105 gen
        yield


async def coro(fd):
    await asyncio.sleep(0)
    libc.ioctl(fd, 0x106, None)  # CALL 0x106 coro


def in_thread(fd):
    libc.ioctl(fd, 0x107, None)  # CALL 0x107 in_thread


def held(fd):
    fcntl.ioctl(fd, 0x108, 0) if False else None
    try:
        fcntl.ioctl(fd, 0x108, 0)  # CALL 0x108 held
    except OSError:
        pass


def main():
    fd = os.open(sys.argv[1], os.O_RDONLY)
    if "--delete-self" in sys.argv:
        os.unlink(os.path.abspath(__file__))
    plain(fd)
    Model().forward(fd)
    Model.Inner().step(fd)
    recurse(fd, 40)
    recurse(fd, 200)
    for _ in gen(fd):
        pass
    asyncio.run(coro(fd))
    threads = [threading.Thread(target=in_thread, args=(fd,)) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    held(fd)
    libc.ioctl(fd, 0x109, None)  # CALL 0x109 main
    os.close(fd)


if __name__ == "__main__":
    main()
