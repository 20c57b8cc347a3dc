# SPDX-License-Identifier: MIT
"""Every BPF program a capture loads stays well inside the verifier's
limit, in every mode (issue 31: `-k`'s start).  The verifier walks each
program's paths before the traced command starts; -k's walk of the stack
once took 764,516 of its 1,000,000 instructions and 2 s of the capture's
CPU, the call's stacks verified again at each of the three calls that send
them.  A program past the limit does not load, and the count depends on
the compiler and the kernel: here each must stay under half of it.

The figures come from the kernel (CT_BPF_VERIFIER_STATS=1, one line a
program); bench/load_cost.py prints them with the start's time."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("verifier budget tests")
tmp = scratch_dir("ct-verifier-")
dev = os.path.join(tmp, "nvidiactl")
open(dev, "w").close()

LINE = re.compile(r"^cudatrace: verifier: (\S+): (-?\d+) instructions processed "
                  r"\(limit (-?\d+)\), (-?\d+) us$")
# The options that change what the programs hold (the rest only fill maps),
# and the programs each must load at least.
MODES = [
    ([], {"sys_enter", "sys_exit"}),
    (["-k"], {"sys_enter", "sys_exit"}),
    (["--py-stack"], {"sys_enter", "sys_exit"}),
    (["-k", "--py-stack", "--gpu-work"], {"sys_enter", "sys_exit"}),
    (["-k=8192"], {"sys_enter", "sys_exit"}),
]
SYSTEM_WIDE = (["-k", "--py-stack", "-d", "0.2"], {"sys_enter", "sys_exit_ioctl"})


def figures(opts, command):
    """{program: (processed, limit, us)} of one capture, and its result."""
    env = dict(os.environ, CT_BPF_VERIFIER_STATS="1")
    out = os.path.join(tmp, "t.ctrace")
    p = run([CUDATRACE, "--device", dev, "-w", out] + opts + command, env=env, timeout=300)
    got = {}
    for line in p.stderr.splitlines():
        m = LINE.match(line)
        if m:
            got[m.group(1)] = tuple(int(m.group(i)) for i in (2, 3, 4))
    return got, p


for opts, must, command in [(o, m, ["--", "true"]) for o, m in MODES] + \
        [(SYSTEM_WIDE[0], SYSTEM_WIDE[1], [])]:
    name = " ".join(opts) or "(no option)"
    got, p = figures(opts, command)
    t.ok(p.returncode == 0, "%s: the capture runs" % name, p.stderr[-600:])
    t.ok(must <= set(got), "%s: the verifier's figures for %s" % (name, ", ".join(sorted(must))),
         "got %s; stderr: %s" % (sorted(got), p.stderr[-600:]))
    for prog, (processed, limit, us) in sorted(got.items()):
        print("# %s: %s %d of %d instructions, %.1f ms" % (name, prog, processed, limit, us / 1e3))
        t.ok(0 < processed <= limit // 2 and limit > 0,
             "%s: %s within half the verifier's limit" % (name, prog),
             "%d instructions processed of %d" % (processed, limit))

# Without the variable, nothing of it is said.
p = run([CUDATRACE, "--device", dev, "-w", os.path.join(tmp, "u.ctrace"), "-k", "--", "true"])
t.ok(p.returncode == 0 and "verifier:" not in p.stderr,
     "without CT_BPF_VERIFIER_STATS the capture says nothing of the verifier", p.stderr[-400:])
t.done()
