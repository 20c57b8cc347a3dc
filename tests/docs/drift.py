# SPDX-License-Identifier: MIT
"""The docs say what cudatrace does (issue 22, item 19): the -e error
messages shown in docs/VIEWS.md are the ones printed; its api= and caller=
examples match calls of the -k trace; the README names the GPUs of every
trace in traces/; the man page's SEE ALSO names only installed pages and it
says what Ctrl-C does; JSON api summary rows carry the counts text shows;
what -k cannot do names the stack_end kinds printed (issue 33)."""
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

# 6. What -k cannot do names the stack_end kinds JSON prints now (it said
# `no_stack`, the kind of traces made before copy_short), as VIEWS.md's
# list of them and decoders/stacks/stack_end.c (ct_stack_why_name) do.
# The examples of "Arrays in call lines" are run by tests/docs/examples.py.
src = open(os.path.join(ROOT, "decoders", "stacks", "stack_end.c")).read()
src = src[src.index("ct_stack_why_name(enum"):]
kinds = set(re.findall(r'= "(\w+)"', src[:src.index("};")]))
listed = views[views.index('`"stack_end"` ('):views.index("traces made before the capture recorded")]
t.ok(kinds and set(re.findall(r"`(\w+)`", listed)) == kinds,
     "VIEWS.md lists the stack_end kinds of stack_end.c", sorted(kinds))
cannot = views[views.index("What `-k` cannot do"):]
cannot = cannot[:cannot.index("\n\n")]
named = set(re.findall(r"`([a-z]+_[a-z_]+)`", cannot))
t.ok(named and named <= kinds, "VIEWS.md's \"What -k cannot do\" names stack_end kinds "
     "JSON prints: %s" % sorted(named), sorted(named - kinds))
t.done()
