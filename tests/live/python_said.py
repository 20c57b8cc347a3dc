# SPDX-License-Identifier: MIT
"""What a capture says of Python (issue 33).  Item 9: -k on a program
without Python says nothing of Python (it printed two "Python: 0
processes ..." lines), --py-stack one line that no process ran CPython.
Item 8: a CPython the tables do not cover gets no frames, and a warning
once per process names its version and the versions read (from the
tables' files, capture/python/pyabi/cpython-3.X.tsv, not typed here).
Driven honestly: a copy of Debian's python3.11 whose Py_Version constant
(the version the capture reads from the file, capture/python/pyelf.c)
says 3.15 or 3.9 -- the interpreter itself never reads that constant, so
it runs as before -- and pyenv's real CPython 3.9 where this machine has it."""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, ROOT, Tap, decode_json, run, scratch_dir  # noqa: E402

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

# Item 8: a CPython the tables do not cover.
PYTHON = "/usr/bin/python3.11"
SCRIPT = os.path.join(tmp, "parent_child.py")
with open(SCRIPT, "w") as f:
    f.write("""import fcntl, subprocess, sys
f = open(sys.argv[1], "w")
for i in range(3):
    try:
        fcntl.ioctl(f, 0xc0104601 + i, bytearray(16))
    except OSError:
        pass
if len(sys.argv) < 3:   # one child process, of its own image
    subprocess.run([sys.executable, sys.argv[0], sys.argv[1], "child"], check=True)
""")


def versions_read():
    """"3.10-3.14" from the tables' files: runs of minors joined."""
    minors = sorted(int(re.search(r"cpython-3\.(\d+)\.tsv$", p).group(1)) for p in
                    glob.glob(os.path.join(ROOT, "capture", "python", "pyabi", "cpython-3.*.tsv")))
    runs = []
    for m in minors:
        if runs and runs[-1][1] == m - 1:
            runs[-1][1] = m
        else:
            runs.append([m, m])
    return ", ".join("3.%d" % a if a == b else "3.%d-3.%d" % (a, b) for a, b in runs)


def with_version(src, dst, hexversion):
    """A copy of src whose Py_Version (8 bytes of initialised data) says hexversion."""
    syms = subprocess.run(["readelf", "-sW", src], capture_output=True, text=True).stdout
    m = re.search(r"^\s*\d+:\s+([0-9a-f]+)\s+(\d+)\s+OBJECT\s+GLOBAL\s+\S+\s+(\d+)\s+Py_Version$",
                  syms, re.M)
    addr, size, ndx = int(m.group(1), 16), int(m.group(2)), int(m.group(3))
    secs = subprocess.run(["readelf", "-SW", src], capture_output=True, text=True).stdout
    sec = re.search(r"^\s*\[\s*%d\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)" % ndx, secs, re.M)
    off = int(sec.group(2), 16) + addr - int(sec.group(1), 16)
    data = bytearray(open(src, "rb").read())
    data[off:off + size] = hexversion.to_bytes(size, "little")
    with open(dst, "wb") as f:
        f.write(data)
    os.chmod(dst, 0o755)
    return dst


def two_processes(calls):
    """Each of the 2 processes made its 3 calls (and an isatty ioctl or so of its own)."""
    per_pid = {}
    for e in calls:
        per_pid[e["pid"]] = per_pid.get(e["pid"], 0) + 1
    return len(per_pid) == 2 and min(per_pid.values()) >= 3


def capture(args, python):
    tr = os.path.join(tmp, "py.ctrace")
    p = run([CUDATRACE, "--device", dev, "-w", tr] + args + ["--", python, SCRIPT, dev],
            timeout=120)
    warned = re.findall(r"^cudatrace: warning: pid (\d+) runs CPython (3\.\d+) \((.*)\): "
                        r"cudatrace reads the frames of CPython (.*) only; its calls get no "
                        r"Python frames$", p.stderr, re.M)
    calls = [e for e in decode_json(tr) if e["type"] == "ioctl"]
    return p, warned, calls


READ = versions_read()
t.ok(re.fullmatch(r"3\.\d+(-3\.\d+)?(, 3\.\d+(-3\.\d+)?)*", READ), "the tables read: %s" % READ)
if not os.path.exists(PYTHON):
    t.skip("a CPython the tables do not cover", "no %s to copy" % PYTHON)
    t.done()

p, warned, calls = capture(["--py-stack"], PYTHON)
# The child lives ~20 ms: its frames are read at its calls, but their
# code objects may be gone before the record loop names them; then the
# closing line counts them unnamed (so it did at the start of this
# session too, 4 runs of 6 here), never silently.
# The parent's: its calls come first (pids wrap: the child's may be lower).
first = calls[0]["pid"] if calls else 0
unnamed = re.search(r"Python: \d+ process(?:es)?, \d+ stacks \(\d+ frames, (\d+) unnamed", p.stderr)
child_ok = all(e.get("py") for e in calls if e["pid"] != first) or \
    (unnamed is not None and int(unnamed.group(1)) > 0)
t.ok(p.returncode == 0 and not warned and two_processes(calls) and child_ok and
     all(e.get("py") for e in calls if e["pid"] == first),
     "control: Debian's python3.11 itself, no warning, the parent's calls have Python "
     "frames, the child's too or counted unnamed",
     (p.stderr, [e.get("py") for e in calls]))

cases = [("3.15", 0x030f00a0, ["--py-stack"]), ("3.15", 0x030f00a0, ["-k"]),
         ("3.9", 0x030900f0, ["--py-stack"])]
for version, hexversion, args in cases:
    copy = with_version(PYTHON, os.path.join(tmp, "python-said-%s" % version), hexversion)
    p, warned, calls = capture(args, copy)
    pids = sorted({e["pid"] for e in calls})
    t.ok(p.returncode == 0 and two_processes(calls) and not any(e.get("py") for e in calls),
         "%s %s: the calls of its 2 processes, no Python frames" % (" ".join(args), version),
         p.stderr)
    t.ok(sorted(int(w[0]) for w in warned) == pids and len(pids) == 2 and
         all(w[1] == version and w[2] == copy and w[3] == READ for w in warned),
         "%s %s: one warning per process (2), naming %s, the file and the versions read (%s)"
         % (" ".join(args), version, version, READ), p.stderr)
    t.ok("Python: 2 processes ran a CPython whose frames cudatrace cannot read" in p.stderr and
         "no traced process ran CPython" not in p.stderr and "Python: 0 processes" not in p.stderr,
         "%s %s: the closing line counts them" % (" ".join(args), version), p.stderr)

# A real CPython 3.9 (pyenv's, linked to libpython3.9.so), where there is one.
real = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9.*/bin/python3.9")))
if not real:
    t.skip("pyenv's CPython 3.9", "none on this machine")
else:
    p, warned, calls = capture(["--py-stack"], real[0])
    t.ok(two_processes(calls) and not any(e.get("py") for e in calls) and len(warned) == 2 and
         all(w[1] == "3.9" and "libpython3.9" in w[2] and w[3] == READ for w in warned),
         "a real CPython 3.9 (%s): one warning per process, naming libpython3.9" % real[0],
         p.stderr)
t.done()
