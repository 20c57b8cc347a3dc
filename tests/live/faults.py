# SPDX-License-Identifier: MIT
"""Fault injection on live captures: the tracer killed, the disk full, many
threads at once, the ring buffer overrun on purpose, and the traced program
seeing the same results with and without tracing.  Every call is accounted
for as captured or lost."""
import atexit
import collections
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, mount_if_missing, run,  # noqa: E402
                 scratch_dir, start_tracer)

t = Tap()
t.live_capture_or_skip("live fault-injection tests")

tmp = scratch_dir("ct-faults-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
DEV = ["--device", ctl]


def decode(path):
    p = run([CUDATRACE, "-r", path, "--json"], timeout=300)
    return p, [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def records_by_tid(events):
    """Records captured per thread: 2 for a whole call, 1 for a half."""
    n = collections.Counter()
    for e in events:
        if e["type"] == "ioctl":
            n[e["tid"]] += 1 if ("unfinished" in e or "enter_lost" in e) else 2
    return n


# 1. SIGKILL during -w: the file decodes up to its last complete record.
tr = os.path.join(tmp, "killed.ctrace")
tracer = start_tracer(DEV + ["-w", tr])
gen = subprocess.Popen([NVFAKE, "-f", ctl, "burst", "3000000"], stdout=subprocess.PIPE)
time.sleep(1.0)
tracer.send_signal(signal.SIGKILL)
tracer.wait()
gen.wait()
p, ev = decode(tr)
calls = sum(1 for e in ev if e["type"] == "ioctl")
t.ok(p.returncode in (0, 1) and calls > 0 and "cut short" in p.stderr and
     not any(e["type"] == "trailer" for e in ev),
     "SIGKILL: %d calls decode, no trailer, and a clear note" % calls, p.stderr)

# 2. SIGTERM: nothing lost, trailer written.
tr = os.path.join(tmp, "term.ctrace")
tracer = start_tracer(DEV + ["-w", tr])
run([NVFAKE, "-f", ctl, "burst", "50000"])
time.sleep(0.3)
tracer.send_signal(signal.SIGTERM)
rc = tracer.wait(timeout=30)
p, ev = decode(tr)
trailer = [e for e in ev if e["type"] == "trailer"]
calls = sum(1 for e in ev if e["type"] == "ioctl" and e["comm"] == "nvfake")
t.ok(rc == 0 and p.returncode == 0 and len(trailer) == 1 and trailer[0]["lost"] == 0 and
     calls == 50000, "SIGTERM: exit 0, trailer, all 50000 calls", (rc, calls, p.stderr))

# 3. Disk full: a clear error, the capture stops, the partial file decodes.
full = os.path.join(tmp, "full")
os.mkdir(full)
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", full]).returncode == 0:
    try:
        tr = os.path.join(full, "full.ctrace")
        p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "burst", "100000"],
                timeout=120)
        t.ok(p.returncode == 1 and "No space left on device" in p.stderr and
             "stopping capture" in p.stderr, "disk full: clear error, exit 1", p.stderr)
        q, ev = decode(tr)
        calls = sum(1 for e in ev if e["type"] == "ioctl")
        t.ok(q.returncode in (0, 1) and calls > 1000,
             "disk full: the %d calls written decode" % calls, q.stderr)
    finally:
        subprocess.run(["umount", full])
else:
    t.skip("disk full", "cannot mount a tmpfs here")
    t.skip("disk full decode", "cannot mount a tmpfs here")

# 4. 8 threads x 50,000 ioctls: per thread, captured records + lost add up.
tr = os.path.join(tmp, "threads.ctrace")
p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "threads", "8", "50000"],
        timeout=600)
sent = {int(l.split()[3]): int(l.split()[5]) for l in p.stdout.splitlines()
        if l.startswith("thread ")}
q, ev = decode(tr)
got = records_by_tid(ev)
trailer = [e for e in ev if e["type"] == "trailer"][0]
missing = sum(2 * n - got[tid] for tid, n in sent.items())
t.ok(len(sent) == 8 and all(got[tid] <= 2 * n for tid, n in sent.items()) and
     missing == trailer["lost"] + trailer["lost_inflight"],
     "8 threads x 50000: per thread, records captured + lost = 2 x calls sent "
     "(%d lost)" % trailer["lost"], (sent, dict(got), trailer))
print("# threads: %s" % p.stderr.strip().splitlines()[-1])

# 5. Ring buffer overrun on purpose: a 1 MiB buffer whose reader is stopped
# (SIGSTOP) during a burst: lost = records made - records captured, exactly.
N = 100000
tr = os.path.join(tmp, "overrun.ctrace")
tracer = start_tracer(DEV + ["-b", "1", "-w", tr])
tracer.send_signal(signal.SIGSTOP)
run([NVFAKE, "-f", ctl, "burst", str(N)])
tracer.send_signal(signal.SIGCONT)
time.sleep(0.5)
tracer.send_signal(signal.SIGINT)
tracer.wait(timeout=30)
err = tracer.stderr.read()
q, ev = decode(tr)
trailer = [e for e in ev if e["type"] == "trailer"][0]
recs = sum(records_by_tid(ev).values())
procs = sum(1 for e in ev if e["type"] == "proc")
exits = sum(1 for e in ev if e["type"] == "exit")
# system-wide: 2 records per call, one describing the process, and its
# exit, made while the ring is still full: captured where the space left
# holds its 24 bytes, which depends on the process record's size (its
# environment), lost otherwise.
made = 2 * N + 2
t.ok(trailer["lost"] > 0 and made - (recs + procs + exits) == trailer["lost"] and
     ("%d lost" % trailer["lost"]) in err,
     "overrun: %d of %d records lost, counted exactly, reported on stderr" %
     (trailer["lost"], made), (trailer, recs, procs, exits, err))

# 6. The traced program sees the same results with and without tracing:
# terminal ioctls that write back, on /dev/ptmx.
PROG = r'''
import fcntl, os, struct, termios
m, s = os.openpty()
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 640, 480))
winsz = fcntl.ioctl(m, termios.TIOCGWINSZ, bytes(8)).hex()
ptn = fcntl.ioctl(m, 0x80045430, bytes(4)).hex()   # TIOCGPTN, _IOR('T', 0x30, int)
print(winsz, ptn)
'''
# A fresh chroot has no devpts: mount one (the kernel finds /dev/pts next
# to /dev/ptmx), and take it away again at the end.
pts, pts_ours, pts_why = mount_if_missing("devpts", "/dev/pts", "newinstance,ptmxmode=0666")
if pts_ours:
    atexit.register(subprocess.run, ["umount", "/dev/pts"])
plain = run([sys.executable, "-c", PROG])
if plain.returncode != 0 and "No such device" in plain.stderr:
    # a chroot without /dev/pts: no terminal ioctls to compare
    t.skip("results unchanged by tracing (pty ioctls)", "no /dev/pts here (%s): %s" %
           (pts_why or "mounted, still no pty", plain.stderr.strip().splitlines()[-1]))
    t.skip("the trace holds what TIOCGPTN wrote back", "no /dev/pts here")
    t.done()
tr = os.path.join(tmp, "ptmx.ctrace")
traced = run([CUDATRACE, "--device", "/dev/ptmx", "-w", tr, "--", sys.executable, "-c", PROG])
t.ok(plain.returncode == 0 and traced.returncode == 0 and
     plain.stdout.split()[0] == traced.stdout.split()[0],
     "results the program sees are the same traced and untraced: " + plain.stdout.strip(),
     (plain.stdout, traced.stdout, traced.stderr))
_, ev = decode(tr)
outs = [e["arg_out"] for e in ev if e["type"] == "ioctl" and e["request"] == "0x80045430"]
t.ok(outs and outs[0] == traced.stdout.split()[1],
     "the trace holds exactly what TIOCGPTN wrote back to the program", (outs, traced.stdout))
t.done()
