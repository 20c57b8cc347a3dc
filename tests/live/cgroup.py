# SPDX-License-Identifier: MIT
"""--cgroup: only processes in a cgroup v2 directory (or below it) are
traced, filtered in the kernel; a path that is not one is refused."""
import atexit
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, decode_json, live_capture_possible,  # noqa: E402
                 mount_if_missing, mounted, run, scratch_dir)

t = Tap()
why = live_capture_possible()
root = mounted("cgroup2")
if not why and not root:
    # A fresh chroot has none mounted: the one hierarchy can be mounted anywhere.
    root, ours, why = mount_if_missing("cgroup2", scratch_dir("ct-cgroup2-"))
    if ours:
        atexit.register(subprocess.run, ["umount", root])
t.skip_rest("--cgroup tests", why or (None if root else "no cgroup v2 hierarchy mounted"))

tmp = scratch_dir("ct-cgroup-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
cg = os.path.join(root, "cudatrace-test-%d" % os.getpid())
os.mkdir(cg)
inner = os.path.join(cg, "inner")   # a container's own cgroup, below the pod's
try:
    os.mkdir(inner)
    tr = os.path.join(tmp, "cg.ctrace")
    tracer = subprocess.Popen([CUDATRACE, "--cgroup", cg, "--device", ctl, "-w", tr],
                              stderr=subprocess.PIPE, text=True)
    assert "tracing" in tracer.stderr.readline()
    # One process inside (in a child cgroup), one outside.
    inside = subprocess.run(["sh", "-c", 'echo $$ > "$1"/cgroup.procs && exec "$2" -f "$3" burst 7',
                             "sh", inner, NVFAKE, ctl], capture_output=True, text=True)
    outside = run([NVFAKE, "-f", ctl, "burst", "5"])
    tracer.send_signal(2)
    tracer.wait(timeout=30)
    ev = decode_json(tr)
    calls = [e for e in ev if e["type"] == "ioctl"]
    t.ok(inside.returncode == 0 and outside.returncode == 0 and len(calls) == 7,
         "--cgroup: the 7 calls of the process below the cgroup, not the 5 outside",
         (len(calls), inside.stderr))
finally:   # after a failure too: the hierarchy outlives the test
    if os.path.isdir(inner):
        os.rmdir(inner)
    os.rmdir(cg)

p = run([CUDATRACE, "--cgroup", tmp, "--device", ctl, "--", "true"])
t.ok(p.returncode != 0 and "not a cgroup v2 directory" in p.stderr,
     "--cgroup of a plain directory: clear error", p.stderr)
p = run([CUDATRACE, "--cgroup", os.path.join(tmp, "nope"), "--device", ctl, "--", "true"])
t.ok(p.returncode != 0 and "No such file" in p.stderr, "--cgroup of a missing path", p.stderr)
t.done()
