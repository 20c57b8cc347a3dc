# SPDX-License-Identifier: MIT
"""make install with DESTDIR and PREFIX: the files, their modes, and a
binary that runs; --version names the driver tag of the tables."""
import os
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
dest = scratch_dir("ct-install-")
p = run(["make", "-C", ROOT, "--no-print-directory", "install", "DESTDIR=" + dest,
         "PREFIX=/usr"], timeout=600)
t.ok(p.returncode == 0, "make install DESTDIR=... PREFIX=/usr", p.stderr)
files = sorted(os.path.relpath(os.path.join(d, f), dest)
               for d, _, fs in os.walk(dest) for f in fs)
want = ["usr/sbin/cudatrace", "usr/share/bash-completion/completions/cudatrace",
        "usr/share/man/man8/cudatrace.8"]
t.ok(files == want, "installs exactly the binary, the man page and the completion", files)
modes = {f: stat.S_IMODE(os.stat(os.path.join(dest, f)).st_mode) for f in files}
t.ok(modes.get(want[0]) == 0o755 and modes.get(want[1]) == 0o644 and
     modes.get(want[2]) == 0o644, "modes 0755 for the binary, 0644 for the rest", modes)
v = run([os.path.join(dest, want[0]), "--version"])
t.ok(v.returncode == 0 and "cudatrace" in v.stdout and "580.142" in v.stdout,
     "the installed binary runs: " + v.stdout.strip())
h = run([os.path.join(dest, want[0]), "--help"])
t.ok(h.returncode == 0 and "Examples:" in h.stdout, "--help has an examples block")
man = open(os.path.join(dest, want[2])).read()
opts = ["--device", "--max-size", "--rotate", "-z", "--json", "--color"]
t.ok(all(o.replace("-", "\\-") in man for o in opts), "the man page documents the options")
t.done()
