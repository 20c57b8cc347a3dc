# SPDX-License-Identifier: MIT
"""--sqlite: for every real trace, SQL counts, errors and summed durations
over `calls` (and the request_totals, control_totals and
process_device_memory views) equal the -c figures row for row (escapes, RM
controls, UVM requests, mmap/munmap, device memory); objects, processes,
mmaps and the header are filled, calls join objects on their handles and
the rows that come from a call point to its id with its start time; names
are names (an unnamed id: NULL, its number and a note); no column is an
SQL keyword; the indexes serve pid, name and api; a -k trace fills api,
caller and frames as --json shows them; two traces appended into one file
keep their trace ids and hosts apart, the same trace added twice is
refused unless --sqlite-again; a file that is not a database, or one of
an older schema, is refused with a reason."""
import collections
import ctypes
import ctypes.util
import glob
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, decode_json, run, scratch_dir  # noqa: E402

t = Tap()
tmp = scratch_dir("ct-sqlite-")
traces = sorted(glob.glob(os.path.join(ROOT, "traces", "*.ctrace")))
t.ok(len(traces) >= 5, "real traces found (%d)" % len(traces))


def summary_rows(trace):
    p = run([CUDATRACE, "-r", trace, "-c", "-j"])
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return {(r["kind"], r["name"]): (r["calls"], r["errors"], r["total_ns"])
            for r in rows if r.get("type") == "summary"}


def request_label(req, name):
    """-c's label of a request: its name, else the decoder's _IOC form."""
    if name:
        return name
    d, ty, nr, sz = req >> 30, (req >> 8) & 0xff, req & 0xff, (req >> 16) & 0x3fff
    return "_IOC(%u, 0x%x, 0x%x, 0x%x)" % (d, ty, nr, sz) if d or ty else "0x%x" % req


def ctrl_label(ctrl, name):
    """-c's label of an RM control without a public name."""
    if name:
        return name
    return "0x%08x (no public name%s)" % (ctrl, ", GSS legacy" if ctrl & 0x8000 else "")


def sql_rows(db, trace_id):
    """-c's rows from the views request_totals and control_totals."""
    c = sqlite3.connect(db)
    got = {}
    for syscall, req, rname, n, err, tot in c.execute(
            "SELECT syscall, request, request_name, calls, errors, total_ns"
            " FROM request_totals WHERE trace_id = ?", (trace_id,)):
        if req is None:
            kind, label = "other", syscall
        else:
            label = request_label(req, rname)
            if (req >> 8) & 0xff == ord("F") and rname:
                kind = "escape"
            elif rname and rname.startswith("UVM_") or any(
                    r[0] and "nvidia-uvm" in r[0] for r in c.execute(
                        "SELECT path FROM calls WHERE trace_id = ? AND request = ? LIMIT 1",
                        (trace_id, req))):
                kind = "uvm"
            else:
                kind = "other"
        got[(kind, label)] = (n, err, tot)
    for ctrl, name, n, err, tot in c.execute(
            "SELECT ctrl, name, calls, errors, total_ns FROM control_totals"
            " WHERE trace_id = ?", (trace_id,)):
        got[("ctrl", ctrl_label(ctrl, name))] = (n, err, tot)
    c.close()
    return got


def device_memory_rows(trace):
    p = run([CUDATRACE, "-r", trace, "-c", "-j"])
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return {(r["pid"], r["gpu"], r["kind"]): (r["peak_bytes"], r["held_bytes"])
            for r in rows if r.get("type") == "device_memory"}


def check_rows(name, db, tr):
    """Handles, call ids, one time convention, names, the memory view."""
    c = sqlite3.connect(db)
    q = lambda sql: c.execute(sql).fetchall()  # noqa: E731
    allocs = q("SELECT count(*) FROM calls WHERE request_name = 'NV_ESC_RM_ALLOC'"
               " AND NOT failed")[0][0]
    joined = q("SELECT count(*), sum(o.start_ns = c.start_ns), sum(o.call_id = c.id)"
               " FROM calls c JOIN objects o USING (trace_id, client, handle)"
               " WHERE c.request_name = 'NV_ESC_RM_ALLOC' AND NOT c.failed"
               " AND o.call_id = c.id")[0]
    n_obj = q("SELECT count(*) FROM objects o JOIN calls c ON c.id = o.call_id"
              " WHERE c.request_name = 'NV_ESC_RM_ALLOC'")[0][0]
    t.ok(allocs > 0 and joined[0] == n_obj and joined[1] == n_obj and joined[2] == n_obj,
         "%s: calls join objects on (client, handle); objects.call_id and start_ns are "
         "their call's (%s of %d objects made by %d RM_ALLOCs)" % (name, joined, n_obj, allocs))
    mm = q("SELECT count(*), sum(m.start_ns = c.start_ns AND m.dur_ns = c.dur_ns)"
           " FROM mmaps m JOIN calls c ON c.id = m.call_id")[0]
    t.ok(mm[0] == q("SELECT count(*) FROM mmaps")[0][0] and mm[0] == (mm[1] or 0),
         "%s: every mmaps row points to its call, same start and duration %s" % (name, mm))
    not_names = q("SELECT name FROM calls WHERE name LIKE '0x%' OR name LIKE '_IOC(%'"
                  " OR name LIKE '%no public name%'")
    unnamed = q("SELECT count(*), sum(note IS NOT NULL AND"
                " coalesce(ctrl, hclass, request) IS NOT NULL) FROM calls WHERE name IS NULL")[0]
    t.ok(not not_names and unnamed[0] == (unnamed[1] or 0),
         "%s: name holds names only; %d unnamed calls each with its number and a note"
         % (name, unnamed[0]), not_names[:5])
    want = device_memory_rows(tr)
    got = {(pid, gpu if gpu is not None else -1, kind): (peak, held) for pid, gpu, kind, peak, held
           in q("SELECT pid, gpu, kind, peak_bytes, held_bytes FROM process_device_memory")}
    t.ok(want and got == want,
         "%s: process_device_memory's peak and held equal -c's device memory (%d rows)"
         % (name, len(want)), (got, want))
    c.close()


for i, tr in enumerate(traces):
    name = os.path.basename(tr)
    db = os.path.join(tmp, "one-%d.db" % i)
    p = run([CUDATRACE, "-r", tr, "--sqlite", db, "-c"])
    if not t.ok(p.returncode == 0, "%s: --sqlite ran" % name, p.stderr):
        continue
    want = summary_rows(tr)
    got = sql_rows(db, 1)
    diff = {k: (want.get(k), got.get(k)) for k in set(want) | set(got)
            if want.get(k) != got.get(k)}
    t.ok(want and not diff, "%s: request_totals and control_totals equal -c, all %d rows"
         % (name, len(want)), diff)
    check_rows(name, db, tr)
    c = sqlite3.connect(db)
    n_obj, n_proc, n_mmap, n_hdr = (c.execute("SELECT count(*) FROM %s" % tb).fetchone()[0]
                                     for tb in ("objects", "processes", "mmaps", "header"))
    mm = sum(v[0] for k, v in want.items() if k == ("other", "mmap"))
    t.ok(n_obj > 0 and n_proc > 0 and n_mmap == mm and n_hdr > 5,
         "%s: objects %d, processes %d, mmaps %d (-c: %d), header lines %d"
         % (name, n_obj, n_proc, n_mmap, mm, n_hdr))
    sized = c.execute("SELECT count(*) FROM objects WHERE kind = 'video' AND size > 0"
                      ).fetchone()[0]
    t.ok(sized > 0, "%s: video memory objects carry their size (%d)" % (name, sized))
    c.close()

# Two traces into one file: the second adds, hosts and ids stay apart.
db = os.path.join(tmp, "two.db")
a, b = traces[0], traces[-1]
pa = run([CUDATRACE, "-r", a, "--sqlite", db, "--host", "node-a", "-c"])
pb = run([CUDATRACE, "-r", b, "--sqlite", db, "--host", "node-b", "-c"])
t.ok(pa.returncode == 0 and pb.returncode == 0, "two traces appended", pa.stderr + pb.stderr)
c = sqlite3.connect(db)
tr_rows = c.execute("SELECT id, host FROM traces ORDER BY id").fetchall()
t.ok(tr_rows == [(1, "node-a"), (2, "node-b")], "traces: ids 1 and 2, hosts node-a and node-b",
     tr_rows)
per_host = dict(c.execute("SELECT host, count(*) FROM calls GROUP BY host").fetchall())
na = sum(v[0] for k, v in summary_rows(a).items() if k[0] != "ctrl")
nb = sum(v[0] for k, v in summary_rows(b).items() if k[0] != "ctrl")
t.ok(per_host == {"node-a": na, "node-b": nb},
     "calls per host equal each trace's own count (%d, %d)" % (na, nb), per_host)
mixed = c.execute("SELECT count(*) FROM calls c JOIN traces t ON c.trace_id = t.id"
                  " WHERE c.host != t.host").fetchone()[0]
t.ok(mixed == 0, "every call row's host is its trace's host")
c.close()
# Without --host, the header's host name is used.
db3 = os.path.join(tmp, "hdr.db")
run([CUDATRACE, "-r", a, "--sqlite", db3, "-c"])
c = sqlite3.connect(db3)
hdr = c.execute("SELECT val FROM header WHERE name = 'host'").fetchone()
t.ok(hdr and c.execute("SELECT host FROM traces").fetchone()[0] == hdr[0],
     "without --host the header's host (%s) names the trace" % (hdr and hdr[0]))
c.close()

# docs/SQLITE.md's example questions run on a real trace's database.
views_md = open(os.path.join(ROOT, "docs", "SQLITE.md")).read()
block = views_md[views_md.index("```sql") + 6:]
block = block[:block.index("```")]
c = sqlite3.connect(os.path.join(tmp, "one-0.db"))
results = []
for q in (q.strip() for q in block.split(";")):
    if q:
        try:
            results.append(len(c.execute(q).fetchall()))
        except sqlite3.Error as e:
            results.append(str(e))
c.close()
t.ok(len(results) >= 5 and all(isinstance(r, int) for r in results),
     "docs/SQLITE.md's %d example queries run (rows: %s)" % (len(results), results))



def sqlite_keywords():
    """SQLite's own keyword list (sqlite3_keyword_name), as the library says."""
    lib = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
    lib.sqlite3_keyword_name.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                         ctypes.POINTER(ctypes.c_int)]
    words = set()
    for i in range(lib.sqlite3_keyword_count()):
        p, n = ctypes.c_char_p(), ctypes.c_int()
        lib.sqlite3_keyword_name(i, ctypes.byref(p), ctypes.byref(n))
        words.add(p.value[:n.value].decode().lower())
    return words


c = sqlite3.connect(os.path.join(tmp, "one-0.db"))
kw = sqlite_keywords()
cols = [(tb, col[1]) for (tb,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        for col in c.execute("PRAGMA table_info(%s)" % tb)]
t.ok(len(kw) > 100 and len(cols) > 50 and not [x for x in cols if x[1].lower() in kw],
     "no column of %d is one of SQLite's %d keywords" % (len(cols), len(kw)),
     [x for x in cols if x[1].lower() in kw])
plans = {col: " ".join(r[-1] for r in c.execute(
    "EXPLAIN QUERY PLAN SELECT * FROM calls WHERE %s = ?" % col, ("x",))) for col in
    ("pid", "name", "api")}
t.ok(all("USING INDEX" in p for p in plans.values()),
     "calls: lookups by pid, name and api use an index", plans)
c.close()

# A -k trace: api and caller as --json gives them, one frames row per frame.
ktr = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
kdb = os.path.join(tmp, "k.db")
p = run([CUDATRACE, "-r", ktr, "--sqlite", kdb, "-c"])
ev = [o for o in decode_json(ktr) if o.get("type") in ("ioctl", "mmap", "munmap")]
c = sqlite3.connect(kdb)
rows = c.execute("SELECT id, api, caller FROM calls ORDER BY id").fetchall()
t.ok(p.returncode == 0 and len(rows) == len(ev) and
     [(r[1], r[2]) for r in rows] == [(o.get("api"), o.get("caller")) for o in ev] and
     sum(1 for r in rows if r[1]) > 0,
     "-k trace: calls.api and calls.caller equal --json's, call by call (%d with an api)"
     % sum(1 for r in rows if r[1]), p.stderr)
frames = collections.defaultdict(list)
for cid, depth, path, off, sym, fil, line in c.execute(
        "SELECT call_id, depth, module_path, module_offset, sym, file, line FROM frames"
        " ORDER BY call_id, depth"):
    frames[cid].append((path, off, sym))
want_f = [[(f.get("path"), int(f["offset"], 16) if "offset" in f else None, f.get("sym"))
           for f in o.get("stack", [])] for o in ev]
t.ok([frames.get(r[0], []) for r in rows] == want_f and sum(map(len, want_f)) > 0,
     "-k trace: frames holds every frame of every call (%d), module, offset and symbol as "
     "--json's" % sum(map(len, want_f)))
uid = c.execute("SELECT trace_uid FROM traces").fetchone()[0]
c.close()

# The same trace again: refused, nothing added; --sqlite-again adds it.
p = run([CUDATRACE, "-r", ktr, "--sqlite", kdb, "-c"])
c = sqlite3.connect(kdb)
n_tr, n_calls = c.execute("SELECT count(*), (SELECT count(*) FROM calls) FROM traces").fetchone()
c.close()
t.ok(p.returncode == 1 and "holds this trace already" in p.stderr and uid in p.stderr and
     "--sqlite-again" in p.stderr and n_tr == 1 and n_calls == len(ev),
     "the same trace added twice: exit 1, says so (trace id %s), adds nothing" % uid, p.stderr)
# Issue 33, item 10: refused before anything is decoded: no event on
# standard output, no table, -o left as it was, no --perfetto file, one line.
out, pf = os.path.join(tmp, "kept.txt"), os.path.join(tmp, "refused.json")
open(out, "w").write("kept\n")
for how, extra, stdin in (("text", [], None), ("-C", ["-C"], None), ("-o", ["-o", out], None),
                          ("--perfetto", ["--perfetto", pf], None),
                          ("-r -", [], open(ktr, "rb"))):
    p = subprocess.run([CUDATRACE, "-r", "-" if stdin else ktr, "--sqlite", kdb] + extra,
                       stdin=stdin, capture_output=True)
    err = p.stderr.decode()
    t.ok(p.returncode == 1 and not p.stdout and err.count("\n") == 1 and
         "holds this trace already" in err and open(out).read() == "kept\n" and
         not os.path.exists(pf),
         "the same trace again (%s): refused before decoding: nothing printed, no file "
         "written, one line on stderr" % how, (p.returncode, p.stdout[:200], err[:400]))
p = run([CUDATRACE, "-r", ktr, "--sqlite", kdb, "--sqlite-again", "-c"])
c = sqlite3.connect(kdb)
again = c.execute("SELECT id, trace_uid, complete FROM traces ORDER BY id").fetchall()
c.close()
t.ok(p.returncode == 0 and again == [(1, uid, 1), (2, uid, 1)],
     "--sqlite-again adds it once more, with the same trace id", (again, p.stderr))
ids = {}
for tr in traces:
    d = os.path.join(tmp, "uid.db")
    if os.path.exists(d):
        os.unlink(d)
    run([CUDATRACE, "-r", tr, "--sqlite", d, "-c"])
    c = sqlite3.connect(d)
    ids[os.path.basename(tr)] = c.execute("SELECT trace_uid FROM traces").fetchone()[0]
    c.close()
t.ok(len(set(ids.values())) == len(traces) and ids[os.path.basename(ktr)] == uid,
     "trace ids: one per trace, the same at every reading", ids)

# A database of the earlier schema (columns "escape", "offset"): refused.
old = os.path.join(tmp, "old.db")
c = sqlite3.connect(old)
c.execute('CREATE TABLE calls(trace_id INTEGER, ts_ns INTEGER, "escape" TEXT)')
c.commit()
c.close()
p = run([CUDATRACE, "-r", a, "--sqlite", old, "-c"])
t.ok(p.returncode == 1 and "another cudatrace version" in p.stderr,
     "a database of the earlier schema: refused, says why", p.stderr)

# Not a database: refused, with the reason.
bad = os.path.join(tmp, "not.db")
open(bad, "w").write("hello, this is not SQLite\n" * 100)
p = run([CUDATRACE, "-r", a, "--sqlite", bad])
t.ok(p.returncode != 0 and "--sqlite" in p.stderr and "not a database" in p.stderr,
     "a file that is not a database: refused, says why", p.stderr)
p = run([CUDATRACE, "-r", a, "--host", "x"])
t.ok(p.returncode != 0 and "--host" in p.stderr, "--host without --sqlite is refused", p.stderr)
t.done()
