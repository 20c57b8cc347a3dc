# SPDX-License-Identifier: MIT
"""Checks --gpu-work output (cudatrace -r TRACE --json) against what a
program says it did.  Python 3 standard library only.

  gpuwork_check.py accept PROGRAM_OUT EVENTS_JSONL
      gpuwork_accept's launches (distinct grids) and copies (distinct
      sizes): each must be seen exactly once, or be covered by entries
      counted as lost.  Prints one "accept ..." line; exit 1 on failure.
  gpuwork_check.py steps EVENTS_JSONL GAP_MS
      launches grouped into bursts separated by GAP_MS of silence (a
      training step each): prints the count of each burst.
  gpuwork_check.py count EVENTS_JSONL
      events per kind and engine, launches, copied bytes, lost, unreadable.
"""
import collections
import json
import sys


def events(path):
    out = []
    for line in open(path):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("type") == "gpu-work":
            out.append(e)
    return out


def count(ev):
    c = collections.Counter((e["engine"], e["kind"]) for e in ev)
    lost = sum(e.get("entries", 0) for e in ev if e["kind"] == "LOST")
    copied = sum(e.get("bytes", 0) for e in ev if e["kind"] == "COPY")
    return c, lost, copied


def accept(prog_out, path):
    want_l, want_c = [], []
    for line in open(prog_out):
        w = line.split()
        if w and w[0] == "launch":
            want_l.append((int(w[1]), int(w[2])))
        elif w and w[0] == "copy":
            want_c.append(int(w[1]))
    ev = events(path)
    launches = collections.Counter((e["grid"]["x"], e["block"]["x"]) for e in ev
                                   if e["kind"] == "LAUNCH" and "grid" in e)
    copies = collections.Counter(e["bytes"] for e in ev if e["kind"] == "COPY")
    c, lost, copied = count(ev)
    miss_l = [g for g in want_l if launches[g] != 1]
    miss_c = [b for b in want_c if copies[b] != 1]
    no_qmd = sum(1 for e in ev if e["kind"] == "LAUNCH" and "grid" not in e)
    ok = (not miss_l and not miss_c) or len(miss_l) + len(miss_c) <= lost
    print("accept %s launches %d/%d copies %d/%d lost %d launches_without_qmd %d "
          "other_launches %d other_copies %d missing_launches %s missing_copies %s" % (
              "PASS" if ok else "FAIL", len(want_l) - len(miss_l), len(want_l),
              len(want_c) - len(miss_c), len(want_c), lost, no_qmd,
              sum(launches.values()) - (len(want_l) - len(miss_l)),
              sum(copies.values()) - (len(want_c) - len(miss_c)), miss_l[:5], miss_c[:5]))
    return 0 if ok else 1


def steps(path, gap_ms):
    ev = [e for e in events(path) if e["kind"] == "LAUNCH"]
    bursts, last = [], None
    for e in ev:
        if last is None or e["ts_ns"] - last > gap_ms * 1e6:
            bursts.append(0)
        bursts[-1] += 1
        last = e["ts_ns"]
    print("steps launches_per_burst", " ".join(map(str, bursts)))
    return 0


def main():
    if sys.argv[1] == "accept":
        return accept(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "steps":
        return steps(sys.argv[2], float(sys.argv[3]))
    c, lost, copied = count(events(sys.argv[2]))
    print("count", " ".join("%s/%s=%d" % (k[0], k[1], v) for k, v in sorted(c.items())),
          "lost=%d copied_bytes=%d" % (lost, copied))
    return 0


sys.exit(main())
