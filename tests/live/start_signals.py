# SPDX-License-Identifier: MIT
"""A stop at any moment of `cudatrace -- COMMAND`'s start (issue 33, item 2):
SIGINT or SIGTERM, to cudatrace or to its process group (Ctrl-C), at
random delays over the whole start-up, 200 times.  Each time the command
is stopped or never started, and cudatrace exits non-zero; never does the
command run to its end while cudatrace says nothing.  Then: the command
gets the signal dispositions and mask cudatrace was started with, not
cudatrace's (its ignored SIGPIPE would outlive execvp)."""
import concurrent.futures
import os
import random
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("start-up signal tests")
# cudatrace gets SIGINT and SIGTERM at their defaults, whatever this test
# was started with: a shell's background job starts with SIGINT ignored,
# and a SIGINT sent before cudatrace installs its handler would then be
# dropped by the kernel (cudatrace is then right to run on).
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
tmp = scratch_dir("ct-startsig-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
DEV = ["--device", ctl]
RUNS = int(os.environ.get("CT_TEST_RUNS", 200))
BUDGET_S = 50   # the runs stop here on a machine slower than planned (half must run)


def start_up_s():
    """How long `cudatrace -- true` takes here: the window the signals cover."""
    took = []
    for _ in range(3):
        t0 = time.monotonic()
        run([CUDATRACE] + DEV + ["--", "true"])
        took.append(time.monotonic() - t0)
    return statistics.median(took)


# 1. Signals at random delays.  The command would write its mark after a
# second; cudatrace waits for its command, so once cudatrace has exited a
# stopped command can write nothing.
window = start_up_s()
seed = int(os.environ.get("CT_TEST_SEED", time.time_ns() % 1000000))
rnd = random.Random(seed)
print("# start-up %.0f ms; delays 0-%.0f ms; seed %d (CT_TEST_SEED)" %
      (window * 1e3, window * 1.3e3, seed))
def one_run(i, delay, sig, group):
    """One capture stopped after delay: (what happened, the command ran
    to its end, exit status, stderr)."""
    mark = os.path.join(tmp, "ran.%d" % i)
    p = subprocess.Popen([CUDATRACE] + DEV + ["--", "sh", "-c", "sleep 1; echo ran > " + mark],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(delay)
    try:
        (os.killpg if group else os.kill)(p.pid, sig)
    except ProcessLookupError:
        pass
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
    what = "%s to %s after %.1f ms: exit %s" % (signal.Signals(sig).name,
                                                 "the group" if group else "cudatrace",
                                                 delay * 1e3, p.returncode)
    return what, os.path.exists(mark), p.returncode, err


# Two at a time (each waits mostly on the kernel's BPF load), until RUNS
# or the budget.
plan = [(i, rnd.uniform(0, window * 1.3), rnd.choice([signal.SIGINT, signal.SIGTERM]),
         rnd.random() < 0.25) for i in range(RUNS)]
t_end = time.monotonic() + BUDGET_S
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(lambda a: one_run(*a) if time.monotonic() < t_end else None, plan))
ran, exit0, bad_status, not_started, stopped, done = [], [], [], 0, 0, 0
for (i, delay, sig, group), r in zip(plan, results):
    if r is None:
        continue
    what, ran_to_end, rc, err = r
    done += 1
    if ran_to_end:
        ran.append(what + "; " + err.strip()[-200:])
    if rc == 0:
        exit0.append(what)
    if "did not run" in err:   # stopped before it was let go: strace's 128 + signal
        not_started += 1
        if rc != 128 + sig:
            bad_status.append(what)
    elif rc != 0:
        stopped += 1
print("# %d runs: %d never started (said so), %d stopped or killed while starting or running" %
      (done, not_started, stopped))
t.ok(done >= RUNS // 2, "%d of %d runs within %d s" % (done, RUNS, BUDGET_S))
t.ok(not ran, "a stop at a random moment of the start: the command never ran to its end "
     "(%d of %d did)" % (len(ran), done), ran[:10])
t.ok(not exit0, "... and cudatrace never exited 0 (%d of %d did)" % (len(exit0), done), exit0[:10])
t.ok(not_started > 0 and not bad_status,
     "a stop before the command was let go: it did not run, cudatrace said so and "
     "exited 128 + the signal (%d runs)" % not_started, bad_status[:10])

# 2. The command's signals are those cudatrace was started with: nothing
# ignored or blocked that was not (cudatrace ignores SIGPIPE and holds its
# signals around the fork), and an ignored SIGHUP (nohup) stays ignored.
def sig_status(prefix):
    out = run(prefix + ["grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"]).stdout
    return sorted(l for l in out.split("\n") if l.startswith("Sig"))


plain = sig_status([])
traced = sig_status([CUDATRACE] + DEV + ["--"])
t.ok(plain == traced, "the command's ignored and blocked signals are as without cudatrace",
     (plain, traced))
plain = sig_status(["nohup"])
traced = sig_status(["nohup", CUDATRACE] + DEV + ["--"])
t.ok(plain == traced and any("SigIgn" in l and int(l.split()[1], 16) & (1 << (signal.SIGHUP - 1))
                             for l in traced),
     "under nohup, the command still ignores SIGHUP", (plain, traced))

t.done()
