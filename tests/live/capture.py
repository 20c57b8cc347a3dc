# SPDX-License-Identifier: MIT
"""Live BPF capture on stand-in files (--device): every byte captured equals
what nvfake sent, -p keeps other processes out, children are followed,
-- COMMAND sees the first ioctl, a 200,000-ioctl burst loses nothing, and
the bad-input errors say what is wrong."""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, decode_json,  # noqa: E402
                 run, scratch_dir, start_tracer)

t = Tap()
t.live_capture_or_skip("live BPF capture tests")

tmp = scratch_dir("ct-live-")
ctl = os.path.join(tmp, "nvidiactl")   # stand-ins, created by nvfake
uvm = os.path.join(tmp, "nvidia-uvm")
for f in (ctl, uvm):
    open(f, "w").close()
DEV = ["--device", ctl, "--device", uvm]


def trace_path(name):
    return os.path.join(tmp, name + ".ctrace")


def ioctls(events, **match):
    return [e for e in events if e["type"] == "ioctl" and
            all(e.get(k) == v for k, v in match.items())]


def arg_u32(hexstr, off):
    return int.from_bytes(bytes.fromhex(hexstr[2 * off:2 * off + 8]), "little")


# 1. Every byte: nvfake's script mode, compared with what it says it sent.
expect = os.path.join(tmp, "expect.jsonl")
tr = trace_path("script")
p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "-u", uvm,
                            "--expect", expect, "script"])
t.ok(p.returncode == 0 and "0 lost" in p.stderr, "script capture ran, 0 lost", p.stderr)
sent = [json.loads(l) for l in open(expect)]
ev = decode_json(tr)
got = ioctls(ev)
want = [s for s in sent if s["syscall"] == "ioctl"]
t.ok(len(got) == len(want) == 11, "11 ioctls captured (%d), 11 sent (%d)" % (len(got), len(want)))
for i, (s, g) in enumerate(zip(want, got), 1):
    tag = "ioctl %d %s" % (i, g.get("name"))
    nested_want = s["nested_in"]
    trunc = len(nested_want) > 2 * 8192
    ok = (int(g["request"], 16) == int(s["request"], 16) and g["fd"] == s["fd"]
          and g["ret"] == s["ret"] and g["tid"] == s["tid"]
          and g["arg_in"] == s["arg_in"] and g["arg_out"] == s["arg_in"]
          and g.get("nested_in", "") == nested_want[:2 * 8192]
          and g.get("nested_out", "") == nested_want[:2 * 8192]
          and bool(g.get("truncated")) == trunc)
    t.ok(ok, "%s: request, fd, tid, ret and every byte in and out as sent%s" %
         (tag, " (nested cut at -s 8192, marked truncated)" if trunc else ""),
         {k: (s.get(k), g.get(k)) for k in ("request", "fd", "tid", "ret", "arg_in")}
         if not ok else None)
names = [g["name"] for g in got]
t.ok(names[:7] == ["NV_ESC_RM_CONTROL"] * 3 + ["NV_ESC_RM_ALLOC"] * 2 +
     ["NV_ESC_RM_FREE", "NV_ESC_IOCTL_XFER_CMD"] and
     names[7:] == ["UVM_INITIALIZE", "UVM_MM_INITIALIZE", "UVM_REGISTER_GPU",
                   "UVM_MAP_EXTERNAL_ALLOCATION"], "escape and UVM names", names)
t.ok(got[0].get("cmd") == "0xcafe0101" and got[3].get("hClass") == "0xc0de0004",
     "JSON carries cmd for RM_CONTROL and hClass for RM_ALLOC",
     (got[0].get("cmd"), got[3].get("hClass")))
t.ok([len(g["arg_in"]) // 2 for g in got[7:]] == [16, 8, 40, 9264],
     "UVM argument sizes come from the UVM table (16, 8, 40, 9264)")
t.ok(all(g["path"] in (ctl, uvm) for g in got), "each fd is named by its path")
mm_sent = [s for s in sent if s["syscall"] == "mmap"][0]
mm = [e for e in ev if e["type"] == "mmap"]
t.ok(len(mm) == 1 and mm[0]["ret"] == mm_sent["ret"] and mm[0]["len"] == 4096 and
     int(mm[0]["prot"], 16) == 3 and int(mm[0]["flags"], 16) == 1,
     "mmap: address returned, length, prot, flags", (mm, mm_sent))
mu = [e for e in ev if e["type"] == "munmap"]
t.ok(len(mu) == 1 and mu[0]["addr"] == mm_sent["ret"], "munmap of the NVIDIA mapping", mu)
t.ok(len(mu) == 1 and mu[0].get("comm") == mm[0]["comm"] == "nvfake",
     "munmap (its record has no comm) is named after its thread: nvfake", mu)
procs = [e for e in ev if e["type"] == "proc"]
t.ok(any(pr["argv"][:1] == [NVFAKE] for pr in procs),
     "process record carries the command line", [pr.get("argv") for pr in procs])
t.ok((os.stat(tr).st_mode & 0o777) == 0o600, "trace file is created 0600")

# 2. The same, decoded live (no -w): one code path.
out = os.path.join(tmp, "live.jsonl")
p = run([CUDATRACE, "--json", "-o", out] + DEV + ["--", NVFAKE, "-f", ctl, "-u", uvm, "script"])
live = [json.loads(l) for l in open(out)]
# Another run: pointers differ (ASLR), so compare requests and sizes.
shape = lambda evs: [(e["request"], e["name"], len(e["arg_in"]), len(e.get("nested_in", "")))
                     for e in evs]
t.ok(p.returncode == 0 and shape(ioctls(live)) == shape(got),
     "live --json decode gives the same calls and buffer sizes as the file",
     (p.stderr, shape(ioctls(live))))
t.ok([e.get("comm") for e in live if e["type"] == "munmap"] == ["nvfake"],
     "live --json: the munmap is named after its thread too (nvfake)",
     [e for e in live if e["type"] == "munmap"])
p = run([CUDATRACE, "-T", "-o", out] + DEV + ["--", NVFAKE, "-f", ctl, "-u", uvm, "script"])
lines = [l for l in open(out).read().splitlines() if " ioctl(" in l]
t.ok(len(lines) == 11 and "NV_ESC_RM_CONTROL, hClient=0xc1d00001" in lines[0] and
     "= -25 ENOTTY (Inappropriate ioctl for device) <" in lines[0],
     "text output: one strace-like line per call, errno named", lines[:2])

# 3. -p: only the named process, and the capture ends when it exits.
a = subprocess.Popen([NVFAKE, "-f", ctl, "wait-then", "2", "burst", "100"],
                     stdout=subprocess.PIPE, text=True)
b = subprocess.Popen([NVFAKE, "-f", ctl, "wait-then", "2", "burst", "50"],
                     stdout=subprocess.PIPE, text=True)
tr = trace_path("pid")
tracer = start_tracer(DEV + ["-p", str(a.pid), "-w", tr])
a.wait(timeout=30)
b.wait(timeout=30)
try:
    tracer.wait(timeout=10)
    ended = True
except subprocess.TimeoutExpired:
    tracer.send_signal(signal.SIGINT)
    tracer.wait(timeout=10)
    ended = False
t.ok(ended, "-p capture ends by itself when the process exits")
ev = decode_json(tr)
pids = {e["pid"] for e in ioctls(ev)}
t.ok(len(ioctls(ev)) == 100 and pids == {a.pid},
     "-p %d: its 100 ioctls, none of the other process's 50" % a.pid,
     (len(ioctls(ev)), pids, b.pid))
t.ok(any(e["type"] == "proc" and e["source"] == "attach" and e["pid"] == a.pid for e in ev),
     "attach writes a process record for the pid")

# 4. Children are followed from fork on.
tr = trace_path("fork")
p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "fork", "8"])
kids = [int(l.split()[3]) for l in p.stdout.splitlines() if l.startswith("child ")]
parent = [int(l.split()[2]) for l in p.stdout.splitlines() if l.startswith("parent ")]
ev = decode_json(tr)
by_pid = {}
for e in ioctls(ev):
    by_pid[e["pid"]] = by_pid.get(e["pid"], 0) + 1
t.ok(len(kids) == 8 and sorted(by_pid) == sorted(kids + parent) and
     set(by_pid.values()) == {1}, "fork 8: one ioctl from each of the 8 children and the parent",
     (by_pid, kids, parent))
t.ok(sum(1 for e in ev if e["type"] == "fork") == 8, "8 fork records")

# 5. -- COMMAND: the very first ioctl of the program is there.
tr = trace_path("first")
p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "first"])
ev = ioctls(decode_json(tr))
t.ok(len(ev) == 1 and ev[0].get("cmd") == "0xcafe0500",
     "-- COMMAND captures the program's first ioctl", ev)
t.ok(p.returncode == 0, "cudatrace exits with the command's status (0)")
p = run([CUDATRACE] + DEV + ["--", "sh", "-c", "exit 7"])
t.ok(p.returncode == 7, "cudatrace exits with the command's status (7)", p.returncode)

# 6. A 200,000-ioctl burst: all captured, none lost.
N = 200000
base = run([NVFAKE, "-f", ctl, "burst", str(N)])
tr = trace_path("burst")
p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "burst", str(N)], timeout=300)
t.ok("%d events captured, 0 lost" % (2 * N + 1) in p.stderr or
     (" 0 lost" in p.stderr), "burst: cudatrace reports 0 lost", p.stderr)
q = run([CUDATRACE, "-r", tr], timeout=300)
n = q.stdout.count(" ioctl(")
t.ok(n == N, "burst: %d of %d ioctls in the trace" % (n, N))
print("# burst %d ioctls: untraced %s; traced (-w): %s" %
      (N, base.stdout.strip(), p.stdout.strip()))

# 6b. -z: a zstd trace decodes to the same calls; a cut one decodes its good part.
trz = trace_path("burst-z")
p = run([CUDATRACE] + DEV + ["-z", "-w", trz, "--", NVFAKE, "-f", ctl, "burst", "20000"])
q = run([CUDATRACE, "-r", trz], timeout=300)
t.ok(p.returncode == 0 and q.returncode == 0 and q.stdout.count(" ioctl(") == 20000 and
     open(trz, "rb").read(4) == b"\x28\xb5\x2f\xfd",
     "-z: zstd trace file, all 20000 calls decode", (p.stderr, q.stderr))
cut = trace_path("burst-z-cut")
open(cut, "wb").write(open(trz, "rb").read()[:os.path.getsize(trz) // 2])
q = run([CUDATRACE, "-r", cut], timeout=300)
n = q.stdout.count(" ioctl(")
t.ok(q.returncode == 1 and 0 < n < 20000 and "ends inside a zstd frame" in q.stderr,
     "-z: a cut compressed trace decodes %d calls, then says where it broke" % n, q.stderr)

# 6c. --max-size / --rotate: files of about that size, the oldest removed, each standalone.
rot = trace_path("rot")
p = run([CUDATRACE] + DEV + ["-w", rot, "--max-size", "1M", "--rotate", "3", "--",
                             NVFAKE, "-f", ctl, "burst", "30000"])
files = sorted(f for f in os.listdir(tmp) if f.startswith("rot.ctrace."))
sizes = [os.path.getsize(os.path.join(tmp, f)) for f in files]
calls = 0
for f in files:
    evs = decode_json(os.path.join(tmp, f))
    calls += len(ioctls(evs))
t.ok(p.returncode == 0 and len(files) == 3 and max(sizes) < (1 << 20) + 65536 and
     all(decode_json(os.path.join(tmp, f))[0]["type"] == "meta" for f in files),
     "--rotate 3: three files kept, each under --max-size plus one record, each with its header",
     (files, sizes, p.stderr))
t.ok("rot.ctrace.0" not in files, "--rotate removed the oldest files", files)

# 7. SIGINT ends a system-wide capture cleanly, trailer written.
tr = trace_path("sigint")
# With the threads it may start (the metrics server's, the Python frames
# reader): a thread's capabilities are its own, so each must drop them.
tracer = start_tracer(DEV + ["-w", tr, "--metrics", "127.0.0.1:0", "--py-stack"])


def thread_caps(pid):
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        status = open("/proc/%d/task/%s/status" % (pid, tid)).read().splitlines()
        out[tid] = dict(l.split(":\t") for l in status if l.startswith("Cap"))
    return out


caps = thread_caps(tracer.pid)
# CAP_DAC_OVERRIDE 1, CAP_DAC_READ_SEARCH 2, CAP_SYS_PTRACE 19, CAP_PERFMON 38, CAP_BPF 39
want_caps = (1 << 1) | (1 << 2) | (1 << 19) | (1 << 38) | (1 << 39)
t.ok(len(caps) >= 4 and
     all(int(c["CapEff"], 16) == want_caps and int(c["CapBnd"], 16) == want_caps
         for c in caps.values()),
     "after attaching, cudatrace keeps only BPF, PERFMON, SYS_PTRACE, DAC_* capabilities, in "
     "each of its %d threads (--metrics, --py-stack)" % len(caps), caps)
run([NVFAKE, "-f", ctl, "burst", "1000"])
time.sleep(0.3)
tracer.send_signal(signal.SIGINT)
rc = tracer.wait(timeout=20)
err = tracer.stderr.read()
ev = decode_json(tr)
tr_rec = [e for e in ev if e["type"] == "trailer"]
t.ok(rc == 0 and len(tr_rec) == 1 and len(ioctls(ev, comm="nvfake")) == 1000,
     "SIGINT: exit 0, trailer written, all 1000 calls of a system-wide capture kept",
     (rc, err, len(ioctls(ev, comm="nvfake"))))
t.ok(any(e["type"] == "proc" and e["source"] == "seen" for e in ev),
     "system-wide: a process record for each process seen")

# 8. Bad input says what is wrong.
p = run([CUDATRACE] + DEV + ["-p", "12x"])
t.ok(p.returncode != 0 and "Invalid PID" in p.stderr, "-p out of range: Invalid PID", p.stderr)
p = run([CUDATRACE] + DEV + ["-p", "4194000"])
t.ok(p.returncode != 0 and "no such process: 4194000" in p.stderr,
     "-p of a missing process: no such process", p.stderr)
p = run([CUDATRACE, "--", "true"])
has_nv = any(l.split()[1:2] and l.split()[1].startswith("nvidia")
             for l in open("/proc/devices") if l[:1].isdigit() or l[:1] == " ")
if has_nv:
    t.skip("no NVIDIA nodes and no --device", "this machine has NVIDIA devices")
else:
    t.ok(p.returncode != 0 and "no NVIDIA device nodes found" in p.stderr and
         "--device" in p.stderr, "no NVIDIA nodes and no --device: says so", p.stderr)
link = os.path.join(tmp, "link.ctrace")
victim = os.path.join(tmp, "victim")
open(victim, "w").write("keep")
os.symlink(victim, link)
p = run([CUDATRACE] + DEV + ["-w", link, "--", "true"])
t.ok(p.returncode != 0 and "symbolic link" in p.stderr and open(victim).read() == "keep",
     "-w refuses to follow a symlink planted at the output path", p.stderr)
p = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
         CUDATRACE] + DEV + ["--", "true"])
t.ok(p.returncode != 0 and "needs root or CAP_BPF+CAP_PERFMON" in p.stderr,
     "without privileges: one line saying what is needed", p.stderr)
p = run([CUDATRACE, "-r", os.path.join(tmp, "missing.ctrace")])
t.ok(p.returncode == 1 and "cannot open" in p.stderr, "-r of a missing file", p.stderr)
p = run([CUDATRACE, "-r", "/etc/passwd"])
t.ok(p.returncode == 1 and "not a cudatrace trace file" in p.stderr, "-r of another file",
     p.stderr)
t.done()
