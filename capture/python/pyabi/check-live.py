#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check the CPython tables against a running interpreter, from outside.

    python3 capture/python/pyabi/check-live.py [--dump-debug-offsets FILE] PYTHON [ARGS...]

Starts PYTHON (a 3.10 .. 3.14 interpreter; ARGS go before the script, e.g.
a loader) on a small program whose threads block at known places: plain
calls, a method recursing, a generator and a coroutine.  The program
prints each thread's stack as the interpreter itself sees it
(sys._current_frames()).  Then this script reads the process's memory
(/proc/PID/mem) with nothing but the built-in table of that minor
(ct_pyabi_builtin(), through the project's own capture/python/pyabi.c, capture/python/pyline.c
and the generated build/pyabi_data.c, built as a shared object): from
_PyRuntime through the interpreters, their thread states and each frame
to the code objects' names, files and lines, and compares.  From 3.13 it
also reads the process's _Py_DebugOffsets and checks that
ct_pyabi_from_debug_offsets() gives the built-in table (and can save the
blob, the fixture of tests/unit/test_pyabi.c).

Prints one line per thread and exits 0 when every stack matches.  Needs
root (or ptrace rights over the child), nm, cc and a built build/pyabi_data.c
(make).
"""
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SRC = os.path.join(ROOT, "capture", "python")   # pyabi.h, pyabi.c, pyline.c

CHILD = r'''
import sys, threading, json, time
stop = threading.Event()

def park():
    stop.wait()

class Worker:
    def run(self, depth):
        if depth:
            return self.run(depth - 1)
        park()

def gen():
    park()
    yield 1

async def coro():
    park()

def drive():
    c = coro()
    try:
        c.send(None)
    except StopIteration:
        pass

def stacks(threads):
    frames, report = sys._current_frames(), {}
    for t in threads:
        f, stack = frames.get(t.ident), []
        while f is not None:
            co = f.f_code
            stack.append([getattr(co, "co_qualname", co.co_name), co.co_filename, f.f_lineno])
            f = f.f_back
        report[t.name] = {"native_id": getattr(t, "native_id", None), "ident": t.ident, "stack": stack}
    return report

threads = [threading.Thread(target=Worker().run, args=(5,), name="recurse"),
           threading.Thread(target=lambda: next(gen()), name="generator"),
           threading.Thread(target=drive, name="coroutine")]
for t in threads:
    t.start()
# Until every thread is parked (park() on its stack) and stays put.
last = None
while True:
    time.sleep(0.2)
    report = stacks(threads)
    if report == last and all(any(fr[0] == "park" for fr in r["stack"]) for r in report.values()):
        break
    last = report
print(json.dumps(report), flush=True)
sys.stdin.readline()
stop.set()
'''


class Mem:
    def __init__(self, pid):
        self.f = open("/proc/%d/mem" % pid, "rb", buffering=0)

    def read(self, addr, n):
        self.f.seek(addr)
        return self.f.read(n)

    def u64(self, addr):
        return int.from_bytes(self.read(addr, 8), "little")

    def u32(self, addr):
        return int.from_bytes(self.read(addr, 4), "little")

    def s32(self, addr):
        return int.from_bytes(self.read(addr, 4), "little", signed=True)


def fields_of_header():
    text = open(os.path.join(SRC, "pyabi.h")).read()
    body = text[text.index("struct ct_pyabi {"):]
    body = body[:body.index("\n};")]
    return re.findall(r"^\s*uint32_t ([a-z_]+);", body, re.M)


def load_lib(tmp):
    data = os.path.join(os.environ.get("OUTPUT", os.path.join(ROOT, "build")), "pyabi_data.c")
    if not os.path.exists(data):
        sys.exit("check-live: no build/pyabi_data.c: run make first")
    so = os.path.join(tmp, "libpyabi.so")
    subprocess.check_call(["cc", "-shared", "-fPIC", "-O1", "-I" + SRC,
                           os.path.join(SRC, "pyabi.c"), os.path.join(SRC, "pyline.c"),
                           data, "-o", so])
    lib = ctypes.CDLL(so)

    class Abi(ctypes.Structure):
        _fields_ = [(f, ctypes.c_uint32) for f in fields_of_header()]
    lib.ct_pyabi_builtin.restype = ctypes.POINTER(Abi)
    lib.ct_pyabi_builtin.argtypes = [ctypes.c_uint]
    lib.ct_pyabi_from_debug_offsets.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(Abi)]
    lib.ct_pyabi_debug_offsets_size.restype = ctypes.c_size_t
    lib.ct_pyline.argtypes = [ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_uint32]
    lib.Abi = Abi
    return lib


def runtime_address(pid):
    """_PyRuntime: the mapped file that defines it, its load base + st_value."""
    maps = [line.split() for line in open("/proc/%d/maps" % pid)]
    files = []
    for m in maps:
        if len(m) >= 6 and m[5].startswith("/") and m[5] not in files:
            files.append(m[5])
    for path in files:
        if not re.search(r"python|libpython", os.path.basename(path)):
            continue
        out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True).stdout
        hit = re.search(r"^([0-9a-f]+) \S+ _PyRuntime$", out, re.M)
        if not hit:
            continue
        value = int(hit.group(1), 16)
        with open(path, "rb") as f:
            f.seek(16)
            e_type = int.from_bytes(f.read(2), "little")
        if e_type == 2:       # ET_EXEC: absolute
            return value, path
        base = min(int(m[0].split("-")[0], 16) for m in maps
                   if len(m) >= 6 and m[5] == path and int(m[2], 16) == 0)
        return base + value, path
    sys.exit("check-live: no _PyRuntime in any python file mapped by %d" % pid)


def pystr(mem, abi, addr):
    state = mem.u32(addr + abi.unicode_state)
    length = mem.u64(addr + abi.unicode_length)
    kind = (state >> abi.unicode_kind_shift) & 7
    compact = (state >> abi.unicode_compact_bit) & 1
    ascii_ = (state >> abi.unicode_ascii_bit) & 1
    if not compact or length > 4096:
        return None
    data = addr + (abi.unicode_ascii_size if ascii_ else abi.unicode_compact_size)
    raw = mem.read(data, length * kind)
    return raw.decode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind])


NONE = 0xffffffff


def frames_of(mem, lib, abi, tstate):
    """[(name, file, line)] from the thread state, innermost first."""
    minor = abi.minor
    if minor == 10:
        frame = mem.u64(tstate + abi.tstate_frame)
    elif abi.tstate_cframe != NONE:
        frame = mem.u64(mem.u64(tstate + abi.tstate_cframe) + abi.cframe_current_frame)
    else:
        frame = mem.u64(tstate + abi.tstate_current_frame)
    out, owners = [], set()
    for _ in range(256):
        if not frame:
            break
        code = mem.u64(frame + abi.frame_code) & ~abi.code_ptr_tag_mask
        if abi.frame_owner != NONE:
            owner = mem.read(frame + abi.frame_owner, 1)[0]
            owners.add(owner)
            if owner in (abi.owned_by_cstack, abi.owned_by_interpreter):
                frame = mem.u64(frame + abi.frame_previous)
                continue
        if minor == 10:
            offset = mem.s32(frame + abi.frame_instr) * abi.code_unit_size
        else:
            offset = mem.u64(frame + abi.frame_instr) - (code + abi.code_code_adaptive)
        table = mem.u64(code + abi.code_linetable)
        if os.environ.get("CHECK_LIVE_DEBUG"): print("  frame 0x%x owner %s code 0x%x" % (frame, owner if abi.frame_owner != NONE else "-", code))
        n = mem.u64(table + abi.bytes_ob_size)
        raw = mem.read(table + abi.bytes_ob_sval, n)
        first = mem.s32(code + abi.code_firstlineno)
        line = lib.ct_pyline(minor, raw, n, first, offset) if offset >= 0 else first
        name_at = abi.code_qualname if abi.code_qualname != NONE else abi.code_name
        out.append([pystr(mem, abi, mem.u64(code + name_at)),
                    pystr(mem, abi, mem.u64(code + abi.code_filename)), line])
        frame = mem.u64(frame + abi.frame_previous)
    return out, owners


def threads_of(mem, abi, runtime):
    interp = mem.u64(runtime + abi.runtime_interpreters_head)
    while interp:
        t = mem.u64(interp + abi.interp_threads_head)
        while t:
            yield t
            t = mem.u64(t + abi.tstate_next)
        interp = mem.u64(interp + abi.interp_next)


def main():
    args = sys.argv[1:]
    dump = None
    if args[:1] == ["--dump-debug-offsets"]:
        dump, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        lib = load_lib(tmp)
        script = os.path.join(tmp, "child.py")
        with open(script, "w") as f:
            f.write(CHILD)
        child = subprocess.Popen(args + [script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            report = json.loads(child.stdout.readline())
            return check(lib, child.pid, report, dump)
        finally:
            child.stdin.write("\n")
            child.stdin.flush()
            child.wait()


def check(lib, pid, report, dump):
    mem = Mem(pid)
    runtime, path = runtime_address(pid)
    minor = int(re.search(r"python3\.(\d+)", path).group(1))
    abi = lib.ct_pyabi_builtin(minor).contents
    print("check-live: pid %d, %s, 3.%d, _PyRuntime at 0x%x" % (pid, path, minor, runtime))
    bad = 0
    size = lib.ct_pyabi_debug_offsets_size(minor)
    if size:
        blob = mem.read(runtime, size)
        got = lib.Abi()
        rc = lib.ct_pyabi_from_debug_offsets(blob, size, ctypes.byref(got))
        diff = [f for f, _ in lib.Abi._fields_ if getattr(got, f) != getattr(abi, f)]
        print("check-live: _Py_DebugOffsets (%d bytes, version 0x%x): rc %d, %s" %
              (size, int.from_bytes(blob[8:16], "little"), rc,
               "the same as the built-in table" if not diff else "differs in " + ", ".join(diff)))
        bad += rc != 0 or bool(diff)
        if dump:
            with open(dump, "w") as f:
                f.write("#_Py_DebugOffsets: the first %d bytes of _PyRuntime of a running CPython 3.%d\n"
                        "#(%s, PY_VERSION_HEX 0x%x), read from outside by capture/python/pyabi/check-live.py\n"
                        % (size, minor, path, int.from_bytes(blob[8:16], "little")))
                for i in range(0, len(blob), 16):
                    f.write(blob[i:i + 16].hex() + "\n")
    by_native = {v["native_id"]: k for k, v in report.items()}
    by_ident = {v["ident"]: k for k, v in report.items()}
    seen = set()
    for t in threads_of(mem, abi, runtime):
        if abi.tstate_native_thread_id != NONE:
            name = by_native.get(mem.u64(t + abi.tstate_native_thread_id))
        else:
            name = by_ident.get(mem.u64(t + abi.tstate_thread_id))
        if name is None:
            continue
        seen.add(name)
        got, owners = frames_of(mem, lib, abi, t)
        want = report[name]["stack"]
        same = got == want
        bad += not same
        print("check-live: thread %-10s %2d frames, innermost %s:%s %s (owners seen %s): %s" %
              (name, len(got), os.path.basename(str(got[0][1])) if got else "?",
               got[0][2] if got else "?", got[0][0] if got else "?", sorted(owners),
               "match" if same else "MISMATCH"))
        if not same:
            print("  read:     %s\n  reported: %s" % (got, want))
    for name in sorted(set(report) - seen):
        print("check-live: thread %s: no thread state found" % name)
        bad += 1
    print("check-live: %s" % ("ok" if not bad else "FAILED"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
