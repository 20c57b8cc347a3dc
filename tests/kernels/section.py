#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""section.py ELF NAME OUT: writes the bytes of section NAME of a 64-bit
little-endian ELF (a cubin: binutils do not read EM_CUDA) to OUT."""
import struct
import sys

elf, name, out = sys.argv[1], sys.argv[2].encode(), sys.argv[3]
b = open(elf, "rb").read()
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
strtab = sh[shstrndx]
for s in sh:
    start = strtab[4] + s[0]
    if b[start:b.index(b"\0", start)] == name:
        open(out, "wb").write(b[s[4]:s[4] + s[5]])
        sys.exit(0)
sys.exit("section.py: %s has no section %s" % (elf, name.decode()))
