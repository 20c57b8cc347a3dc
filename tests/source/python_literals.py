# SPDX-License-Identifier: MIT
"""No CPython fact written as a number in hand-written C: offsets, sizes,
bit positions and owner values come by name from struct ct_pyabi, whose
values are generated from capture/python/pyabi/*.tsv (each with its header and tag).
Scans every .c file of capture/python/ (and fails on a py*.c file of the
program outside it), comments and strings removed:

  - capture/python/pyabi.c, which reads the tables, has no number but 0 and 1;
  - capture/python/pyline.c, CPython's line-table algorithm, has numbers other than 0
    and 1 only on #define lines: named constants whose comment cites the
    format they come from (Objects/locations.md ...);
  - every other capture/python/*.c (the frame walker and its helpers, whose other
    numbers are their own: UTF-8, hashes, buffer sizes) has none but 0 and
    1 on a line that reads the CPython facts: one that names the minor
    version or a struct ct_pyabi field through -> or . (a->minor < 11,
    state >> a->unicode_kind_shift & 7): a version test or a width next to
    a table read is a fact that belongs in the table.  Array subscripts are
    left alone.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, source_folders  # noqa: E402

STRICT = {"capture/python/pyabi.c"}
DEFINES_ONLY = {"capture/python/pyline.c"}
# Files allowed their literals (none).
EXEMPT = set()
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*(?![\w.])")
DEFINE = re.compile(r"^\s*#\s*define\b")
INCLUDE = re.compile(r"^\s*#\s*include\b")
SUBSCRIPT = re.compile(r"\[\s*[0-9]+\s*\]")


def abi_fields():
    with open(os.path.join(ROOT, "capture", "python", "pyabi.h")) as f:
        text = f.read()
    body = text[text.index("struct ct_pyabi {"):]
    return re.findall(r"^\s*uint32_t ([a-z_]+);", body[:body.index("\n};")], re.M)


FACT_LINE = re.compile(r"\bminor\b|(?:->|\.)\s*(?:" + "|".join(abi_fields()) + r")\b")


def strip(text):
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return STRING.sub(blank, COMMENT.sub(blank, text))


def scan_text(text, strict, defines_only=True):
    """strict: no number at all; defines_only: numbers only in #defines;
    else numbers only away from the lines that read CPython facts."""
    found = []
    for no, line in enumerate(strip(text).split("\n"), 1):
        if INCLUDE.match(line) or (DEFINE.match(line) and not strict):
            continue
        if not strict and not defines_only:
            if not FACT_LINE.search(line):
                continue
            line = SUBSCRIPT.sub(" ", line)
        for m in NUMBER.finditer(line):
            if int(m.group(1), 0) not in (0, 1):
                found.append((no, m.group(0)))
    return found


def readers_elsewhere():
    """The program's .c files outside capture/python/ that include pyabi.h:
    CPython facts this scan would not see."""
    out = []
    for d in source_folders():
        if d == os.path.join("capture", "python"):
            continue
        for f in os.listdir(os.path.join(ROOT, d)):
            if f.endswith(".c"):
                with open(os.path.join(ROOT, d, f), errors="replace") as src:
                    if '#include "pyabi.h"' in src.read():
                        out.append(os.path.join(d, f))
    return sorted(out)


def main():
    t = Tap()
    files = sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "capture", "python", "*.c")))
    t.ok("capture/python/pyabi.c" in files and "capture/python/pyline.c" in files,
         "found capture/python/*.c (%d files)" % len(files))
    t.ok(not readers_elsewhere(), "no file outside capture/python/ reads the CPython tables (pyabi.h)",
         "not scanned: %s" % readers_elsewhere())
    # The scanner itself.
    bad = ["x = p + 152;", "if (owner == 3)", "mask = 0x7f;", "n = sizeof(u) * 8;", "y = 2u;"]
    good = ["#define LOC_NONE 15 /* Objects/locations.md */", "x = a->tstate_next;", "i += 1;",
            "/* offset 152 */ x = 0;", "s = \"152\";", "#include <stdint.h>", "v = a2 + b_3;"]
    t.ok(all(scan_text(b, False) for b in bad), "the scan catches numbers outside #define",
         "\n".join(b for b in bad if not scan_text(b, False)))
    t.ok(not any(scan_text(g, False) for g in good), "the scan passes #defines, names, 0/1, comments, strings",
         "\n".join(g for g in good if scan_text(g, False)))
    t.ok(scan_text("#define OFF 152", True), "a strict file may not hide a number in a #define")
    walker_bad = ["size = a->minor < 11 ? 4 : 8;", "kind = state >> a->unicode_kind_shift & 7;",
                  "if (c->abi.minor >= 13)", "x = p + a->tstate_next + 8;"]
    walker_good = ["char *s = malloc(n * 4 + 1);", "h = (h ^ c) * 16777619u;", "f[2] = v->frame_instr;",
                   "x = p + a->tstate_next;"]
    t.ok(all(scan_text(b, False, False) for b in walker_bad),
         "the walker scan catches numbers next to minor and table fields",
         "\n".join(b for b in walker_bad if not scan_text(b, False, False)))
    t.ok(not any(scan_text(g, False, False) for g in walker_good),
         "the walker scan passes the files' own numbers and subscripts",
         "\n".join(g for g in walker_good if scan_text(g, False, False)))
    for rel in files:
        if rel in EXEMPT:
            t.skip(rel, "exempt")
            continue
        with open(os.path.join(ROOT, rel), errors="replace") as f:
            found = scan_text(f.read(), rel in STRICT, rel in DEFINES_ONLY)
        how = " (none at all)" if rel in STRICT else " (outside #defines)" if rel in DEFINES_ONLY \
            else " (on lines that read the tables)"
        t.ok(not found, "%s: no CPython number as a literal%s" % (rel, how),
             "\n".join("%s:%d: %s" % (rel, no, lit) for no, lit in found))
    t.done()


if __name__ == "__main__":
    main()
