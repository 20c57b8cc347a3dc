#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatrace -r on hostile Python frame records (PYFRAMES, PYSTACK): sizes
that lie, string offsets outside their table, a table without its NUL, odd
but legal records (no frames, 256 unnamed frames, unknown marks, negative
lines, names full of control bytes and invalid UTF-8), and random damage to
the real PyTorch trace's Python frame records.  Same rules as hostile.py:
exit 0, or exit 1 with one 'cudatrace: ...' line; no signal, sanitizer
report or hang; names are escaped in text and valid JSON strings."""
import json
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile as H  # noqa: E402
from hostile import Cases, pad8, rec  # noqa: E402

SEED = H.SEED
TRACE = os.path.join(H.ROOT, "traces", "h100-torch_matmul-py.ctrace")
PYSTACK, PYFRAMES = 16, 17
NOSTR = 0xffffffff
TS = 36672163713


def pyframes(frames_=(), strings=b"", nframes=None, strings_size=None, flags=0, minor=12):
    body = struct.pack("<IIII", len(frames_) if nframes is None else nframes, flags,
                       len(strings) if strings_size is None else strings_size, minor)
    for f in frames_:
        body += struct.pack("<QIIiI", *f)
    return pad8(rec(PYFRAMES, body + strings, ts=TS))


def pystack(nframes, flags=0, seq=0, kept=0):
    """A raw stack's header (bpf/cudatrace.h, struct ct_pystack, after ct_rec)."""
    return struct.pack("<QIIII", 0, nframes, flags, seq, kept)


def pyframe(file=NOSTR, qual=NOSTR, line=-1, marks=0, code=0x7f0000001000):
    return (code, file, qual, line, marks)


def main():
    tap = H.Tap()
    if not shutil.which("zstd"):
        tap.skip("hostile Python frame records", "no zstd tool (the trace is compressed)")
        tap.done()
    tmp = H.scratch_dir("ct-hostile-py-")
    body(tap, Cases(tap, tmp))
    tap.done()


def lies(head):
    ok_str = b"model.py\0Net.forward\0"
    return [
        ("pyframes: nframes past the end", head + pyframes([pyframe()], nframes=3),
         r"python frames record sizes do not add up"),
        ("pyframes: nframes 0xffffffff", head + pyframes(nframes=0xffffffff),
         r"python frames record sizes"),
        ("pyframes: 257 frames", head + pyframes([pyframe()] * 257), r"python frames record sizes"),
        ("pyframes: strings_size 0xffffffff", head + pyframes(strings=b"a\0",
                                                              strings_size=0xffffffff),
         r"python frames record sizes"),
        ("pyframes: table without its NUL", head + pyframes([pyframe(file=0, qual=0)],
                                                            b"abcdefgh"),
         r"does not end with NUL"),
        ("pyframes: file offset at the table's end",
         head + pyframes([pyframe(file=len(ok_str), qual=0)], ok_str),
         r"names a string outside its table"),
        ("pyframes: qualname offset 0x7fffffff",
         head + pyframes([pyframe(file=0, qual=0x7fffffff)], ok_str),
         r"names a string outside its table"),
        ("pyframes: shorter than its header", head + pad8(rec(PYFRAMES, b"\0" * 8)),
         r"python frames record sizes"),
        ("pystack: frames past the end", head + pad8(rec(PYSTACK, pystack(4) + b"\0" * 32)),
         r"python stack record sizes"),
        ("pystack: more frames left out than it has", head + pad8(rec(PYSTACK, pystack(
            1, seq=2, kept=2))), r"python stack record sizes"),
        ("pystack: frames left out of a record without a number", head + pad8(rec(
            PYSTACK, pystack(3, kept=2) + b"\0" * 32)), r"python stack record sizes"),
    ]


def body(tap, cases):
    full = H.raw_trace(TRACE)
    recs = H.records(full)
    meta = full[recs[0][0]:recs[0][0] + recs[0][1]]
    head = H.PRE + meta
    trailer = full[recs[-1][0]:]

    cases.group("Python frame records that claim impossible sizes or strings outside their "
                "table: exit 1, the records before decoded",
                [(label, data, 1, want + r".*; decoded the \d+ records before it$")
                 for label, data, want in lies(head)])

    evil = b"ev\nil\x1b[31m\x9b2J\xff\xd0\0/tmp/a\nb\x1b]0;x\x07.py\0"
    odd = [
        ("no frames at all", head + pyframes()),
        ("256 frames, all unnamed", head + pyframes([pyframe(marks=2)] * 256)),
        ("unknown marks and flags", head + pyframes([pyframe(marks=0xffffffff)],
                                                    flags=0xffffffff)),
        ("a line of -2147483648", head + pyframes([pyframe(file=0, qual=0, line=-2**31)],
                                                  b"m.py\0")),
        ("control bytes and invalid UTF-8 in names",
         head + pyframes([pyframe(file=13, qual=0, line=7)], evil)),
        ("a raw Python stack in a file (never written; ignored)",
         head + pad8(rec(PYSTACK, pystack(1) + b"\0" * 32))),
        ("a raw Python stack that leaves 2 of 3 frames out (never written; ignored)",
         head + pad8(rec(PYSTACK, pystack(3, seq=5, kept=2) + b"\0" * 32))),
    ]
    cases.group("odd but legal Python frame records decode (exit 1: no trailer, nothing else)",
                [(label, data, 1, r"no trailer") for label, data in odd])

    # A call with evil names: escaped in text, valid JSON, in every view.
    call = struct.pack("<Q16siIQIIQqQIIIIII", TS, b"x", 3, 0x800001, 77, 0xc0104629,
                       16, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    path = cases.file(head + pad8(rec(2, call)) +
                      pyframes([pyframe(file=13, qual=0, line=7, marks=1)], evil) +
                      pad8(rec(3, call)) + trailer, "evil-py.ctrace")
    bad = []
    for extra in ([], ["--json"], ["-c", "--summary-by=py"], ["-e", "py=*"]):
        args, pre = H.command(H.BIN, "-r", path, *extra)
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=H.TIMEOUT, preexec_fn=pre, env=H.ENV)
        v = H.verdict(p.returncode, p.stderr.decode("utf-8", "replace"), want_rc=0)
        if v:
            bad.append("%s: %s" % (extra, v))
        elif "--json" in extra:
            try:
                for line in p.stdout.splitlines():
                    json.loads(line.decode("utf-8"))
            except ValueError as e:
                bad.append("--json: not valid JSON/UTF-8: %s" % e)
        elif any(c in p.stdout for c in (b"\x1b", b"\x9b", b"\x07", b"\xff")) or any(
                line.startswith((b"il", b"b")) for line in p.stdout.split(b"\n")):
            bad.append("%s: raw control bytes or a forged line: %r" % (extra, p.stdout[:400]))
    tap.ok(not bad, "control bytes and invalid UTF-8 in Python names: escaped in text, "
           "valid JSON, in the summary and the filter", "\n".join(bad))

    # Random damage to the real trace's Python frame records.
    flips = H.record_flips(full, recs, (PYFRAMES,), 400, 120)
    cases.group("400 single-byte flips in the real PyTorch trace's Python frame records "
                "(seed %d)" % SEED, flips)


if __name__ == "__main__":
    main()
