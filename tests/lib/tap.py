# SPDX-License-Identifier: MIT
"""Small helpers shared by the Python test scripts: TAP output, running
cudatrace, reading its JSON Lines, scratch directories, the skip of a live
test where no live capture can run (Tap.live_capture_or_skip).

A test finds this file with one line, the same in every test (the one
line that cannot live here, being what finds it):

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("OUTPUT", os.path.join(ROOT, "build"))
CUDATRACE = os.environ.get("CUDATRACE_BIN", os.path.join(ROOT, "cudatrace"))
NVFAKE = os.path.join(BUILD, "nvfake")
BLOCKER = os.path.join(BUILD, "blocker")


# The folders of the program's own C (docs/ARCHITECTURE.md); tests, benches
# and build output are not the program.
NOT_PROGRAM = ("tests", "bench", "build", ".git", "static", "deploy", "traces", "docs")


def source_folders():
    """Every folder under ROOT that holds the program's .c or .h files,
    relative to ROOT: the source checks compare it with what they scan,
    so a new folder cannot slip past them."""
    found = set()
    for d, subdirs, files in os.walk(ROOT):
        rel = os.path.relpath(d, ROOT)
        if rel.split(os.sep)[0] in NOT_PROGRAM or rel.startswith("build"):
            subdirs[:] = []
            continue
        if any(f.endswith((".c", ".h")) for f in files):
            found.add("" if rel == "." else rel)
    return sorted(found)


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
        remove_scratch()   # os._exit runs no atexit function
        sys.stderr.flush()
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

    def skip_rest(self, what, why):
        """Where why (a reason; None: none) says the rest cannot run here:
        one skipped check, what, and the end of the test."""
        if why:
            self.skip(what, why)
            self.done()

    def live_capture_or_skip(self, what, other=None):
        """The check every live BPF test starts with: the rest is skipped,
        as one check what, where a live capture cannot run here
        (live_capture_possible) or other, the caller's own reason (None:
        none), says so."""
        self.skip_rest(what, live_capture_possible() or other)


_scratch = []   # (pid, path): scratch_dir()'s directories, not yet removed


def scratch_dir(prefix):
    """A new directory, tempfile.mkdtemp(prefix=prefix), removed when this
    process exits however it exits: at the end, by sys.exit, on an uncaught
    exception (Tap._stopped, whose os._exit skips atexit).  Removed on a
    test's last line only, they stayed in /tmp whenever a test stopped early:
    gigabytes, over many runs.  CT_KEEP_TMP=1 keeps them (their names on
    stderr) for a look at what a failed test left."""
    path = tempfile.mkdtemp(prefix=prefix)
    _scratch.append((os.getpid(), path))
    return path


def _mounts_under(path):
    """The mount points at or below path, deepest first."""
    try:
        with open("/proc/self/mountinfo") as f:
            points = [re.sub(r"\\([0-7]{3})", lambda o: chr(int(o.group(1), 8)), l.split()[4])
                      for l in f]
    except OSError:   # no /proc: os.path.ismount finds most
        points = [d for d, _, _ in os.walk(path) if os.path.ismount(d)]
    return sorted((m for m in points if m == path or m.startswith(path + "/")),
                  key=len, reverse=True)


def remove_scratch():
    """Removes scratch_dir()'s directories: at exit, and from Tap._stopped.
    A file system a test left mounted in one (a tmpfs, cgroup2) is unmounted
    first; one that stays mounted keeps its directory, as no rmtree may cross
    a mount point.  Only the process that made a directory removes it (a
    fork's exit does not)."""
    mine = [p for pid, p in _scratch if pid == os.getpid()]
    _scratch[:] = [(pid, p) for pid, p in _scratch if pid != os.getpid()]
    if mine and os.environ.get("CT_KEEP_TMP"):
        print("# CT_KEEP_TMP: kept %s" % " ".join(mine), file=sys.stderr)
        return
    for path in mine:
        real = os.path.realpath(path)
        for how in ([], ["-l"]):
            for m in _mounts_under(real):
                subprocess.run(["umount"] + how + [m], capture_output=True)
        left = _mounts_under(real)
        if left:
            print("# kept %s: %s still mounted" % (path, " ".join(left)), file=sys.stderr)
        else:
            shutil.rmtree(path, ignore_errors=True)


atexit.register(remove_scratch)   # the first registered, so run last


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
