# SPDX-License-Identifier: MIT
"""A Python program already running when the capture attaches (-p): a
thread started before the attach and the main thread each call the driver
every 20 ms until stdin closes (tests/live/python.py).  Usage: running.py DEVICE"""
import ctypes
import os
import sys
import threading
import time

libc = ctypes.CDLL(None)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
fd = os.open(sys.argv[1], os.O_RDONLY)
done = threading.Event()


def in_thread():
    while not done.is_set():
        libc.ioctl(fd, 0x601, None)
        time.sleep(0.02)


def main_loop():
    while not done.is_set():
        libc.ioctl(fd, 0x602, None)
        time.sleep(0.02)


threading.Thread(target=in_thread).start()
threading.Thread(target=lambda: (sys.stdin.read(), done.set())).start()
main_loop()
