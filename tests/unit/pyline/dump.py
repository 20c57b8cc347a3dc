# SPDX-License-Identifier: MIT
"""Dump real CPython line tables as fixtures for tests/unit/test_pyline.c.

Run with the interpreter whose tables are wanted (3.10 .. 3.14):

    python3.X tests/unit/pyline/dump.py > tests/unit/pyline/cpython-3.X.tsv

It compiles SAMPLE below (never runs it) and writes one row per code
object, nested ones included:

    name  firstlineno  co_linetable (hex)  lines

lines: the source line of each code unit of the bytecode, in order
(byte offset = index * 2), "-" where the interpreter says none, as the
interpreter itself reports it: co_lines() on 3.10, co_positions() on 3.11+
(which must agree with co_lines(): the script stops if not).
"""
import sys

# Constructs whose tables differ: loops (lines go back), multi-line
# expressions, a call of 200 arguments on one line (3.10: a start delta
# over 254; 3.11+: a run of more than 8 code units), a gap of 300 lines
# (line deltas past a signed byte; 3.11+ long and no-column forms),
# try/except, with, a generator, a coroutine, a lambda, comprehensions,
# decorators, columns past 127, and code with no line (implicit returns,
# exception handlers).
ARGS = ", ".join("a%d" % i for i in range(200))
SAMPLE = '''\
import os


def plain(x):
    y = x + 1
    return y * 2


class Net:
    def forward(self, x):
        for i in range(3):
            x = (x +
                 i)
        while x > 10:
            x -= 1
        return x

    @staticmethod
    def deco(a,
             b):
        return [v * 2 for v in (a, b) if v]


def gen(n):
    for i in range(n):
        yield i
    yield from range(2)


async def coro(aw):
    try:
        await aw
    except ValueError as e:
        return str(e)
    finally:
        pass


def wide(f, %(args)s):
    return f(%(args)s)


def withs(path):
    with open(path) as fh:
        data = fh.read()
    lam = lambda q: (q,
                     q * 2)
    return {k: lam(k) for k in data}
%(gap)s

def far(x):
    if x:
        return plain(x)
    z = %(pad)splain(x)
    return z
''' % {"args": ARGS, "gap": "\n" * 300, "pad": "x + " * 40}


def lines_of(co, units):
    """The line of each code unit: co_positions() on 3.11+, else co_lines()."""
    by_lines = ["-"] * units
    for start, end, line in co.co_lines():
        for i in range(start // 2, min(end // 2, units)):
            by_lines[i] = "-" if line is None else str(line)
    if sys.version_info < (3, 11):
        return by_lines
    by_pos = ["-" if p[0] is None else str(p[0]) for p in co.co_positions()]
    if len(by_pos) != units or by_pos != by_lines:
        sys.exit("dump.py: %s: co_positions() and co_lines() disagree" % co.co_qualname)
    return by_pos


def walk(co, out):
    units = len(co.co_code) // 2
    name = getattr(co, "co_qualname", co.co_name)
    out.append("\t".join([name, str(co.co_firstlineno), co.co_linetable.hex(),
                          ",".join(lines_of(co, units))]))
    for c in co.co_consts:
        if hasattr(c, "co_linetable"):
            walk(c, out)


def main():
    rows = []
    walk(compile(SAMPLE, "sample.py", "exec"), rows)
    print("#Dumped by tests/unit/pyline/dump.py from CPython %s (%s)" %
          (sys.version.split()[0], sys.executable))
    print("#minor %d" % sys.version_info[1])
    print("#name\tfirstlineno\tco_linetable\tline of each code unit (- none)")
    for r in rows:
        print(r)


main()
