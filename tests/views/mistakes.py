# SPDX-License-Identifier: MIT
"""Mistakes a user makes on the command line get a message that says what
to do, and exit 2 (issue 22, items 9 to 11): a size after -k not attached,
capture-only options with -r, -c with -C, api/caller views of a trace
taken without -k.  Issue 33, item 12: a file option followed by the next
option, a one-value option given twice, two outputs in one file, empty
values, a trace file where the command goes.  No root needed."""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

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

# Issue 33, item 12: nothing lenient.  Each is refused before anything is
# opened or run: exit 2, one line that names the mistake and the way out,
# and no file made.
tmp = scratch_dir("ct-mistakes-")


def refused(args, says, what):
    before = set(os.listdir(tmp))
    p = run([CUDATRACE] + args, cwd=tmp)
    made = set(os.listdir(tmp)) - before
    t.ok(p.returncode == 2 and says in p.stderr and not p.stdout and not made and
         p.stderr.count("\n") == 1, "%s: exit 2, '%s', no file made" % (what, says),
         (p.returncode, p.stderr, sorted(made)))


refused(["-w", "--", "true"], "-w --: that is an option, not a FILE", "-w -- true")
refused(["-o", "-c", "-r", SAXPY], "-o -c: that is an option, not a FILE", "-o -c")
refused(["-r", "--json"], "-r --json: that is an option, not a FILE", "-r --json")
refused(["--sqlite", "--host", "-r", SAXPY], "--sqlite --host: that is an option",
        "--sqlite --host")
refused(["-r", SAXPY, "-r", WITH_K], "-r given twice (%s, then %s): give it once" %
        (SAXPY, WITH_K), "-r A -r B")
refused(["-w", "a.ctrace", "-w", "b.ctrace", "--", "true"],
        "-w given twice (a.ctrace, then b.ctrace): give it once", "-w A -w B")
refused(["-r", SAXPY, "-o", "x", "--output=y"], "-o given twice (x, then y)", "-o x --output=y")
refused(["-r", SAXPY, "--color=always", "--colour=never"], "--color given twice",
        "--color and its alias --colour")
refused(["-d", "1", "-d", "2", "--", "true"], "-d given twice (1, then 2)", "-d twice")
refused(["-k", "--stack=4096", "--", "true"], "-k given twice", "-k then --stack=4096")
refused(["-w", "X", "-o", "X", "--", "true"], "-w X and -o X are the same file",
        "-w X -o X")
refused(["-r", SAXPY, "-o", "out.txt", "--perfetto", "out.txt"],
        "-o out.txt and --perfetto out.txt are the same file", "-o F --perfetto F")
open(os.path.join(tmp, "a.json"), "w").close()
os.link(os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json"))
refused(["-r", SAXPY, "-o", "a.json", "--perfetto", "b.json"],
        "-o a.json and --perfetto b.json are the same file", "-o and --perfetto: a hard link")
for opt, shown in (("--py-user", "GLOB[,GLOB]"), ("--api-lib", "GLOB[,GLOB]"),
                   ("--host", "NAME"), ("-o", "FILE")):
    refused(["-r", SAXPY, opt, ""], "%s '': an empty %s: give %s %s" % (opt, shown, opt, shown),
            "%s ''" % opt)
refused(["-r", SAXPY, "--compat=gvisor", "--compat-caps", ""],
        "--compat-caps '': an empty LIST", "--compat-caps ''")
refused(["-r", SAXPY, "--compat-caps=compute,", "--compat=gvisor"],
        "--compat-caps compute,: an empty item in the list", "--compat-caps compute,")
refused(["-r", SAXPY, "--py-user", "a.py,,b.py"], "--py-user a.py,,b.py: an empty item",
        "--py-user a.py,,b.py")
refused(["-r", SAXPY, "--compat=gvisor:"], "--compat=gvisor: names no VERSION: give "
        "--compat=gvisor (the latest in the tables) or --compat=gvisor:VERSION",
        "--compat=gvisor:")
shutil.copy(SAXPY, os.path.join(tmp, "saxpy.ctrace"))
refused(["saxpy.ctrace"], "saxpy.ctrace is a trace file, not a command: to decode it, give "
        "cudatrace -r saxpy.ctrace", "a trace where the command goes")
refused(["-c", "saxpy.ctrace"], "is a trace file, not a command", "-c and a trace, no -r")

# What stays allowed: repeatable options add up, "-" is standard output.
p = run([CUDATRACE, "-r", SAXPY, "-e", "esc=RM_ALLOC", "-e", "class=NV01_DEVICE_0",
         "--tid", "1", "--tid", "2", "-c", "--summary-by=pid", "--summary-by=kernel", "-o", "-"])
t.ok(p.returncode == 0 and p.stdout, "-e, --tid and --summary-by given twice: taken, exit 0",
     p.stderr)
p = run([CUDATRACE, "-r", "-", "-c"], stdin=open(SAXPY, "rb"))
t.ok(p.returncode == 0 and p.stdout, "-r -: standard input", p.stderr)

t.done()
