# SPDX-License-Identifier: MIT
"""The CPython tables against running interpreters, read from outside:
capture/python/pyabi/check-live.py walks every thread's frames of a live python
(plain calls, recursion, a generator, a coroutine) with nothing but the
built-in table of its minor and ct_pyline, and compares names, files and
lines with what the interpreter says; from 3.13 it also checks that the
process's _Py_DebugOffsets give the built-in table.  Runs Debian's
python3 (3.11 on Debian 12) and every pyenv 3.10-3.14 it finds, or the
interpreters named in PYABI_PYTHONS (space-separated)."""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import BUILD, ROOT, Tap  # noqa: E402

t = Tap()
t.skip_rest("reading a python's memory from outside",
            "needs root (ptrace rights over the child)" if os.geteuid() != 0 else
            None if os.path.exists(os.path.join(BUILD, "pyabi_data.c")) else
            "no %s/pyabi_data.c: run make" % BUILD)

pythons = os.environ.get("PYABI_PYTHONS", "").split()
if not pythons:
    debian = os.path.realpath("/usr/bin/python3")
    pythons = [debian] if os.path.exists(debian) else []
    pythons += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-4].*/bin/python3.1[0-4]")))
t.ok(any(re.search(r"python3\.1[0-4]$", p) for p in pythons), "a python 3.10-3.14 to check (%s)" % " ".join(pythons))
for py in pythons:
    if not re.search(r"python3\.1[0-4]$", py):
        t.skip(py, "not a 3.10-3.14 interpreter")
        continue
    r = subprocess.run([sys.executable, os.path.join(ROOT, "capture", "python", "pyabi", "check-live.py"), py],
                       capture_output=True, text=True, timeout=120)
    out = r.stdout + r.stderr
    frames = len(re.findall(r": match$", out, re.M))
    t.ok(r.returncode == 0 and frames == 3, "%s: 3 threads' frames read from outside match the interpreter's" % py,
         out)
t.done()
