# SPDX-License-Identifier: MIT
"""The summary (-c, -C, --summary-by=pid) and Perfetto (--perfetto) views on
the real H100 traces, checked against figures computed here, independently,
from the --json events of the same trace.  Prints TAP.  See docs/VIEWS.md."""
import collections
import json
import os
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, ROOT, Tap, decode_json, live_capture_possible,  # noqa: E402
                 run, scratch_dir)

TRACES = ["h100-saxpy.ctrace", "h100-torch_train.ctrace"]
EVENT_TYPES = ("ioctl", "mmap", "munmap")
ROW_KEYS = ("type", "group", "kind", "name", "value", "calls", "errors", "total_ns",
            "mean_ns", "p50_ns", "p99_ns", "max_ns")


def ctrl_label(o):
    if o.get("cmd_name"):
        return o["cmd_name"]
    cmd = int(o["cmd"], 16)
    return "0x%08x (no public name%s)" % (cmd, ", GSS legacy" if cmd & 0x8000 else "")


def slice_name(o):
    """The name a Perfetto slice should have: the RM control, else the request."""
    return ctrl_label(o) if "cmd" in o else o["name"]


def status_failed(o):
    """A status the driver wrote back (a field with a _name, ending in status)."""
    args = o.get("args")
    if not isinstance(args, dict):
        return False
    for k, v in args.items():
        if k.lower().endswith("status") and k + "_name" in args:
            if (int(v, 16) if isinstance(v, str) else v) != 0:
                return True
    return False


def nearest_rank(sorted_vals, p):
    n = len(sorted_vals)
    rank = max(1, -(-p * n // 100))  # ceil(p*n/100)
    return sorted_vals[min(rank, n) - 1]


def expected_rows(events, by_pid=False):
    """(pid or None, kind, name) -> figures, from the JSON events alone."""
    acc = collections.defaultdict(lambda: {"calls": 0, "errors": 0, "unfinished": 0, "lat": []})

    def add(key, lat, failed, unfinished):
        r = acc[key]
        r["calls"] += 1
        r["errors"] += 1 if failed else 0
        r["unfinished"] += 1 if unfinished else 0
        if lat is not None:
            r["lat"].append(lat)

    for o in events:
        if o["type"] not in EVENT_TYPES:
            continue
        grp = o["pid"] if by_pid else None
        if o["type"] == "mmap":
            ret = int(o["ret"], 16)
            ret = ret - (1 << 64) if ret >= 1 << 63 else ret
            add((grp, "other", "mmap"), o["duration_ns"], -4096 < ret < 0, False)
        elif o["type"] == "munmap":
            add((grp, "other", "munmap"), None, False, False)
        elif o["type"] == "ioctl":
            unfinished = bool(o.get("unfinished"))
            lat = None if unfinished else o["duration_ns"]
            failed = (not unfinished) and (o.get("ret", 0) != 0 or status_failed(o))
            req = int(o["request"], 16)
            if (req >> 8) & 0xff == ord("F"):
                add((grp, "escape", o["name"]), lat, failed, unfinished)
                if "cmd" in o:
                    add((grp, "ctrl", ctrl_label(o)), lat, failed, unfinished)
            elif o["name"].startswith("UVM_") or "nvidia-uvm" in o.get("path", ""):
                add((grp, "uvm", o["name"]), lat, failed, unfinished)
            else:
                add((grp, "other", o["name"]), lat, failed, unfinished)
    out = {}
    for key, r in acc.items():
        lat = sorted(r["lat"])
        f = {"calls": r["calls"], "errors": r["errors"], "unfinished": r["unfinished"],
             "timed": len(lat), "total_ns": sum(lat)}
        if lat:
            f.update(mean_ns=sum(lat) // len(lat), p50_ns=nearest_rank(lat, 50),
                     p99_ns=nearest_rank(lat, 99), max_ns=lat[-1])
        else:
            f.update(mean_ns=None, p50_ns=None, p99_ns=None, max_ns=None)
        out[key] = f
    return out


def summary_rows(args):
    p = run([CUDATRACE] + args)
    if p.returncode != 0:
        raise RuntimeError("cudatrace %s: %s" % (" ".join(args), p.stderr))
    objs = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return objs, [o for o in objs if o.get("type") == "summary"]


def compare_summary(t, name, events, rows, by_pid):
    want = expected_rows(events, by_pid)
    got = {}
    for r in rows:
        got[(r["pid"] if by_pid else None, r["kind"], r["name"])] = r
    t.ok(set(got) == set(want), "%s: summary has one row per escape/control/request%s" %
         (name, " and process" if by_pid else ""),
         {"missing": sorted(map(str, set(want) - set(got))),
          "extra": sorted(map(str, set(got) - set(want)))})
    bad = []
    for key in set(got) & set(want):
        for field in ("calls", "errors", "unfinished", "timed", "total_ns", "mean_ns",
                      "p50_ns", "p99_ns", "max_ns"):
            if got[key].get(field) != want[key][field]:
                bad.append((key, field, got[key].get(field), want[key][field]))
    t.ok(not bad, "%s: calls, errors, total, mean, p50, p99, max equal the figures from --json%s"
         % (name, " (by pid)" if by_pid else ""), "\n".join(map(str, bad[:20])))
    return want


def check_perfetto(t, name, trace, events, tmp):
    out = os.path.join(tmp, name + ".perfetto.json")
    p = run([CUDATRACE, "-r", trace, "--perfetto", out, "-c"])
    if not t.ok(p.returncode == 0 and os.path.exists(out), "%s: --perfetto writes the file"
                % name, p.stderr):
        return None
    try:
        doc = json.load(open(out))
    except ValueError as e:
        t.ok(False, "%s: the Perfetto file is valid JSON" % name, e)
        return None
    t.ok(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
         "%s: the Perfetto file is JSON with a traceEvents array" % name)
    ev = doc["traceEvents"]
    xs = [e for e in ev if e.get("ph") == "X"]
    ioctls = [o for o in events if o["type"] == "ioctl"]
    calls = [o for o in events if o["type"] in EVENT_TYPES]
    t.ok(len(xs) == len(ioctls), "%s: one X slice per ioctl (%d slices, %d ioctls)"
         % (name, len(xs), len(ioctls)))
    t.ok(all(isinstance(e["ts"], (int, float)) and e["ts"] >= 0 and
             isinstance(e["dur"], (int, float)) and e["dur"] >= 0 for e in xs),
         "%s: every slice has ts >= 0 and dur >= 0" % name)
    # Integer nanoseconds back from microseconds with three decimals.
    by_tid = collections.defaultdict(list)
    for e in xs:
        by_tid[(e["pid"], e["tid"])].append((round(e["ts"] * 1000), round(e["dur"] * 1000),
                                             e["name"]))
    overlaps = []
    for tid, sl in by_tid.items():
        sl.sort()
        for a, b in zip(sl, sl[1:]):
            if b[0] < a[0] + a[1]:
                overlaps.append((tid, a, b))
    t.ok(not overlaps, "%s: slices of one thread do not overlap" % name, overlaps[:5])
    t.ok(collections.Counter(e["name"] for e in xs) ==
         collections.Counter(slice_name(o) for o in ioctls),
         "%s: slice names are the RM control names, else the request names" % name)
    # Slice durations and relative start times, against the events.
    # Time zero: the entry of the first call (JSON order is the order the
    # decoder hands calls over; an mmap's ts_ns is its exit).
    first = calls[0]
    base = first["ts_ns"] - (first["duration_ns"] if first["type"] == "mmap" else 0)
    want = collections.Counter((o["pid"], o["tid"], o["ts_ns"] - base, o.get("duration_ns", 0))
                               for o in ioctls if not o.get("unfinished"))
    got = collections.Counter((e["pid"], e["tid"], round(e["ts"] * 1000), round(e["dur"] * 1000))
                              for e in xs if not e["args"].get("unfinished"))
    t.ok(want == got, "%s: slice times are the calls' entry and latency, from the first call"
         % name, list((want - got).items())[:3])
    inst = [e for e in ev if e.get("ph") == "i"]
    t.ok(len(inst) == sum(1 for o in calls if o["type"] != "ioctl") and
         all(e.get("s") == "t" and e["name"] in ("mmap", "munmap") for e in inst),
         "%s: mmap and munmap are thread instants (%d)" % (name, len(inst)))
    meta = [e for e in ev if e.get("ph") == "M"]
    pnames = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    tnames = {(e["pid"], e["tid"]) for e in meta if e["name"] == "thread_name"}
    want_p = {o["pid"] for o in calls}
    want_t = {(o["pid"], o["tid"]) for o in calls if o["type"] != "munmap"}
    t.ok(set(pnames) == want_p and want_t <= tnames,
         "%s: process_name and thread_name metadata for every process and thread" % name,
         (pnames, tnames))
    main_comm = {o["pid"]: o["comm"] for o in calls if o["tid"] == o["pid"] and o.get("comm")}
    t.ok(all(pnames.get(p) == c for p, c in main_comm.items()),
         "%s: processes are named after their main thread" % name, (pnames, main_comm))
    # calls/s is a rate: each value holds until the process's next counter
    # event, so rate x time held, summed, gives back every call (each
    # window's rate is rounded to a whole call per second).
    cs = [e for e in ev if e.get("ph") == "C" and e["name"] == "calls/s"]
    series = collections.defaultdict(list)
    for e in cs:
        series[e["pid"]].append((e["ts"], e["args"]["rate"]))
    want_n = collections.Counter(o["pid"] for o in calls)
    bad = []
    for pid, pts in series.items():
        pts.sort()
        got_n = sum(r * (b[0] - a_ts) / 1e6 for (a_ts, r), b in zip(pts, pts[1:]))
        windows = sum(1 for _, r in pts if r)
        if pts[-1][1] != 0 or abs(got_n - want_n[pid]) > 0.5 * windows + 1e-6:
            bad.append((pid, got_n, want_n[pid], windows))
    t.ok(cs and set(series) == set(want_n) and not bad,
         "%s: the calls/s counter is a rate: rate x time gives every call of each process"
         % name, bad)
    return doc


def cut_exits(src, dst, drop):
    """Copies a plain trace file without the IOCTL_EXIT records whose ordinal
    (0-based, among exits) is in drop ("last" for the last one).  Returns the
    number of exits, or None if src is not a plain version-1 file."""
    data = open(src, "rb").read()
    if data[:8] != b"CUDATRCE":
        return None
    pre = struct.unpack_from("<I", data, 12)[0]
    recs, off = [], pre
    while off + 8 <= len(data):
        rtype, size = struct.unpack_from("<II", data, off)
        if size < 24:
            return None
        end = off + ((size + 7) & ~7)
        recs.append((rtype, data[off:end]))
        off = end
    exits = [i for i, (rt, _) in enumerate(recs) if rt == 3]
    gone = {exits[d] for d in drop if d != "last"}
    if "last" in drop:
        gone.add(exits[-1])
    with open(dst, "wb") as f:
        f.write(data[:pre])
        for i, (_, b) in enumerate(recs):
            if i not in gone:
                f.write(b)
    return len(exits)


def main():
    t = Tap()
    tmp = scratch_dir("ct-views-")
    for name in TRACES:
        trace = os.path.join(ROOT, "traces", name)
        if not os.path.exists(trace):
            t.skip("%s: views" % name, "trace missing")
            continue
        events = decode_json(trace)
        calls = [o for o in events if o["type"] in EVENT_TYPES]

        # -c with JSON: only summary rows, then the device memory rows.
        objs, rows = summary_rows(["-r", trace, "-c", "--json"])
        mem = [o for o in objs if o.get("type") == "device_memory"]
        t.ok(rows and mem and len(rows) + len(mem) == len(objs) and
             objs[len(rows)].get("type") == "device_memory",
             "%s: -c --json prints summary rows, then device memory rows, nothing else" % name,
             sorted({o.get("type") for o in objs}))
        t.ok(all(all(k in r for k in ROW_KEYS) and r["group"] == "all" and
                 r["kind"] in ("escape", "ctrl", "uvm", "other") and
                 (r["value"] is None or r["value"].startswith("0x")) for r in rows),
             "%s: every summary row has group, kind, name, value and the figures" % name,
             [r for r in rows if not all(k in r for k in ROW_KEYS)][:2])
        compare_summary(t, name, events, rows, False)
        for kind in ("escape", "ctrl", "uvm"):
            part = [r for r in rows if r["kind"] in ((kind, "other") if kind == "escape"
                                                     else (kind,))]
            totals = [r["total_ns"] for r in part]
            t.ok(totals == sorted(totals, reverse=True),
                 "%s: %s rows sorted by total time" % (name, kind))
        esc_calls = sum(r["calls"] for r in rows if r["kind"] != "ctrl")
        t.ok(esc_calls == len(calls), "%s: escape, UVM and other rows count every call once "
             "(%d, %d calls)" % (name, esc_calls, len(calls)))
        ctl = sum(r["calls"] for r in rows if r["kind"] == "ctrl")
        esc = sum(r["calls"] for r in rows if r["name"] == "NV_ESC_RM_CONTROL")
        t.ok(ctl == esc, "%s: RM control rows add up to NV_ESC_RM_CONTROL (%d)" % (name, esc))

        # --summary-by=pid
        _, prow = summary_rows(["-r", trace, "-c", "--json", "--summary-by=pid"])
        t.ok(prow and all("pid" in r and "comm" in r and r["group"] ==
                          "pid %d (%s)" % (r["pid"], r["comm"]) for r in prow),
             "%s: --summary-by=pid rows carry pid, comm and their group" % name)
        compare_summary(t, name, events, prow, True)

        # Text: -c the table alone, -C the events and the table.
        p = run([CUDATRACE, "-r", trace, "-c"])
        lines = p.stdout.splitlines()
        call_lines = [l for l in lines if " ioctl(" in l or " mmap(" in l or " munmap(" in l]
        t.ok(p.returncode == 0 and not call_lines and lines[:1] == ["cudatrace summary"],
             "%s: -c prints the table alone (no calls, no process lines)" % name,
             lines[:3])
        sections = ["ioctl escapes, mmap, munmap:", "RM controls (NV_ESC_RM_CONTROL by command):",
                    "UVM requests (/dev/nvidia-uvm):"]
        t.ok(all(s in lines for s in sections) and
             sum(1 for l in lines if l.split()[-1:] == ["total"]) == 3 and
             any(l.startswith("all calls: %d " % len(calls)) for l in lines),
             "%s: -c has the three sections, their totals and the total of all calls" % name,
             p.stdout[-600:])
        top = next(r for r in rows if r["kind"] in ("escape", "other"))
        row_line = [l for l in lines if l.endswith("  " + top["name"])]
        t.ok(row_line and row_line[0].split()[2] == str(top["calls"]) and
             row_line[0].split()[1] == "%.6f" % (top["total_ns"] / 1e9),
             "%s: the text row of %s shows its calls and seconds" % (name, top["name"]),
             row_line)
        p = run([CUDATRACE, "-r", trace, "-C"])
        n_ioctl = sum(1 for l in p.stdout.splitlines() if " ioctl(" in l)
        t.ok(p.returncode == 0 and n_ioctl == sum(1 for o in calls if o["type"] == "ioctl") and
             "cudatrace summary" in p.stdout and
             p.stdout.index("cudatrace summary") > p.stdout.rindex(" ioctl("),
             "%s: -C prints every call, then the table" % name)
        p = run([CUDATRACE, "-r", trace, "-c", "--summary-by=pid"])
        pids = sorted({o["pid"] for o in calls})
        t.ok(all("=== pid %d (" % pid in p.stdout for pid in pids),
             "%s: --summary-by=pid prints a table per process (%s)" % (name, pids))

        check_perfetto(t, name, trace, events, tmp)

    # Calls whose exit never came: one in the middle, the last one.
    src = os.path.join(ROOT, "traces", TRACES[0])
    cut = os.path.join(tmp, "cut.ctrace")
    n = cut_exits(src, cut, [40, "last"]) if os.path.exists(src) else None
    if n is None:
        t.skip("unfinished calls", "no plain trace to cut")
    else:
        events = decode_json(cut)
        unf = [o for o in events if o["type"] == "ioctl" and o.get("unfinished")]
        t.ok(len(unf) == 2, "cut trace: two unfinished ioctls (%d)" % len(unf))
        _, rows = summary_rows(["-r", cut, "-c", "--json"])
        compare_summary(t, "cut trace", events, rows, False)
        t.ok(sum(r["unfinished"] for r in rows if r["kind"] != "ctrl") == 2,
             "cut trace: the summary counts the unfinished calls, untimed")
        doc = check_perfetto(t, "cut trace", cut, events, tmp)
        if doc:
            xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
            u = [e for e in xs if e["args"].get("unfinished")]
            # The trace ends when the last call does (an mmap instant's
            # call took duration_ns).
            ends = [round(e["ts"] * 1000) + (round(e["dur"] * 1000) if e["ph"] == "X"
                                             else e["args"].get("duration_ns", 0))
                    for e in doc["traceEvents"] if e.get("ph") in ("X", "i")]
            by_next = [e for e in u if e["args"].get("ended_by") == "next call on the thread"]
            by_end = [e for e in u if e["args"].get("ended_by") == "trace end"]
            nxt = None
            if by_next:
                s = by_next[0]
                later = sorted(round(e["ts"] * 1000) for e in doc["traceEvents"]
                               if e.get("ph") in ("X", "i") and e.get("tid") == s["tid"] and
                               round(e["ts"] * 1000) > round(s["ts"] * 1000))
                nxt = later[0] if later else None
            t.ok(len(u) == 2 and all(e["cat"] == "ioctl,unfinished" for e in u),
                 "cut trace: unfinished calls are slices, marked", u)
            t.ok(len(by_next) == 1 and nxt is not None and
                 round((by_next[0]["ts"] + by_next[0]["dur"]) * 1000) == nxt,
                 "cut trace: an unfinished call ends where its thread's next call begins",
                 (by_next, nxt))
            t.ok(len(by_end) == 1 and
                 round((by_end[0]["ts"] + by_end[0]["dur"]) * 1000) == max(ends),
                 "cut trace: the last unfinished call ends at the trace end", by_end)

    # Live capture: the same views on the decoder of a capture (nvfake on
    # stand-in files: every ioctl fails with ENOTTY).
    why = live_capture_possible() or (None if os.access(NVFAKE, os.X_OK) else "no nvfake")
    if why:
        t.skip("live capture with -c and --perfetto", why)
    else:
        ctl, uvm = os.path.join(tmp, "nvidiactl"), os.path.join(tmp, "nvidia-uvm")
        for f in (ctl, uvm):
            open(f, "a").close()
        pf = os.path.join(tmp, "live.json")
        p = run([CUDATRACE, "-c", "--json", "--perfetto", pf, "--device", ctl, "--device", uvm,
                 "--", NVFAKE, "-f", ctl, "-u", uvm, "threads", "4", "50"])
        objs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
        rows = [o for o in objs if o.get("type") == "summary"]
        rc = [r for r in rows if r["name"] == "NV_ESC_RM_CONTROL"]
        t.ok(p.returncode == 0 and len(rc) == 1 and rc[0]["calls"] == 200 and
             rc[0]["errors"] == 200 and rc[0]["timed"] == 200 and
             not [o for o in objs if o.get("type") in EVENT_TYPES],
             "live -c: 200 RM controls from 4 threads, 200 errors (ENOTTY), no events",
             (p.returncode, p.stderr, rows))
        try:
            ev = json.load(open(pf))["traceEvents"]
        except (OSError, ValueError) as e:
            ev = []
            t.ok(False, "live --perfetto: the file is JSON", e)
        xs = [e for e in ev if e.get("ph") == "X"]
        tids = {e["tid"] for e in xs}
        names = {e["tid"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
        t.ok(len(xs) == 200 and len(tids) == 4 and tids <= names and
             all(e["args"].get("failed") for e in xs),
             "live --perfetto: 200 slices on 4 named threads, marked failed",
             (len(xs), tids, names))
        p = run([CUDATRACE, "-C", "--device", ctl, "--device", uvm,
                 "--", NVFAKE, "-f", ctl, "-u", uvm, "script"])
        t.ok(p.returncode == 0 and sum(1 for l in p.stdout.splitlines() if " ioctl(" in l) == 11
             and "UVM requests (/dev/nvidia-uvm):" in p.stdout and
             "all calls: 13 (11 errors)" in p.stdout,
             "live -C: the 11 ioctls, then the table (13 calls with mmap, munmap)",
             p.stdout[-800:] + p.stderr)
        # Every view at once: --metrics, -c (summary, device memory fed and
        # printed, GPU work), -e, --perfetto, --sqlite and --compat make 9;
        # the decoder took at most 8 ("too many views", exit 1).
        db, pf9 = os.path.join(tmp, "all.db"), os.path.join(tmp, "all.json")
        p = run([CUDATRACE, "--device", ctl, "--metrics", "127.0.0.1:0", "-c", "-e",
                 "syscall=ioctl", "--perfetto", pf9, "--sqlite", db, "--compat=gvisor", "--",
                 NVFAKE, "-f", ctl, "burst", "3", "0x20801230"])
        try:
            slices = [e for e in json.load(open(pf9))["traceEvents"] if e.get("ph") == "X"]
            with sqlite3.connect(db) as c:
                rows = c.execute("SELECT count(*) FROM calls").fetchone()[0]
        except (OSError, ValueError, sqlite3.Error) as e:
            slices, rows = [], e
        t.ok(p.returncode == 0 and "NV_ESC_RM_CONTROL" in p.stdout and len(slices) == 3 and
             rows == 3 and "nvproxy" in p.stdout,
             "live, 9 views (--metrics -c -e --perfetto --sqlite --compat): each wrote its "
             "output (3 controls in the table, the timeline, the database, the report)",
             (p.returncode, p.stderr, len(slices), rows, p.stdout[-600:]))

    # Errors.
    missing = os.path.join(tmp, "no-such-dir", "out.json")
    p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", TRACES[0]), "--perfetto", missing])
    t.ok(p.returncode == 1 and
         "cannot write %s: No such file or directory" % missing in p.stderr and
         not p.stdout,
         "--perfetto into a directory that does not exist: exit 1, a clear error, no output",
         (p.returncode, p.stderr))
    p = run([CUDATRACE, "-w", os.path.join(tmp, "x.ctrace"), "-c", "--", "true"])
    t.ok(p.returncode == 2 and "-c" in p.stderr and not os.path.exists(os.path.join(tmp, "x.ctrace")),
         "-w with -c is refused before anything starts", (p.returncode, p.stderr))
    p = run([CUDATRACE, "-r", os.path.join(ROOT, "traces", TRACES[0]), "-c",
             "--summary-by=tid"])
    t.ok(p.returncode == 2 and "--summary-by" in p.stderr,
         "--summary-by takes pid only", (p.returncode, p.stderr))
    p = run([CUDATRACE, "--help"])
    t.ok(all(s in p.stdout for s in ("-c ", "-C ", "--summary-by=pid", "--perfetto FILE")),
         "--help lists -c, -C, --summary-by and --perfetto")
    t.done()


if __name__ == "__main__":
    main()
