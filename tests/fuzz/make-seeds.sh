#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Seeds for tests/fuzz/fuzz_trace.c, cut from the real traces in traces/.
#
#   tests/fuzz/make-seeds.sh OUTDIR [N]
#
# Writes into OUTDIR (created; existing files are kept):
#   file-<trace>-<N>        the preamble and the first N records of each trace
#                           (default 16), then that trace's trailer
#   file-<trace>-kinds      the first record of each kind past those N (stacks,
#                           Python frames, stack ends, GPU segments...)
#   pair-<trace>-<cmd>-<sz> preamble + META + the first entry/exit pair of each
#                           distinct (request, argument size) in the trace
#   rec-<trace>-<...>       single raw records (the fuzzer's live-path mode):
#                           the first of each record type, every distinct
#                           ioctl (request, size) exit
#   edge-*                  hand-made edge cases: bad magic, newer version,
#                           sizes that lie, unterminated env, empty trailer...
#   zst-*                   some of the above compressed as -z writes them
#                           (zstd frames), whole, cut and damaged (needs the
#                           zstd tool; left out without it)
#
# Seeds are not committed: `make fuzz` merges what adds coverage into
# tests/fuzz/corpus/.  Needs python3 (as the tests do).
set -eu

out=${1:?usage: make-seeds.sh OUTDIR [N]}
n=${2:-16}
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"

exec python3 - "$out" "$n" "$top"/traces/*.ctrace "$top"/traces/kernels/*.ctrace <<'EOF'
import hashlib, os, shutil, struct, subprocess, sys

out, n, traces = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
PRE = b"CUDATRCE" + struct.pack("<II", 1, 16)
HDR = struct.Struct("<IIQII")          # struct ct_rec
IOCTL = 24 + 8 + 16 + 4 + 4 + 8 + 4 + 4 + 8 + 8 + 8 + 4 * 6   # sizeof(struct ct_ioctl)
seen = set()

def pad(b):
    return b + b"\0" * (-len(b) % 8)

def put(name, data):
    h = hashlib.sha1(data).hexdigest()
    if h in seen:
        return
    seen.add(h)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

def records(path):
    d = open(path, "rb").read()
    if d[:4] == b"\x28\xb5\x2f\xfd":   # zstd (-z): the records are inside
        d = subprocess.run(["zstd", "-q", "-d", "-c"], input=d, stdout=subprocess.PIPE).stdout
    off, recs = 16, []
    while off + 24 <= len(d):
        t, s = struct.unpack_from("<II", d, off)
        if s < 24 or off + s > len(d):
            break
        recs.append(d[off:off + s])
        off += (s + 7) & ~7
    return recs

def rec(t, payload=b"", pid=100, tid=101, ts=36672163713 + 1000):
    return HDR.pack(t, 24 + len(payload), ts, pid, tid) + payload

for path in traces:
    name = os.path.basename(path).replace(".ctrace", "")
    recs = records(path)
    if not recs:
        continue
    meta = recs[0]
    trailer = [r for r in recs if HDR.unpack_from(r)[0] == 10]
    put("file-%s-%d" % (name, n),
        PRE + b"".join(pad(r) for r in recs[:n] + trailer[:1]))
    types = {}
    enters = {}
    pairs = {}
    for r in recs:
        t = HDR.unpack_from(r)[0]
        types.setdefault(t, r)
        if t in (2, 3):
            cmd, = struct.unpack_from("<I", r, 64)
            asz, = struct.unpack_from("<I", r, 96)
            tid = HDR.unpack_from(r)[4]
            if t == 2:
                enters[tid] = r
            elif (cmd, asz) not in pairs and tid in enters:
                pairs[(cmd, asz)] = (enters.pop(tid), r)
    for t, r in sorted(types.items()):
        put("rec-%s-type%d" % (name, t), r)
    # The records past the first N: a call with its stack, Python frames,
    # stack end and GPU segments, in the file's own order.
    first = {}
    for i, r in enumerate(recs):
        first.setdefault(HDR.unpack_from(r)[0], i)
    late = sorted(i for t, i in first.items() if t not in (1, 10) and i >= n)
    if late:
        put("file-%s-kinds" % name,
            PRE + pad(meta) + b"".join(pad(recs[i]) for i in late) + b"".join(
                pad(r) for r in trailer[:1]))
    for (cmd, asz), (en, ex) in sorted(pairs.items()):
        put("pair-%s-%08x-%d" % (name, cmd, asz), PRE + pad(meta) + pad(en) + pad(ex))
        put("rec-%s-%08x-%d" % (name, cmd, asz), ex)
    # --gpu-work alone: each channel's segments and windows with every
    # kernel name, in order (a stream's channel holds its graph launches,
    # whose chains the decoder walks, and launches it names; at most 64 KiB
    # of a channel, so that fuzzing stays fast), and the first N of all.
    gpu = [r for r in recs if HDR.unpack_from(r)[0] in (19, 20, 21)]
    procs = [r for r in recs if HDR.unpack_from(r)[0] == 6][:1]
    chans = {}
    for r in gpu:
        if HDR.unpack_from(r)[0] != 21:
            chans.setdefault(struct.unpack_from("<I", r, 28)[0], []).append(r)
    for ch, rs in sorted(chans.items()):
        keep = [r for r in gpu if HDR.unpack_from(r)[0] == 21 or r in rs]
        while sum(len(r) for r in keep) > 65536:
            keep.pop()
        put("gpu-%s-chan-%x" % (name, ch),
            PRE + b"".join(pad(r) for r in [meta] + procs + keep + trailer[:1]))
    if gpu:
        put("gpu-%s-%d" % (name, n), PRE + b"".join(pad(r) for r in [meta] + procs + gpu[:n]))

# --- hand-made edge cases -------------------------------------------------
meta = rec(1, b"driver=580.159.04\nstart_monotonic_ns=36672163713\n"
              b"device=0xc3000ff 0 0 /dev/nvidiactl\nnovalue\n=\nkey=\n")
trailer = rec(10, struct.pack("<QQQII", 2, 0, 0, 2, 0) + struct.pack("<QQ", 0, 0))
def proc(argv, env, src=1):
    return rec(6, struct.pack("<II16sIIII", 1, src, b"saxpy", len(argv), len(env), 0, 0)
               + argv + env)
def ioctl(t, cmd, arg=b"", nest=b"", flags=0, nest_ptr=0, ts_enter=36672163713, ret=0, tid=101):
    body = struct.pack("<Q16siIQIIQqQIIIIII", ts_enter, b"saxpy", 3, 0xc3000ff, 0, cmd,
                       flags, 0x7ffd0000, ret, nest_ptr, len(arg), len(arg),
                       len(nest), len(nest), 1, 0)
    return rec(t, body + arg + nest, tid=tid)

put("edge-empty", b"")
put("edge-preamble-only", PRE)
put("edge-preamble-short", PRE[:11])
put("edge-bad-magic", b"CUDATRCX" + PRE[8:] + pad(meta))
put("edge-version-2", b"CUDATRCE" + struct.pack("<II", 2, 16) + pad(meta))
put("edge-preamble-size", b"CUDATRCE" + struct.pack("<II", 1, 32) + pad(meta))
put("edge-meta-trailer", PRE + pad(meta) + pad(trailer))
put("edge-size-huge", PRE + pad(meta) + HDR.pack(2, 0xffffffff, 0, 1, 1))
put("edge-size-zero", PRE + pad(meta) + HDR.pack(2, 0, 0, 1, 1))
put("edge-size-max1", PRE + pad(meta) + HDR.pack(2, IOCTL + 16384 + 262144 + 65, 0, 1, 1))
put("edge-meta-huge", PRE + HDR.pack(1, (1 << 20) + 1, 0, 0, 0))
put("edge-type-unknown", PRE + pad(meta) + pad(rec(99, b"12345678")))
# A stack's end record: a kind past the known ones, a need past any -k,
# and one cut short.
put("edge-stack-end-kind", PRE + pad(meta) + pad(rec(18, struct.pack("<II", 0xffffffff, 0))))
put("edge-stack-end-need", PRE + pad(meta) + pad(rec(18, struct.pack("<II", 2, 0xffffffff))))
put("edge-stack-end-short", PRE + pad(meta) + pad(rec(18, struct.pack("<I", 2))))
# A GPU work window (GPU_PUT): a plain one, one that ends before it began,
# indexes past any ring, and one cut short.
put("edge-gpu-put", PRE + pad(meta) + pad(rec(20, struct.pack("<IIIIQ", 1, 2, 0, 5, 1000))))
put("edge-gpu-put-backwards", PRE + pad(meta) + pad(rec(20, struct.pack(
    "<IIIIQ", 1, 2, 0, 5, 0xffffffffffffffff))))
put("edge-gpu-put-index", PRE + pad(meta) + pad(rec(20, struct.pack(
    "<IIIIQ", 0, 0, 0xffffffff, 0xfffffffe, 0))))
put("edge-gpu-put-short", PRE + pad(meta) + pad(rec(20, struct.pack("<III", 1, 2, 0))))
# The kernel's copies at exit (GPU_EXIT, ring buffer only): a head, an
# entry with dwords, dwords that lie, and one cut short.
put("rec-edge-gpu-exit-head", rec(22, struct.pack("<IIIIIIIIQQ", 0, 3, 5, 3, 1, 0, 0, 0, 0, 0)))
put("rec-edge-gpu-exit-seg", rec(22, struct.pack("<IIIIIIIIQQ", 0, 3, 5, 3, 0, 4, 4, 0,
                                                 0x0000100000800000, 0x200800000) + b"\1" * 16))
# the look's start (CT_GX_LOOK, 0x40): alone, and with every other flag
put("rec-edge-gpu-exit-look", rec(22, struct.pack("<IIIIIIIIQQ", 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0)))
put("rec-edge-gpu-exit-look-all", rec(22, struct.pack("<IIIIIIIIQQ", 3, 1, 5, 2, 0x7f, 4, 4, 0,
                                                      0x0000100000800000, 0x200800000) + b"\1" * 16))
# -k's walk in the kernel (KSTACK, 24) and a gap it went past (KSTACK_GAP,
# 25), ring buffer only: well formed, and lying about their gap and sizes.
KSTACK = lambda n, gap_at: rec(24, struct.pack("<IIIIII", n, 0, 0, 0, 4096, gap_at) +
                                   struct.pack("<%dQ" % n, *range(0x7f0000001000, 0x7f0000001000 + n)))
GAP = lambda at, sp, end_sp, nbytes: rec(25, struct.pack("<IIQQQQQ", at, 1, 0x7f0000001001, sp,
                                                          0x7ffd0100, end_sp, 0x7f0000001002) +
                                         b"\x11" * nbytes)
put("rec-edge-kstack-gap", KSTACK(3, 2))
put("rec-edge-kstack-gap-past", KSTACK(3, 3))
put("rec-edge-kstack-gap-huge", KSTACK(3, 0xffffffff))
put("rec-edge-kstack-gap-bytes", GAP(2, 0x7ffd0000, 0x7ffd0040, 64))
put("rec-edge-kstack-gap-lies", GAP(2, 0x7ffd0000, 0x7ffd1040, 64))
put("rec-edge-kstack-gap-backwards", GAP(2, 0x7ffd0040, 0x7ffd0000, 64))
put("rec-edge-kstack-gap-wraps", GAP(2, 0xffffffffffffffc0, 0x0, 64))
put("rec-edge-kstack-gap-at-0", GAP(0, 0x7ffd0000, 0x7ffd0040, 64))
put("rec-edge-kstack-gap-max", GAP(255, 0x7ffd0000, 0x7ffd0000 + 16384, 16384))
put("rec-edge-kstack-gap-over", GAP(1, 0x7ffd0000, 0x7ffd0000 + 16392, 16392))
put("edge-kstack-gap-in-file", PRE + pad(meta) + pad(GAP(2, 0x7ffd0000, 0x7ffd0040, 64)))
# a channel learned too late for the look (GPU_SEG, CT_GS_LOST | CT_GS_LATE)
# and the flag with a count, a wrap and a GPPut outside the ring
put("edge-gpu-seg-late", PRE + pad(meta) + pad(rec(19, struct.pack(
    "<IIIiIIIIQQIIII", 1, 2, 0xc86f, 0, 0, 1024, 0, 3, 0, 0, 0, 0, 4 | 16, 0))))
put("edge-gpu-seg-late-wrap", PRE + pad(meta) + pad(rec(19, struct.pack(
    "<IIIiIIIIQQIIII", 1, 2, 0xc86f, -1, 7, 1024, 0, 99999, 0, 0, 0, 0, 4 | 8 | 16, 0xffffffff))))
put("edge-gpu-exit-lies", PRE + pad(meta) + pad(rec(22, struct.pack(
    "<IIIIIIIIQQ", 0, 0, 5, 0, 0, 9, 0xffffffff, 0, 0, 0))))
put("edge-gpu-exit-short", PRE + pad(meta) + pad(rec(22, struct.pack("<IIII", 0, 0, 5, 0))))
put("edge-cut-header", PRE + pad(meta) + HDR.pack(2, 200, 0, 1, 1)[:13])
put("edge-cut-body", PRE + pad(meta) + pad(ioctl(2, 0xc020462a, b"A" * 32))[:IOCTL + 5])
bad = bytearray(ioctl(2, 0xc020462a, b"A" * 32))
struct.pack_into("<I", bad, 96, 4096)          # arg_size points past the end
put("edge-argsize-past-end", PRE + pad(meta) + pad(bytes(bad)))
put("rec-edge-argsize-past-end", bytes(bad))
ctl = struct.pack("<IIII", 0xc1d00001, 0xc1d00001, 0x20800110, 0) + \
      struct.pack("<QII", 0x7ffd1000, 16, 0)
put("edge-rm-control", PRE + pad(meta)
    + pad(ioctl(2, 0xc020462a, ctl, b"\1" * 16, nest_ptr=0x7ffd1000))
    + pad(ioctl(3, 0xc020462a, ctl, b"\2" * 16, nest_ptr=0x7ffd1000, flags=3)) + pad(trailer))
put("edge-unfinished", PRE + pad(meta) + pad(ioctl(2, 0xc020462a, ctl))
    + pad(ioctl(2, 0xc020462a, ctl, ts_enter=5)) + pad(ioctl(3, 0xc0104629, b"", ret=-22)))
put("edge-tid0", PRE + pad(meta) + pad(ioctl(2, 0x1, tid=0)) + pad(ioctl(3, 0x1, tid=0)))
put("edge-proc", PRE + pad(meta) + pad(proc(b"a\0b" * 50, b"CUDA_X=1\0HOME=/\0NCCL_Y" , 3))
    + pad(proc(b"", b"", 9)))
put("rec-edge-proc-env-unterminated", proc(b"./a.out\0", b"CUDA_VISIBLE_DEVICES=0"))
put("rec-edge-proc-env", proc(b"./a.out\0-x\0", b"HOME=/root\0CUDA_X=1\0SECRET=2\0"))
put("edge-fdpath", PRE + pad(meta)
    + pad(rec(9, struct.pack("<IIQII", 0x800001, 16, 77, 9, 0) + b"/tmp/fake"))
    + pad(rec(4, struct.pack("<Q16siIQQQIIQqII", 1, b"x", 3, 0x800001, 77, 0, 4096, 3, 1,
                             0, -12, 16, 0)))
    + pad(rec(5, struct.pack("<QQQ", 0x7f0000, 4096, 4096)))
    + pad(rec(7, struct.pack("<II", 555, 0))) + pad(rec(8)))
# A raw Python stack (PYSTACK, ring buffer only): 5 frames, the outer 3
# left out as the thread's last record had them; then its lies: more left
# out than it has, frames left out of a record without a number, and a
# size that counts the frames left out.
def pystack(nframes, seq, outer_kept, sent):
    frame = struct.pack("<QQQII", 0x7f0000001000, 0x7f0000002010, 0x1234567890abcdef, 0, 0)
    return rec(16, struct.pack("<QIIII", 0x7f0000003000, nframes, 0, seq, outer_kept) + frame * sent)
put("rec-edge-pystack-outer-kept", pystack(5, 7, 3, 2))
put("rec-edge-pystack-kept-too-many", pystack(5, 7, 6, 0))
put("rec-edge-pystack-kept-no-seq", pystack(5, 0, 3, 2))
put("rec-edge-pystack-size-whole", pystack(5, 7, 3, 5))
put("rec-edge-trailer-ncpu0", rec(10, struct.pack("<QQQII", 1, 5, 6, 0, 0)))
put("rec-edge-mmap-err", rec(4, struct.pack("<Q16siIQQQIIQqII", 1, b"x", 3, 0xc300000, 0, 0,
                                            4096, 3, 1, 0, -12, 0, 0)))

# --gpu-work QMD chains (CUDA graphs) and clusters: V04_00 fields by hand
# (clcbc0qmd.h; the same as tests/hostile/hostile.py), in GPU_SEG records.
SCHEDULE, DECREMENT = 1, 4                          # DEPENDENT_QMD_ACTION values
def qmd(gx, deps=(), require=0, cga=(0, 0, 0), qtype=2, counter=0, program=0):
    """deps: addresses SCHEDULEd, or (address, action)."""
    q = [0] * 96
    q[0] = qtype << 23 | require << 30 | counter
    q[18] = 4 << 4
    q[32], q[33], q[34], q[36], q[37] = gx, 1, 1, 32 | 1 << 16, 1
    q[38], q[39] = program & 0xffffffff, program >> 32   # PROGRAM_ADDRESS_LOWER/UPPER
    for i, d in enumerate(deps[:2]):
        a, act = d if isinstance(d, tuple) else (d, SCHEDULE)
        q[11] |= (1 | act << 1) << (16 + 5 * i)     # ENABLE(i), ACTION(i)
        q[14 + i] = (a >> 8) & 0xffffffff           # DEPENDENT_QMDi_POINTER
    q[67] = cga[0] | cga[1] << 8 | cga[2] << 16     # GPC_CGA_WIDTH/HEIGHT/DEPTH
    return q
def hd(op, n, sub, m):
    return op << 29 | n << 16 | sub << 13 | m >> 2
def up(addr, q):
    return [hd(1, 4, 1, 0x180), 384, 1, addr >> 32, addr & 0xffffffff,
            hd(1, 1, 1, 0x1b0), 0x41, hd(3, 96, 1, 0x1b4)] + q
def snd(addr):
    return [hd(1, 1, 1, 0x2b4), (addr >> 8) & 0xffffffff, hd(1, 1, 1, 0x2c0), 0xa]
def gseg(dw):
    dw = [hd(1, 1, 1, 0), 0xcbc0] + dw
    entry = 0x200800000 & 0xfffffffc | ((0x200800000 >> 32) & 0xff | len(dw) << 10) << 32
    return rec(19, struct.pack("<IIIiIIIIQQIIII", 0xc1d00001, 0x5c00001c, 0xc86f, 0, 1, 1024,
                               2, 3, entry, 0x200800000, len(dw), len(dw), 0, 0)
               + struct.pack("<%dI" % len(dw), *dw))
A = lambda i: 0x300000000 + 0x200 * i
put("edge-gpu-graph", PRE + pad(meta) + pad(gseg(
    up(A(1), qmd(5, [A(2)], 1)) + up(A(2), qmd(6, [], 1)) + snd(A(2)) + snd(A(1))
    + up(A(0), qmd(0, [A(1)])) + snd(A(0)) + snd(A(0)))) + pad(trailer))
put("edge-gpu-graph-loop", PRE + pad(meta) + pad(gseg(
    up(A(0), qmd(0, [A(1), A(0)])) + up(A(1), qmd(5, [A(0), A(1)], 1)) + snd(A(0)) * 3)))
put("edge-gpu-graph-nowhere", PRE + pad(meta) + pad(gseg(
    up(A(0), qmd(0, [A(9), 0])) + up(A(1), qmd(0, [0xffffffff << 8])) + snd(A(0)) + snd(A(1))
    + snd(A(5)))))
put("edge-gpu-cluster", PRE + pad(meta) + pad(gseg(
    up(A(0), qmd(362, cga=(2, 1, 1), qtype=3)) + snd(A(0))
    + up(A(1), qmd(0xffffffff, cga=(63, 63, 63), qtype=3)) + snd(A(1))
    + up(A(2), qmd(0, [A(2)], counter=0xffff)) + snd(A(2)))))

# Kernel names (KERNEL_NAME, type 21; bpf/cudatrace.h struct ct_kernel_name):
# names for the programs that launches and a graph's nodes run, a name
# replaced, an ambiguous one, one by size, and records that lie.
def kname(program, name, module=b"", how=1, flags=0, candidates=0, name_size=None,
          module_size=None, pid=100):
    body = struct.pack("<QQIIIIIIII", program, 0x9e3779b97f4a7c15, 256, how, flags, candidates,
                       90, len(name) if name_size is None else name_size,
                       len(module) if module_size is None else module_size, 0)
    return rec(21, body + name + module, pid=pid, tid=0)
Pr = lambda i: 0x7f0000000000 + 0x1000 * i
names = b"".join(pad(r) for r in (
    kname(Pr(1), b"_ZN2at6native6kernelILi4EEEvPfS2_i\0", b"/lib/libtorch_cuda.so\0"),
    kname(Pr(2), b"k_two\0", how=4), kname(Pr(3), b"k_amb\0", flags=1, candidates=3),
    kname(Pr(4), b"jit:3f2a9c0011223344\0", how=5)))
put("rec-edge-kname", kname(Pr(1), b"_Z6kernelPfS_i\0", b"/a.out\0"))
put("rec-edge-kname-jit", kname(Pr(1), b"jit:0d0be55a85e42164\0", how=5))
put("edge-kname-launches", PRE + pad(meta) + b"".join(pad(r) for r in (
    kname(Pr(1), b"_ZN2at6native6kernelILi4EEEvPfS2_i\0", b"/lib/libtorch_cuda.so\0"),
    kname(Pr(2), b"k_two\0", how=4), kname(Pr(3), b"k_amb\0", flags=1, candidates=3),
    gseg(up(A(1), qmd(5, program=Pr(1))) + snd(A(1)) + up(A(2), qmd(6, program=Pr(2)))
         + snd(A(2)) + up(A(3), qmd(7, program=Pr(3))) + snd(A(3))),
    kname(Pr(1), b"k_again\0"), gseg(snd(A(1)) + snd(A(2)), ), trailer)))
# CT_KN_NAMES: code several functions have, its names listed (a label made)
put("rec-edge-kname-names", kname(Pr(1), b"_Z5k_addIiEvPT_\0_Z5k_addIfEvPT_\0k_add_u\0",
                                  b"/a.out\0", flags=3, candidates=3))
put("edge-kname-names", PRE + pad(meta) + b"".join(pad(r) for r in (
    kname(Pr(1), b"FillFunctor<int>\0FillFunctor<float>\0FillFunctor<unsigned int>\0",
          b"/lib/libtorch_cuda.so\0", flags=3, candidates=9),
    kname(Pr(2), b"\0\0k\0", how=4, flags=3, candidates=3),
    gseg(up(A(1), qmd(5, program=Pr(1))) + snd(A(1)) + up(A(2), qmd(6, program=Pr(2)))
         + snd(A(2))), trailer)))
put("edge-kname-graph", PRE + pad(meta) + b"".join(pad(r) for r in (
    names,
    gseg(up(A(1), qmd(5, [A(2), (A(9), DECREMENT)], 1, program=Pr(1)))
         + up(A(2), qmd(6, [(A(9), DECREMENT)], 1, program=Pr(2)))
         + up(A(9), qmd(9, [A(1)], 1, counter=2, program=Pr(3)))
         + up(A(0), qmd(0, [A(1)])) + snd(A(0)) + snd(A(0))), trailer)))
put("edge-kname-join-waits", PRE + pad(meta) + pad(gseg(
    up(A(1), qmd(5, [(A(9), DECREMENT), (A(9), DECREMENT)], 1, program=Pr(1)))
    + up(A(9), qmd(9, [], 1, counter=0xffff, program=Pr(2)))
    + up(A(0), qmd(0, [A(1), (A(9), DECREMENT)])) + snd(A(0)))))
put("edge-kname-pids", PRE + pad(meta) + pad(kname(Pr(1), b"k_a\0", pid=7))
    + pad(kname(Pr(1), b"k_b\0", pid=0)) + pad(kname(0, b"k_zero\0"))
    + pad(gseg(up(A(1), qmd(5, program=Pr(1))) + snd(A(1)))))
put("edge-kname-evil", PRE + pad(meta) + pad(kname(Pr(1), b"ev\nil\x1b[31m\xff\0", b"/x\n\0"))
    + pad(gseg(up(A(1), qmd(5, program=Pr(1))) + snd(A(1)))))
for label, r in (("size", kname(Pr(1), b"k\0", name_size=4000)),
                 ("module-size", kname(Pr(1), b"k\0", b"/m\0", module_size=0xffffffff)),
                 ("nonul", kname(Pr(1), b"k")), ("module-nonul", kname(Pr(1), b"k\0", b"/m")),
                 ("empty", kname(Pr(1), b"")), ("how", kname(Pr(1), b"k\0", how=0)),
                 ("long", kname(Pr(1), b"k" * 16384 + b"\0"))):
    put("edge-kname-bad-" + label, PRE + pad(meta) + pad(kname(Pr(2), b"k_first\0")) + pad(r))
    put("rec-edge-kname-bad-" + label, r)

# --- zstd (-z) -------------------------------------------------------------
if shutil.which("zstd"):
    for name in sorted(os.listdir(out)):
        if not (name.startswith("file-") or name in ("edge-rm-control", "edge-proc",
                                                     "edge-fdpath", "edge-version-2")):
            continue
        data = open(os.path.join(out, name), "rb").read()
        z = subprocess.run(["zstd", "-q", "-c", "-3"], input=data, stdout=subprocess.PIPE,
                           check=True).stdout
        put("zst-" + name, z)
        if name.startswith("file-"):
            put("zst-cut-" + name, z[:len(z) // 2])
            bad = bytearray(z)
            bad[len(bad) // 3] ^= 0x55
            put("zst-bad-" + name, bytes(bad))
    put("zst-edge-garbage", b"\x28\xb5\x2f\xfd" + b"\xff" * 64)
    put("zst-edge-magic-only", b"\x28\xb5\x2f\xfd")
EOF
