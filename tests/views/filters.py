# SPDX-License-Identifier: MIT
"""Filters (-e, --failed, --tid, --comm) on the real H100 traces, each
checked against the calls picked here, independently, from the unfiltered
--json output of the same trace; the error cases; and, as root, the
kernel-side --comm filter on stand-in files.  Prints TAP.  See
docs/VIEWS.md, "Filters"."""
import fnmatch
import json
import os
import re
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, ROOT, Tap, decode_json, live_capture_possible,  # noqa: E402
                 run, scratch_dir)

CALLS = ("ioctl", "mmap", "munmap")
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
TORCH = os.path.join(ROOT, "traces", "h100-torch_train.ctrace")
CTX = os.path.join(ROOT, "traces", "h100-ctx_create.ctrace")

t = Tap()
tmp = scratch_dir("ct-filters-")


def calls(events):
    return [e for e in events if e["type"] in CALLS]


def filtered(trace, *args):
    """The calls cudatrace -r TRACE --json ARGS prints (exit 0 asserted)."""
    p = run([CUDATRACE, "-r", trace, "--json"] + list(args))
    if p.returncode != 0:
        return None
    return calls([json.loads(l) for l in p.stdout.splitlines() if l.strip()])


def same(got, want, what):
    """got and want: the same calls, in the same order (whole objects)."""
    ok = got is not None and got == want and len(want) > 0
    t.ok(ok, "%s: %d calls, as computed from --json" % (what, len(want)),
         None if ok else "got %s calls, want %d; first difference: %s" % (
             "no output (non-zero exit)" if got is None else len(got), len(want),
             next((("got", g.get("name"), "want", w.get("name"))
                   for g, w in zip(got or [], want) if g != w), None)))


def status_of(o):
    """(value, name) of the NV_STATUS the driver wrote back, or None: a
    field ending in 'status' with a _name beside it (as the decoder names it)."""
    args = o.get("args")
    if not isinstance(args, dict):
        return None
    for k, v in args.items():
        if k.lower().endswith("status") and k + "_name" in args:
            return (int(v, 16) if isinstance(v, str) else v), args[k + "_name"]
    for k, v in args.items():
        if k.lower().endswith("status") and k + "_name" not in args:
            return (int(v, 16) if isinstance(v, str) else v), None
    return None


def failed(o):
    if o["type"] == "mmap":
        ret = int(o["ret"], 16)
        return (1 << 64) - 4096 < ret
    if o["type"] != "ioctl" or o.get("unfinished"):
        return False
    st = status_of(o)
    return o.get("ret", 0) != 0 or (st is not None and st[0] != 0)


def is_uvm(o):
    return o["type"] == "ioctl" and (int(o["request"], 16) >> 8) & 0xff != ord("F") and (
        o.get("name") is not None or "nvidia-uvm" in (o.get("path") or ""))


saxpy = calls(decode_json(SAXPY))
ioctls = [e for e in saxpy if e["type"] == "ioctl"]

# 1. esc=: a comma list is an OR; the NV_ESC_ prefix and case are optional.
want = [e for e in saxpy if e.get("name") in ("NV_ESC_RM_ALLOC", "NV_ESC_RM_FREE")]
same(filtered(SAXPY, "-e", "esc=RM_ALLOC,RM_FREE"), want, "-e esc=RM_ALLOC,RM_FREE")
same(filtered(SAXPY, "-e", "esc=NV_ESC_RM_ALLOC,rm_free"), want,
     "-e esc=NV_ESC_RM_ALLOC,rm_free (prefix and case optional)")
same(filtered(SAXPY, "-e", "esc=0x2b,0x29"), want, "-e esc=0x2b,0x29 (escape numbers)")
same(filtered(SAXPY, "-e", "esc=*"),
     [e for e in ioctls if (int(e["request"], 16) >> 8) & 0xff == ord("F")], "-e esc=*")

# 2. ctrl=: RM_CONTROLs by command name pattern or number.
glob = "NV2080_CTRL_CMD_GPU_*"
same(filtered(SAXPY, "-e", "ctrl=" + glob),
     [e for e in saxpy if e.get("name") == "NV_ESC_RM_CONTROL" and
      fnmatch.fnmatchcase(e.get("cmd_name") or "", glob)], "-e 'ctrl=%s'" % glob)
cmd = ioctls[[e.get("name") for e in ioctls].index("NV_ESC_RM_CONTROL")]["cmd"]
same(filtered(SAXPY, "-e", "ctrl=" + cmd), [e for e in saxpy if e.get("cmd") == cmd],
     "-e ctrl=%s (a number)" % cmd)
same(filtered(SAXPY, "-e", "ctrl=*"), [e for e in saxpy if e.get("name") == "NV_ESC_RM_CONTROL"],
     "-e 'ctrl=*': every RM_CONTROL, named or not")
same(filtered(SAXPY, "-e", "ctrl=0x2080*"),
     [e for e in saxpy if e.get("cmd", "").startswith("0x2080") and len(e["cmd"]) == 10],
     "-e 'ctrl=0x2080*': a pattern on the hex form")

# 3. uvm=, class=, syscall=, status=.
want = [e for e in saxpy if is_uvm(e)]
same(filtered(SAXPY, "-e", "uvm=*"), want, "-e 'uvm=*': every UVM call")
same(filtered(SAXPY, "-e", "uvm=REGISTER_*,UVM_FREE"),
     [e for e in want if e["name"].startswith("UVM_REGISTER_") or e["name"] == "UVM_FREE"],
     "-e uvm=REGISTER_*,UVM_FREE (prefix optional)")
same(filtered(SAXPY, "-e", "class=NV01_DEVICE_0"),
     [e for e in saxpy if e.get("name") == "NV_ESC_RM_ALLOC" and
      e.get("hClass_name") == "NV01_DEVICE_0"], "-e class=NV01_DEVICE_0")
same(filtered(SAXPY, "-e", "class=HOPPER_*"),
     [e for e in saxpy if e.get("name") == "NV_ESC_RM_ALLOC" and
      (e.get("hClass_name") or "").startswith("HOPPER_")], "-e 'class=HOPPER_*'")
same(filtered(SAXPY, "-e", "syscall=mmap"), [e for e in saxpy if e["type"] == "mmap"],
     "-e syscall=mmap")
same(filtered(SAXPY, "-e", "status=NV_OK"),
     [e for e in ioctls if (status_of(e) or (None, None))[1] == "NV_OK"],
     "-e status=NV_OK: calls the driver wrote NV_OK back to")

# 4. Several -e: all must match.
both = filtered(SAXPY, "-e", "esc=RM_CONTROL", "-e", "ctrl=*GPU*", "-e", "ctrl=NV2080_*")
same(both, [e for e in saxpy if e.get("name") == "NV_ESC_RM_CONTROL" and
            fnmatch.fnmatchcase(e.get("cmd_name") or "", "NV2080_*GPU*")],
     "three -e: AND (esc=RM_CONTROL, ctrl=*GPU*, ctrl=NV2080_*)")
p = run([CUDATRACE, "-r", SAXPY, "--json", "-e", "esc=RM_ALLOC", "-e", "uvm=*"])
t.ok(p.returncode == 0 and not calls([json.loads(l) for l in p.stdout.splitlines()]),
     "-e esc=RM_ALLOC -e uvm=*: nothing is both", p.stderr)

# 5. --failed: none in the real trace; then a copy with some failures put in.
got = filtered(SAXPY, "--failed")
t.ok(got == [] and not any(failed(e) for e in saxpy),
     "--failed on the real trace: no call failed, none shown", got and len(got))


def mutate(src, dst):
    """Every 10th RM_CONTROL exit gets NVOS54.status = NV_ERR_INVALID_ARGUMENT,
    every 7th UVM exit ret = -22.  Returns how many of each."""
    data = bytearray(open(src, "rb").read())
    off, nctl, nuvm, st, rt = 16, 0, 0, 0, 0
    while off + 24 <= len(data):
        typ, size = struct.unpack_from("<II", data, off)
        if typ == 3:   # CT_REC_IOCTL_EXIT: struct ct_ioctl (120 bytes) + arg
            cmd, = struct.unpack_from("<I", data, off + 64)
            arg_size, = struct.unpack_from("<I", data, off + 104)
            if cmd == 0xc020462a and arg_size >= 32:
                nctl += 1
                if nctl % 10 == 0:
                    struct.pack_into("<I", data, off + 120 + 28, 0x1f)
                    st += 1
            elif (cmd >> 8) & 0xff != ord("F"):
                nuvm += 1
                if nuvm % 7 == 0:
                    struct.pack_into("<q", data, off + 80, -22)
                    rt += 1
        off += (size + 7) & ~7
    open(dst, "wb").write(data)
    return st, rt


bad = os.path.join(tmp, "failures.ctrace")
nst, nret = mutate(SAXPY, bad)
bad_calls = calls(decode_json(bad))
want = [e for e in bad_calls if failed(e)]
t.ok(len(want) == nst + nret and nst > 0 and nret > 0,
     "the copy has %d failed calls (%d NV_STATUS, %d ret)" % (len(want), nst, nret))
same(filtered(bad, "--failed"), want, "--failed: exactly the failed calls")
want_st = [e for e in bad_calls if (status_of(e) or (None, None))[1] == "NV_ERR_INVALID_ARGUMENT"]
t.ok(len(want_st) == nst, "%d calls carry NV_ERR_INVALID_ARGUMENT" % len(want_st))
same(filtered(bad, "-e", "status=NV_ERR_*"), want_st, "-e 'status=NV_ERR_*'")
same(filtered(bad, "-e", "status=0x1f"), want_st, "-e status=0x1f")
same(filtered(bad, "--failed", "-e", "uvm=*"), [e for e in want if is_uvm(e)],
     "--failed -e uvm=*: the failed UVM calls")

# 6. --tid and --comm on the trace with two threads of two names.
torch = calls(decode_json(TORCH))
tids = sorted({e["tid"] for e in torch})
names = sorted({e.get("comm") for e in torch if e.get("comm")})
t.ok(len(tids) == 2 and names == ["pt_autograd_0", "python3"],
     "torch_train has two threads of two names", (tids, names))
other = [x for x in tids if x != torch[0]["pid"]][0]
same(filtered(TORCH, "--tid", str(other)), [e for e in torch if e["tid"] == other],
     "--tid %d" % other)
same(filtered(TORCH, "--tid", "%d,%d" % tuple(tids)), torch, "--tid %d,%d: both" % tuple(tids))
same(filtered(TORCH, "--tid", "1", "--tid", str(other)), [e for e in torch if e["tid"] == other],
     "--tid repeated: either")
same(filtered(TORCH, "--comm", "pt_autograd_0"),
     [e for e in torch if e.get("comm") == "pt_autograd_0"], "--comm pt_autograd_0")
same(filtered(TORCH, "--comm", "py*"), [e for e in torch if e.get("comm") == "python3"],
     "--comm 'py*' (a pattern)")
same(filtered(TORCH, "--comm", "python3", "-e", "esc=RM_ALLOC"),
     [e for e in torch if e.get("comm") == "python3" and e.get("name") == "NV_ESC_RM_ALLOC"],
     "--comm python3 -e esc=RM_ALLOC")
ctx = calls(decode_json(CTX))
t.ok(filtered(CTX, "--comm", "ctx_create") == ctx and any(e["type"] == "munmap" for e in ctx),
     "--comm keeps a munmap (no comm of its own) of a mapping its thread made")
t.ok(filtered(CTX, "--comm", "nomatch") == [], "--comm with no such thread: no calls")

# 7. Filters come before the summary: -c counts what they let through.
p = run([CUDATRACE, "-r", SAXPY, "-c", "-e", "esc=RM_FREE"])
rows = [l.split()[-1] for l in p.stdout.splitlines()
        if re.match(r"\s*\d+\.\d+\s+\d+\.\d+\s+\d+\s", l) and l.split()[-1] != "total"]
t.ok(p.returncode == 0 and rows == ["NV_ESC_RM_FREE"] and "all calls: 4 " in p.stdout, "-c -e esc=RM_FREE: a table of the 4 RM_FREEs only",
     p.stdout[-600:] + p.stderr)

# 8. Errors: exit 2, one line on stderr naming the bad part.
errors = [
    (["-e", "ctl=X"], "-e 'ctl=X': unknown key 'ctl' (known: esc, ctrl, class, uvm, syscall, status, api, caller, py, kernel)"),
    (["-e", "esc"], "-e 'esc': expected KEY=PATTERN"),
    (["-e", "=RM_FREE"], "-e '=RM_FREE': no key before '='"),
    (["-e", "esc="], "-e 'esc=': empty value for 'esc'"),
    (["-e", "esc=RM_FREE,,RM_ALLOC"], "empty pattern in the list 'RM_FREE,,RM_ALLOC'"),
    (["-e", "ctrl=0x20g0"], "-e 'ctrl=0x20g0': bad hex number '0x20g0'"),
    (["-e", "class=0x"], "bad hex number '0x'"),
    (["-e", "ctrl=0x123456789"], "bad hex number '0x123456789'"),
    (["-e", "ctrl=NV2080_[CTRL"], "unbalanced '[' in 'NV2080_[CTRL'"),
    (["-e", "esc=RM_ALOC"], "-e 'esc=RM_ALOC': unknown escape 'RM_ALOC'"),
    (["-e", "ctrl=NV2080_CTRL_CMD_NO_SUCH"], "unknown RM control 'NV2080_CTRL_CMD_NO_SUCH'"),
    (["-e", "class=NV01_NO_SUCH"], "unknown class 'NV01_NO_SUCH'"),
    (["-e", "uvm=NO_SUCH"], "unknown UVM request 'NO_SUCH'"),
    (["-e", "status=NV_ERR_NO_SUCH"], "unknown NV_STATUS 'NV_ERR_NO_SUCH'"),
    (["-e", "syscall=open"], "unknown syscall 'open' (ioctl, mmap or munmap)"),
    (["--tid", "12x"], "--tid '12x': '12x' is not a thread id"),
    (["--tid", "0"], "'0' is not a thread id"),
    (["--comm", "py[thon"], "--comm 'py[thon': unbalanced '['"),
    (["--comm", "a,,b"], "--comm 'a,,b': empty name"),
]
for args, msg in errors:
    p = run([CUDATRACE, "-r", SAXPY] + args)
    lines = p.stderr.splitlines()
    t.ok(p.returncode == 2 and len(lines) == 1 and lines[0].startswith("cudatrace: ") and
         msg in lines[0] and not p.stdout, "%s: exit 2, says %r" % (" ".join(args), msg),
         (p.returncode, p.stderr))
p = run([CUDATRACE, "-w", os.path.join(tmp, "no.ctrace"), "-e", "esc=RM_FREE", "--", "true"])
t.ok(p.returncode == 2 and "-w writes the raw trace" in p.stderr and
     not os.path.exists(os.path.join(tmp, "no.ctrace")),
     "-w with -e: exit 2 before tracing (filters work on decoded calls)", p.stderr)

# 9. Live, on stand-in files: an exact --comm is checked in the kernel.
why = live_capture_possible()
if why:
    t.skip("live --comm filter in the kernel", why)
else:
    ctl, uvm = os.path.join(tmp, "nvidiactl"), os.path.join(tmp, "nvidia-uvm")
    for f in (ctl, uvm):
        open(f, "w").close()
    twin = os.path.join(tmp, "otherfake")   # the same program, another comm
    shutil.copy(NVFAKE, twin)
    dev = ["--device", ctl, "--device", uvm]
    script = "%s -f %s -u %s script >/dev/null; %s -f %s -u %s script >/dev/null" % (
        NVFAKE, ctl, uvm, twin, ctl, uvm)
    tr = os.path.join(tmp, "comm.ctrace")
    p = run([CUDATRACE] + dev + ["--comm", "nvfake", "-w", tr, "--", "sh", "-c", script])
    ev = decode_json(tr) if p.returncode == 0 else []
    got = calls(ev)
    kinds = [e["type"] for e in got]
    t.ok(p.returncode == 0 and len(got) == 13 and kinds.count("ioctl") == 11 and
         kinds[-2:] == ["mmap", "munmap"] and all(e.get("comm") == "nvfake" for e in got
                                                  if e["type"] != "munmap"),
         "-w --comm nvfake: the trace holds nvfake's 11 ioctls, mmap and munmap only "
         "(the kernel dropped the twin's)", (p.returncode, p.stderr, kinds))
    procs = [e.get("comm") for e in ev if e["type"] == "proc"]
    t.ok(procs == ["nvfake"], "no process record of sh or the twin reached the file", procs)

    p = run([CUDATRACE, "--json"] + dev + ["--comm", "nvfake", "--", "sh", "-c", script])
    live = calls([json.loads(l) for l in p.stdout.splitlines() if l.strip()])
    shape = lambda evs: [(e["type"], e.get("name"), e.get("comm")) for e in evs]
    t.ok(p.returncode == 0 and shape(live) == shape(got),
         "live decode --comm nvfake: the same calls, the munmap kept", shape(live))
    p = run([CUDATRACE, "--json"] + dev + ["--comm", "other*", "--", "sh", "-c", script])
    live = calls([json.loads(l) for l in p.stdout.splitlines() if l.strip()])
    t.ok(p.returncode == 0 and len(live) == 13 and
         all(e.get("comm") == "otherfake" for e in live if e["type"] != "munmap") and
         live[-1]["type"] == "munmap",
         "live --comm 'other*' (user space): the twin's 13 calls", shape(live))
    p = run([CUDATRACE, "--json"] + dev + ["--comm", "nvfake", "--failed", "--", "sh", "-c",
                                           script])
    live = calls([json.loads(l) for l in p.stdout.splitlines() if l.strip()])
    t.ok(p.returncode == 0 and len(live) == 11 and all(e["ret"] == -25 for e in live),
         "live --failed: the 11 ioctls (ENOTTY on a file), not the mmap", shape(live))
    long = os.path.join(tmp, "averyveryverylongfakename")   # comm: its first 15 chars
    shutil.copy(NVFAKE, long)
    p = run([CUDATRACE, "-w", tr] + dev + ["--comm", "averyveryverylongfakename", "--", long,
                                           "-f", ctl, "-u", uvm, "script"])
    got = calls(decode_json(tr)) if p.returncode == 0 else []
    t.ok(p.returncode == 0 and len(got) == 13 and got[0].get("comm") == "averyveryverylo",
         "--comm with a name over 15 characters matches the kernel's cut comm",
         (p.stderr, [e.get("comm") for e in got][:2]))
    p = run([CUDATRACE, "-w", tr, "--comm", "nv*", "--", "true"])
    t.ok(p.returncode == 2 and "--comm pattern" in p.stderr,
         "-w with a --comm pattern: exit 2 (only exact names go to the kernel)", p.stderr)

t.done()
