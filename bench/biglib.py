#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the assembly of a made-up shared library with many symbols, for
the symbol index's benchmark (bench/symindex.sh): C++-like names, 60%
global functions, 30% local ones, 10% labels, in shuffled table order (a
linker's table jumps about in address: the index's worst case).
    biglib.py N SEED > big.s"""
import random
import sys

WORDS = ["tensorflow", "xla", "gpu", "Buffer", "Allocator", "Compute", "Shape", "Layout",
         "Hlo", "Instruction", "Visitor", "mlir", "Operation", "Builder", "llvm", "Value",
         "Type", "Pass", "Rewrite", "Pattern"]


def main():
    n, seed = int(sys.argv[1]), int(sys.argv[2])
    rnd = random.Random(seed)
    order = list(range(n))
    rnd.shuffle(order)
    out = [".text"]
    for i in order:
        name = "_ZN" + "".join("%d%s" % (len(w), w) for w in rnd.sample(WORDS, 4)) + "E%dv" % i
        kind = i % 10
        if kind < 9:
            size = 16 + (i * 7) % 64 if kind < 6 else 16 + (i * 5) % 48
            out.append("%s.type %s,@function\n%s:\n.fill %d,1,0x90\n.size %s,.-%s"
                       % (".globl %s\n" % name if kind < 6 else "", name, name, size, name, name))
        else:
            out.append("%s:\n.fill 8,1,0x90" % name)
    out.append('.section .note.GNU-stack,"",@progbits')
    sys.stdout.write("\n".join(out) + "\n")


main()
