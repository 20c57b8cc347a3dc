# SPDX-License-Identifier: MIT
"""No CPython fact written as a number in hand-written C: offsets, sizes,
bit positions and owner values come by name from struct ct_pyabi, whose
values are generated from user/pyabi/*.tsv (each with its header and tag).
Scans user/py*.c, comments and strings removed:

  - user/pyabi.c, which reads the tables, has no number but 0 and 1;
  - every other user/py*.c (the line-table decoder, the frame walker) has
    numbers other than 0 and 1 only on #define lines: named constants whose
    comment cites the format they come from (Objects/locations.md ...).
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap  # noqa: E402

STRICT = {"user/pyabi.c"}
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*(?![\w.])")
DEFINE = re.compile(r"^\s*#\s*define\b")
INCLUDE = re.compile(r"^\s*#\s*include\b")


def strip(text):
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return STRING.sub(blank, COMMENT.sub(blank, text))


def scan_text(text, strict):
    found = []
    for no, line in enumerate(strip(text).split("\n"), 1):
        if INCLUDE.match(line) or (DEFINE.match(line) and not strict):
            continue
        for m in NUMBER.finditer(line):
            if int(m.group(1), 0) not in (0, 1):
                found.append((no, m.group(0)))
    return found


def main():
    t = Tap()
    files = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "user", "py*.c")))
    t.ok("user/pyabi.c" in files and "user/pyline.c" in files, "found user/py*.c (%d files)" % len(files))
    # The scanner itself.
    bad = ["x = p + 152;", "if (owner == 3)", "mask = 0x7f;", "n = sizeof(u) * 8;", "y = 2u;"]
    good = ["#define LOC_NONE 15 /* Objects/locations.md */", "x = a->tstate_next;", "i += 1;",
            "/* offset 152 */ x = 0;", "s = \"152\";", "#include <stdint.h>", "v = a2 + b_3;"]
    t.ok(all(scan_text(b, False) for b in bad), "the scan catches numbers outside #define",
         "\n".join(b for b in bad if not scan_text(b, False)))
    t.ok(not any(scan_text(g, False) for g in good), "the scan passes #defines, names, 0/1, comments, strings",
         "\n".join(g for g in good if scan_text(g, False)))
    t.ok(scan_text("#define OFF 152", True), "a strict file may not hide a number in a #define")
    for rel in files:
        with open(os.path.join(ROOT, rel), errors="replace") as f:
            found = scan_text(f.read(), rel in STRICT)
        t.ok(not found, "%s: no CPython number as a literal%s" % (rel, " (none at all)" if rel in STRICT else ""),
             "\n".join("%s:%d: %s" % (rel, no, lit) for no, lit in found))
    t.done()


if __name__ == "__main__":
    main()
