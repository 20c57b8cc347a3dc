#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatrace -r on hostile -k records: frames, mapping, stack and code-map
records that lie about their sizes or string offsets, random damage to the
real -k trace's frames and mapping records, and names full of control
bytes.  Same rules as hostile.py (whose helpers it uses): exit 0, or exit 1
with one 'cudatrace: ...' line; no signal, sanitizer report or hang."""
import os
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile as H  # noqa: E402
from hostile import Cases, pad8, rec  # noqa: E402

SEED = H.SEED
TRACE = os.path.join(H.ROOT, "traces", "h100-torch_matmul-k.ctrace")
FRAMES, MAPPING, STACK, CODE_MAP, KSTACK, KSTACK_GAP = 15, 14, 12, 13, 24, 25
NOSTR = 0xffffffff


def frames(nframes=None, frames_=(), strings=b"", status=0, strings_size=None, ts=36672163713):
    body = struct.pack("<IIII", len(frames_) if nframes is None else nframes, status, 4096,
                       len(strings) if strings_size is None else strings_size)
    for f in frames_:
        body += struct.pack("<QQQQIIII", *f)
    return pad8(rec(FRAMES, body + strings, ts=ts))


def frame(pc=0x7f0000001000, module=NOSTR, sym=NOSTR, exp=NOSTR, src=NOSTR):
    return (pc, 0x1000, 0x10, 0x10, module, sym, exp, src)


def kstack(nframes, gap_at, pcs=None):
    """A kernel walk (ring buffer only; never in a file but for a hostile one)."""
    pcs = range(nframes) if pcs is None else pcs
    return pad8(rec(KSTACK, struct.pack("<IIIIII", nframes, 0, 0, 0, 4096, gap_at) +
                    b"".join(struct.pack("<Q", 0x7f0000001000 + p) for p in pcs)))


def kstack_gap(at, sp, end_sp, nbytes):
    """The stack between a frame the kernel could not step and the one it met."""
    return pad8(rec(KSTACK_GAP, struct.pack("<IIQQQQQ", at, 1, 0x7f0000001001, sp, 0x7ffd0100,
                                            end_sp, 0x7f0000001002) + b"\x11" * nbytes))


def mapping(path=b"/lib/libcuda.so.1", path_size=None, build_id_size=20):
    body = struct.pack("<QQQQII", 0x7f0000000000, 0x7f0000100000, 0, 0x7f0000000000,
                       len(path) if path_size is None else path_size, build_id_size)
    return pad8(rec(MAPPING, body + b"\xab" * 32 + path))


def main():
    tap = H.Tap()
    if not shutil.which("zstd"):
        tap.skip("hostile -k records", "no zstd tool (the -k trace is compressed)")
        tap.done()
    tmp = H.scratch_dir("ct-hostile-k-")
    body(tap, Cases(tap, tmp))
    tap.done()


def body(tap, cases):
    full = H.raw_trace(TRACE)
    recs = H.records(full)
    meta = full[recs[0][0]:recs[0][0] + recs[0][1]]
    head = H.PRE + meta
    trailer = full[recs[-1][0]:]

    ok_str = b"libcuda.so.1\0cuInit\0"
    lies = [
        ("frames: nframes past the end", head + frames(nframes=3, frames_=[frame()]),
         r"frames record sizes do not add up"),
        ("frames: nframes 0xffffffff", head + frames(nframes=0xffffffff), r"frames record sizes"),
        ("frames: 257 frames", head + frames(frames_=[frame()] * 257), r"frames record sizes"),
        ("frames: strings_size 0xffffffff", head + frames(strings=b"a\0", strings_size=0xffffffff),
         r"frames record sizes"),
        ("frames: string table without its NUL", head + frames(frames_=[frame(module=0)],
                                                             strings=b"abcdefgh"),
         r"does not end with NUL"),
        ("frames: module offset at the table's end",
         head + frames(frames_=[frame(module=len(ok_str))], strings=ok_str),
         r"names a string outside its table"),
        ("frames: sym offset 0x7fffffff", head + frames(frames_=[frame(module=0, sym=0x7fffffff)],
                                                      strings=ok_str),
         r"names a string outside its table"),
        ("frames: src offset with no table", head + frames(frames_=[frame(src=0)]),
         r"names a string outside its table"),
        ("frames: shorter than its header", head + pad8(rec(FRAMES, b"\0" * 8)),
         r"frames record sizes"),
        ("mapping: path_size past the end", head + mapping(path_size=4000), r"mapping record"),
        ("mapping: build_id_size 33", head + mapping(build_id_size=33), r"mapping record"),
        ("mapping: path_size 0xffffffff", head + mapping(path_size=0xffffffff), r"mapping record"),
        ("stack: size past the end", head + pad8(rec(STACK, b"\0" * 136 + struct.pack(
            "<IIQ", 65536, 0, 0) + b"\0" * 64)), r"stack record sizes"),
        ("stack: size over CT_STACK_RECORD_MAX", head + pad8(rec(STACK, b"\0" * 136 +
            struct.pack("<IIQ", 262152, 0, 0) + b"\0" * 262152)), r"stack record sizes"),
        ("code map: path_size past the end", head + pad8(rec(CODE_MAP, struct.pack(
            "<QQQQIIII", 0, 0, 0, 0, 0, 5, 2000, 0) + b"lib\0")), r"code map record"),
        ("kernel walk: nframes past the end", head + kstack(5, 0, pcs=range(3)),
         r"kernel stack walk record sizes"),
        ("kernel walk: a gap with no frame above it", head + kstack(3, 3),
         r"has a gap past its frames"),
        ("kernel walk: gap_at 0xffffffff", head + kstack(3, 0xffffffff),
         r"has a gap past its frames"),
        ("gap: its sps say more bytes than it holds", head + kstack_gap(2, 0x7ffd0000, 0x7ffd1040,
                                                                        64),
         r"gap record sizes do not add up"),
        ("gap: an end below its start", head + kstack_gap(2, 0x7ffd0040, 0x7ffd0000, 64),
         r"gap record sizes do not add up"),
        ("gap: sps that wrap", head + kstack_gap(2, 0xffffffffffffffc0, 0, 64),
         r"gap record sizes do not add up"),
        ("gap: past the most the kernel sends", head + kstack_gap(1, 0x7ffd0000,
                                                                  0x7ffd0000 + 16392, 16392),
         r"gap record sizes do not add up"),
        ("gap: at no frame", head + kstack_gap(0, 0x7ffd0000, 0x7ffd0040, 64),
         r"gap record is at no frame"),
        ("gap: at the frame bound", head + kstack_gap(256, 0x7ffd0000, 0x7ffd0040, 64),
         r"gap record is at no frame"),
        ("gap: shorter than its header", head + pad8(rec(KSTACK_GAP, b"\0" * 40)),
         r"gap record sizes do not add up"),
    ]
    cases.group("-k records that claim impossible sizes or strings outside their table: "
                "exit 1, the records before decoded",
                [(label, data, 1, want + r".*; decoded the \d+ records before it$")
                 for label, data, want in lies])

    # Legal but odd: decoded, exit 1 only for "no trailer" (these have none: partial).
    evil = b"ev\nil\x1b[31m\x9b2J\0/tmp/a\nb\x1b]0;x\x07\0"
    odd = [
        ("no frames at all", head + frames()),
        ("256 frames, every string absent", head + frames(frames_=[frame()] * 256)),
        ("frames for a thread with no call", head + frames(frames_=[frame(module=0, sym=13)],
                                                           strings=ok_str)),
        ("unknown unwind status 0xffffffff", head + frames(frames_=[frame()], status=0xffffffff)),
        ("control bytes in names", head + frames(frames_=[frame(module=13, sym=0, exp=0, src=13)],
                                                 strings=evil)),
        ("a stack record in a file (never written; ignored)",
         head + pad8(rec(STACK, b"\0" * 136 + struct.pack("<IIQ", 8, 0, 0) + b"\0" * 8))),
        ("a mapping with control bytes in its path", head + mapping(path=b"/x\n\x1b[2J")),
        ("a kernel walk with a gap in a file (never written; ignored)", head + kstack(3, 2)),
        ("a gap of 16 KiB in a file (never written; ignored)",
         head + kstack_gap(255, 0x7ffd0000, 0x7ffd0000 + 16384, 16384)),
    ]
    cases.group("odd but legal -k records decode (exit 1: no trailer, nothing else)",
                [(label, data, 1, r"no trailer") for label, data in odd])

    # Text output of names with control bytes: escaped, no forged lines.
    call = struct.pack("<Q16siIQIIQqQIIIIII", 36672163713, b"x", 3, 0x800001, 77, 0xc0104629,
                       16, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    path = cases.file(head + pad8(rec(2, call)) + frames(
        frames_=[frame(module=13, sym=0, exp=0, src=13)], strings=evil) + pad8(rec(3, call)) +
        trailer, "evil-k.ctrace")
    bad = []
    for extra in ([], ["-vv"], ["-c", "--summary-by=api"], ["-c", "--summary-by=caller"]):
        args, pre = H.command(H.BIN, "-r", path, "--api-lib", "*", *extra)
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=H.TIMEOUT, preexec_fn=pre, env=H.ENV)
        v = H.verdict(p.returncode, p.stderr.decode("utf-8", "replace"), want_rc=0)
        if v:
            bad.append("%s: %s" % (extra, v))
        elif any(c in p.stdout for c in (b"\x1b", b"\x9b", b"\x07")) or any(
                line.startswith((b"il", b"b")) for line in p.stdout.split(b"\n")):
            bad.append("%s: raw control bytes or a forged line: %r" % (extra, p.stdout[:400]))
    tap.ok(not bad, "control bytes in frame names and paths are escaped in text, stacks "
           "and api/caller views", "\n".join(bad))

    # Random damage to the real -k trace's frames and mapping records.
    flips = H.record_flips(full, recs, (FRAMES, MAPPING), 600, 200)
    cases.group("600 single-byte flips in the real -k trace's frames and mapping records "
                "(seed %d)" % SEED, flips)


if __name__ == "__main__":
    main()
