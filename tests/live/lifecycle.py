# SPDX-License-Identifier: MIT
"""Process life cycle under the tracer: a process killed while blocked
inside an ioctl, and a pid reused by another process after the first one
exited (system-wide and with -p).  tests/blocker.c makes the processes."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (BLOCKER, CUDATRACE, Tap, decode_json,  # noqa: E402
                 run, scratch_dir, start_tracer)

t = Tap()
t.live_capture_or_skip("process life-cycle tests")
tmp = scratch_dir("ct-life-")

# 1. Killed inside an ioctl.  blocker makes 5 FIONREAD calls on a FIFO that
# return at once, then one whose output page is registered with
# userfaultfd and never served: the kernel's put_user() waits in the fault
# until the process is killed.
fifo = os.path.join(tmp, "fifo")
os.mkfifo(fifo)
tr = os.path.join(tmp, "killed.ctrace")
tracer = subprocess.Popen([CUDATRACE, "--device", fifo, "-w", tr, "--", BLOCKER, "block", fifo, "5"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = tracer.stdout.readline()
m = re.match(r"blocking (\d+)", line)
if not m:
    tracer.kill()
    t.ok(False, "blocker reached its blocking call", (line, tracer.stderr.read()))
    t.done()
pid = int(m.group(1))


def in_syscall(pid):
    """The system call pid is blocked in ("16 0x3 0x541b ..." for ioctl), or ""."""
    try:
        with open("/proc/%d/syscall" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


# Blocked for sure: the kernel says it sits in ioctl(3, FIONREAD, ...), and
# still does half a second later.
deadline = time.time() + 10
while not in_syscall(pid).startswith("16 0x3 0x541b ") and time.time() < deadline:
    time.sleep(0.01)
time.sleep(0.5)
sc = in_syscall(pid)
still_in = tracer.poll() is None and sc.startswith("16 0x3 0x541b ")
os.kill(pid, signal.SIGKILL)
try:
    rc = tracer.wait(timeout=30)
    err = tracer.stderr.read()
except subprocess.TimeoutExpired:
    tracer.kill()
    rc, err = "hung", ""
t.ok(still_in, "the process was still inside ioctl(3, FIONREAD) after 0.5 s", sc)
t.ok(rc == 128 + signal.SIGKILL and "0 lost" in err,
     "the tracer ends by itself with the command's status (killed: 137) and nothing lost",
     (rc, err))
ev = decode_json(tr)
calls = [e for e in ev if e["type"] == "ioctl" and e["pid"] == pid]
t.ok(len(calls) == 6 and all(e.get("ret") == 0 for e in calls[:5]),
     "the 5 calls before it: captured, each returned 0", [(e.get("ret")) for e in calls])
last = calls[-1] if calls else {}
t.ok(last.get("ret") == -14 and last.get("errno") == "EFAULT" and
     last.get("duration_ns", 0) >= 400e6,
     "the blocked call: entered, and left only when killed (%.2f s later), failing EFAULT"
     % (last.get("duration_ns", 0) / 1e9), last)
kinds = [e["type"] for e in ev if e.get("pid") == pid]
t.ok(kinds and kinds[-1] == "exit", "the process's exit is recorded after its last call",
     kinds[-3:])
txt = run([CUDATRACE, "-r", tr]).stdout.splitlines()
t.ok(any(l.endswith(") = -14 EFAULT (Bad address)") or
         re.search(r"= -14 EFAULT \(Bad address\) <[0-9.]+>$", l) for l in txt),
     "text names the failure", txt[-3:])

# 2. Pid reuse, system-wide.  A (pid P, comm "blocker") makes 7 calls on
# file a as fd 5 and exits; then B gets pid P (clone3 set_tid) and makes 4
# calls on file b, also as fd 5: once by exec of a copy named "reuser", once
# without exec (a fork renamed "forkreuse").
fa, fb = os.path.join(tmp, "a.dev"), os.path.join(tmp, "b.dev")
for f in (fa, fb):
    open(f, "w").close()
reuser = os.path.join(tmp, "reuser")
shutil.copy(BLOCKER, reuser)


def reuse(path_b, exec_):
    """Runs A, then B under A's pid.  Returns (pid, status of B) or None."""
    for _ in range(20):
        a = run([BLOCKER, "calls", fa, "7", "5", "0xa0a0"])
        p = int(re.search(r"ready (\d+)", a.stdout).group(1))
        if exec_:
            b = run([BLOCKER, "spawn", str(p), reuser, "calls", path_b, "4", "5", "0xb0b0"])
        else:
            b = run([BLOCKER, "spawn-noexec", str(p), "forkreuse", path_b, "4", "5", "0xb0b0"])
        if b.returncode == 75:     # somebody else took the pid meanwhile: again
            continue
        return p, b
    return None


for exec_, bname in ((True, "reuser"), (False, "forkreuse")):
    tr = os.path.join(tmp, "reuse-%s.ctrace" % bname)
    tracer = start_tracer(["--device", fa, "--device", fb, "-w", tr])
    got = reuse(fb, exec_)
    tracer.send_signal(signal.SIGINT)
    tracer.wait(timeout=30)
    if not got or got[1].returncode == 76:
        t.skip("pid reuse (%s)" % bname, "clone3 with set_tid unavailable: %s" %
               (got[1].stderr.strip() if got else "pid never free"))
        continue
    p, b = got
    ev = decode_json(tr)
    mine = [e for e in ev if e.get("pid") == p]
    calls = [e for e in mine if e["type"] == "ioctl"]
    by = {}
    for e in calls:
        by.setdefault(int(e["args"]["hClient"], 16), []).append(e)
    a_calls, b_calls = by.get(0xa0a0, []), by.get(0xb0b0, [])
    t.ok(b.returncode == 0 and len(calls) == 11 and len(a_calls) == 7 and len(b_calls) == 4,
         "pid reuse (%s): 7 calls of A and 4 of B under pid %d" % (bname, p),
         (b.returncode, b.stderr, len(a_calls), len(b_calls)))
    t.ok(all(e["comm"] == "blocker" and e["path"] == fa for e in a_calls) and
         all(e["comm"] == bname and e["path"] == fb for e in b_calls),
         "pid reuse (%s): each call with its own process's name and file" % bname,
         [(e["comm"], e["path"]) for e in calls])
    procs = [e for e in mine if e["type"] in ("proc", "exit")]
    shape = [(e["type"], e.get("comm")) for e in procs]
    t.ok(len(procs) >= 3 and procs[0]["type"] == "proc" and procs[0]["comm"] == "blocker" and
         procs[1]["type"] == "exit" and procs[-1]["type"] in ("proc", "exit") and
         any(e["type"] == "proc" and e["comm"] == bname for e in procs[2:]),
         "pid reuse (%s): A described, A's exit, then B described afresh" % bname, shape)

# 3. -p on A: the capture ends when A exits, even when B has taken A's pid
# before the tracer looked (it looks every 100 ms: here it is stopped while
# A exits and B starts), and it never records B.  A pid alone cannot tell
# A from B (/proc/P is there again); the tracer holds A by a pidfd.
tr = os.path.join(tmp, "reuse-p.ctrace")
a = subprocess.Popen([BLOCKER, "calls", fa, "3", "5", "0xa0a0", "wait"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True)
p = int(re.search(r"ready (\d+)", a.stdout.readline()).group(1))
tracer = start_tracer(["-p", str(p), "--device", fa, "-w", tr])
tracer.send_signal(signal.SIGSTOP)
a.stdin.write("go\n")
a.stdin.flush()
a.wait(timeout=30)
# B: pid P, "reuser", holds on after its 4 calls until its stdin closes.
b = subprocess.Popen([BLOCKER, "spawn", str(p), reuser, "calls", fa, "4", "5", "0xb0b0", "hold"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
b_ready = b.stdout.readline()
tracer.send_signal(signal.SIGCONT)
if not b_ready.startswith("ready"):
    b.wait(timeout=30)
    tracer.wait(timeout=30)
    t.skip("-p with A's pid reused", "B could not take pid %d (status %d): %s" %
           (p, b.returncode, b.stderr.read().strip()))
else:
    b.stdin.write("go\n")
    b.stdin.flush()
    b_done = b.stdout.readline()            # B's 4 calls made, B still alive
    try:
        rc = tracer.wait(timeout=10)
    except subprocess.TimeoutExpired:
        rc = "still running"
    b_alive = b.poll() is None
    b.stdin.close()
    b.wait(timeout=30)
    if rc == "still running":                # B is gone now: it should end
        try:
            tracer.wait(timeout=10)
        except subprocess.TimeoutExpired:
            tracer.kill()
            tracer.wait()
    ev = decode_json(tr)
    calls = [e for e in ev if e["type"] == "ioctl"]
    t.ok(rc == 0 and b_alive and b_done.startswith("done 4"),
         "-p %d: the capture ends when A exits, though B (alive) has its pid" % p,
         (rc, b_alive, b_done))
    t.ok(len(calls) == 3 and all(int(e["args"]["hClient"], 16) == 0xa0a0 for e in calls),
         "-p %d: A's 3 calls and none of B's" % p, [e["args"]["hClient"] for e in calls])
t.done()
