#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudatrace -r on hostile input: truncated, corrupted and lying trace files,
and things that are not trace files at all.

Every run must end in exit 0 (decoded) or exit 1 with one clear line on
stderr: never a signal, a sanitizer report, an exit code above 1, a hang
(10 s per run) or unbounded memory (512 MiB).  Runs the ASan+UBSan build
($OUTPUT/asan/cudatrace-r, from `make build/asan/cudatrace-r`) when it is
there and not older than ./cudatrace, else ./cudatrace; CUDATRACE_BIN
overrides.  HOSTILE_SEED changes the random cases (default 1).  Cuts at
every offset run the plain ./cudatrace (with the ASan build chosen above),
and BIN where the reader's path changes; HOSTILE_FULL=1 runs BIN, text and
--json, at every one (slow).
HOSTILE_RECORDS (default 64) sizes the prefix that is cut.  Prints TAP.
See docs/RELIABILITY.md.
"""
import concurrent.futures
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import Tap, ROOT, BUILD, scratch_dir  # noqa: E402

ASAN_BIN = os.path.join(BUILD, "asan", "cudatrace-r")
PLAIN_BIN = os.path.join(ROOT, "cudatrace")
# The ASan build, unless it is older than ./cudatrace (then it would test
# stale code).
ASAN_FRESH = os.access(ASAN_BIN, os.X_OK) and (
    not os.path.exists(PLAIN_BIN) or os.path.getmtime(ASAN_BIN) >= os.path.getmtime(PLAIN_BIN))
BIN = os.environ.get("CUDATRACE_BIN") or (ASAN_BIN if ASAN_FRESH else PLAIN_BIN)


def sanitized(path):
    try:
        with open(path, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


SANITIZED = sanitized(BIN)
TRACE = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
PREFIX_RECORDS = int(os.environ.get("HOSTILE_RECORDS", "64"))
TIMEOUT = 10
# A trace without its trailer (cut anywhere) is partial: exit 1, and the line says so.
PARTIAL = r"; a partial trace: exit 1 \(--allow-partial: 0\)"
MEM_MB = 512
SEED = int(os.environ.get("HOSTILE_SEED", "1"))
JOBS = max(2, (os.cpu_count() or 2))

SIZEOF_REC, SIZEOF_IOCTL, SIZEOF_PROC, SIZEOF_TRAILER = 24, 120, 56, 56
CT_ARG_MAX, CT_NEST_MAX = 16384, 256 * 1024
CT_RECORD_MAX = SIZEOF_IOCTL + CT_ARG_MAX + CT_NEST_MAX + 64
CT_META_MAX = 1 << 20
PRE = b"CUDATRCE" + struct.pack("<II", 1, 16)

# Sanitizers: a report must never pass for an ordinary "exit 1".
ENV = dict(os.environ)
ENV["ASAN_OPTIONS"] = ("exitcode=86:abort_on_error=0:detect_leaks=1:"
                       "max_allocation_size_mb=%d:hard_rss_limit_mb=%d" % (MEM_MB, MEM_MB))
ENV["UBSAN_OPTIONS"] = "halt_on_error=1:exitcode=87:print_stacktrace=1"
ENV["LC_ALL"] = "C"
SAN_MARKS = ("Sanitizer", "runtime error", "==ERROR", "rss limit")


# Bounded memory: the ASan build gets hard_rss_limit_mb (ASan reserves
# terabytes of address space for its shadow, so no RLIMIT_AS for it); the
# plain one RLIMIT_AS, through prlimit(1) where there is one (a preexec_fn
# would make every run fork this Python, which is 3x slower).  No core files.
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
HAVE_PRLIMIT = shutil.which("prlimit") is not None
_san = {BIN: SANITIZED}


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (MEM_MB << 20, MEM_MB << 20))


def command(bin_, *args):
    """argv and preexec_fn for running bin_ with bounded memory."""
    if bin_ not in _san:
        _san[bin_] = sanitized(bin_)
    if _san[bin_]:
        return [bin_] + list(args), None
    if HAVE_PRLIMIT:
        return ["prlimit", "--as=%d" % (MEM_MB << 20), "--", bin_] + list(args), None
    return [bin_] + list(args), limit


def run(path, json=False, stdin=None, env=ENV, bin_=None):
    """(returncode or 'timeout', stderr)"""
    args, pre = command(bin_ or BIN, "-r", path, *(["--json"] if json else []))
    try:
        p = subprocess.run(args, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=TIMEOUT,
                           preexec_fn=pre, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", ""
    return p.returncode, p.stderr.decode("utf-8", "replace")


def verdict(rc, err, want_rc=None, want=None):
    """None if the run behaved, else what was wrong."""
    if rc == "timeout":
        return "hung (killed after %d s)" % TIMEOUT
    if any(m in err for m in SAN_MARKS):
        return "sanitizer report (exit %s): %s" % (rc, err.strip()[:1500])
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc not in (0, 1):
        return "exit %d (want 0 or 1): %s" % (rc, err.strip()[:300])
    lines = err.splitlines()
    if rc == 1 and (len(lines) != 1 or not lines[0].startswith("cudatrace: ")):
        return "exit 1 without exactly one 'cudatrace: ...' line on stderr: %r" % err[:500]
    if rc == 0 and len(lines) > 1:
        return "exit 0 with %d lines on stderr: %r" % (len(lines), err[:500])
    if want_rc is not None and rc != want_rc:
        return "exit %d, want %d: %r" % (rc, want_rc, err.strip()[:300])
    if want is not None and not re.search(want, err):
        return "stderr %r does not match %r" % (err.strip()[:300], want)
    return None


def check_both(path, want_rc=None, want=None):
    """Text and JSON; None or the first problem."""
    for json in (False, True):
        bad = verdict(*run(path, json), want_rc=want_rc, want=want)
        if bad:
            return ("--json: " if json else "text: ") + bad
    return None


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def rec(t, payload=b"", pid=100, tid=101, ts=36672163713 + 1000, size=None):
    return struct.pack("<IIQII", t, SIZEOF_REC + len(payload) if size is None else size,
                       ts, pid, tid) + payload


def ioctl(t, cmd=0xc020462a, arg=b"", nest=b"", tid=101, arg_size=None, nest_size=None):
    body = struct.pack("<Q16siIQIIQqQIIIIII", 36672163713, b"saxpy", 3, 0xc3000ff, 0, cmd,
                       0, 0x7ffd0000, 0, 0x7ffd1000 if nest else 0,
                       len(arg) if arg_size is None else arg_size, len(arg),
                       len(nest) if nest_size is None else nest_size, len(nest), 1, 0)
    return rec(t, body + arg + nest, tid=tid)


def raw_trace(path):
    """A trace file's bytes, decompressed if it was written whole with zstd."""
    data = open(path, "rb").read()
    if data[:8] != b"CUDATRCE":
        data = subprocess.run(["zstd", "-q", "-d", "-c"], input=data, stdout=subprocess.PIPE,
                              check=True).stdout
    return data


def records(data):
    """[(offset, padded length)] of the records of a trace file."""
    out, off = [], 16
    while off + SIZEOF_REC <= len(data):
        size = struct.unpack_from("<I", data, off + 4)[0]
        plen = (size + 7) & ~7
        if off + plen > len(data):
            break
        out.append((off, plen))
        off += plen
    return out


def record_flips(full, recs, types, n, head):
    """n cases, each one byte of the trace full flipped inside a record of
    one of types (every other flip within the record's first head bytes,
    where its header and counts are), from seed SEED; each decoded by BIN,
    in JSON every third time."""
    rng = random.Random(SEED)
    targets = [(off, plen) for off, plen in recs
               if struct.unpack_from("<I", full, off)[0] in types]
    flips = []
    for i in range(n):
        off, plen = rng.choice(targets)
        pos = off + (rng.randrange(min(plen, head)) if i % 2 else rng.randrange(plen))
        x = rng.randrange(1, 256)

        def flip(pos=pos, x=x):
            b = bytearray(full)
            b[pos] ^= x
            return bytes(b)
        flips.append(("flip #%d: byte %d ^= 0x%02x" % (i, pos, x), flip, None, None,
                      [(BIN, i % 3 == 0)]))
    return flips


class Cases:
    """Runs many files through cudatrace in parallel; one TAP line per group."""

    def __init__(self, tap, tmp):
        self.tap, self.tmp, self.n = tap, tmp, 0
        self.lock = threading.Lock()

    def file(self, data, name=None):
        with self.lock:
            self.n += 1
            n = self.n
        path = os.path.join(self.tmp, name or "case-%06d.ctrace" % n)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def group(self, what, cases, jobs=JOBS, env=ENV):
        """cases: [(label, data, want_rc, want_regex[, runs])]; data: bytes,
        or a function that makes them (so that thousands of cases cost no
        memory); runs: [(binary, json)], by default BIN in text and --json."""
        runs = [0]

        def one(case):
            label, data, want_rc, want = case[:4]
            modes = case[4] if len(case) > 4 else [(BIN, False), (BIN, True)]
            path = self.file(data() if callable(data) else data)
            try:
                for bin_, json in modes:
                    runs[0] += 1
                    bad = verdict(*run(path, json, env=env, bin_=bin_), want_rc=want_rc,
                                  want=want)
                    if bad:
                        return "%s%s%s: %s" % (label, " --json" if json else "",
                                               "" if bin_ == BIN else " (%s)" % bin_, bad)
                return None
            finally:
                os.unlink(path)

        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            bad = [b for b in ex.map(one, cases) if b]
        self.tap.ok(not bad, "%s (%d files, %d runs)" % (what, len(cases), runs[0]),
                    "\n".join(bad[:10]) + ("\n... %d more" % (len(bad) - 10) if len(bad) > 10 else ""))


def main():
    tap = Tap()
    print("# binary: %s%s" % (BIN, " (ASan+UBSan)" if SANITIZED else
                               " (not sanitized: make %s for more%s)"
                               % (os.path.relpath(ASAN_BIN, ROOT),
                                  ", the one there is older than ./cudatrace"
                                  if os.path.exists(ASAN_BIN) and not ASAN_FRESH else "")))
    if not os.access(BIN, os.X_OK):
        tap.ok(False, "cudatrace binary %s exists" % BIN)
        tap.done()
    tmp = scratch_dir("ct-hostile-")
    body(tap, Cases(tap, tmp), tmp)
    tap.done()


def body(tap, cases, tmp):
    full = open(TRACE, "rb").read()
    recs = records(full)
    end = recs[PREFIX_RECORDS - 1][0] + recs[PREFIX_RECORDS - 1][1]
    prefix = full[:end]                       # no trailer: "cut short" when whole
    trailer = full[recs[-1][0]:]
    good = prefix + trailer                   # a complete small trace
    boundaries = {16: 0}
    for i, (off, plen) in enumerate(recs[:PREFIX_RECORDS]):
        boundaries[off + plen] = i + 1

    # --- real traces --------------------------------------------------------
    bad = []
    for t in sorted(os.listdir(os.path.join(ROOT, "traces"))):
        if t.endswith(".ctrace"):
            b = check_both(os.path.join(ROOT, "traces", t), want_rc=0)
            if b:
                bad.append("%s: %s" % (t, b))
    tap.ok(not bad, "every real trace decodes: exit 0, at most a one-line note", "\n".join(bad))
    gpath_good = cases.file(good, "good.ctrace")
    b = check_both(gpath_good, 0, r"^$")
    tap.ok(b is None, "the %d-record prefix plus trailer decodes cleanly" % PREFIX_RECORDS, b)

    # --- truncated at every byte offset ---------------------------------------
    # The reader's path only differs in the first bytes of a record (its
    # header) and at its end; inside a payload every cut takes the same path.
    # So: every offset runs in text with the plain ./cudatrace (fast), and the
    # sanitized BIN runs text and --json where the path changes (first 32
    # bytes of each record, last 8 before the next).  HOSTILE_FULL=1: BIN in
    # text and --json at every offset.  Leak checking is off in this group
    # (it doubles the time) and on in every other.
    full_sweep = os.environ.get("HOSTILE_FULL") == "1"
    starts = sorted(boundaries)
    sweep_bin = PLAIN_BIN if (BIN == ASAN_BIN and not full_sweep and
                              os.access(PLAIN_BIN, os.X_OK)) else BIN

    def cut_case(k):
        data = lambda: prefix[:k]  # noqa: E731
        rs = max([o for o in starts if o <= k] or [0])
        nxt = min([o for o in starts if o > k] or [k])
        edge = full_sweep or k - rs < 32 or nxt - k <= 8
        modes = [(BIN, False), (BIN, True)] if edge else [(sweep_bin, False)]
        if edge and sweep_bin != BIN:
            modes.append((sweep_bin, False))
        if k == 0:
            return ("cut at 0", data, 1, r"is not a cudatrace trace file \(it is empty\)$", modes)
        if k < 16:
            return ("cut at %d" % k, data, 1,
                    r"ends inside its file header \(capture cut short\?\)$", modes)
        before = boundaries[rs]
        if k in boundaries:
            return ("cut at %d" % k, data, 1,
                    r"has no trailer: the capture was cut short .*decoded all %d complete "
                    r"records.*%s$" % (before, PARTIAL), modes)
        return ("cut at %d" % k, data, 1,
                r"file ends inside a record( header)? \(capture cut short\?\) at byte "
                r"offset %d; decoded the %d records before it%s$" % (rs, before, PARTIAL), modes)
    cases.group("%s cut at every byte offset 0..%d (first %d records): the good "
                "prefix is decoded, then 'cut short'" % (os.path.basename(TRACE), len(prefix),
                                                         PREFIX_RECORDS),
                [cut_case(k) for k in range(len(prefix) + 1)],
                env=dict(ENV, ASAN_OPTIONS=ENV["ASAN_OPTIONS"].replace("detect_leaks=1",
                                                                       "detect_leaks=0")))
    cases.group("a complete trace cut inside its trailer",
                [("cut at %d" % k, lambda k=k: good[:k], 1,
                  r"ends inside a record.*decoded the %d records before it%s$" % (PREFIX_RECORDS,
                                                                                 PARTIAL))
                 for k in range(len(prefix) + 1, len(good))])

    # --- random corruption (reproducible) -------------------------------------
    rng = random.Random(SEED)
    # Half anywhere, half in the fixed-size heads of records, where the sizes are.
    heads = [off + i for off, plen in recs[:PREFIX_RECORDS] for i in range(min(plen, 128))]
    flips = []

    def flip(pos, x):
        b = bytearray(good)
        b[pos] ^= x
        return bytes(b)
    for i in range(2000):
        pos = rng.randrange(16, len(good)) if i % 2 else rng.choice(heads)
        x = rng.randrange(1, 256)
        flips.append(("flip #%d: byte %d ^= 0x%02x" % (i, pos, x),
                      lambda pos=pos, x=x: flip(pos, x), None, None))
    cases.group("2000 single-byte flips (seed %d)" % SEED, flips)

    special = [0, 1, 7, 8, 23, 24, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0xffff, 0x10000,
               CT_ARG_MAX - 1, CT_ARG_MAX, CT_NEST_MAX, CT_NEST_MAX + 1, CT_RECORD_MAX,
               CT_RECORD_MAX + 1, CT_META_MAX, CT_META_MAX + 1, 0x7fffffff, 0x80000000,
               0xfffffff8, 0xffffffff]
    multi = []
    for i in range(200):
        b = bytearray(good)
        how = i % 6
        if how == 0:     # a run of random bytes
            pos = rng.randrange(16, len(b))
            n = rng.randrange(2, 64)
            b[pos:pos + n] = bytes(rng.randrange(256) for _ in range(n))[:len(b) - pos]
        elif how == 1:   # a size-like field set to an edge value
            off, plen = rng.choice(recs[:PREFIX_RECORDS])
            field = rng.choice([4, 96, 100, 104, 108, 40, 44, 48] + [rng.randrange(0, 128, 4)])
            if field + 4 <= plen:
                struct.pack_into("<I", b, off + field, rng.choice(special))
        elif how == 2:   # bytes removed
            pos = rng.randrange(16, len(b))
            del b[pos:pos + rng.randrange(1, 300)]
        elif how == 3:   # a range duplicated
            pos = rng.randrange(16, len(b))
            b[pos:pos] = b[pos:pos + rng.randrange(1, 300)]
        elif how == 4:   # two records swapped
            (o1, l1), (o2, l2) = sorted(rng.sample(recs[:PREFIX_RECORDS], 2))
            b = b[:o1] + b[o2:o2 + l2] + b[o1 + l1:o2] + b[o1:o1 + l1] + b[o2 + l2:]
        else:            # several flips in one record
            off, plen = rng.choice(recs[:PREFIX_RECORDS])
            for _ in range(rng.randrange(2, 9)):
                b[off + rng.randrange(plen)] ^= rng.randrange(1, 256)
        multi.append(("corruption #%d (kind %d)" % (i, how), bytes(b), None, None))
    cases.group("200 multi-byte corruptions: runs, edge-value sizes, cuts, copies, swaps "
                "(seed %d)" % SEED, multi)

    # --- records that lie about their size --------------------------------------
    meta = full[recs[0][0]:recs[0][0] + recs[0][1]]
    head = PRE + meta
    lies = [
        ("size 0xffffffff", head + rec(2, size=0xffffffff), r"impossible size at byte offset %d" % len(head)),
        ("size CT_RECORD_MAX+1", head + rec(3, size=CT_RECORD_MAX + 1), r"impossible size"),
        ("size 0", head + rec(2, size=0), r"impossible size"),
        ("size 23 (less than a header)", head + rec(2, size=23), r"impossible size"),
        ("META size CT_META_MAX+1", PRE + rec(1, size=CT_META_MAX + 1), r"impossible size at byte offset 16"),
        ("size CT_RECORD_MAX, file ends", head + struct.pack("<II", 2, CT_RECORD_MAX) + ioctl(2)[8:],
         r"file ends inside a record \(capture cut short\?\)"),
        ("ioctl arg_size past the end", head + pad8(ioctl(2, arg=b"A" * 16, arg_size=4096)),
         r"ioctl record buffer sizes do not add up"),
        ("ioctl arg_size 0xffffffff", head + pad8(ioctl(2, arg=b"A" * 16, arg_size=0xffffffff)),
         r"larger than any capture can make"),
        ("ioctl nest_size past the end", head + pad8(ioctl(3, arg=b"A" * 16, nest=b"B" * 8,
                                                           nest_size=1 << 17)),
         r"do not add up"),
        ("ioctl nest_size 0xfffffff0", head + pad8(ioctl(3, nest=b"B" * 8, nest_size=0xfffffff0)),
         r"larger than any capture can make"),
        ("ioctl sizes that add up only modulo 2^32",
         head + pad8(ioctl(2, arg=b"A" * 16, arg_size=16, nest_size=0xfffffff8)),
         r"larger than any capture can make"),
        ("ioctl shorter than its header", head + pad8(rec(2, b"x" * 40)), r"shorter than its header"),
        ("proc argv_size past the end", head + pad8(rec(6, struct.pack(
            "<II16sIIII", 1, 1, b"a", 5000, 0, 0, 0) + b"a\0")), r"process record"),
        ("proc env_size 0xffffffff", head + pad8(rec(6, struct.pack(
            "<II16sIIII", 1, 1, b"a", 2, 0xffffffff, 0, 0) + b"a\0")), r"process record"),
        ("mmap record of the wrong size", head + pad8(rec(4, b"\0" * 40)), r"mmap record has the wrong size"),
        ("munmap record of the wrong size", head + pad8(rec(5, b"\0" * 40)), r"munmap record"),
        ("fork record of the wrong size", head + pad8(rec(7, b"\0" * 16)), r"fork record"),
        ("exit record with a payload", head + pad8(rec(8, b"\0" * 8)), r"exit record"),
        ("fd path longer than its record", head + pad8(rec(9, struct.pack("<IIQII", 1, 0, 0, 4096, 0)
                                                        + b"/dev/x")), r"fd path record"),
        ("trailer ncpu 0xffffffff", head + pad8(rec(10, struct.pack("<QQQII", 1, 0, 0, 0xffffffff, 0))),
         r"trailer sizes do not add up"),
        ("trailer ncpu larger than its record", head + pad8(rec(10, struct.pack("<QQQII", 1, 0, 0, 64, 0)
                                                             + b"\0" * 16)),
         r"trailer sizes do not add up"),
        ("record type past the reserved range", head + pad8(rec(300, b"12345678")),
         r"unknown record type"),
        ("record type 0", head + pad8(rec(0)), r"unknown record type"),
    ]
    cases.group("records that claim impossible or inconsistent sizes: exit 1, "
                "the byte offset, the records before it decoded",
                [(label, data, 1, want + r".*; decoded the \d+ records before it" +
                  (PARTIAL if "file ends" in label else "") + "$")   # a cut: partial
                 for label, data, want in lies])

    # A record type from a newer version (within the reserved range): skipped,
    # said once, the rest decoded, exit 0.
    newer_trailer = pad8(rec(10, struct.pack("<QQQII", 2, 0, 0, 1, 0) + b"\0" * 8))
    cases.group("record types of a newer version: skipped and counted, the rest decoded",
                [("type %d" % t_, head + pad8(rec(t_, b"12345678")) + newer_trailer, 0,
                  r"^cudatrace: skipped 1 records of a type this version does not know")
                 for t_ in (77, 255)])

    # --- --gpu-work segment records (type 19) ----------------------------------
    def seg_entry(ndw, va=0x200800000):   # clc86f.h: GET 31:2, GET_HI, LENGTH 30:10
        return (va & 0xfffffffc) | ((va >> 32) & 0xff | (ndw & 0x1fffff) << 10) << 32

    def gseg(ndw, dwords, cls=0xc86f, flags=0, lost=0, put=3, entry=None):
        body = struct.pack("<IIIiIIIIQQIIII", 0xc1d00001, 0x5c00001c, cls, 0, 1, 1024, 2, put,
                           seg_entry(ndw) if entry is None else entry, 0x200800000, ndw, ndw,
                           flags, lost) + dwords
        return pad8(rec(19, body))
    def gput(since, until, client=0xc1d00001, chan=0x5c00001c, frm=0, put=3):
        return pad8(rec(20, struct.pack("<IIIIQ", client, chan, frm, put, since), ts=until))
    rnd = random.Random(21)
    garbage = b"".join(struct.pack("<I", rnd.getrandbits(32)) for _ in range(4096))
    cases.group("--gpu-work segment records: garbage decodes, sizes that lie are refused", [
        ("garbage dwords", head + gseg(4096, garbage) * 3, 1, r"no trailer"),
        ("garbage on an unknown channel class", head + gseg(4096, garbage, cls=0x1234), 1,
         r"no trailer"),
        ("lost, wrap, GPPut outside the ring", head + gseg(0, b"", flags=12, lost=0xffffffff,
                                                           put=99999), 1, r"no trailer"),
        # CT_GS_LATE (16): a channel learned too late for the look at exit;
        # alone, with dwords, with a count and a wrap, outside the ring
        ("a late channel's word, and the flag where it does not belong", head +
         gseg(0, b"", flags=4 | 16) + gseg(0, b"", flags=16) + gseg(16, garbage[:64], flags=16)
         + gseg(0, b"", flags=4 | 8 | 16, lost=0xffffffff, put=99999), 1, r"no trailer"),
        ("ndwords past the record", head + gseg(100, b"\0" * 16), 1,
         r"gpu segment record sizes do not add up.*; decoded the \d+ records before it$"),
        # GPFIFO control entries (length 0): every opcode byte, sync set,
        # a base of all ones, and dwords a control entry cannot have
        ("control entries of every opcode", head + b"".join(
            gseg(0, b"", entry=(op | 1 << 31 | 1 << 9) << 32 | 0xffffffff) for op in range(256)),
         1, r"no trailer"),
        ("a control entry that came with dwords", head + gseg(4096, garbage, entry=2 << 32), 1,
         r"no trailer"),
        ("control entries on a class no table has", head + gseg(0, b"", cls=0x1234, entry=4 << 32)
         + gseg(16, garbage[:64], cls=0x1234, entry=0), 1, r"no trailer"),
        ("a segment entry longer than its dwords", head + gseg(4, b"\0" * 16, entry=seg_entry(
            0x1fffff, 0xffffffffff)), 1, r"no trailer"),
        # type 20: the window a channel's entries were put in
        ("windows of every shape before segments", head + b"".join(
            gput(since, until, client, chan, frm, put) + gseg(4096, garbage)
            for since, until in ((0, 0), (5, 1), (0, 2**64 - 1), (2**64 - 1, 2**64 - 1))
            for client, chan in ((0, 0), (0xc1d00001, 0x5c00001c), (0xffffffff, 0xffffffff))
            for frm, put in ((0, 0), (0xffffffff, 3))), 1, r"no trailer"),
        ("a window record of the wrong size", head + pad8(rec(20, b"\0" * 16)), 1,
         r"gpu put record has the wrong size.*; decoded the \d+ records before it$"),
        # type 22, the kernel's copies at exit: ring buffer only, never in a
        # file the capture writes; in one, it is checked and passed over
        ("exit copies in a file: passed over", head + b"".join(
            pad8(rec(22, struct.pack("<IIIIIIIIQQ", slot, frm, put, idx, flags, 4096, n, 0,
                                     seg_entry(4096), 0x200800000) + garbage[:4 * n]))
            for slot, frm, put, idx, flags, n in ((0, 0, 5, 0, 1, 0), (255, 0xffffffff, 3, 7, 0, 4096),
                                                  (0xffffffff, 1, 0xffffffff, 0xffffffff, 0x3f, 16),
                                                  (0, 0, 0, 0, 0x40, 0), (7, 3, 5, 1, 0x7f, 16))),
         1, r"no trailer"),
        ("an exit copy whose dwords lie", head + pad8(rec(22, struct.pack(
            "<IIIIIIIIQQ", 0, 0, 5, 0, 0, 4096, 4096, 0, 0, 0) + b"\0" * 64)), 1,
         r"gpu exit record sizes do not add up.*; decoded the \d+ records before it$"),
    ])

    # --- --gpu-work QMD chains (CUDA graphs) and clusters ----------------------------
    # QMD V04_00 fields by hand (clcbc0qmd.h): QMD_TYPE 25:23, REQUIRE_SCHEDULING_PCAS
    # 30, DEPENDENCE_COUNTER 15:0, DEPENDENT_QMD_ENABLE(i) 368+5i, ACTION(i)
    # 371+5i:369+5i (SCHEDULE 1), DEPENDENT_QMD0/1_POINTER 479:448 / 511:480
    # (address >> 8), QMD_MAJOR_VERSION 583:580, GRID_* dwords 32-34,
    # CTA_THREAD_DIMENSION* 36-37, GPC_CGA_* dword 67.
    def qmd(gx, deps=(), require=False, cga=(0, 0, 0), qtype=2, counter=0):
        q = [0] * 96
        q[0] = qtype << 23 | require << 30 | counter
        q[18] = 4 << 4
        q[32], q[33], q[34], q[36], q[37] = gx, 1, 1, 32 | 1 << 16, 1
        for i, a in enumerate(deps[:2]):
            q[11] |= (1 | 1 << 1) << (16 + 5 * i)
            q[14 + i] = (a >> 8) & 0xffffffff
        q[67] = cga[0] | cga[1] << 8 | cga[2] << 16
        return q

    def hd(op, n, sub, m):
        return op << 29 | n << 16 | sub << 13 | m >> 2

    def up(addr, q):   # LINE_LENGTH_IN.., LAUNCH_DMA, LOAD_INLINE_DATA
        return [hd(1, 4, 1, 0x180), 384, 1, addr >> 32, addr & 0xffffffff,
                hd(1, 1, 1, 0x1b0), 0x41, hd(3, 96, 1, 0x1b4)] + q

    def snd(addr):     # SEND_PCAS_A, SEND_SIGNALING_PCAS2_B (schedule)
        return [hd(1, 1, 1, 0x2b4), (addr >> 8) & 0xffffffff, hd(1, 1, 1, 0x2c0), 0xa]

    def whole(groups):  # each group of dwords in segments of its own (methods never cut)
        out, cur = b"", [hd(1, 1, 1, 0), 0xcbc0]
        for g in groups:
            if len(cur) + len(g) > 4096:
                out += gseg(len(cur), struct.pack("<%dI" % len(cur), *cur))
                cur = []
            cur += g
        return out + gseg(len(cur), struct.pack("<%dI" % len(cur), *cur))

    A = lambda i: 0x300000000 + 0x200 * i  # noqa: E731
    loop = whole([up(A(0), qmd(0, [A(1)])), up(A(1), qmd(5, [A(2)], True)),
                  up(A(2), qmd(6, [A(1), A(0)], True))] + [snd(A(0))] * 2000)
    selfloop = whole([up(A(0), qmd(0, [A(0), A(0)]))] + [snd(A(0))] * 2000)
    nowhere = whole([up(A(0), qmd(0, [A(99), 0])), up(A(1), qmd(0, [0xffffffff << 8] * 2))]
                    + [snd(A(0)), snd(A(1)), snd(A(7)), snd(0)] * 500)
    full = whole([up(A(i), qmd(i + 1, [A(i + 1), A(i + 2)], True)) for i in range(9000)]
                 + [up(A(20000), qmd(0, [A(0), A(1)]))] + [snd(A(20000))] * 3)
    clusters = whole([up(A(0), qmd(0xffffffff, cga=(63, 63, 63), qtype=3)), snd(A(0)),
                      up(A(1), qmd(7, cga=(0, 5, 0), qtype=5)), snd(A(1)),
                      up(A(2), qmd(0, [A(2)], counter=0xffff)), snd(A(2))])
    cases.group("--gpu-work QMD chains and clusters: loops, nowhere, full memory, huge shapes", [
        ("a chain that loops, its head sent 2000 times", head + loop, 1, r"no trailer"),
        ("a head that schedules itself twice", head + selfloop, 1, r"no trailer"),
        ("chains to nowhere: never uploaded, null, the top of memory", head + nowhere, 1,
         r"no trailer"),
        ("9000 QMDs (memory full) in one chain, each reached twice", head + full, 1,
         r"no trailer"),
        ("clusters of 63^3 over a grid of 2^32-1; a partial shape; a head that waits 65535",
         head + clusters, 1, r"no trailer"),
    ], jobs=1)

    # --- memory: the largest legal records, many pending calls ------------------------
    big_meta = b"".join(b"key%06d=%s\n" % (i, b"v" * 100) for i in range(9000))[:CT_META_MAX - SIZEOF_REC]
    big_ioctl = ioctl(2, arg=b"A" * (CT_ARG_MAX - 1), nest=b"N" * CT_NEST_MAX)
    many = head + b"".join(pad8(ioctl(2, cmd=0xc020462a, arg=b"A" * 32, nest=b"N" * 4096, tid=1000 + i))
                           for i in range(3000))
    cases.group("largest legal records and 3000 pending calls stay inside %d MiB" % MEM_MB, [
        ("1 MiB META", PRE + pad8(rec(1, big_meta)), 1, r"no trailer"),
        ("max-size ioctl x3", head + pad8(big_ioctl) * 3, 1, r"no trailer"),
        ("3000 threads with a call pending", many, 1, r"no trailer"),
    ], jobs=1)

    # --- not trace files ------------------------------------------------------------
    dirpath = os.path.join(tmp, "adir")
    os.mkdir(dirpath)
    v2 = b"CUDATRCE" + struct.pack("<II", 2, 16) + meta
    vmax = b"CUDATRCE" + struct.pack("<II", 0xffffffff, 0xffffffff)
    others = [
        ("wrong magic", cases.file(b"CUDATRCX" + good[8:]), r"is not a cudatrace trace file$"),
        ("an ELF file", BIN, r"is not a cudatrace trace file$"),
        ("format version 2", cases.file(v2), r"is trace format version 2; this cudatrace reads "
                                            r"version 1 \(use a newer cudatrace\)$"),
        ("format version 0xffffffff", cases.file(vmax), r"use a newer cudatrace"),
        ("version 1 with a 32-byte header", cases.file(b"CUDATRCE" + struct.pack("<II", 1, 32) + meta),
         r"damaged file header"),
        ("version 0", cases.file(b"CUDATRCE" + struct.pack("<II", 0, 16) + meta), r"damaged file header"),
        ("an empty file", cases.file(b""), r"is not a cudatrace trace file \(it is empty\)$"),
        ("a directory", dirpath, r"is a directory, not a trace file$"),
        ("a missing file", os.path.join(tmp, "no-such-file"), r"cannot open .*No such file or directory$"),
        ("/dev/null", "/dev/null", r"is not a cudatrace trace file \(it is empty\)$"),
    ]
    for label, path, want in others:
        b = check_both(path, want_rc=1, want=want)
        tap.ok(b is None, "%s: exit 1, says so" % label, b)

    # --- zstd-compressed (-z) traces -------------------------------------------------
    if not shutil.which("zstd"):
        tap.skip("compressed traces: cut, damaged, bombs", "no zstd tool")
    else:
        def zstd(data):
            return subprocess.run(["zstd", "-q", "-c", "-3"], input=data,
                                  stdout=subprocess.PIPE, check=True).stdout
        zgood = zstd(good)
        b = check_both(cases.file(zgood), 0, r"^$")
        tap.ok(b is None, "a compressed trace decodes cleanly", b)

        def zcut(k):
            if k < 4:   # not even zstd's magic
                return ("zstd cut at %d" % k, zgood[:k], 1,
                        r"is not a cudatrace trace file( \(it is empty\))?$")
            return ("zstd cut at %d" % k, lambda: zgood[:k], 1,
                    r"(compressed data ends inside a zstd frame|ends inside a record"
                    r"( header)? \(capture cut short\?\)).*(before it%s|file header)$" % PARTIAL,
                    [(BIN, False)] + ([(BIN, True)] if full_sweep or k % 16 == 0 else []))
        cases.group("the compressed trace cut at every byte offset 0..%d" % (len(zgood) - 1),
                    [zcut(k) for k in range(len(zgood))])
        zflips = []
        for i in range(300):
            pos, x = rng.randrange(len(zgood)), rng.randrange(1, 256)
            b = bytearray(zgood)
            b[pos] ^= x
            zflips.append(("zstd flip #%d: byte %d ^= 0x%02x" % (i, pos, x), bytes(b), None, None))
        cases.group("300 single-byte flips in the compressed trace (seed %d)" % SEED, zflips)
        # 7 MB of records from 1 KB; and 100 MB of zeros after a good header.
        bomb = zstd(head + rec(8) * 300000)
        zeros = zstd(head + b"\0" * (100 << 20))
        def zstd_long(data, wlog):   # from a pipe: no content size, the whole window
            return subprocess.run("zstd -q -c --long=%d" % wlog, shell=True, input=data,
                                  stdout=subprocess.PIPE, check=True).stdout
        cases.group("decompression bombs and huge windows stay inside %d MiB and %d s"
                    % (MEM_MB, TIMEOUT), [
            ("300000 exit records (%d bytes compressed)" % len(bomb), bomb, 1, r"no trailer"),
            ("100 MiB of zeros (%d bytes compressed)" % len(zeros), zeros, 1,
             r"impossible size at byte offset %d" % len(head)),
            ("a 128 MiB window", zstd_long(good, 27), 0, r"^$"),
            ("a 2 GiB window", zstd_long(good, 31), 1, r"Frame requires too much memory"),
        ], jobs=1)

    # --- control bytes in strings ----------------------------------------------------
    evil = b"ev\nil\x1b[31m\x9b2J"[:16]
    evil_path = b"/tmp/a\nb\x1b]0;x\x07"
    fdrec = pad8(rec(9, struct.pack("<IIQII", 0x800001, 16, 77, len(evil_path), 0) + evil_path))
    call = struct.pack("<Q16siIQIIQqQIIIIII", 36672163713, evil, 3, 0x800001, 77, 0xc0104629,
                       16, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    mm = struct.pack("<Q16siIQQQIIQqII", 36672163713, evil, 3, 0x800001, 77, 0, 4096, 3, 1, 0,
                     0x7f0000000000, 16, 0)
    path = cases.file(head + fdrec + pad8(rec(2, call)) + pad8(rec(3, call)) + pad8(rec(4, mm))
                      + pad8(rec(8)) + trailer, "evil.ctrace")
    res = []
    # --compat: exit 1 (the forged path is no device nvproxy exposes).
    for extra, want_rc in (([], 0), (["-v"], 0), (["-C", "--summary-by=pid"], 0),
                           (["--compat=gvisor"], 1)):
        args, pre = command(BIN, "-r", path, *extra)
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, preexec_fn=pre, env=ENV)
        out = p.stdout
        b = verdict(p.returncode, p.stderr.decode("utf-8", "replace"), want_rc=want_rc)
        if b:
            res.append("%s: %s" % (extra, b))
        elif any(c in out for c in (b"\x1b", b"\x9b", b"\x07")) or any(
                line.startswith((b"il", b"b")) for line in out.split(b"\n")):
            res.append("%s: raw control bytes or a forged line in %r" % (extra, out[:600]))
    tap.ok(not res, "control bytes in comm and paths are escaped in text: no forged lines, "
           "no terminal escapes", "\n".join(res))

    # --- output that cannot be written ---------------------------------------------
    if os.path.exists("/dev/full"):
        args, pre = command(BIN, "-r", gpath_good, "-o", "/dev/full")
        p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, preexec_fn=pre, env=ENV)
        err = p.stderr.decode("utf-8", "replace")
        b = verdict(p.returncode, err, want_rc=1, want=r"writing /dev/full failed: No space")
        tap.ok(b is None, "-o /dev/full (disk full): exit 1, says so", b)
    else:
        tap.skip("-o /dev/full", "no /dev/full")

    # --- pipes ----------------------------------------------------------------------
    gpath = os.path.join(tmp, "good.ctrace")
    with open(gpath, "rb") as f:
        b = verdict(*run("-", stdin=f), want_rc=0, want=r"^$")
    tap.ok(b is None, "a trace on stdin (-r -) decodes", b)
    fifo = os.path.join(tmp, "fifo")
    try:
        os.mkfifo(fifo)
    except OSError as e:
        tap.skip("a trace from a FIFO", "mkfifo: %s" % e)
    else:
        def feed(data):
            try:
                with open(fifo, "wb") as w:
                    w.write(data)
            except OSError:
                pass
        res = []
        for label, data, want_rc, want in [
                ("whole", good, 0, r"^$"),
                ("cut", good[:len(good) // 2], 1,
                 r"ends inside a record.*decoded the \d+ records before it%s$" % PARTIAL)]:
            t = threading.Thread(target=feed, args=(data,), daemon=True)
            t.start()
            b = verdict(*run(fifo), want_rc=want_rc, want=want)
            t.join(TIMEOUT)
            if b:
                res.append("%s: %s" % (label, b))
        tap.ok(not res, "a trace from a FIFO decodes; one cut short says so", "\n".join(res))


if __name__ == "__main__":
    main()
