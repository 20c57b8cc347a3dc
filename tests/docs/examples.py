# SPDX-License-Identifier: MIT
"""Every example of README.md and docs/*.md that runs cudatrace on a trace
in traces/ prints what the page shows (issue 33).  The convention
(docs/ARCHITECTURE.md, "Examples in the docs"): a ```console block; a
line "$ COMMAND" is a command, run by bash from the repository root
(`cudatrace` and `./cudatrace` are the binary under test); the lines after
it, up to the next "$ " line, are its standard output, exactly.  "…" (one
character, U+2026) marks what the page leaves out: alone on a line, one or
more whole lines; inside a line, one or more characters.  Cudatrace's own
"..." is plain text.  Commands that name no trace in traces/ (a capture, a
file of the reader's own) are not run.  Where an example drifts, the check
names the page's line that no longer matches and what is printed there."""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, scratch_dir  # noqa: E402

t = Tap()
ELIDED = "\u2026"
TRACE = re.compile(r"(?<![\w./-])traces/[\w./-]+\.ctrace\b")
FENCE = re.compile(r"^```(\S*)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                              for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


class Example:
    def __init__(self, page, line, cmd):
        self.page, self.line, self.cmd = page, line, cmd
        self.shown = []   # (line number on the page, text)

    def where(self):
        return "%s:%d" % (self.page, self.line)


def examples_of(page, text):
    """The console blocks' commands, and the lines outside them that look
    like a command on a trace (they would not be checked)."""
    found, stray = [], []
    inside = set()
    for m in FENCE.finditer(text):
        first = text.count("\n", 0, m.start(2)) + 1
        body = m.group(2).splitlines()
        if m.group(1) != "console":
            continue
        inside.update(range(first, first + len(body)))
        ex = None
        for n, l in enumerate(body, first):
            if l.startswith("$ "):
                ex = Example(page, n, l[2:])
                found.append(ex)
            elif ex is not None:
                ex.shown.append((n, l.rstrip()))
            else:
                stray.append((n, "output before any \"$ \" line"))
    for n, l in enumerate(text.splitlines(), 1):
        if n not in inside and re.match(r"\s*\$ ", l) and TRACE.search(l):
            stray.append((n, "a command on a trace outside a ```console block: " + l.strip()))
    return found, stray


def line_ok(shown, printed):
    if ELIDED not in shown:
        return shown == printed
    pat = ".+".join(re.escape(p) for p in shown.split(ELIDED))
    return re.fullmatch(pat, printed) is not None


def compare(shown, printed):
    """None if printed (lines) is what shown (the page's lines) shows, else
    (i, j): shown[i] is the first page line no way of matching gets past,
    tried at printed[j] (i == len(shown): the output goes on past the page)."""
    memo, deepest = {}, [(-1, 0)]

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(shown):
            ok = j == len(printed)
        elif shown[i] == ELIDED:
            ok = any(match(i + 1, k) for k in range(j + 1, len(printed) + 1))
        else:
            ok = j < len(printed) and line_ok(shown[i], printed[j]) and match(i + 1, j + 1)
        if not ok and (i, -j) > (deepest[0][0], -deepest[0][1]) and \
                (i == len(shown) or shown[i] != ELIDED):
            deepest[0] = (i, j)
        memo[(i, j)] = ok
        return ok

    sys.setrecursionlimit(max(1000, 4 * len(shown) + 100))
    return None if match(0, 0) else deepest[0]


def clip(s, n=240):
    return s if len(s) <= n else s[:n] + " [%d more characters]" % (len(s) - n)


def where_differs(shown, printed):
    """Where a line without elisions first differs from the printed one:
    both from a little before that column, so a long line's change shows."""
    k = next((n for n, (a, b) in enumerate(zip(shown, printed)) if a != b),
             min(len(shown), len(printed)))
    start = max(0, k - 60)

    def cut(s):
        return ("[column %d] " % (start + 1) if start else "") + clip(s[start:], 160)
    return ["  page:    " + cut(shown), "  printed: " + cut(printed)]


def drift(ex, printed, at):
    i, j = at
    after_elision = i > 0 and ex.shown[i - 1][1] == ELIDED
    if i == len(ex.shown):
        lines = ["the page's example ends at %s:%d, the output goes on" %
                 (ex.page, ex.shown[-1][0] if ex.shown else ex.line)]
    elif j == len(printed):
        lines = ["%s:%d shows:  %s" % (ex.page, ex.shown[i][0], clip(ex.shown[i][1])),
                 "the output has ended (%d lines)" % len(printed)]
    elif after_elision:
        lines = ["%s:%d shows:  %s" % (ex.page, ex.shown[i][0], clip(ex.shown[i][1])),
                 "no output line from line %d on matches it; from there:" % (j + 1)]
    elif ELIDED not in ex.shown[i][1]:
        lines = ["%s:%d differs from output line %d of %d:" % (ex.page, ex.shown[i][0], j + 1,
                                                               len(printed))]
        lines += where_differs(ex.shown[i][1], printed[j])
        lines.append("the output from there:")
    else:
        lines = ["%s:%d shows:  %s" % (ex.page, ex.shown[i][0], clip(ex.shown[i][1])),
                 "output line %d of %d and on:" % (j + 1, len(printed))]
    lines += ["  " + clip(l) for l in printed[j:j + 4]]
    binary = os.path.abspath(CUDATRACE)
    lines.append("run it: cd %s && %s" % (
        ROOT, re.sub(r"(?<![\w/.])(\./)?cudatrace\b", lambda m: binary, ex.cmd)))
    return "\n".join(lines)


bindir = scratch_dir("ct-docs-examples-")
os.symlink(os.path.abspath(CUDATRACE), os.path.join(bindir, "cudatrace"))
env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C.UTF-8")

every, strays = [], []
for page in PAGES:
    found, stray = examples_of(page, open(os.path.join(ROOT, page), encoding="utf-8").read())
    every += found
    strays += ["%s:%d: %s" % (page, n, why) for n, why in stray]
t.ok(not strays, "every command on a trace in the docs is in a ```console block", "\n".join(strays))
runnable = [ex for ex in every if TRACE.search(ex.cmd)]
t.ok(len(runnable) >= 10, "README.md and docs/*.md show %d examples on traces/ (%d other "
     "commands, not run: they need a GPU, root or a file of their own)" %
     (len(runnable), len(every) - len(runnable)))

for ex in runnable:
    what = "%s `%s` prints what the page shows" % (ex.where(), clip(ex.cmd, 100))
    missing = [tr for tr in TRACE.findall(ex.cmd) if not os.path.exists(os.path.join(ROOT, tr))]
    if missing:
        t.ok(False, what, "it names %s, which is not in traces/" % ", ".join(missing))
        continue
    tools = [seg.split()[0] for seg in ex.cmd.split("|")[1:] if seg.split()]
    absent = [p for p in tools if not shutil.which(p)]
    if absent:
        t.skip(what, "%s not installed (tests/deps.sh installs it)" % ", ".join(absent))
        continue
    cmd = re.sub(r"(?<![\w/.])\./cudatrace\b", "cudatrace", ex.cmd)
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=ROOT, env=env,
                       capture_output=True, text=True, encoding="utf-8",
                       errors="replace", timeout=120)
    printed = [l.rstrip() for l in p.stdout.splitlines()]
    if p.returncode != 0:
        t.ok(False, what, "exit %d: %s" % (p.returncode, p.stderr.strip()[-1000:]))
        continue
    at = compare([s for _, s in ex.shown], printed)
    t.ok(at is None, what, None if at is None else drift(ex, printed, at))
t.done()
