# SPDX-License-Identifier: MIT
"""A live capture whose output cannot be written (issue 33, items 1 and 11):
-o /dev/full, > /dev/full, -o and -w on a full file system, | head, with a
command and with -p.  Each stops the capture at once, says why in one line
(a closed pipe: quietly, as strace does) and exits non-zero: 1, or 141
(128 + SIGPIPE) for the closed pipe.  A command it started is stopped; a
-p process is left running.  The command here would sleep 30 s after its
calls: a capture that went on waiting for it runs past the timeout."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, Tap, scratch_dir, start_tracer  # noqa: E402

t = Tap()
t.live_capture_or_skip("live output error tests")
tmp = scratch_dir("ct-outerr-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
DEV = ["--device", ctl]
# 5000 calls print ~1 MB: more than stdio's buffer and a pipe's; then 30 s asleep.
WORK = [NVFAKE, "-f", ctl, "then-wait", "30", "burst", "5000"]
SOON = 20   # seconds: the capture must end well before the command's 30 s


def finish(p):
    """(exit status, stdout, stderr, seconds), or a timeout's (None, ...)."""
    t0 = time.monotonic()
    try:
        out, err = p.communicate(timeout=SOON)
        return p.returncode, out, err, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, err, time.monotonic() - t0


def lines_of(err, word):
    return [l for l in err.splitlines() if word in l]


def one_error(err, what):
    """stderr says what failed, once, and no other failure."""
    return len(lines_of(err, "failed")) == 1 and what in err


# 1. -o /dev/full with a command: "writing /dev/full failed", exit 1, the
# command stopped (the capture did not wait for its 30 s).
p = subprocess.Popen([CUDATRACE] + DEV + ["-o", "/dev/full", "--"] + WORK,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
rc, out, err, took = finish(p)
t.ok(rc == 1 and one_error(err, "writing /dev/full failed: No space left on device; "
                                "stopping capture"),
     "-o /dev/full: says why, exit 1, the command stopped (%.1f s)" % took, (rc, err))

# 2. Standard output is /dev/full, the command's too.  The command is a
# shell that would leave a mark after its calls and sleep; killed, it
# leaves none (its nvfake, orphaned, is killed with the process group).
mark = os.path.join(tmp, "finished")
with open("/dev/full", "w") as full:
    p = subprocess.Popen([CUDATRACE] + DEV + ["--", "sh", "-c", " ".join(WORK) +
                                              " 2>/dev/null; echo finished > " + mark],
                         stdout=full, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    rc, _, err, took = finish(p)
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
t.ok(rc == 1 and one_error(err, "writing standard output failed: No space left on device")
     and not os.path.exists(mark),
     "> /dev/full: says why, exit 1, the command stopped (%.1f s)" % took, (rc, err))

# 3. | head: quiet, as strace is, but never "success": 141 (128 + SIGPIPE).
p = subprocess.Popen([CUDATRACE] + DEV + ["--"] + WORK,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
first = p.stdout.readline()
p.stdout.close()
t0 = time.monotonic()
try:
    rc = p.wait(timeout=SOON)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
err = p.stderr.read()
t.ok(first and rc == 128 + signal.SIGPIPE and not lines_of(err, "cudatrace:"),
     "| head: the capture stops quietly, exit 141, the command stopped (%.1f s)" %
     (time.monotonic() - t0), (rc, err))

# 4. -p: the same, and the process is left running.
def attached(args):
    """A -p capture, its stdout a pipe, of a process that makes its calls
    in 3 s: (cudatrace, the process)."""
    proc = subprocess.Popen([NVFAKE, "-f", ctl, "wait-then", "3"] + WORK[3:],
                            stdout=subprocess.PIPE, text=True)
    proc.stdout.readline()   # "pid N waiting 3"
    return start_tracer(DEV + ["-p", str(proc.pid)] + args), proc


tracer, proc = attached(["-o", "/dev/full"])
rc, _, err, took = finish(tracer)
alive = proc.poll() is None
proc.kill()
proc.wait()
t.ok(rc == 1 and one_error(err, "writing /dev/full failed: No space left on device") and alive,
     "-p with -o /dev/full: says why, exit 1, the process left running (%.1f s)" % took,
     (rc, err, alive))

tracer, proc = attached([])
first = tracer.stdout.readline()
tracer.stdout.close()
try:
    rc = tracer.wait(timeout=SOON)
except subprocess.TimeoutExpired:
    tracer.kill()
    rc = tracer.wait()
err = tracer.stderr.read()
alive = proc.poll() is None
proc.kill()
proc.wait()
t.ok(first and rc == 128 + signal.SIGPIPE and not lines_of(err, "failed") and alive,
     "-p | head: quiet, exit 141, the process left running", (rc, err, alive))

# 5. A full file system (a 200 KiB tmpfs): -o, and -w, whose only error
# line is the real one (not "reading the ring buffer failed: Operation not
# permitted" after it).
full = os.path.join(tmp, "full")
os.mkdir(full)
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", full]).returncode:
    t.skip("-o and -w on a full file system", "cannot mount a tmpfs here")
    t.done()
try:
    for opt in ("-o", "-w"):
        path = os.path.join(full, "out" + opt)
        p = subprocess.Popen([CUDATRACE] + DEV + [opt, path, "--"] + WORK[:-1] + ["100000"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rc, out, err, took = finish(p)
        t.ok(one_error(err, "writing %s failed: No space left on device; stopping capture" %
                       path) and "ring buffer" not in err,
             "%s on a full file system: the one real error, no other" % opt, err)
        t.ok(rc == 1, "... exit 1, the command stopped (%.1f s)" % took, (rc, err))
        os.unlink(path)
finally:
    subprocess.run(["umount", full])
t.done()
