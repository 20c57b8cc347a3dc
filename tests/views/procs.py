# SPDX-License-Identifier: MIT
"""Process lines (issue 22, items 13 and 14).  Under filters a "+++ process"
line is printed only for a process with a call in the output, just before
its first one; without filters every process line is printed.  A process
started through the dynamic loader (ld-linux-x86-64.so.2 /path/prog) is
shown and filtered (--comm) by the program's name: on the H200 trace's
nvidia-smi, and live (as root) on nvfake started through the loader."""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, ROOT, Tap, decode_json,  # noqa: E402
                 run, scratch_dir)

H200 = os.path.join(ROOT, "traces", "h200x2-nccl-allreduce.ctrace")
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
CALL = re.compile(r"^\S+ (\d+)/\d+ (\S*) (ioctl|mmap|munmap)\(")
PROC = re.compile(r"^\S+ (\d+)/\d+ (\S*) \+\+\+ process ")
t = Tap()


def lines(trace, *args):
    p = run([CUDATRACE, "-r", trace] + list(args), timeout=300)
    return p.returncode, p.stdout.splitlines()


def check_procs(trace, args, what):
    """Process lines exactly for the pids with calls, each before its first call."""
    rc, out = lines(trace, *args)
    first_call, proc_at = {}, {}
    for i, l in enumerate(out):
        m = CALL.match(l)
        if m:
            first_call.setdefault(m.group(1), i)
        m = PROC.match(l)
        if m:
            proc_at.setdefault(m.group(1), i)
    ok = (rc == 0 and set(proc_at) == set(first_call) and
          all(proc_at[p] < first_call[p] for p in proc_at))
    t.ok(ok, "%s: process lines for exactly the %d processes with calls, each before them"
         % (what, len(first_call)), {"procs": sorted(proc_at), "with calls": sorted(first_call)})
    return proc_at


# Item 13: filters hold process lines back.
all_procs = check_procs(H200, [], "H200, no filter")
rc, out = lines(H200)
t.ok(len([l for l in out if PROC.match(l)]) == 5,
     "without filters every process line is printed (5 in the H200 trace)")
check_procs(H200, ["--comm", "python"], "H200 --comm python")
check_procs(H200, ["-e", "esc=NV_ESC_CARD_INFO"], "H200 -e esc=NV_ESC_CARD_INFO")
check_procs(H200, ["--failed"], "H200 --failed")
check_procs(SAXPY, ["--comm", "saxpy"], "saxpy --comm saxpy")
rc, out = lines(SAXPY, "--comm", "saxpy")
t.ok([PROC.match(l).group(2) for l in out if PROC.match(l)] == ["saxpy"],
     "saxpy --comm saxpy: env's exec line (same pid, before the exec) is dropped")
rc, out = lines(SAXPY, "--comm", "nosuch")
t.ok(rc == 0 and not out, "--comm of no process: no line at all", out[:3])
rc, out = lines(SAXPY, "--failed", "-v")
t.ok(rc == 0 and not [l for l in out if "+++" in l],
     "-v --failed on a trace without failures: no process, fork or exit line", out[:3])
p = run([CUDATRACE, "-r", SAXPY, "--json", "--comm", "saxpy"])
objs = [json.loads(l) for l in p.stdout.splitlines()]
procs = [o for o in objs if o["type"] == "proc"]
t.ok(len(procs) == 1 and procs[0]["comm"] == "saxpy" and objs.index(procs[0]) < min(
    i for i, o in enumerate(objs) if o["type"] == "ioctl"),
     "--json: the same, one proc object before the first call")

# Item 13: the docs name every environment variable a process line keeps.
src = open(os.path.join(ROOT, "capture", "procinfo.c")).read()
keep = re.findall(r'"([A-Z_]+)=?"', src[src.index("env_keep[]"):src.index("};", src.index("env_keep[]"))])
views = open(os.path.join(ROOT, "docs", "VIEWS.md")).read()
section = views[views.index("## Process lines"):views.index("## Filters")]
t.ok(len(keep) > 5 and all("`%s`" % k in section for k in keep),
     "docs/VIEWS.md 'Process lines' names the %d kept variables of capture/procinfo.c" % len(keep),
     [k for k in keep if "`%s`" % k not in section])

# Item 14: nvidia-smi started through the loader.
ev = decode_json(H200)
smi = [e for e in ev if e["type"] in ("ioctl", "mmap") and e["pid"] in (672, 674)]
t.ok(smi and all(e["comm"] == "nvidia-smi" for e in smi),
     "H200: the calls of ld-linux-x86-64.so.2 --library-path ... nvidia-smi are nvidia-smi's "
     "(%d calls)" % len(smi), sorted(set(e["comm"] for e in smi)))
rc, out = lines(H200, "--comm", "nvidia-smi")
pids = set(CALL.match(l).group(1) for l in out if CALL.match(l))
t.ok(rc == 0 and pids == {"672", "674"}, "--comm nvidia-smi picks them", pids)
rc, out = lines(H200, "--comm", "ld-linux-x86-64")
t.ok(rc == 0 and not out, "--comm ld-linux-x86-64: nothing (the loader is not the program)")

LOADER = next((p for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1")
               if os.path.exists(p)), None)
t.live_capture_or_skip("live: a program started through the loader",
                       None if LOADER else "no glibc loader found")
tmp = scratch_dir("ct-procs-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
fake = os.path.join(tmp, "nvfake-prog")
shutil.copy2(NVFAKE, fake)
cmd = ["--", LOADER, "--inhibit-cache", fake, "-f", ctl, "burst", "5"]
tr = os.path.join(tmp, "ld.ctrace")
p = run([CUDATRACE, "--device", ctl, "-w", tr] + cmd)
calls = [e for e in decode_json(tr) if e["type"] == "ioctl"]
t.ok(p.returncode == 0 and len(calls) == 5 and all(e["comm"] == "nvfake-prog" for e in calls),
     "live: 5 calls of %s --inhibit-cache nvfake-prog, named nvfake-prog" % LOADER,
     (p.stderr, sorted(set(e["comm"] for e in calls))))
p = run([CUDATRACE, "--device", ctl, "--json", "--comm", "nvfake-prog"] + cmd)
calls = [json.loads(l) for l in p.stdout.splitlines() if '"ioctl"' in l]
t.ok(p.returncode == 0 and len(calls) == 5,
     "live --comm nvfake-prog (checked in the kernel, then by program): its 5 calls",
     p.stderr)
t.done()
