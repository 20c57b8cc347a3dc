# SPDX-License-Identifier: MIT
"""Small helpers shared by the Python test scripts: TAP output, running
cudatrace, reading its JSON Lines."""
import json
import os
import subprocess
import sys
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("OUTPUT", os.path.join(ROOT, "build"))
CUDATRACE = os.environ.get("CUDATRACE_BIN", os.path.join(ROOT, "cudatrace"))
NVFAKE = os.path.join(BUILD, "nvfake")
BLOCKER = os.path.join(BUILD, "blocker")


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0
        sys.excepthook = self._stopped

    def _stopped(self, kind, value, tb):
        """An exception no check caught: one failed check that says where
        and why (a log's tail shows it), not a bare traceback."""
        lines = traceback.format_exception(kind, value, tb)
        what = "".join(traceback.format_exception_only(kind, value)).strip().splitlines()
        self.ok(False, "the test stopped early: %s" % (what[0] if what else kind.__name__),
                "".join(lines[-8:])[-3000:])
        print("1..%d" % self.n)
        sys.stdout.flush()
        os._exit(1)

    def ok(self, cond, what, detail=None):
        self.n += 1
        print(("ok %d - %s" if cond else "not ok %d - %s") % (self.n, what))
        if not cond:
            self.failed += 1
            if detail is not None:
                for line in str(detail).splitlines()[:20]:
                    print("#   " + line)
        sys.stdout.flush()
        return cond

    def skip(self, what, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, what, why))

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def run(args, timeout=120, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def decode_json(trace, *opts):
    """All JSON objects cudatrace -r prints for a trace file (with opts)."""
    p = run([CUDATRACE, "-r", trace, "--json"] + list(opts))
    if p.returncode != 0:
        raise RuntimeError("cudatrace -r %s failed: %s" % (trace, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def live_capture_possible():
    """None if live BPF tests can run here, else the reason they cannot."""
    if os.geteuid() != 0:
        return "needs root"
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        return "kernel has no BTF"
    return None


def mounted(fstype, target=None):
    """The mount point of a file system of this type (at target, if given)."""
    for line in open("/proc/mounts"):
        f = line.split()
        if f[2] == fstype and (target is None or f[1] == target):
            return f[1]
    return None


def mount_if_missing(fstype, target, options=None):
    """Mounts fstype at target unless one is there (fresh chroots lack
    /dev/pts and cgroup2).  Returns (path or None, mounted_by_us, why)."""
    have = mounted(fstype, target)
    if have:
        return have, False, None
    try:
        os.makedirs(target, exist_ok=True)
    except OSError as e:
        return None, False, "cannot create %s: %s" % (target, e)
    cmd = ["mount", "-t", fstype] + (["-o", options] if options else []) + [fstype, target]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, False, "cannot mount %s at %s: %s" % (fstype, target, p.stderr.strip())
    return target, True, None


def start_tracer(args):
    """Starts cudatrace without a command; returns once it says it is tracing."""
    p = subprocess.Popen([CUDATRACE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    if "tracing" not in line:
        p.kill()
        raise RuntimeError("cudatrace did not start: " + line + p.stderr.read())
    return p
