#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a -k capture against libioctlunwind's log of the same run.

  stacks_check.py CUDATRACE DIR NAME...

DIR/NAME.ctrace is the -k trace, DIR/NAME.uw/ the LD_PRELOAD logs (one
PID.txt per process: "tid request api caller").  Prints, per workload:
ioctls, those on application threads (caller is not "driver thread"), the
share of those with an api and a caller (default --api-lib: libcuda and
NVML), and, over the calls both saw (matched per thread, in order, by
request), how often the api agrees, both naming libcuda.so* frames only.
"""
import collections
import glob
import json
import os
import subprocess
import sys


def trace_calls(ct, path, api_lib=None):
    extra = ["--api-lib", api_lib] if api_lib else []
    out = subprocess.run([ct, "-r", path, "--json"] + extra, capture_output=True,
                         text=True).stdout
    calls = [json.loads(l) for l in out.splitlines() if l.strip()]
    return [c for c in calls if c.get("type") == "ioctl"]


def preload_calls(d):
    per_tid = collections.defaultdict(list)
    for f in glob.glob(os.path.join(d, "*.txt")):
        for line in open(f):
            p = line.split()
            if len(p) == 4:
                per_tid[int(p[0])].append((int(p[1], 16), None if p[2] == "-" else p[2]))
    return per_tid


def check(ct, d, name):
    calls = trace_calls(ct, os.path.join(d, name + ".ctrace"))
    pre = preload_calls(os.path.join(d, name + ".uw"))
    app = [c for c in calls if c.get("caller") != "driver thread"]
    attributed = [c for c in app if c.get("api") and c.get("caller") not in (None, "?")]
    ends = collections.Counter(c.get("stack_end", "none") for c in calls)
    # The preload names libcuda.so* alone: compare with that definition.
    per_tid = collections.defaultdict(list)
    for c in sorted(trace_calls(ct, os.path.join(d, name + ".ctrace"), "libcuda.so*"),
                    key=lambda c: c["ts_ns"]):
        per_tid[c["tid"]].append((int(c["request"], 16), c.get("api")))
    both = same = 0
    diffs = collections.Counter()
    for tid, seq in per_tid.items():
        j, other = 0, pre.get(tid, [])
        for req, api in seq:
            k = j
            while k < len(other) and other[k][0] != req and k < j + 4:
                k += 1
            if k < len(other) and other[k][0] == req:
                both += 1
                same += api == other[k][1]
                if api != other[k][1]:
                    diffs[(api, other[k][1])] += 1
                j = k + 1
    pct = lambda a, b: 100.0 * a / b if b else 0.0
    print("%s: %d ioctls, %d on application threads, %d (%.1f%%) with api+caller; "
          "driver threads %d; stack ends %s" %
          (name, len(calls), len(app), len(attributed), pct(len(attributed), len(app)),
           len(calls) - len(app), dict(ends)))
    print("%s: preload saw %d; both saw %d; same api (libcuda.so*) %d (%.2f%%)" %
          (name, sum(len(v) for v in pre.values()), both, same, pct(same, both)))
    for (a, b), n in diffs.most_common(5):
        print("%s:   differs x%d: cudatrace %s, preload %s" % (name, n, a, b))
    sizes = [c.get("stack_bytes", 0) for c in calls]
    depth = [len(c.get("stack", [])) for c in calls]
    if calls:
        print("%s: frames per stack mean %.1f max %d; stack bytes copied mean %.0f" %
              (name, sum(depth) / len(depth), max(depth), sum(sizes) / len(sizes)))


if __name__ == "__main__":
    for n in sys.argv[3:]:
        check(sys.argv[1], sys.argv[2], n)
