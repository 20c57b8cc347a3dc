# SPDX-License-Identifier: MIT
"""What a capture says of Python at its end (issue 33): -k on a program
without Python says nothing of Python (it printed two "Python: 0
processes ..." lines), --py-stack one line that no process ran CPython."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("live Python closing lines")
tmp = scratch_dir("ct-pysaid-")
dev = os.path.join(tmp, "nvidiactl")
open(dev, "w").close()


def python_lines(args, cmd):
    p = run([CUDATRACE, "--device", dev, "-o", os.devnull] + args + ["--"] + cmd, timeout=120)
    return p.returncode, [l for l in p.stderr.splitlines() if l.startswith("cudatrace: Python")], p.stderr


# Item 9: a program without Python.
rc, said, err = python_lines(["-k"], [NVFAKE, "-f", dev, "script"])
t.ok(rc == 0 and "0 lost" in err and said == [],
     "-k on a program without Python: no Python line", err)
rc, said, err = python_lines(["--py-stack"], [NVFAKE, "-f", dev, "script"])
t.ok(rc == 0 and said == ["cudatrace: Python: no traced process ran CPython: no Python frames"],
     "--py-stack on a program without Python: one line says so", err)
rc, said, err = python_lines(["-k", "--py-stack"], [NVFAKE, "-f", dev, "script"])
t.ok(rc == 0 and len(said) == 1, "-k --py-stack: --py-stack's one line", err)
t.done()
