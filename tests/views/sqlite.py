# SPDX-License-Identifier: MIT
"""--sqlite: for every real trace, SQL counts, errors and summed durations
over `calls` equal the -c figures row for row (escapes, RM controls, UVM
requests, mmap/munmap); objects, processes, mmaps and the header are
filled; two traces appended into one file keep their trace ids and hosts
apart; a file that is not a database is refused with a reason."""
import glob
import json
import os
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
tmp = tempfile.mkdtemp(prefix="ct-sqlite-")
traces = sorted(glob.glob(os.path.join(ROOT, "traces", "*.ctrace")))
t.ok(len(traces) >= 5, "real traces found (%d)" % len(traces))


def summary_rows(trace):
    p = run([CUDATRACE, "-r", trace, "-c", "-j"])
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    return {(r["kind"], r["name"]): (r["calls"], r["errors"], r["total_ns"])
            for r in rows if r.get("type") == "summary"}


def sql_rows(db, trace_id):
    c = sqlite3.connect(db)
    got = {}
    # Escapes, mmap/munmap and unnamed requests: by the escape column, as -c.
    for esc, req, n, err, tot in c.execute(
            'SELECT "escape", min(request), count(*), sum(failed), sum(coalesce(dur_ns, 0))'
            " FROM calls WHERE trace_id = ? GROUP BY \"escape\"", (trace_id,)):
        if req is None:
            kind = "other"
        elif (req >> 8) & 0xff == ord("F") and not esc.startswith("_IOC"):
            kind = "escape"
        elif esc.startswith("UVM_") or any(
                r[0] and "nvidia-uvm" in r[0] for r in c.execute(
                    'SELECT path FROM calls WHERE trace_id = ? AND "escape" = ? LIMIT 1',
                    (trace_id, esc))):
            kind = "uvm"
        else:
            kind = "other"
        got[(kind, esc)] = (n, err, tot)
    for name, n, err, tot in c.execute(
            "SELECT name, count(*), sum(failed), sum(coalesce(dur_ns, 0)) FROM calls"
            " WHERE trace_id = ? AND ctrl IS NOT NULL GROUP BY name", (trace_id,)):
        got[("ctrl", name)] = (n, err, tot)
    c.close()
    return got


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
    t.ok(want and not diff, "%s: SQL count/errors/sum(dur_ns) over calls equal -c, all %d rows"
         % (name, len(want)), diff)
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
hdr = c.execute("SELECT value FROM header WHERE key = 'host'").fetchone()
t.ok(hdr and c.execute("SELECT host FROM traces").fetchone()[0] == hdr[0],
     "without --host the header's host (%s) names the trace" % (hdr and hdr[0]))
c.close()

# docs/VIEWS.md's example questions run on a real trace's database.
views_md = open(os.path.join(ROOT, "docs", "VIEWS.md")).read()
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
     "docs/VIEWS.md's %d example queries run (rows: %s)" % (len(results), results))

# Not a database: refused, with the reason.
bad = os.path.join(tmp, "not.db")
open(bad, "w").write("hello, this is not SQLite\n" * 100)
p = run([CUDATRACE, "-r", a, "--sqlite", bad])
t.ok(p.returncode != 0 and "--sqlite" in p.stderr and "not a database" in p.stderr,
     "a file that is not a database: refused, says why", p.stderr)
p = run([CUDATRACE, "-r", a, "--host", "x"])
t.ok(p.returncode != 0 and "--host" in p.stderr, "--host without --sqlite is refused", p.stderr)
t.done()
