#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatrace -r on hostile --gpu-work kernel names (CT_REC_KERNEL_NAME, type
21) and hostile CUDA graph chains (QMDs whose dependents SCHEDULE and
DECREMENT_DEPENDENCE each other), decoded by every view that shows a name:
text, --json, -c, -c --summary-by=kernel, -e kernel=, --sqlite, --perfetto.

Same rules as hostile.py (whose helpers it uses): exit 0, or exit 1 with one
'cudatrace: ...' line that says which record was refused and where; no
signal, sanitizer report or hang (10 s a run).  On top: names full of
control bytes are escaped in text and valid in JSON, a later record for the
same program replaces the earlier from then on, and what a chain could not
follow is said on its line and counted on the closing line."""
import concurrent.futures
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile as H  # noqa: E402
from hostile import pad8, rec  # noqa: E402

KNAME, GPU_SEG = 21, 19
CT_KNAME_MAX, CT_KMODULE_MAX = 16384, 4096
CT_KN_INLINE, CT_KN_COPY_SIZE, CT_KN_JIT, CT_KN_HOWS = 1, 4, 5, 6
CT_KN_AMBIGUOUS, CT_KN_NAMES = 1, 2
GW_QMDS_MAX = 8192
PID = 100

# Each case runs in these modes ({db}, {pf}: files of its own).
MODES = [
    ("text", []),
    ("--json", ["--json"]),
    ("-c", ["-c"]),
    ("-c --summary-by=kernel", ["-c", "--summary-by=kernel"]),
    ("-e kernel=", ["-e", "kernel=*k*"]),
    ("--sqlite", ["--sqlite", "{db}"]),
    ("--perfetto", ["--perfetto", "{pf}"]),
]
# The traces of megabytes: the modes that differ most (the test stays under a minute).
BIG_MODES = [MODES[0], MODES[1], MODES[3], MODES[6]]


def kname(program, name, module=b"", how=CT_KN_INLINE, pid=PID, flags=0, candidates=0,
          name_size=None, module_size=None, size=None, code_size=256, arch=90):
    """A KERNEL_NAME record; name and module are given whole (NULs included)."""
    body = struct.pack("<QQIIIIIIII", program, 0x9e3779b97f4a7c15, code_size, how, flags,
                       candidates, arch, len(name) if name_size is None else name_size,
                       len(module) if module_size is None else module_size, 0)
    payload = body + name + module
    return pad8(rec(KNAME, payload, pid=pid, tid=0,
                    size=None if size is None else size))


# --- QMD V04_00 by hand (clcbc0qmd.h; decoders/gputables/fields.tsv) ----------
SCHEDULE, DECREMENT = 1, 4


def qmd(gx, deps=(), require=False, counter=0, program=0, major=4):
    """deps: [(address, action)]: DEPENDENT_QMD_ENABLE(i) 368+5i,
    ACTION(i) 371+5i:369+5i, DEPENDENT_QMDi_POINTER 479:448 / 511:480
    (address >> 8); QMD_TYPE 25:23 (GRID_CTA 2), REQUIRE_SCHEDULING_PCAS 30,
    DEPENDENCE_COUNTER 15:0, QMD_MAJOR_VERSION 583:580, GRID_* dwords 32-34,
    CTA_THREAD_DIMENSION* 36-37, PROGRAM_ADDRESS_LOWER/UPPER dwords 38-39."""
    q = [0] * 96
    q[0] = 2 << 23 | int(require) << 30 | counter
    q[18] = major << 4
    q[32], q[33], q[34], q[36], q[37] = gx, 1, 1, 32 | 1 << 16, 1
    q[38], q[39] = program & 0xffffffff, (program >> 32) & 0x1ffffff
    for i, (a, act) in enumerate(deps[:2]):
        q[11] |= (1 | act << 1) << (16 + 5 * i)
        q[14 + i] = (a >> 8) & 0xffffffff
    return q


def hd(op, n, sub, m):
    return op << 29 | n << 16 | sub << 13 | m >> 2


def up(addr, dw):   # LINE_LENGTH_IN.., LAUNCH_DMA, LOAD_INLINE_DATA
    return [hd(1, 4, 1, 0x180), 4 * len(dw), 1, addr >> 32, addr & 0xffffffff,
            hd(1, 1, 1, 0x1b0), 0x41, hd(3, len(dw), 1, 0x1b4)] + dw


def snd(addr):      # SEND_PCAS_A, SEND_SIGNALING_PCAS2_B (schedule)
    return [hd(1, 1, 1, 0x2b4), (addr >> 8) & 0xffffffff, hd(1, 1, 1, 0x2c0), 0xa]


def seg_entry(ndw, va=0x200800000):   # clc86f.h: GET 31:2, GET_HI, LENGTH 30:10
    return (va & 0xfffffffc) | ((va >> 32) & 0xff | (ndw & 0x1fffff) << 10) << 32


def gseg(dw, pid=PID, chan=0x5c00001c):
    body = struct.pack("<IIIiIIIIQQIIII", 0xc1d00001, chan, 0xc86f, 0, 1, 1024, 2, 3,
                       seg_entry(len(dw)), 0x200800000, len(dw), len(dw), 0, 0)
    return pad8(rec(GPU_SEG, body + struct.pack("<%dI" % len(dw), *dw), pid=pid))


def segs(groups, pid=PID, obj=0xcbc0, chan=0x5c00001c):
    """Each group of dwords whole in one segment (methods never cut); the
    first segment binds the compute class obj."""
    out, cur = b"", [hd(1, 1, 1, 0), obj]
    for g in groups:
        if len(cur) + len(g) > 4096:
            out += gseg(cur, pid, chan)
            cur = []
        cur += g
    return out + gseg(cur, pid, chan)


def A(i):
    return 0x300000000 + 0x200 * i


def P(i):   # a program address
    return 0x7f0000000000 + 0x1000 * i


def launch(i, gx=1, program=None):
    """A plain launch: its QMD uploaded at A(i) and sent."""
    return up(A(i), qmd(gx, program=P(i) if program is None else program)) + snd(A(i))


class Runs:
    """Runs files through every mode in parallel; collects what went wrong."""

    def __init__(self, tmp):
        self.tmp, self.n = tmp, 0
        self.lock = threading.Lock()

    def run(self, path, args):
        """(rc or 'timeout', stdout bytes, stderr str)"""
        argv, pre = H.command(H.BIN, "-r", path, *args)
        try:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=H.TIMEOUT, preexec_fn=pre,
                               env=H.ENV)
        except subprocess.TimeoutExpired:
            return "timeout", b"", ""
        return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")

    def case(self, label, data, want_rc, want_err, check=None, modes=MODES):
        """None or what went wrong in some mode.  check(mode, stdout, files,
        stderr) returns None or a problem."""
        with self.lock:
            self.n += 1
            base = os.path.join(self.tmp, "k%05d" % self.n)
        path = base + ".ctrace"
        with open(path, "wb") as f:
            f.write(data)
        try:
            for mode, args in modes:
                files = {"db": base + ".db", "pf": base + ".json"}
                for f_ in files.values():
                    if os.path.exists(f_):
                        os.unlink(f_)
                rc, out, err = self.run(path, [a.format(**files) for a in args])
                bad = H.verdict(rc, err, want_rc=want_rc, want=want_err)
                if not bad and rc == 0:
                    bad = outputs_ok(mode, out, files)
                if not bad and check and rc == 0:
                    bad = check(mode, out, files, err)
                if bad:
                    return "%s (%s): %s" % (label, mode, bad)
            return None
        finally:
            for ext in (".ctrace", ".db", ".json"):
                if os.path.exists(base + ext):
                    os.unlink(base + ext)


def outputs_ok(mode, out, files):
    """Text escaped (no raw control bytes, no forged line), JSON lines
    valid, the SQLite database and Perfetto file readable."""
    if mode == "--json":
        for line in out.splitlines():
            try:
                json.loads(line)
            except ValueError as e:
                return "invalid JSON line (%s): %r" % (e, line[:300])
    elif any(c in out for c in (b"\x1b", b"\x9b", b"\x07")) or any(
            line.startswith((b"FORGED", b"\xff")) for line in out.split(b"\n")):
        return "raw control bytes or a forged line: %r" % out[:400]
    if mode == "--sqlite":
        try:
            con = sqlite3.connect(files["db"])
            con.execute("select count(*) from launches").fetchone()
            con.close()
        except sqlite3.Error as e:
            return "the database: %s" % e
    if mode == "--perfetto":
        try:
            with open(files["pf"], "rb") as f:
                json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError) as e:
            return "the Perfetto file: %s" % e
    return None


def main():
    tap = H.Tap()
    print("# binary: %s%s" % (H.BIN, " (ASan+UBSan)" if H.SANITIZED else
                               " (not sanitized: make build/asan/cudatrace-r for more)"))
    if not os.access(H.BIN, os.X_OK):
        tap.ok(False, "cudatrace binary %s exists" % H.BIN)
        tap.done()
    tmp = H.scratch_dir("ct-hostile-kn-")
    body(tap, Runs(tmp))
    tap.done()


def group(tap, runs, what, cases):
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(H.JOBS) as ex:
        bad = [b for b in ex.map(lambda c: runs.case(*c), cases) if b]
    tap.ok(not bad, "%s (%d traces, %.1f s)" % (what, len(cases), time.time() - t0),
           "\n".join(bad[:10]))


def body(tap, runs):
    full = H.raw_trace(H.TRACE)
    recs = H.records(full)
    meta = full[recs[0][0]:recs[0][0] + recs[0][1]]
    head = H.PRE + meta
    trailer = full[recs[-1][0]:]
    ok = b"k_good\0"

    # --- records that lie: refused, said, the records before decoded --------------
    refused = r"; decoded the \d+ records before it$"
    lies = [
        ("h.size short of name_size", kname(P(0), ok, size=24 + 48 + 3), r"kernel name record sizes"),
        ("h.size past name_size + module_size", kname(P(0), ok + b"\0" * 8, name_size=len(ok)),
         r"kernel name record sizes"),
        ("name_size past the record", kname(P(0), ok, name_size=4000), r"kernel name record sizes"),
        ("module_size past the record", kname(P(0), ok, b"/lib/x.so\0", module_size=4000),
         r"kernel name record sizes"),
        ("name_size 0xffffffff", kname(P(0), ok, name_size=0xffffffff), r"kernel name record sizes"),
        ("name + module sizes that add up only modulo 2^32",
         kname(P(0), ok, name_size=0x80000000, module_size=0x80000000 + len(ok)),
         r"kernel name record sizes"),
        ("name_size CT_KNAME_MAX + 1", kname(P(0), b"k" * CT_KNAME_MAX + b"\0"),
         r"kernel name record sizes"),
        ("module_size CT_KMODULE_MAX + 1", kname(P(0), ok, b"m" * CT_KMODULE_MAX + b"\0"),
         r"kernel name record sizes"),
        ("shorter than its header", pad8(rec(KNAME, b"\0" * 40, tid=0)), r"kernel name record sizes"),
        ("name_size 0", kname(P(0), b""), r"kernel name record strings do not end with NUL"),
        ("name without its NUL", kname(P(0), b"k_good"), r"do not end with NUL"),
        ("module without its NUL", kname(P(0), ok, b"/lib/x.so"), r"do not end with NUL"),
        ("how 0", kname(P(0), ok, how=0), r"says no way it was found"),
        ("how past the known ones", kname(P(0), ok, how=CT_KN_HOWS), r"says no way it was found"),
        ("how 0xffffffff", kname(P(0), ok, how=0xffffffff), r"says no way it was found"),
    ]
    cases = []
    for label, r, want in lies:
        good = kname(P(1), b"k_before\0")
        cases.append((label, head + good + r + trailer, 1, want + r".* at byte offset %d" %
                      (len(head) + len(good)) + refused, None, MODES[:2]))
    group(tap, runs, "kernel name records that lie about their sizes or strings: exit 1, "
          "the record and its offset said, the records before it decoded", cases)

    # --- legal but odd: decoded, exit 0 ---------------------------------------------
    evil = b"FORGED\n\x1b[31m\x9b2J\xff\xfe\x07k\0"
    odd = [
        ("the longest name and module",
         kname(P(1), b"k" * (CT_KNAME_MAX - 1) + b"\0", b"/" + b"m" * (CT_KMODULE_MAX - 2) + b"\0")
         + segs([launch(1)])),
        ("a NUL inside the name", kname(P(1), b"k_one\0k_two\0") + segs([launch(1)])),
        ("control bytes and bad UTF-8 in name and module",
         kname(P(1), evil, b"/tmp/\n\x1b]0;x\x07\xc0\0") + segs([launch(1)])),
        ("ambiguous, 0xffffffff candidates, every flag",
         kname(P(1), b"k_amb\0", flags=0xffffffff, candidates=0xffffffff) + segs([launch(1)])),
        ("ambiguous with its names: 8 of the longest a record holds",
         kname(P(1), b"".join((b"k%d" % i) * 1 + b"x" * (CT_KNAME_MAX // 8 - 4) + b"\0"
                              for i in range(8)), flags=CT_KN_AMBIGUOUS | CT_KN_NAMES,
               candidates=9) + segs([launch(1)]), rb"\{k0x+\|k1x+"),
        ("ambiguous with 4000 names, empty ones and the same one twice",
         kname(P(1), b"\0" * 2000 + b"k_a\0k_a\0" * 1000, flags=CT_KN_AMBIGUOUS | CT_KN_NAMES,
               candidates=4000) + segs([launch(1)])),
        ("ambiguous with names that demangle to exponential output",
         kname(P(1), b"_Z1f1x1aIS_S_E" + b"S0_IS1_S1_E" * 60 + b"\0_Z1fPPPPi\0",
               flags=CT_KN_AMBIGUOUS | CT_KN_NAMES, candidates=2) + segs([launch(1)])),
        ("names listed without the ambiguous flag: the first alone",
         kname(P(1), b"k_one\0k_two\0", flags=CT_KN_NAMES) + segs([launch(1)]),
         rb"LAUNCH k_one grid"),
        ("by size, code_size and arch 0xffffffff",
         kname(P(1), b"k_size\0", how=CT_KN_COPY_SIZE, code_size=0xffffffff, arch=0xffffffff)
         + segs([launch(1)])),
        ("mangled names that do not demangle",
         b"".join(kname(P(i), n + b"\0") for i, n in enumerate(
             (b"_Z", b"_Zk", b"_ZN", b"_Z" + b"N" * 4000, b"_Z1" + b"9" * 30 + b"k")))
         + segs([launch(i) for i in range(5)])),
        ("a name for a pid never seen, a launch of another pid at its program",
         kname(P(1), b"k_other_pid\0", pid=4242) + segs([launch(1)])),
        ("a name for a program never launched, and one for program 0",
         kname(P(77), b"k_never\0") + kname(0, b"k_zero\0") + segs([launch(1)])),
        ("a name after its launch (the launch stays unnamed)",
         segs([launch(1)]) + kname(P(1), b"k_late\0")),
        ("names and launches of pid 0", kname(P(1), b"k_pid0\0", pid=0) + segs([launch(1)], pid=0)
         + kname(P(1), b"k_pid0_again\0", pid=0) + segs([launch(1)], pid=0),
         rb"(?s)LAUNCH k_pid0 grid.*LAUNCH k_pid0_again grid"),
    ]

    def shows(want):
        def check(mode, out, files, err):
            if mode == "text" and want and not re.search(want, out):
                return "text lacks %r: %r" % (want, out[-600:])
            return None
        return check
    group(tap, runs, "odd but legal kernel names decode (exit 0), escaped in text, valid in "
          "JSON, SQLite and Perfetto",
          [(o[0], head + o[1] + trailer, 0, r"^$", shows(o[2] if len(o) > 2 else None))
           for o in odd])

    # --- names that demangle to too much ----------------------------------------------
    # Substitutions make libiberty's demangler take time and memory exponential in
    # a name's length: a<x,x>, a<a<x,x>,a<x,x>>, ... doubles with each 10 bytes;
    # inside an empty pack's expansion it prints nothing but still walks it all.
    def b36(n):
        s = ""
        while True:
            s = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36] + s
            n //= 36
            if not n:
                return s

    def sub(i):
        return "S_" if i == 0 else "S%s_" % b36(i - 1)

    def doubling(levels):   # f(x, a<x,x>, a<a<x,x>,a<x,x>>, ...): f=-, x=S_, a=S0_, a<x,x>=S1_
        s, cur = "_Z1f1x1aIS_S_E", 2
        for _ in range(levels):
            s += "S0_I%s%sE" % (sub(cur), sub(cur))
            cur += 1
        return s.encode()

    def empty_pack(levels):  # void f<>(): b<x, a<x,x>, ..., T_>... with T_ an empty pack
        s, cur = "_Z1fIJEEvDp1bI1x1aI%s%sE" % (sub(2), sub(2)), 4
        for _ in range(levels):
            s += "%sI%s%sE" % (sub(3), sub(cur), sub(cur))
            cur += 1
        return (s + "T_E").encode()

    def nested(depth):
        return b"_Z1f" + b"P" * depth + b"i"
    bombs = [
        ("output doubling 60 times (%d bytes mangled)" % len(doubling(60)), doubling(60)),
        ("an empty pack over a 2^60 walk (%d bytes)" % len(empty_pack(60)), empty_pack(60)),
        ("output doubling, the longest name", doubling(1500)[:CT_KNAME_MAX - 1]),
        ("pointers nested 16000 deep", nested(16000)),
    ]
    cases = []
    for label, name in bombs:
        data = head + kname(P(1), name + b"\0") + segs([launch(1)]) + trailer

        def named(mode, out, files, err, name=name):
            if mode == "text" and name.decode() not in out.decode("utf-8", "replace"):
                return "the launch is not shown with the name mangled: %r" % out[-600:]
            return None
        cases.append((label, data, 0, r"^$", named))
    group(tap, runs, "names that demangle to exponential output or walks: shown mangled, "
          "within the time limit", cases)

    # --- two records for one program: the later replaces the earlier ---------------
    def replaced(mode, out, files, err):
        if mode == "text":
            names = re.findall(rb"LAUNCH (k_\w+) grid", out)
            if names != [b"k_first", b"k_second", b"k_second"]:
                return "launch names %r, want k_first, k_second, k_second" % names
        if mode == "--sqlite":
            con = sqlite3.connect(files["db"])
            got = [r[0] for r in con.execute("select kernel from launches order by rowid")]
            con.close()
            if got != ["k_first", "k_second", "k_second"]:
                return "launches.kernel %r" % got
        if mode == "-c --summary-by=kernel" and not (b"k_first" in out and b"k_second" in out):
            return "the kernel table lacks a name: %r" % out[-800:]
        return None
    again = (kname(P(1), b"k_first\0") + segs([launch(1)]) + kname(P(1), b"k_second\0", b"/a\0")
             + segs([launch(1)]) + kname(P(1), b"k_second\0", b"/a\0") + segs([launch(1)]))
    # many: 20000 names over 64 pids, half of them replaced, then 2000 launches
    many = b"".join(kname(P(i % 5000), b"k_%d\0" % i, pid=PID + i % 64) for i in range(20000))
    many_l = segs([launch(i % 5000) for i in range(2000)])
    group(tap, runs, "a later name for the same program replaces the earlier from then on; "
          "20000 names over 64 processes stay inside the limits", [
              ("one program named three times", head + again + trailer, 0, r"^$", replaced),
              ("20000 names, 2000 launches", head + many + many_l + trailer, 0, r"^$", None,
               BIG_MODES),
          ])

    # --- hostile graph chains ---------------------------------------------------------
    # Each ends in the heads sent again: a chain walk per send.
    def chain(nodes, heads, sends=3, before=b""):
        ups = [up(a, q) for a, q in nodes]
        names = b"".join(kname(P(i), b"k_node%d\0" % i) for i in range(len(nodes) + 4))
        return head + names + before + segs(ups + [snd(h) for h in heads] * sends) + trailer

    def says(*want, unseen=False):
        """Text shows each of want; the closing line counts QMDs not followed."""
        def check(mode, out, files, err):
            if mode != "text":
                return None
            for w in want:
                if not re.search(w, out):
                    return "text lacks %r: ...%r" % (w, out[-700:])
            if unseen and not re.search(r"[1-9]\d* QMDs a chain led to could not be followed",
                                        err):
                return "the closing line does not count what was not followed: %r" % err
            return None
        return check
    waiting = rb"a join node waiting for more branches than were seen to end"
    ring = [(A(0), qmd(0, [(A(1), SCHEDULE)])),
            (A(1), qmd(5, [(A(2), SCHEDULE), (A(3), DECREMENT)], True, program=P(1))),
            (A(2), qmd(6, [(A(1), SCHEDULE), (A(0), SCHEDULE)], True, program=P(2))),
            (A(3), qmd(7, [(A(1), DECREMENT), (A(3), SCHEDULE)], True, 1, program=P(3)))]
    join = [(A(0), qmd(0, [(A(1), SCHEDULE), (A(2), SCHEDULE)]))] + [
        (A(i), qmd(i, [(A(9), DECREMENT), (A(9), DECREMENT)], True, program=P(i)))
        for i in (1, 2)] + [(A(9), qmd(9, [], True, 0xffff, program=P(9)))]
    # A(1) waits for one decrement and decrements itself; A(2) waits for none
    join1 = [(A(0), qmd(0, [(A(1), DECREMENT), (A(2), SCHEDULE)])),
             (A(1), qmd(1, [(A(1), DECREMENT)], True, 1, program=P(1))),
             (A(2), qmd(2, [(A(1), DECREMENT), (A(2), DECREMENT)], True, 0, program=P(2)))]
    nowhere = [(A(0), qmd(0, [(0, SCHEDULE), (0, DECREMENT)])),
               (A(1), qmd(0, [(A(50), DECREMENT), (0xffffffff << 8, SCHEDULE)])),
               (A(2), qmd(0, [(A(3), SCHEDULE), (A(4), SCHEDULE)]))]
    # A(3): a QMD the Ampere channel of the process kept (V02_04), which the
    # Hopper head's class has no layout for; A(4): garbage, never kept
    ampere = segs([up(A(3), qmd(3, major=2)[:18] + [2 << 4 | 4] + [0] * 77),
                   up(A(4), [0xdeadbeef] * 96)], obj=0xc6c0, chan=0x5c000030)
    short = [(A(0), qmd(0, [(A(1), SCHEDULE), (A(2), SCHEDULE)])), (A(1), [0x40] * 3),
             (A(2), qmd(4, [], True)[:20])]
    # longer than the decoder keeps: GW_QMDS_MAX + 100 nodes in one SCHEDULE chain,
    # each also decrementing a join that waits for all of them
    long_ = [(A(0), qmd(0, [(A(1), SCHEDULE)]))] + [
        (A(i), qmd(1, [(A(i + 1), SCHEDULE), (A(GW_QMDS_MAX + 200), DECREMENT)], True,
                   program=P(i % 8))) for i in range(1, GW_QMDS_MAX + 100)]
    # a tree: every node schedules two, the last 6000 never uploaded
    wide = [(A(0), qmd(0, [(A(1), SCHEDULE), (A(2), SCHEDULE)]))] + [
        (A(i), qmd(1, [(A(2 * i + 1), SCHEDULE), (A(2 * i + 2), SCHEDULE)], True,
                   program=P(i % 8))) for i in range(1, 6000)]
    group(tap, runs, "hostile graph chains: cycles of SCHEDULE and DECREMENT, joins waiting "
          "for 65535, null, unseen and non-QMD dependents, chains past GW_QMDS_MAX: each "
          "said on its line and counted", [
              ("a ring of SCHEDULEs and DECREMENTs", chain(ring, [A(0)]), 0, None,
               says(rb"GRAPH-LAUNCH 3 qmd=0x300000000: 3 QMDs started", rb"LAUNCH k_node1 ",
                    rb"LAUNCH k_node2 ", rb"LAUNCH k_node3 ")),
              ("a join waiting for 65535, two branches decrementing it twice",
               chain(join, [A(0)]), 0, None,
               says(rb"LAUNCH k_node1 ", rb"LAUNCH k_node2 ", waiting, unseen=True)),
              ("a join decrementing itself, one waiting for none", chain(join1, [A(0)]), 0,
               None, says(rb"LAUNCH k_node1 ", rb"LAUNCH k_node2 ")),
              ("dependents at 0, at the top of memory, unseen, not a QMD of the class",
               chain(nowhere, [A(0), A(1), A(2)], before=ampere), 0, None,
               says(rb"a null pointer", rb"qmd=0xffffffff00: not seen uploaded",
                    rb"qmd=0x300000600: the bytes uploaded there are no QMD layout",
                    rb"qmd=0x300000800: not seen uploaded", unseen=True)),
              ("dependents whose upload was 3 and 20 dwords", chain(short, [A(0)]), 0, None),
              ("a chain of %d nodes (more than the decoder keeps)" % (GW_QMDS_MAX + 100),
               chain(long_, [A(0)], 2), 0, None,
               says(rb"not seen uploaded", unseen=True), BIG_MODES),
              ("a tree of 6000 nodes scheduling 12000", chain(wide, [A(0)], 2), 0, None,
               says(rb"not seen uploaded", unseen=True), BIG_MODES),
          ])

if __name__ == "__main__":
    main()
