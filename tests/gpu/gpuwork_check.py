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
  gpuwork_check.py tie EVENTS_JSONL
      every launch's and copy's "after" against the trace's own calls:
      a certain one names a call of the process that ended before the
      window, and no call of it ended after that call up to the window's
      end; an unknown one counts the calls that ended inside the window.
      Prints one "tie ..." line; exit 1 if any is wrong (a call whose
      record the kernel handed over after the poll that read GPPut).
  gpuwork_check.py tieprog PROGRAM_OUT EVENTS_JSONL
      gpuwork_tie's launches ("call I TID" then "launch GRID"): how many
      certain ties name the thread of the program's own call before the
      launch (another thread's call in between, CUDA's own, would be
      named instead, rightly: it is the process's last).
  gpuwork_check.py ring EVENTS_JSONL LAUNCHED
      the channel with the most launches: its entries read (records with
      an event), and lost (the lower bound of wraps included), against
      LAUNCHED (one entry each); accounted <= entries put, equal when no
      wrap hid a whole ring.
  gpuwork_check.py entries EVENTS_JSONL   (decoded with -v)
      GPFIFO entries by kind: control entries by opcode, segments by
      level, sync and fetch.
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


def call_ends(path):
    """pid -> sorted [(end_ns, tid, ts_ns)] of the trace's finished calls.
    An ioctl's ts_ns is its entry (plus duration_ns: its end); an mmap's
    and a munmap's ts_ns is already their end."""
    ends = collections.defaultdict(list)
    for line in open(path):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        t = e.get("type")
        if t == "ioctl" and "duration_ns" in e:
            ends[e["pid"]].append((e["ts_ns"] + e["duration_ns"], e["tid"], e["ts_ns"]))
        elif t in ("mmap", "munmap"):
            ends[e["pid"]].append((e["ts_ns"], e["tid"], e["ts_ns"]))
    for v in ends.values():
        v.sort()
    return ends


def tie_wrong(a, pid, ends):
    """Why an "after" contradicts the calls, or None."""
    lo, hi = a["put_since_ns"], a["put_by_ns"]
    inside = [c for c in ends[pid] if lo < c[0] <= hi]
    if not a["certain"]:
        n = len(inside)
        if n < a["calls_while_put"] or (n != a["calls_while_put"] and not a["at_least"]):
            return "unknown with %d calls in the window, the trace has %d" % (
                a["calls_while_put"], n)
        return None
    named = [c for c in ends[pid] if c[0] == a["ts_ns"] and c[1] == a["tid"]]
    later = [c for c in ends[pid] if a["ts_ns"] < c[0] <= hi]
    if not named:
        return "names a call the trace does not have (end %d tid %d)" % (a["ts_ns"], a["tid"])
    if a["ts_ns"] > lo:
        return "names a call that ended inside the window"
    if later:
        return "%d calls ended after it, before the window closed (first at %d)" % (
            len(later), later[0][0])
    return None


def tie(path):
    ends, n = call_ends(path), collections.Counter()
    wrong, names = [], collections.Counter()
    for e in events(path):
        if e["kind"] not in ("LAUNCH", "COPY"):
            continue
        a = e.get("after")
        if not a:
            n["none"] += 1
            continue
        n["certain" if a["certain"] else "unknown"] += 1
        if a["certain"]:
            names[a["call"]] += 1
        why = tie_wrong(a, e["pid"], ends)
        if why:
            wrong.append("%s ring_index %d: %s" % (e["kind"], e["ring_index"], why))
    print("tie %s certain %d unknown %d none %d wrong %d top_calls %s%s" % (
        "FAIL" if wrong else "PASS", n["certain"], n["unknown"], n["none"], len(wrong),
        names.most_common(4), (" first_wrong " + "; ".join(wrong[:3])) if wrong else ""))
    return 1 if wrong else 0


def tieprog(prog_out, path):
    want, tid = {}, None
    for line in open(prog_out):
        w = line.split()
        if w and w[0] == "call":
            tid = int(w[2])
        elif w and w[0] == "launch":
            want[int(w[1])] = tid
    same = other = unknown = 0
    for e in events(path):
        if e["kind"] != "LAUNCH" or e.get("grid", {}).get("x") not in want:
            continue
        a = e.get("after") or {}
        if not a.get("certain"):
            unknown += 1
        elif a["tid"] == want[e["grid"]["x"]]:
            same += 1
        else:
            other += 1
    print("tieprog launches %d certain_same_thread %d certain_other_thread %d not_certain %d"
          % (len(want), same, other, unknown))
    return 0


def ring(path, launched):
    ev = events(path)
    per = collections.Counter(e["channel"] for e in ev if e["kind"] == "LAUNCH")
    if not per:
        print("ring no launches")
        return 1
    chan = per.most_common(1)[0][0]
    mine = [e for e in ev if e["channel"] == chan]
    read = len({(e["ring_index"], e["ts_ns"]) for e in mine
                if e["kind"] not in ("LOST", "UNREADABLE")})
    unread = sum(1 for e in mine if e["kind"] == "UNREADABLE")
    lost = sum(e.get("entries", 0) for e in mine if e["kind"] == "LOST")
    wrap = sum(e.get("entries", 0) for e in mine if e["kind"] == "LOST" and e.get("wrapped"))
    nwrap = sum(1 for e in mine if e["kind"] == "LOST" and e.get("wrapped"))
    print("ring channel %s launches_seen %d entries_read %d unreadable %d lost %d (in %d wraps, "
          "at least: %d) accounted %d launched %d" % (
              chan, per[chan], read, unread, lost, nwrap, wrap, read + unread + lost,
              launched))
    return 0


def entries(path):
    c = collections.Counter()
    for e in events(path):
        if e["kind"] != "GP-ENTRY":
            continue
        if e["entry"] == "control":
            c["control %s" % e.get("opcode_name", e["opcode"])] += 1
        else:
            c["segment level=%s sync=%s fetch=%s" % (
                e.get("level_name"), e.get("sync_name"), e.get("fetch_name"))] += 1
    print("entries", "; ".join("%s: %d" % kv for kv in sorted(c.items())) or "none")
    return 0


def main():
    if sys.argv[1] == "accept":
        return accept(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "steps":
        return steps(sys.argv[2], float(sys.argv[3]))
    if sys.argv[1] == "tie":
        return tie(sys.argv[2])
    if sys.argv[1] == "entries":
        return entries(sys.argv[2])
    if sys.argv[1] == "tieprog":
        return tieprog(sys.argv[2], sys.argv[3])
    if sys.argv[1] == "ring":
        return ring(sys.argv[2], int(sys.argv[3]))
    c, lost, copied = count(events(sys.argv[2]))
    print("count", " ".join("%s/%s=%d" % (k[0], k[1], v) for k, v in sorted(c.items())),
          "lost=%d copied_bytes=%d" % (lost, copied))
    return 0


sys.exit(main())
