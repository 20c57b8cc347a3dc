# SPDX-License-Identifier: MIT
"""Each real trace in traces/ against the independent count made in the same
run by tests/ioctl_count.c (LD_PRELOAD): the same number of NVIDIA ioctls
and mmaps, request by request, nothing lost, every call complete."""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, decode_json  # noqa: E402


def read_count(path):
    """Totals over the processes the counter watched, and their pids."""
    total = mmaps = 0
    per_req = collections.Counter()
    pids = set()
    for line in open(path):
        f = line.split()
        if f and f[0] == "ioctlcount":
            kv = dict(x.split("=") for x in f[1:])
            pids.add(int(kv["pid"]))
            total += int(kv["ioctls"])
            mmaps += int(kv["mmaps"])
        elif f and f[0] == "req":
            per_req[int(f[1], 16)] += int(f[2])
    return total, mmaps, per_req, pids


t = Tap()
traces = sorted(glob.glob(os.path.join(ROOT, "traces", "*.ctrace")))
t.ok(len(traces) >= 3, "traces/ holds at least 3 real traces (%d)" % len(traces))
for trace in traces:
    name = os.path.basename(trace)
    count = trace[:-len(".ctrace")] + ".count"
    ev = decode_json(trace)
    ioctls = [e for e in ev if e["type"] == "ioctl"]
    per_req = collections.Counter(int(e["request"], 16) for e in ioctls)
    mmaps = sum(1 for e in ev if e["type"] == "mmap")
    meta = ev[0]
    t.ok(meta["type"] == "meta" and "580.159.04" in meta.get("driver", ""),
         "%s: header names the driver" % name, meta.get("driver"))
    trailer = [e for e in ev if e["type"] == "trailer"]
    t.ok(len(trailer) == 1 and trailer[0]["lost"] == 0,
         "%s: trailer present, 0 lost" % name, trailer)
    t.ok(all("ret" in e and "unfinished" not in e and "enter_lost" not in e for e in ioctls),
         "%s: every ioctl has its entry and its exit" % name)
    unnamed = sorted({e["name"] for e in ioctls if not e["name"].startswith(("NV_ESC_", "UVM_"))})
    t.ok(not unnamed, "%s: every request is named" % name, unnamed)
    if not os.path.exists(count):
        t.skip("%s: independent count" % name, "no .count file")
        continue
    c_total, c_mmaps, c_req, c_pids = read_count(count)
    # A system-wide capture also holds processes the counter did not watch
    # (the GPU machine's own nvidia-smi monitoring): compare the watched ones.
    others = {e["pid"] for e in ev if e["type"] in ("ioctl", "mmap") and e["pid"] not in c_pids}
    if others:
        parent = {e["pid"]: e["ppid"] for e in ev if e["type"] == "proc"}
        t.ok(all(p in parent and parent[p] not in c_pids for p in others),
             "%s: the %d other processes (%s) are described and not children of the "
             "counted ones" % (name, len(others), sorted(others)), parent)
    ioctls = [e for e in ioctls if e["pid"] in c_pids]
    per_req = collections.Counter(int(e["request"], 16) for e in ioctls)
    mmaps = sum(1 for e in ev if e["type"] == "mmap" and e["pid"] in c_pids)
    t.ok(len(ioctls) == c_total, "%s: %d ioctls, counter says %d" % (name, len(ioctls), c_total))
    t.ok(mmaps == c_mmaps, "%s: %d mmaps, counter says %d" % (name, mmaps, c_mmaps))
    t.ok(per_req == c_req, "%s: per-request counts equal the counter's" % name,
         {hex(k): (per_req[k], c_req[k]) for k in set(per_req) | set(c_req)
          if per_req[k] != c_req[k]})
t.done()
