# SPDX-License-Identifier: MIT
"""-k on a stand-in: a driver library and a program built -O2
-fomit-frame-pointer (tests/stacks/), the library reaching ioctl through
static functions with over 20 KB of stack frames, the program calling its
entry points (found with dlsym) from named static functions.  Every call
must show the exact chain, the right api and caller; the same after the
binaries are deleted; with a library that has only .dynsym; for a process
that exits at once (stackprog _exits after its last call); for a library
loaded after the capture started (-p, dlopen later).  Where a stack ends
inside the library, why: a copy too short (-k16384), a thread the library
started."""
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (BUILD, CUDATRACE, Tap, decode_json,  # noqa: E402
                 run, scratch_dir, start_tracer)

t = Tap()
t.live_capture_or_skip("live -k tests")

# Every stack walked from the CFI rules kept is walked by libdw as well,
# and the capture says where the two differ (capture/stacks/unwind.h).
os.environ["CT_UNWIND_CHECK"] = "1"
SRC = os.path.join(BUILD, "stacks")
tmp = scratch_dir("ct-stacks-")
# A cache folder of this run's: what an earlier run kept (symbol indexes,
# the unwind tables' asks of system libraries) does not change these runs.
os.environ["CUDATRACE_SYMBOL_CACHE"] = os.path.join(tmp, "cache")
firsts = [0]


def first_capture():
    """The environment of a machine's first capture: a cache folder of its
    own, empty.  Runs whose warm-up calls must come before the unwind
    tables (copied, as the tests below check) take it: with the tables an
    earlier run kept (uw_kept.c), a process may have them before its
    first call."""
    firsts[0] += 1
    return dict(os.environ, CUDATRACE_SYMBOL_CACHE=os.path.join(tmp, "first-%d" % firsts[0]))


dev = os.path.join(tmp, "nvidiactl")
open(dev, "w").close()
# Private copies: deleted after the capture.
bins = os.path.join(tmp, "bin")
os.makedirs(bins)
for f in ("stackprog", "libcuda.so.1", "libstripped.so.1"):
    shutil.copy2(os.path.join(SRC, f), bins)
os.makedirs(os.path.join(bins, "lld"))
shutil.copy2(os.path.join(SRC, "lld", "libcuda.so.1"), os.path.join(bins, "lld"))
PROG = os.path.join(bins, "stackprog")
LIB = os.path.join(bins, "libcuda.so.1")
STRIPPED = os.path.join(bins, "libstripped.so.1")
LLD_LIB = os.path.join(bins, "lld", "libcuda.so.1")


def base(sym):
    """alloc_buffers.isra.0 -> alloc_buffers (GCC's clone suffixes)."""
    return sym.split(".")[0] if sym else sym


# The chains each kind of call must show, innermost first, from ioctl
# (libc) to main; driver frames named by the library's .symtab.
CHAINS = {
    "alloc": ["ioctl", "drv_submit", "drv_lock_and_submit", "drv_validate", "fakeMemAlloc",
              "alloc_buffers", "main"],
    "sync": ["ioctl", "drv_submit", "fakeCtxSync", "sync_device", "main"],
    "direct": ["ioctl", "poke_directly", "main"],
}
API = {"alloc": ("fakeMemAlloc", "alloc_buffers"), "sync": ("fakeCtxSync", "sync_device"),
       "direct": (None, None)}
KIND = {"0x801": "alloc", "0x802": "sync", "0x0": "direct"}


def kinds(events):
    return [KIND.get(e.get("cmd")) for e in events if e["type"] == "ioctl"]


def check_calls(events, tag, lib_has_symtab=True):
    calls = [e for e in events if e["type"] == "ioctl"]
    t.ok(kinds(events) == ["alloc"] * 3 + ["sync"] * 2 + ["direct"],
         "%s: 6 calls, 3 via fakeMemAlloc, 2 via fakeCtxSync, 1 direct" % tag, kinds(events))
    for i, e in enumerate(calls):
        k = KIND.get(e.get("cmd"))
        syms = [base(f.get("sym")) for f in e.get("stack", [])]
        want = CHAINS[k]
        if not lib_has_symtab:   # static driver functions have no name in .dynsym
            want = [s for s in want if not s.startswith("drv_")]
            syms = [s for s in syms if s is not None]
        got = syms[:syms.index("main") + 1] if "main" in syms else syms
        t.ok(got == want and e.get("stack_end") == "end",
             "%s: call %d (%s): stack %s" % (tag, i + 1, k, " < ".join(want)),
             {"got": got, "end": e.get("stack_end")})
        api, caller = API[k]
        t.ok((e.get("api"), base(e.get("caller"))) == (api, caller),
             "%s: call %d: api=%s caller=%s" % (tag, i + 1, api, caller),
             (e.get("api"), e.get("caller")))


def kernel_walks(stderr):
    m = re.search(r"stacks walked in the kernel (\d+) \([\d.]+ frames, [\d.]+ reads of the "
                  r"stack and [\d.]+ rules searched for a stack; (\d+) through code without a "
                  r"table", stderr)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def ioctls(trace):
    return [e for e in decode_json(trace) if e["type"] == "ioctl"]


def text_of(trace, *extra):
    p = run([CUDATRACE, "-r", trace] + list(extra))
    return p.stdout


# 1. -- COMMAND: every call, exact chain; the process _exits at once.
tr = os.path.join(tmp, "cmd.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", tr, "--", PROG, LIB, dev])
t.ok(p.returncode == 0 and "0 lost" in p.stderr, "-k capture ran, 0 lost", p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) walks", p.stderr)
t.ok(m and m.group(1) == "0" and int(m.group(2)) >= 6,
     "every stack walked from the CFI rules kept, as libdw walks it (%s)"
     % (m.group(0) if m else "no check line"), p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) names differ from libdw's", p.stderr)
n = re.search(r"named (\d+) addresses from the symbols of (\d+) files", p.stderr)
t.ok(m and m.group(1) == "0" and int(m.group(2)) >= 10 and n and int(n.group(2)) >= 3,
     "every frame named from the symbol index as libdw names it (%s; %s)"
     % (m.group(0) if m else "no check line", n.group(0) if n else "no naming line"), p.stderr)
m = re.search(r"the capture's own CPU so far: ([\d.]+) ms, ([\d.]+) ms of it loading the BPF "
              r"programs \(the kernel's verifier\); (\d+) us a stack in all", p.stderr)
n = re.search(r"unwound (\d+) stacks .*\(([\d.]+) ms on the CPU\)", p.stderr)
t.ok(m and n and 0 < float(m.group(2)) < float(m.group(1)) and
     float(n.group(2)) < float(m.group(1)) and
     abs(int(m.group(3)) - float(m.group(1)) * 1e3 / int(n.group(1))) <= 50.0 / int(n.group(1)) + 1,
     "the closing lines say the capture's whole CPU, its load and a stack's share (%s)"
     % (m.group(0) if m else "no such line"), p.stderr[-800:])
ev = decode_json(tr)
check_calls(ev, "cmd")
t.ok(all(e["stack_bytes"] > 20000 for e in ev if e["type"] == "ioctl" and
         KIND.get(e.get("cmd")) == "alloc"),
     "the stack copied for the alloc calls holds their >20 KB of driver frames")
maps = [e for e in ev if e["type"] == "mapping"]
t.ok(any(m["path"] == LIB and len(m.get("build_id", "")) == 40 for m in maps),
     "mapping record of the driver library, with its build-id",
     [m["path"] for m in maps])
frames = [f for e in ev if e["type"] == "ioctl" for f in e.get("stack", [])]
t.ok(all(f["pc"].startswith("0x") and "offset" in f for f in frames if "module" in f),
     "each frame has pc, module, offset")


def loads(path):
    """(offset, vaddr, filesz, flags) of each PT_LOAD, from readelf."""
    out = run(["readelf", "-lW", path]).stdout
    return [(int(w[1], 16), int(w[2], 16), int(w[4], 16), " ".join(w[6:-1])) for w in
            (line.split() for line in out.splitlines()) if w[:1] == ["LOAD"]]


# 1b. The driver library linked by lld: its code's first page is also the
# read-only segment's, at addresses that are not file offsets (as JAX's
# libraries are): every frame named and walked as with ld's.
ld = loads(LLD_LIB)
code = [x for x in ld if "E" in x[3]]
t.ok(len(code) == 1 and code[0][0] != code[0][1] and
     any(x[0] < code[0][0] and (x[0] + x[2]) // 4096 == code[0][0] // 4096 for x in ld),
     "lld's library: its code at 0x%x, file offset 0x%x, in a page the read-only segment "
     "has too" % (code[0][1] if code else 0, code[0][0] if code else 0), ld)
ltr = os.path.join(tmp, "lld.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", ltr, "--", PROG, LLD_LIB, dev])
t.ok(p.returncode == 0 and "0 lost" in p.stderr, "-k capture through lld's library ran",
     p.stderr)
check_calls(decode_json(ltr), "lld")
txt = text_of(tr)
t.ok(re.search(r"\) = -25 ENOTTY .* \[fakeMemAlloc <- alloc_buffers[.\w]*\]\n"
               r" > libc\.so\.6\(ioctl\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]", txt) is not None,
     "text: [api <- caller] on the call line, then ' > module(sym+0xoff) [0xpc]' lines",
     txt[:1500])

# 1b. A copy too short (-k16384 < the >20 KB of driver frames): the walk
# stops inside the library on the main thread; the caller says why and
# which -k copies further, never "driver thread"; the summary counts it.
short = os.path.join(tmp, "short.ctrace")
p = run([CUDATRACE, "-k16384", "--device", dev, "-w", short, "--", PROG, LIB, dev])
sev = [e for e in decode_json(short) if e["type"] == "ioctl"]
alloc = [e for e in sev if KIND.get(e.get("cmd")) == "alloc"]
t.ok(len(alloc) == 3 and all(e.get("caller") == "stack copy too short: -k32768" and
                             e.get("stack_end") == "copy_short" and
                             16384 < e.get("stack_need_bytes", 0) <= 32768 for e in alloc),
     "-k16384: the 3 alloc calls end inside the library: 'stack copy too short: -k32768'",
     [(e.get("caller"), e.get("stack_end"), e.get("stack_need_bytes")) for e in alloc])
t.ok("cudatrace: stack ends: 3 complete, 3 stack copy too short (-k32768 copies further)"
     in p.stderr, "-k16384: the summary counts 3 complete, 3 too short", p.stderr)
stxt = text_of(short)
t.ok("<- stack copy too short: -k32768]" in stxt and "driver thread" not in stxt and
     " > (unwinding stopped: the stack goes on past the bytes copied: -k32768 copies further)"
     in stxt, "-k16384 text: the tag and the frames' last line say why", stxt[:1500])
# ... the same without CT_UNWIND_CHECK: the walk from the kept rules ends
# where the copy does, as libdw's did, and libdw is not asked.
libdw_need = sorted(e.get("stack_need_bytes") for e in alloc)
env = {k: v for k, v in os.environ.items() if k != "CT_UNWIND_CHECK"}
p = run([CUDATRACE, "-k16384", "--device", dev, "-w", short, "--", PROG, LIB, dev], env=env)
alloc = [e for e in decode_json(short) if e["type"] == "ioctl" and KIND.get(e.get("cmd")) == "alloc"]
t.ok(len(alloc) == 3 and all(e.get("caller") == "stack copy too short: -k32768" for e in alloc) and
     sorted(e.get("stack_need_bytes") for e in alloc) == libdw_need and
     "walked by libdw" not in p.stderr,
     "-k16384, no check: the same ends and bytes needed as libdw's walk (%s), no stack left "
     "to libdw" % libdw_need,
     ([(e.get("caller"), e.get("stack_need_bytes")) for e in alloc], p.stderr[-600:]))
p = run([CUDATRACE, "-k32768", "--device", dev, "-w", short, "--", PROG, LIB, dev])
t.ok("cudatrace: stack ends: 6 complete\n" in p.stderr and
     all(e.get("caller") != "stack copy too short: -k32768" for e in decode_json(short)),
     "-k32768: all 6 complete", p.stderr)

# 1c. A call from a thread the driver library started: "driver thread", and
# the summary counts it so.
th = os.path.join(tmp, "thread.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", th, "--", PROG, LIB, dev, "thread"])
tev = [e for e in decode_json(th) if e["type"] == "ioctl"]
t.ok(len(tev) == 1 and tev[0]["tid"] != tev[0]["pid"] and
     tev[0].get("caller") == "driver thread" and tev[0].get("stack_end") == "end",
     "a call from the library's own thread: caller 'driver thread'",
     [(e["pid"], e["tid"], e.get("caller"), e.get("stack_end")) for e in tev])
t.ok("cudatrace: stack ends: 1 in threads the driver started\n" in p.stderr,
     "the summary counts it as a thread the driver started", p.stderr)

# 1d. A stack with pages never touched between the call and its outer
# frames (a big frame never written, on a fresh thread stack): the one read
# of the whole stack faults, the kernel reads it page by page, the walk
# still reaches the thread's start, and the summary says so.
ho = os.path.join(tmp, "holes.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", ho, "--", PROG, LIB, dev, "holes"],
        env=first_capture())
hev = [e for e in decode_json(ho) if e["type"] == "ioctl"]
hstack = hev[0].get("stack", []) if hev else []
hsyms = [base(f.get("sym")) for f in hstack]
# Past the untouched frame: libc's thread start (named only where libc
# keeps its symbols: start_thread is not exported).
t.ok(len(hev) == 1 and hsyms[:3] == ["ioctl", "poke_directly", "beyond_untouched_pages"] and
     len(hstack) > 3 and all(f.get("module") == "libc.so.6" for f in hstack[3:]) and
     hev[0].get("stack_end") == "end",
     "a stack with untouched pages: ioctl < poke_directly < beyond_untouched_pages < "
     "libc's thread start, complete", [(f.get("module"), f.get("sym")) for f in hstack])
t.ok("cudatrace: 1 stacks held pages never touched, read page by page (as zeros)\n"
     in p.stderr, "the summary counts the stack read page by page", p.stderr)

# 2. The same after the binaries are gone: names travel in the trace.
shutil.rmtree(bins)
t.ok(text_of(tr) == txt and decode_json(tr) == ev,
     "-r after the program and library are deleted: the same text and JSON")
os.makedirs(bins)
for f in ("stackprog", "libcuda.so.1", "libstripped.so.1"):
    shutil.copy2(os.path.join(SRC, f), bins)

# 3. A library with .dynsym only (strip --strip-all); --api-lib names it.
tr = os.path.join(tmp, "stripped.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", tr, "--", PROG, STRIPPED, dev])
ev = decode_json(tr)
t.ok(all(e.get("api") is None for e in ev if e["type"] == "ioctl"),
     "without --api-lib, libstripped.so.1 is not the driver library: no api")
p = run([CUDATRACE, "-r", tr, "--json", "--api-lib", "libstripped*"])
import json  # noqa: E402
ev = [json.loads(l) for l in p.stdout.splitlines()]
check_calls(ev, "stripped", lib_has_symtab=False)

# 3a. A library without symbols: its debug file is looked for on this
# machine only, never asked of a debuginfod server (DEBUGINFOD_URLS), which
# would download it in the capture's thread while the records wait.
import http.server  # noqa: E402
import threading  # noqa: E402

asked = []


class Debuginfod(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        asked.append(self.path)
        self.send_error(404)

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Debuginfod)
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ, DEBUGINFOD_URLS="http://127.0.0.1:%d/" % srv.server_address[1],
           DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "debuginfod"))
p = subprocess.run([CUDATRACE, "-k", "--device", dev, "-w", os.path.join(tmp, "di.ctrace"), "--",
                    PROG, STRIPPED, dev], capture_output=True, text=True, env=env)
srv.shutdown()
t.ok(p.returncode == 0 and "stack ends: 6 complete" in p.stderr and not asked,
     "a library without symbols, DEBUGINFOD_URLS set: no debuginfod server asked (%d asked)"
     % len(asked), {"asked": asked, "stderr": p.stderr})

# 3b. --api-lib given at capture holds when the trace is read (issue 22,
# item 2), unless -r gives its own.
tr = os.path.join(tmp, "stripped-api.ctrace")
run([CUDATRACE, "-k", "--api-lib", "libstripped*", "--device", dev, "-w", tr, "--",
     PROG, STRIPPED, dev])
check_calls(decode_json(tr), "--api-lib at capture, -r without", lib_has_symtab=False)
p = run([CUDATRACE, "-r", tr, "--json", "--api-lib", "libnothing*"])
ev = [json.loads(l) for l in p.stdout.splitlines()]
t.ok(len(ev) > 6 and all(e.get("api") is None for e in ev if e["type"] == "ioctl"),
     "-r --api-lib of its own overrides the capture's: no api")

# 4. A library loaded after the capture started (-p, dlopen when told).
tr = os.path.join(tmp, "late.ctrace")
prog = subprocess.Popen([PROG, LIB, dev, "wait"], stdin=subprocess.PIPE, text=True)
time.sleep(0.2)
tracer = start_tracer(["-k", "--device", dev, "-w", tr, "-p", str(prog.pid)])
prog.stdin.write("go\n")
prog.stdin.flush()
prog.wait(timeout=30)
out, err = tracer.communicate(timeout=30)
ev = decode_json(tr)
check_calls(ev, "late dlopen")

# 4b. A library unloaded and another of the same layout loaded where it
# was (dlclose, dlopen): the second one's frames named from its own file,
# whether the capture unwinds a copy or the kernel walks the stack.
rm = os.path.join(tmp, "remap.ctrace")
REMAP = [os.path.join(SRC, "remapprog"), dev, os.path.join(SRC, "libremap_a.so"),
         os.path.join(SRC, "libremap_b.so"), "300", "2000"]
p = run([CUDATRACE, "-k", "--device", dev, "-w", rm, "--"] + REMAP)
where = dict(line.split() for line in p.stdout.splitlines() if line.startswith("LIB_"))
t.ok(where.get("LIB_A") and where.get("LIB_A") == where.get("LIB_B"),
     "the second library loaded at the first one's address (%s)" % where, p.stdout)
rev = ioctls(rm)
named = [[base(f.get("sym")) for f in e.get("stack", [])][:4] + [e.get("stack_end")]
         for e in rev]
want_a = ["ioctl", "through_lib_a", "remap_call", "call_lib", "end"]
want_b = ["ioctl", "through_lib_b", "remap_call", "call_lib", "end"]
walked, _ = kernel_walks(p.stderr)
t.ok(named == [want_a] * 300 + [want_b] * 300 and walked >= 100,
     "300 calls through the first library, then 300 through the second, each named from "
     "its own file (%d walked in the kernel)" % walked,
     {"got": sorted(set(map(tuple, named))), "walked": walked})
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) names differ from libdw's", p.stderr)
t.ok(m and m.group(1) == "0", "... and libdw names them so (%s)" % (m.group(0) if m else
                                                                     "no check line"), p.stderr)

# 5. Without -k: no stack anywhere, nothing else changes.
tr = os.path.join(tmp, "nok.ctrace")
run([CUDATRACE, "--device", dev, "-w", tr, "--", PROG, LIB, dev])
ev = decode_json(tr)
t.ok(kinds(ev) == ["alloc"] * 3 + ["sync"] * 2 + ["direct"] and
     not any("stack" in e or e["type"] == "mapping" for e in ev),
     "without -k: the same calls, no stack, no mapping records")

# 7. Walked in the kernel (bpf/kwalk.bpf.h) from the tables the capture
# builds: after a warm-up (100 calls, 1 s in which the tables are built),
# a loop's stacks are walked there, each the same as the capture's own
# unwinding of a copy of it (CT_UNWIND_CHECK makes the kernel send both),
# and a record is a few hundred bytes, not the stack's KiBs.
JIT = os.path.join(SRC, "jitprog")
LOOP_CHAIN = ["ioctl", "drv_submit", "fakeCtxSync", "loop", "main"]


kw = os.path.join(tmp, "kwalk.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", kw, "--", PROG, LIB, dev, "loop", "3000", "1000"])
walked, _ = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
t.ok("0 lost" in p.stderr and walked >= 2700 and m and m.group(1) == "0" and
     int(m.group(2)) == walked,
     "loop of 3000: %d walked in the kernel, each as the capture unwinds its copy (%s)"
     % (walked, m.group(0) if m else "no check line"), p.stderr)
rec = re.search(r"([\d.]+) bytes a stack record", p.stderr)
t.ok(rec and float(rec.group(1)) <= 2048,
     "at most 2 KiB a stack record through the ring on average (%s)" % (rec.group(0) if rec else
                                                                          "no line"), p.stderr)
kev = ioctls(kw)
WARM_CHAIN = LOOP_CHAIN[:3] + ["main"]   # the warm-up's calls, from main
t.ok(len(kev) == 3100 and all([base(f.get("sym")) for f in e.get("stack", [])][:5 if i >= 100 else 4]
                              == (LOOP_CHAIN if i >= 100 else WARM_CHAIN) and
                              e.get("stack_end") == "end" for i, e in enumerate(kev)),
     "every call's stack: ioctl < drv_submit < fakeCtxSync < (loop <) main ... complete (%d calls)"
     % len(kev),
     [([f.get("sym") for f in e.get("stack", [])], e.get("stack_end")) for e in kev[-2:]])

# 7b. CT_STACK_COPY=1: every stack copied, as before the kernel's walk.
env = dict(os.environ, CT_STACK_COPY="1")
p = subprocess.run([CUDATRACE, "-k", "--device", dev, "-w", kw, "--", PROG, LIB, dev, "loop",
                    "300"], capture_output=True, text=True, env=env)
t.ok(p.returncode == 0 and "stacks walked in the kernel" not in p.stderr and
     "stack ends: 300 complete" in p.stderr,
     "CT_STACK_COPY=1: stacks copied and unwound by the capture, all complete", p.stderr)

# 7c. Generated code in an anonymous mapping (a JIT's), no FDE: walked by
# its frame pointer where it keeps one, through to main, and the stack end
# says so; where rbp is no frame pointer the stack ends after it, and says
# why.
jit = os.path.join(tmp, "jit.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", jit, "--", JIT, dev, "fp", "1000", "1000"],
        env=first_capture())
walked, fp = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
t.ok(walked >= 900 and fp == walked and m and m.group(1) == "0",
     "JIT code with a frame pointer: %d walked in the kernel, through it by frame pointer, "
     "as the capture's unwinding (%s)" % (walked, m.group(0) if m else "no check line"), p.stderr)
jev = ioctls(jit)
fp_ends = [e for e in jev if e.get("stack_end") == "end_fp"]
t.ok(len(fp_ends) == walked and
     all([base(f.get("sym")) for f in e["stack"]][:5] == ["ioctl", "do_ioctl", None, "run_jit",
                                                           "main"] and
         "module" not in e["stack"][2] for e in fp_ends),
     "... each: ioctl < do_ioctl < (generated code, no module) < run_jit < main, "
     "stack_end end_fp", [[f.get("sym") for f in e.get("stack", [])] for e in jev[-1:]])
t.ok("complete through code without unwind information, walked by frame pointer" in p.stderr and
     "(complete: code without unwind information walked by its frame pointer)" in
     text_of(jit), "the summary and the text say the frame pointer was followed", p.stderr)
p = run([CUDATRACE, "-k", "--device", dev, "-w", jit, "--", JIT, dev, "nofp", "1000", "1000"],
        env=first_capture())
walked, fp = kernel_walks(p.stderr)
jev = [e for e in ioctls(jit) if e.get("stack_end") == "no_fp"]
t.ok(walked >= 900 and fp == 0 and len(jev) == walked and
     all([base(f.get("sym")) for f in e["stack"]] == ["ioctl", "do_ioctl", None] and
         e.get("caller") is None for e in jev),
     "JIT code using rbp for data: %d walked in the kernel, each ending after the generated "
     "code: stack_end no_fp" % walked, p.stderr)
t.ok("no CFI and no frame pointer" in p.stderr and
     "(unwinding stopped: code without unwind information (CFI), and rbp is not a frame pointer "
     "to follow)" in text_of(jit), "the summary and the text say why", p.stderr)

# 7e. A stack deeper than -k's largest copy (stackprog deep: 7 frames of
# 16 KiB between main and the loop, as XLA's and CPython's deep stacks):
# -k's size bounds a copy, not the kernel's walk (it costs by the frame),
# so once the tables are built each call is walked through to main and
# _start, complete, where before it ended copy_short at 64 KiB; the
# warm-up's copies still end short, and the check compares each walk with
# its copy as far as the copy goes.
DEEP_CHAIN = LOOP_CHAIN[:4] + ["deep_frames"] * 7 + ["main"]
dp = os.path.join(tmp, "deep.ctrace")
p = run([CUDATRACE, "-k65536", "--device", dev, "-w", dp, "--", PROG, LIB, dev, "deep", "1000",
         "1000"], env=first_capture())
walked, _ = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
t.ok("0 lost" in p.stderr and walked >= 900 and m and m.group(1) == "0" and
     int(m.group(2)) == walked,
     "a 112 KiB stack: %d of 1000 walked in the kernel, each as the capture unwinds its copy "
     "as far as the copy goes (%s)" % (walked, m.group(0) if m else "no check line"), p.stderr)
dev_calls = ioctls(dp)
deep_ok = [e for e in dev_calls[100:]
           if [base(f.get("sym")) for f in e.get("stack", [])][:12] == DEEP_CHAIN and
           "_start" in [f.get("sym") for f in e["stack"]] and e.get("stack_end") == "end" and
           e.get("stack_bytes", 0) > 65536]
t.ok(len(dev_calls) == 1100 and len(deep_ok) == walked,
     "... each walked stack: ioctl < drv_submit < fakeCtxSync < loop < 7 deep_frames < main "
     "... _start, complete, over 64 KiB from sp (%d of %d calls)" % (len(deep_ok), len(dev_calls)),
     [([f.get("sym") for f in e.get("stack", [])], e.get("stack_end"), e.get("stack_bytes"))
      for e in dev_calls[-1:]])
t.ok(all(e.get("stack_end") == "copy_short" for e in dev_calls[:100]) and
     re.search(r"stack ends: %d complete, %d stack copy too short" % (walked, 1100 - walked),
               p.stderr),
     "the warm-up's copies end short, the summary says so", p.stderr)

# 7e'. The same stack copied, with -k's default size: a main thread's
# stack is copied whole (its depth is known) where it is at most 256 KiB
# deep, so a copy reaches main too (JAX's start-up calls needed 33 to 80
# KiB before their files' tables were built); -k65536 above bounds it.
dp = os.path.join(tmp, "deep-copy.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", dp, "--", PROG, LIB, dev, "deep", "200", "0"],
        env=dict(os.environ, CT_STACK_COPY="1"))
dev_calls = ioctls(dp)
whole = [e for e in dev_calls
         if [base(f.get("sym")) for f in e.get("stack", [])][:12] == DEEP_CHAIN and
         "_start" in [f.get("sym") for f in e["stack"]] and e.get("stack_end") == "end" and
         65536 < e.get("stack_bytes", 0) <= 262144]
t.ok("0 lost" in p.stderr and dev_calls and len(whole) == len(dev_calls) and
     "stack ends: %d complete\n" % len(dev_calls) in p.stderr,
     "-k's default: the main thread's 112 KiB stack copied whole, %d of %d calls complete to "
     "_start" % (len(whole), len(dev_calls)),
     [([f.get("sym") for f in e.get("stack", [])][:14], e.get("stack_end"), e.get("stack_bytes"))
      for e in dev_calls[-1:]] + [p.stderr[-600:]])

# 7g. A stack of more than 128 frames (stackprog many: 150 frames of
# deep_frames): walked complete, up to the 256 frames a FRAMES record holds
# (the bound was 128, and such a stack ended max_frames).
mn = os.path.join(tmp, "many.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", mn, "--", PROG, LIB, dev, "many", "300", "1000"],
        env=first_capture())
walked, _ = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
mev = ioctls(mn)
full = [e for e in mev[100:] if e.get("stack_end") == "end" and
        [base(f.get("sym")) for f in e["stack"]][:155] == LOOP_CHAIN[:4] + ["deep_frames"] * 150 +
        ["main"]]
t.ok(walked >= 270 and len(full) == walked and m and m.group(1) == "0",
     "150 frames of deep_frames: %d of %d walked in the kernel through all %d frames to _start, "
     "complete (%s)" % (len(full), len(mev) - 100, len(full[0]["stack"]) if full else 0,
                        m.group(0) if m else "no check line"),
     [(len(e.get("stack", [])), e.get("stack_end")) for e in mev[-1:]] + [p.stderr])

# 7h. Many small frames (stackprog tall: 96 frames of 64 to 448 bytes, the
# shape of PyTorch's native stacks): the walk reads them through windows of
# the stack, a read serving several frames, not one a frame (a window that
# would cross the stack's end is cut at its page, not given up for reads of
# a word each), and walks them as the capture unwinds a copy.
tl = os.path.join(tmp, "tall.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", tl, "--", PROG, LIB, dev, "tall", "300", "1000"],
        env=first_capture())
walked, _ = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
w = re.search(r"\(([\d.]+) frames, ([\d.]+) reads of the stack", p.stderr)
tev = ioctls(tl)
full = [e for e in tev[100:] if e.get("stack_end") == "end" and
        [base(f.get("sym")) for f in e["stack"]][:101] == LOOP_CHAIN[:4] + ["tall_frames"] * 96 +
        ["main"]]
t.ok(walked >= 270 and len(full) == walked and m and m.group(1) == "0" and w and
     float(w.group(1)) >= 100 and float(w.group(2)) <= float(w.group(1)) / 4,
     "96 small frames: %d of %d walked in the kernel to _start, %s frames and %s reads a stack "
     "(at most a read for 4 frames; %s)" % (len(full), len(tev) - 100, w.group(1) if w else "?",
                                           w.group(2) if w else "?",
                                           m.group(0) if m else "no check line"),
     [(len(e.get("stack", [])), e.get("stack_end")) for e in tev[-1:]] + [p.stderr])

# 7m. Each walk checks the thread's last walk word by word where it meets
# one of its frames (bpf/kwalk_memo.bpf.h).  stackprog mixed calls by way
# of three chains in turn through one call site: via_a and via_b at the
# same sp (a return address differs), via_c one frame deeper.  Each walk
# meets the last one's innermost frame or none, finds a word changed (or
# no frame to meet), goes on by the rules and meets it again at mixed's
# frame: only the frames from mixed out are taken from the last walk, and
# every stack is walked as the capture unwinds its copy.
mx = os.path.join(tmp, "mixed.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", mx, "--", PROG, LIB, dev, "mixed", "300", "1000"],
        env=first_capture())
walked, _ = kernel_walks(p.stderr)
m = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", p.stderr)
w = re.search(r"\(([\d.]+) frames, .*; ([\d.]+) frames a stack the thread's last walk had",
              p.stderr)
xev = ioctls(mx)
VIA = [["via_a"], ["via_b"], ["via_a", "via_c"]]
chains_ok = [[base(f.get("sym")) for f in e.get("stack", [])][:6 + (i % 3 == 2)] ==
             LOOP_CHAIN[:3] + VIA[i % 3] + ["mixed", "main"] and e.get("stack_end") == "end"
             for i, e in enumerate(xev[100:])]
frames, reused = (float(w.group(1)), float(w.group(2))) if w else (0, 0)
t.ok(walked >= 270 and len(xev) == 400 and all(chains_ok) and m and m.group(1) == "0" and
     4 <= reused <= frames - 3,
     "three chains in turn: %d walked in the kernel, %d of %d stacks exact, %.1f of %.1f frames "
     "a stack checked against the last walk, not stepped (%s)"
     % (walked, sum(chains_ok), len(xev) - 100, reused, frames,
        m.group(0) if m else "no check line"),
     [(base(f.get("sym")) for f in e.get("stack", [])) for e in xev[100:103]] + [p.stderr])

# 7n. A copy's walk named once (capture/stacks/unwind.c, name_walked):
# every stack copied (CT_STACK_COPY=1) and walked from the kept rules
# without the check (which names libdw's walk instead), so the three
# chains' records come from the cache of named walks after their first
# call.  Each call's frames (names, offsets, modules) must be those of the
# same run with the check on, where each stack is named afresh.
def frames_of(trace):
    return [[(f.get("sym"), f.get("sym_off"), f.get("module"), f.get("offset"), f.get("src"))
             for f in e.get("stack", [])] + [e.get("stack_end"), e.get("stack_bytes")]
            for e in ioctls(trace)]


named_env = dict(os.environ, CT_STACK_COPY="1")
del named_env["CT_UNWIND_CHECK"]
cn = os.path.join(tmp, "copies-named.ctrace")
cf = os.path.join(tmp, "copies-fresh.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", cn, "--", PROG, LIB, dev, "mixed", "300", "0"],
        env=named_env)
q = run([CUDATRACE, "-k", "--device", dev, "-w", cf, "--", PROG, LIB, dev, "mixed", "300", "0"],
        env=dict(os.environ, CT_STACK_COPY="1"))
m = re.search(r"(\d+) from the CFI rules kept \((\d+) of them named before\)", p.stderr)
got, want = frames_of(cn), frames_of(cf)
chains_ok = [[base(f[0]) for f in st[:-2]][:6 + (i % 3 == 2)] ==
             LOOP_CHAIN[:3] + VIA[i % 3] + ["mixed", "main"] for i, st in enumerate(got)]
same = sum(a == b for a, b in zip(got, want))
t.ok(p.returncode == 0 and q.returncode == 0 and m and int(m.group(1)) == 300 and
     int(m.group(2)) >= 290 and len(got) == 300 == len(want) and all(chains_ok) and same == 300,
     "copies walked and named from the cache of named walks: %s; %d of %d calls' frames as "
     "named afresh (the check's run), %d chains exact"
     % (m.group(0) if m else "no count", same, len(got), sum(chains_ok)),
     [got[:3], want[:3], p.stderr, q.stderr])

# 7f. A stack deeper than the walk's own bound (stackprog huge: a frame of
# 9 MiB on a thread of 16 MiB): the walk stops 8 MiB above sp and says so.
hg = os.path.join(tmp, "huge.ctrace")
p = run([CUDATRACE, "-k", "--device", dev, "-w", hg, "--", PROG, LIB, dev, "huge", "300", "1000"],
        env=first_capture())
walked, _ = kernel_walks(p.stderr)
hev = ioctls(hg)
bound = [e for e in hev if e.get("stack_end") == "max_bytes"]
# The warm-up's calls are walked too where their tables were asked for
# before them, as the last capture's stacks asked (tests/live/uw_asks.py).
HUGE_CHAINS = (LOOP_CHAIN[:4] + ["below_huge_frame"], LOOP_CHAIN[:3] + ["below_huge_frame"])
t.ok(walked >= 270 and len(bound) == walked and
     sum([base(f.get("sym")) for f in e["stack"]] == HUGE_CHAINS[0] for e in bound) >= 270 and
     all([base(f.get("sym")) for f in e["stack"]] in HUGE_CHAINS and
         e.get("stack_need_bytes", 0) > 8 << 20 for e in bound) and
     "%d deeper than the walk's bound (8 MiB above sp)" % walked in p.stderr and
     "(unwinding stopped: the stack goes on past the walk's bound, 8 MiB above the stack "
     "pointer)" in text_of(hg),
     "a frame of 9 MiB: %d walked to the walk's bound, 8 MiB above sp: stack_end max_bytes, "
     "and the summary and the text say so" % len(bound),
     [([f.get("sym") for f in e.get("stack", [])], e.get("stack_end"),
       e.get("stack_need_bytes")) for e in hev[-1:]] + [p.stderr])

# 7h. Files met only past the copy (-k64: the copy holds no return
# address, so the copy's unwinding sees libc's frame alone): the kernel's
# walk says where it stopped for want of a table, and the capture builds
# that one too.  Six processes in turn, one capture (tables are kept by
# file): each needs a table the last one asked for, then walks.
sh = os.path.join(tmp, "past.ctrace")
runs = "for i in 1 2 3 4 5 6; do %s %s %s loop 200 200 >/dev/null; done" % (PROG, LIB, dev)
p = run([CUDATRACE, "-k64", "--device", dev, "-w", sh, "--", "sh", "-c", runs])
walked, _ = kernel_walks(p.stderr)
by_pid = {}
for e in ioctls(sh):
    by_pid.setdefault(e["pid"], []).append(e.get("stack_end"))
last = by_pid[max(by_pid)] if by_pid else []
t.ok(walked >= 200 and last.count("end") >= 150,
     "-k64: tables asked for past the copy: %d stacks walked in the kernel, the last process's "
     "%d of %d complete" % (walked, last.count("end"), len(last)), p.stderr[-900:])

# 7d. The table thread builds the smallest file waiting first, and a large
# file's build gives way to a smaller one wanted after it: on the GPU
# machine libtorch_cuda.so (a GiB) came first, and the tables of the small
# libraries every call passes through never came (0 stacks walked in the
# kernel).  Any large library here stands in for it.
def largest_library(dirs, least=100 << 20):
    found = []
    for d in dirs:
        for n in (os.listdir(d) if os.path.isdir(d) else []):
            f = os.path.join(d, n)
            if ".so" in n and os.path.isfile(f) and not os.path.islink(f):
                found.append((os.path.getsize(f), f))
    found = [x for x in sorted(found) if x[0] >= least]
    return found[-1][1] if found else None


BIG = largest_library(["/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu"])
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
if not BIG:
    t.skip("a small file's table before a large one's", "no library of 100 MB here")
else:
    # Whole builds (the order of files; a large one is lazy by default).
    p = subprocess.run([os.path.join(SRC, "ktables_order"), BIG, LIBC], capture_output=True,
                       text=True, env=dict(os.environ, CT_KT_LAZY_MIN=str(1 << 40)))
    f = p.stdout.split()
    t.ok(p.returncode == 0 and len(f) == 3 and f[1] == "0" and float(f[0]) < float(f[2]),
         "libc's table (%s ms) before %s's (%s ms), the large one's build having given way"
         % (f[0] if f else "?", os.path.basename(BIG), f[2] if len(f) > 2 else "?"),
         p.stdout + p.stderr)

# 7e. Lazy tables (capture/stacks/uw_lazy.c): a large file's table holds
# only the FDEs stacks passed through, the rest "not built yet".  Against
# the whole table of the same file, after each batch of FDEs added: the
# same rule at every row's address where the FDE is built, "not built"
# where it is not.
CHECK = os.path.join(SRC, "uw_lazy_check")
for f, step in ((LIBC, "7"), (BIG, "20011")):
    if not f:
        continue
    p = run([CHECK, f, step])
    o = p.stdout.split()
    t.ok(p.returncode == 0 and o[:1] == ["ok"] and int(o[4]) > 0,
         "%s: lazy table as the whole one at %s addresses, %s of %s FDEs built in %s batches "
         "(whole %s ms, the first FDE %s ms)"
         % (os.path.basename(f), o[4] if len(o) > 5 else "?", o[2] if len(o) > 5 else "?",
            o[1] if len(o) > 5 else "?", o[3] if len(o) > 5 else "?", o[5] if len(o) > 5 else "?",
            o[6] if len(o) > 6 else "?"), p.stdout + p.stderr)

# 7e'. Frame names from the symbol index (capture/stacks/symindex.c)
# against libdw's own lookup, on the files here: libc (its symbols from
# libc6-dbg's separate file where installed), python, the stand-in
# driver, and hand-made symbols (aliases of one address with other
# bindings and sizes, nested functions, labels in two sections, an
# absolute symbol).
SYMCHECK = os.path.join(SRC, "symindex_check")
files = [LIBC, os.path.realpath(sys.executable)] + \
    [os.path.join(SRC, f) for f in ("libcuda.so.1", "libstripped.so.1", "lld/libcuda.so.1",
                                    "stackprog", "libsymtricky.so")] + ([BIG] if BIG else [])
# The index groups symbols in buckets of address, 32 on average, each read
# in table order and scanned whole; a bucket a symbol
# (CT_SYMINDEX_BUCKET_SYMS=1) takes every lookup across buckets, and
# buckets of thousands (4096) put a lookup's holders, aliases and labels
# among many others of the bucket.
for how in ("built", "built, a bucket for about each symbol", "built, buckets of thousands",
            "mapped back from the cache"):
    env = dict(os.environ, CT_SYMINDEX_STEPS="50000000")
    if how == "built, a bucket for about each symbol":
        env["CT_SYMINDEX_BUCKET_SYMS"] = "1"
    if how == "built, buckets of thousands":
        env["CT_SYMINDEX_BUCKET_SYMS"] = "4096"
    if how.startswith("mapped"):
        env["CT_SYMINDEX_CACHE"] = os.path.join(tmp, "symcheck-cache")
    p = subprocess.run([SYMCHECK] + files, capture_output=True, text=True, env=env)
    rows = [line.split() for line in p.stdout.splitlines()]
    # A raw table's strings are advised random reads (names_read_alone):
    # each name a page, not a read-ahead around it, on a cold first run.
    t.ok(p.returncode == 0 and len(rows) == len(files) and all(r[0] == "ok" for r in rows) and
         all(r[7] == ("cache" if how.startswith("mapped") else "raw") for r in rows) and
         all(len(r) > 10 and r[10] == "rr" for r in rows),
         "index %s: names as libdw's at %s addresses of %d files (%s), their strings read "
         "at random; a lookup %s ns, "
         "libdw's %s ns" % (how, sum(int(r[2]) for r in rows if len(r) > 9), len(rows),
                            ", ".join("%s %s symbols" % (os.path.basename(r[1]), r[4])
                                      for r in rows if len(r) > 9),
                            "/".join(r[8] for r in rows if len(r) > 9),
                            "/".join(r[9] for r in rows if len(r) > 9)), p.stdout + p.stderr)

# 7e''. The capture's symbol cache (capture/stacks/symcache.c): a second
# capture of the same program maps each file's index back instead of
# reading its symbols again, and names every frame the same (libdw's
# check: 0 differences; the same text); a cache that cannot be written
# is said, and changes no name.
SYMCACHE = os.path.join(tmp, "symcache")
texts, lines = [], []
for run_no, cache in enumerate((SYMCACHE, SYMCACHE, "/proc/no-such-folder")):
    ct = os.path.join(tmp, "symcache%d.ctrace" % run_no)
    p = run([CUDATRACE, "-k", "--device", dev, "-w", ct, "--", os.path.join(SRC, "stackprog"),
             os.path.join(SRC, "libcuda.so.1"), dev],
            env=dict(os.environ, CUDATRACE_SYMBOL_CACHE=cache))
    m = re.search(r"named \d+ addresses .*", p.stderr)
    d = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) names differ", p.stderr)
    lines.append((m.group(0) if m else p.stderr[-800:], d and d.group(1) == "0"))
    # The frames' names, without their run's addresses.
    texts.append(re.findall(r"^ > (\S+\(.*?\))", text_of(ct), re.M))
w = re.search(r"symbol cache: 0 read, (\d+) written", lines[0][0])
r = re.search(r"symbol cache: (\d+) read, 0 written", lines[1][0])
t.ok(w and r and int(w.group(1)) >= 3 and r.group(1) == w.group(1) and lines[0][1] and
     lines[1][1] and texts[0] and texts[0] == texts[1],
     "symbol cache: the first capture writes %s indexes, the second maps them back, names as "
     "libdw's and the same %d frames' names" % (w.group(1) if w else "?", len(texts[1])),
     (lines[:2], texts[:2]))
# The bound (CUDATRACE_SYMBOL_CACHE_MB): a folder over it loses its least
# recently used indexes, the ones just used kept, other files untouched.
BOUNDED = os.path.join(tmp, "symcache-bounded")
os.makedirs(BOUNDED)
for i in range(3):
    old = os.path.join(BOUNDED, "old%d.symx" % i)
    with open(old, "wb") as f:
        f.write(b"\0" * (600 << 10))
    os.utime(old, (1000000000 + i, 1000000000 + i))
with open(os.path.join(BOUNDED, "notes.txt"), "w") as f:
    f.write("not an index\n")
p = run([CUDATRACE, "-k", "--device", dev, "-w", os.path.join(tmp, "bounded.ctrace"), "--",
         os.path.join(SRC, "stackprog"), os.path.join(SRC, "libcuda.so.1"), dev],
        env=dict(os.environ, CUDATRACE_SYMBOL_CACHE=BOUNDED, CUDATRACE_SYMBOL_CACHE_MB="1"))
left = sorted(os.listdir(BOUNDED))
fresh = [f for f in left if f.endswith(".symx") and not f.startswith("old")]
gone = [i for i in range(3) if "old%d.symx" % i not in left]
size = sum(os.path.getsize(os.path.join(BOUNDED, f)) for f in left if f.endswith(".symx"))
said = re.search(r"written, (\d+) least recently used removed \(over 1 MiB", p.stderr)
t.ok(said and int(said.group(1)) == len(gone) and gone == list(range(len(gone))) and gone and
     "notes.txt" in left and len(fresh) == 3 and size <= 1 << 20,
     "a cache over its bound (3 old indexes of 600 KiB, 1 MiB): the %d oldest removed, the 3 "
     "just written kept (%d bytes left), other files left" % (len(gone), size),
     (left, p.stderr[-600:]))
t.ok("not written (" in lines[2][0] and "CUDATRACE_SYMBOL_CACHE" in lines[2][0] and
     lines[2][1] and texts[2] == texts[0],
     "a cache folder that cannot be made: said, the names the same", (lines[2], texts[2]))

# 7e'''. Source lines kept for the next capture (capture/stacks/src_kept.c):
# stackprog and its library carry DWARF (-g).  The first capture reads it;
# the next takes every line as the first kept it, reads no DWARF, and
# prints the same frames; kept lines said to come from other DWARF (a
# debug file installed since), or cut short, are read again.
LINES = os.path.join(tmp, "lines")
LINES_RE = (r"source lines of (\d+) from (\d+) files' debug information in [0-9.]+ ms of it"
            r"(?: \((\d+) addresses' lines as the last capture kept them, of (\d+) files; "
            r"(\d+) files' kept lines from other debug information or not whole, read again\))?")


def lines_run(run_no):
    """A capture with the lines' cache folder: its closing figures (lines
    given, files whose DWARF was read, lines kept, kept files refused) and
    its frames' text without the run's addresses."""
    ct = os.path.join(tmp, "lines%d.ctrace" % run_no)
    p = run([CUDATRACE, "-k", "--device", dev, "-w", ct, "--", PROG, LIB, dev],
            env=dict(os.environ, CUDATRACE_SYMBOL_CACHE=LINES))
    m = re.search(LINES_RE, p.stderr)
    figures = [int(g or 0) for g in m.groups()] if m else None
    frames = sorted(set(re.sub(r" \[0x[0-9a-f]+\]", "", line)
                        for line in text_of(ct).splitlines() if line.startswith(" > ")))
    return figures, frames, p.stderr[-900:]


def kept_lines():
    return [os.path.join(LINES, f) for f in sorted(os.listdir(LINES)) if f.endswith(".srcs")]


first, second = lines_run(0), lines_run(1)
with_lines = [f for f in first[1] if re.search(r"\.[ch]:\d+$", f)]
t.ok(first[0] and first[0][0] > 0 and first[0][1] > 0 and first[0][2] == 0 and with_lines and
     second[0] and second[0][1] == 0 and second[0][2] > 0 and second[0][0] == first[0][0] and
     second[1] == first[1],
     "source lines: the first capture reads %s files' DWARF for %s lines; the next reads none, "
     "takes %s addresses' lines as kept, and prints the same %d frames (%d with a line)"
     % (first[0][1] if first[0] else "?", first[0][0] if first[0] else "?",
        second[0][2] if second[0] else "?", len(second[1]), len(with_lines)),
     (first[0], second[0], first[2], second[2]))
for f in kept_lines():   # as if a debug file had been installed since
    with open(f) as fh:
        text = fh.read()
    with open(f, "w") as fh:
        fh.write(re.sub(r"^from .*$", "from build-id 1 2.000000000", text, count=1, flags=re.M))
other = lines_run(2)
t.ok(other[0] and other[0][4] == len(kept_lines()) and other[0][2] == 0 and
     other[0][1] == first[0][1] and other[1] == first[1],
     "source lines kept from other debug information: %s of %d files refused, their DWARF read "
     "again, the same frames" % (other[0][4] if other[0] else "?", len(kept_lines())),
     (other[0], other[2]))
for f in kept_lines():   # the last line cut short
    with open(f) as fh:
        text = fh.read()
    with open(f, "w") as fh:
        fh.write(text[:-1])
cut = lines_run(3)
t.ok(cut[0] and cut[0][4] == len(kept_lines()) and cut[0][2] == 0 and cut[1] == first[1],
     "kept source lines cut short: %s of %d files refused, the same frames"
     % (cut[0][4] if cut[0] else "?", len(kept_lines())), (cut[0], cut[2]))

# 7f. Through a large library (libLLVM-14, 110 MB, the stand-in for XLA's
# library or libtorch_cuda.so: each call is made from a callback libLLVM
# calls; the second half from threads libLLVM starts, through FDEs the
# first did not need): its table is lazy, a few FDEs built on demand in
# two runs, not its 977,169 rows (on the GPU machine such files took
# seconds to minutes, or overflowed the rows, and no stack was walked),
# and the calls are walked in the kernel as the copies' unwinding has
# them.  The control: the same run with the file built whole
# (CT_KT_LAZY_MIN above its size).
LLVMPROG = os.path.join(SRC, "llvmprog")


def closing(stderr):
    """(walked, rows, lazy files, FDEs on demand, runs, differences) from the closing lines."""
    walked, _ = kernel_walks(stderr)
    rows = re.search(r"\((\d+) rows of \d+\) built", stderr)
    lazy = re.search(r"(\d+) files lazy \((\d+) FDEs built on demand, in (\d+) runs", stderr)
    diff = re.search(r"CT_UNWIND_CHECK: (\d+) of (\d+) kernel walks differ", stderr)
    return (walked, int(rows.group(1)) if rows else -1) + \
        (tuple(int(x) for x in lazy.groups()) if lazy else (0, 0, 0)) + \
        (int(diff.group(1)) if diff else -1, stderr)


if not os.path.exists(LLVMPROG):
    t.skip("-k through a large library", "no llvmprog (llvm-config-14 not installed)")
else:
    lt = os.path.join(tmp, "llvm.ctrace")
    runs = {}
    for name, lazy_min in (("lazy", None), ("whole", str(1 << 40))):
        env = dict(os.environ)
        env.pop("CT_KT_LAZY_MIN", None)
        if lazy_min:
            env["CT_KT_LAZY_MIN"] = lazy_min
        p = subprocess.run([CUDATRACE, "-k", "--device", dev, "-w", lt, "--", LLVMPROG, dev,
                            "2000", "1000", "thread"], capture_output=True, text=True, env=env)
        runs[name] = closing(p.stderr)
    lz, wh = runs["lazy"], runs["whole"]
    t.ok(wh[5] == 0 and wh[0] >= 1000 and wh[2] == 0 and
         "stack ends: 2000 complete" in wh[6],
         "the control, built whole: %d of 2000 walked, %d rows, 0 differences" % (wh[0], wh[1]),
         wh[6])
    t.ok(lz[2] == 1 and 2 <= lz[3] <= 20 and lz[4] >= 2 and lz[5] == 0 and lz[0] >= 1500 and
         "stack ends: 2000 complete" in lz[6],
         "libLLVM's table lazy: %d FDEs built on demand in %d runs, %d of 2000 walked in the "
         "kernel, %d differences from the copies' unwinding" % (lz[3], lz[4], lz[0], lz[5]),
         lz[6])
    t.ok(0 < lz[1] * 10 < wh[1],
         "rows in use %d, against %d with it built whole" % (lz[1], wh[1]), lz[6])
    # Every file lazy (CT_KT_LAZY_MIN=0): libc's, llvmprog's and
    # libLLVM's, each added to as the threads' calls come.
    env = dict(os.environ, CT_KT_LAZY_MIN="0")
    p = subprocess.run([CUDATRACE, "-k", "--device", dev, "-w", lt, "--", LLVMPROG, dev,
                        "2000", "1000", "thread"], capture_output=True, text=True, env=env)
    al = closing(p.stderr)
    t.ok(al[2] >= 3 and al[3] >= 9 and al[4] >= 4 and al[5] == 0 and al[0] >= 1000 and
         "stack ends: 2000 complete" in p.stderr,
         "every file lazy: %d files, %d FDEs on demand in %d runs, %d of 2000 walked, "
         "%d differences, all complete" % (al[2], al[3], al[4], al[0], al[5]), p.stderr)

# 6. Bad sizes are refused with a reason.
for bad in ("-k=100", "--stack=0", "--stack=1048576", "-kx"):
    p = run([CUDATRACE, bad, "--device", dev, "--", "true"])
    t.ok(p.returncode == 2 and "Invalid -k/--stack size" in p.stderr,
         "%s is refused: %s" % (bad, p.stderr.strip().splitlines()[0] if p.stderr else ""))

t.done()
