# SPDX-License-Identifier: MIT
"""Checks Python frames in GPU traces (device-python.sh).
  py_check.py CUDATRACE alloc TRACE EXPECT_JSON   every device-memory allocation
      charged to the function (and line) that asked for its size
  py_check.py CUDATRACE cover TRACE NAME          what share of the ioctls carry
      Python frames: all, and those of threads that ran Python"""
import collections
import json
import subprocess
import sys


def events(ct, trace):
    out = subprocess.run([ct, "-r", trace, "--json"], capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")]


def alloc(ct, trace, expect_path):
    """Each function's allocation charged to it: one allocation of its size
    at its line, and no allocation of its size charged to another line,
    but for the context's own buffers (charged to the line that made the
    context: a function may draw a size the context allocates too)."""
    expect = json.loads(open(expect_path).read().strip().splitlines()[-1])
    context = ("<module>", expect.pop("<module>", [0, None])[1])
    by_size = {v[0]: (k, v[1]) for k, v in expect.items()}
    right, wrong = set(), 0
    for e in events(ct, trace):
        if e.get("hClass_name") != "NV01_MEMORY_LOCAL_USER" or e.get("name") != "NV_ESC_RM_ALLOC":
            continue
        size = (e.get("pAllocParms") or {}).get("size")
        if size not in by_size:
            continue
        func, line = by_size[size]
        py = e.get("py") or {}
        got = (py.get("func"), py.get("line"))
        verdict = "ok" if got == (func, line) else "the context's" if got == context else "WRONG"
        if verdict == "ok":
            right.add(func)
        wrong += verdict == "WRONG"
        print("alloc %10d B want %s:%d got %s:%s %s" % (size, func, line, got[0], got[1], verdict))
    print("py-alloc %d of %d allocations right, %d wrong (%d functions)%s" %
          (len(right), len(expect), wrong, len(expect),
           "" if len(right) == len(expect) and not wrong else " FAIL"))


def cover(ct, trace, name):
    calls = [e for e in events(ct, trace) if e.get("type") in ("ioctl", "mmap", "munmap")]
    py_threads = {e["tid"] for e in calls if e.get("stack") and
                  any(f.get("kind") == "python" for f in e["stack"])}
    with_py = sum(1 for e in calls if e.get("py"))
    app = [e for e in calls if e["tid"] in py_threads]
    app_py = sum(1 for e in app if e.get("py"))
    threads = collections.Counter(e["tid"] for e in calls)
    print("py-cover %s: %d of %d calls (%.1f%%) carry Python frames; threads that ran Python: "
          "%d of %d, their calls %d of %d (%.1f%%); appended (not merged): %d" %
          (name, with_py, len(calls), 100.0 * with_py / max(1, len(calls)), len(py_threads),
           len(threads), app_py, len(app), 100.0 * app_py / max(1, len(app)),
           sum(1 for e in calls if e.get("py_merge") == "appended")))
    top = collections.Counter("%s:%s %s" % (e["py"]["file"].split("/")[-1], e["py"].get("line"),
                                            e["py"].get("func")) for e in calls if e.get("py"))
    for k, n in top.most_common(5):
        print("   %5d  %s" % (n, k))


if __name__ == "__main__":
    {"alloc": alloc, "cover": cover}[sys.argv[2]](sys.argv[1], *sys.argv[3:])
