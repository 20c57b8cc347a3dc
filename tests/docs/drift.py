# SPDX-License-Identifier: MIT
"""The docs say what cudatrace does (issue 22, item 19): the -e error
messages shown in docs/VIEWS.md are the ones printed; its api= and caller=
examples match calls of the -k trace; the README names the GPUs of every
trace in traces/; the man page's SEE ALSO names only installed pages and it
says what Ctrl-C does; JSON api summary rows carry the counts text shows;
the counted arrays of VIEWS.md print as shown (item 15), text and JSON."""
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
WITH_K = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
views = open(os.path.join(ROOT, "docs", "VIEWS.md")).read()
readme = open(os.path.join(ROOT, "README.md")).read()
man = open(os.path.join(ROOT, "docs", "cudatrace.8")).read()

# 1. The error block of "Filters": each command, run, prints that line.
block = views[views.index("**Errors** end cudatrace"):]
block = block[block.index("```\n") + 4:]
block = block[:block.index("```")].splitlines()
pairs = [(block[i][2:], block[i + 1]) for i in range(0, len(block) - 1, 2)
         if block[i].startswith("$ ")]
t.ok(len(pairs) >= 7, "docs/VIEWS.md shows %d filter errors" % len(pairs))
for cmd, want in pairs:
    args = [SAXPY if a == "t.ctrace" else a for a in shlex.split(cmd)[1:]]
    p = run([CUDATRACE] + args)
    t.ok(p.returncode == 2 and p.stderr.splitlines()[:1] == [want],
         "VIEWS.md: `%s` prints what the doc shows" % cmd,
         {"printed": p.stderr.splitlines()[:1], "doc": want})

# 2. The api= and caller= examples of the key table match calls of the -k
# trace ('driver thread' names no function: this trace has none).
row = {k: re.search(r"^\| `%s` \|.*$" % k, views, re.M).group(0) for k in ("api", "caller")}
examples = [(k, m.group(1) or m.group(2)) for k in row
            for m in re.finditer(r"`%s=(?:'([^']*)'|([^`']+))`" % k, row[k])]
t.ok(len(examples) >= 4, "the key table has api= and caller= examples", examples)
for key, pat in examples:
    if pat == "driver thread":
        continue
    p = run([CUDATRACE, "-r", WITH_K, "--json", "-e", "%s=%s" % (key, pat)])
    n = sum(1 for l in p.stdout.splitlines() if json.loads(l)["type"] in ("ioctl", "mmap"))
    t.ok(p.returncode == 0 and n > 0, "VIEWS.md's %s=%s matches %d calls of %s" % (
        key, pat, n, os.path.basename(WITH_K)))

# 3. README: the traces row names the GPU of every trace.
layout = re.search(r"^\| `traces/` \|.*$", readme, re.M).group(0)
gpus = sorted(set(re.match(r"(h\d+)", f).group(1).upper()
                  for f in os.listdir(os.path.join(ROOT, "traces")) if f.endswith(".ctrace")))
t.ok(all(g in layout for g in gpus), "README's traces/ row names %s" % ", ".join(gpus), layout)

# 4. The man page: SEE ALSO of man pages only (make install installs no
# docs/), and what SIGINT, SIGTERM and SIGHUP do.
see_also = man[man.index(".SH SEE ALSO"):]
t.ok("docs/" not in see_also and ".md" not in see_also,
     "man page SEE ALSO names no docs/ file (make install does not install them)", see_also)
signals = man[man.index(".SH SIGNALS"):] if ".SH SIGNALS" in man else ""
signals = signals[:signals.index(".SH", 4)] if signals else ""
t.ok(all(w in signals for w in ("SIGINT", "Ctrl-C", "SIGTERM", "trailer")),
     "the man page's SIGNALS says what Ctrl-C does")

# 5. JSON summary rows: the counts of the top requests, as text shows them.
p = run([CUDATRACE, "-r", WITH_K, "-c", "--summary-by=api", "--json"])
rows = [json.loads(l) for l in p.stdout.splitlines()]
q = run([CUDATRACE, "-r", WITH_K, "-c", "--summary-by=api"])
text = {}
for l in q.stdout.splitlines()[2:]:
    m = re.match(r"\s*\d+\s+\d+\s+[\d.]+\s+(\S+)\s+\((.*)\)$", l)
    if m:
        text[m.group(1)] = [(name.strip(), int(n)) for name, n in
                            re.findall(r"((?:[^,(]|\([^)]*\))+) x(\d+)", m.group(2))]
got = {r["api"]: list((r.get("top_request_calls") or {}).items()) for r in rows}
t.ok(rows and got == text and all(
    [k for k, _ in got[r["api"]]] == r["top_requests"] for r in rows),
     "JSON top_request_calls: the counts text prints (x14), for all %d rows" % len(rows),
     {k: (got.get(k), text.get(k)) for k in list(text)[:2]})

# 6. "Arrays in call lines": each command of its two blocks prints the lines
# shown (text: the part after "... "; JSON: what `jq -c .params` prints).
sect = views[views.index("## Arrays in call lines"):]
sect = sect[:sect.index("\n## ")]
blocks = re.findall(r"```\n(.*?)```", sect, re.S)
t.ok(len(blocks) == 2, "VIEWS.md's arrays section has a text and a JSON example", len(blocks))
for b in blocks:
    lines = b.splitlines()
    cmd = shlex.split(lines[0][2:].split(" | ")[0])
    p = run([CUDATRACE] + [os.path.join(ROOT, a) if a.startswith("traces/") else a
                           for a in cmd[1:]])
    if "--json" in cmd:
        got = [json.dumps(o["params"], separators=(",", ":")) for o in
               map(json.loads, p.stdout.splitlines()) if "params" in o]
        t.ok(p.returncode == 0 and got == lines[1:],
             "VIEWS.md: `%s` gives the params shown" % lines[0][2:], {"printed": got})
    else:
        calls = [l for l in p.stdout.splitlines() if " ioctl(" in l]
        t.ok(p.returncode == 0 and len(calls) == len(lines) - 1 and
             all(c.endswith(w[4:]) for c, w in zip(calls, lines[1:])),
             "VIEWS.md: `%s` prints the lines shown" % lines[0][2:], {"printed": calls})
t.done()
