# SPDX-License-Identifier: MIT
"""Mistakes a user makes on the command line get a message that says what
to do, and exit 2 (issue 22, items 9 to 11): a size after -k not attached,
capture-only options with -r, -c with -C, api/caller views of a trace
taken without -k.  No root needed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
WITH_K = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
t = Tap()

# Item 9: "-k 65536" would make 65536 the command.
for args in (["-k", "65536"], ["--stack", "65536"]):
    p = run([CUDATRACE] + args + ["--device", "/dev/null", "--", "true"])
    t.ok(p.returncode == 2 and "attach the size: -k65536 or --stack=65536" in p.stderr,
         "%s: exit 2, 'attach the size'" % " ".join(args), p.stderr)
p = run([CUDATRACE, "-k", "./65536x", "--device", "/dev/null"])
t.ok("attach the size" not in p.stderr, "-k before a word that is not a number: taken as "
     "the command", p.stderr)

# Item 11: -r refuses what changes a capture, each the same way.
CAPTURE_ONLY = [["-k"], ["-k4096"], ["-z"], ["-d", "1"], ["-s", "64"], ["-b", "8"],
                ["--no-follow"], ["--cgroup", "/sys/fs/cgroup"], ["--device", "/dev/null"], ["-u", "nobody"]]
for args in CAPTURE_ONLY:
    p = run([CUDATRACE, "-r", SAXPY] + args)
    spelled = args[0][:2] if not args[0].startswith("--") else args[0]
    t.ok(p.returncode == 2 and "leave %s out" % spelled in p.stderr and not p.stdout,
         "-r with %s: exit 2, nothing decoded, 'leave %s out'" % (" ".join(args), spelled),
         p.stderr)

# Item 11: -c with -C: the last one wins, and that is said.
for first, last, table_only in (("-c", "-C", False), ("-C", "-c", True)):
    p = run([CUDATRACE, "-r", SAXPY, first, last])
    events = [l for l in p.stdout.splitlines() if "ioctl(" in l]
    t.ok(p.returncode == 0 and "the last, %s, wins" % last in p.stderr and
         (not events) == table_only,
         "%s %s: '%s wins' on stderr, and it does" % (first, last, last), p.stderr)
p = run([CUDATRACE, "-r", SAXPY, "-c", "-c"])
t.ok(p.returncode == 0 and "wins" not in p.stderr, "-c -c: nothing to say")

# Item 10: api and caller need stacks; a trace without them says so.
NO_STACKS = "this trace has no call stacks (capture with -k)"
for args in (["-e", "api=cuInit"], ["-e", "caller=main"], ["-c", "--summary-by=api"],
             ["-c", "--summary-by=caller"]):
    p = run([CUDATRACE, "-r", SAXPY] + args)
    t.ok(p.returncode == 0 and NO_STACKS in p.stderr,
         "%s on a trace without -k: '%s'" % (" ".join(args), NO_STACKS), p.stderr)
    p = run([CUDATRACE, "-r", WITH_K] + args)
    t.ok(p.returncode == 0 and NO_STACKS not in p.stderr,
         "%s on a -k trace: no such message" % " ".join(args), p.stderr)
p = run([CUDATRACE, "-e", "api=cuInit", "--device", "/dev/null", "--", "true"])
t.ok(p.returncode == 2 and "add -k" in p.stderr, "live -e api= without -k: exit 2, 'add -k'",
     p.stderr)
p = run([CUDATRACE, "-r", SAXPY, "-e", "esc=RM_ALLOC"])
t.ok(p.returncode == 0 and NO_STACKS not in p.stderr, "-e esc= needs no stacks: no message")

t.done()
