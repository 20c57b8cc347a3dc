# SPDX-License-Identifier: MIT
"""No NVIDIA fact written as a literal in hand-written C: escape numbers,
RM control commands and class ids come by name from the generated
nvfacts.h, struct fields by name through the layouts (docs/TABLES.md,
docs/LAYOUTS.md).  Scans the .c files of every program folder (lib/, format/,
decoders/, views/, capture/, user/, bpf/ and their subfolders), with
comments and strings removed, for

  - a hex literal whose value is a known RM control command (from
    decoders/tables/nv_ctrl.tsv) or class id of 0x80 and above (nv_class.tsv;
    smaller ids are ordinary numbers);
  - a hex literal equal to a known escape number (nv_esc.tsv) on a line
    that deals with escapes (IOC_NR, nr, case, ESC);
  - a struct read at a fixed offset into a buffer (arg, a, p, c, data,
    s->data, nest, params, buf): "arg + 24", "s->data + 32", "u32_at(p, 12)",
    or the same through a numeric #define of the file ("c + CI_DOMAIN",
    "c[CI_BUS]").  "+ 1" is a string walking on, not an offset.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, source_folders  # noqa: E402

# Files allowed their literals (decode.c's went with issue 11).  utf8.c's
# are the byte ranges of RFC 3629 (0x80, 0xc2, 0xe0, ...), which some class
# ids happen to equal: no NVIDIA fact.
EXEMPT = {"lib/utf8.c"}
# Every program folder must be scanned: a folder this list misses fails.
DIRS = ["lib", "format", "bpf", "decoders", "views", "capture", "user"]


def table_keys(name, min_value=0):
    keys = {}
    with open(os.path.join(ROOT, "decoders", "tables", name)) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            v = int(cols[0], 16)
            if v >= min_value:
                keys[v] = cols[1]
    return keys


ESC = table_keys("nv_esc.tsv")
CTRL = table_keys("nv_ctrl.tsv", 0x100)
CLASS = table_keys("nv_class.tsv", 0x80)

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
HEX = re.compile(r"\b0[xX]([0-9a-fA-F]+)[uUlL]*\b")
ESC_CONTEXT = re.compile(r"IOC_NR|\bnr\b|\bcase\b|ESC")
BUFFER = r"(?:arg|a|p|c|data|s->data|nest|params|buf)"
OFFSET = re.compile(r"\b" + BUFFER + r"\s*\+\s*(?:[2-9]|[1-9][0-9]+)\b(?!\s*\*)|\bu32_at\([^,()]+,\s*[0-9]+\)")
NUM_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z_][A-Z0-9_]*)\s+[0-9]+\s*$", re.M)


def strip(text):
    # Keep the line count: comments and strings become blanks of the same lines.
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return STRING.sub(blank, COMMENT.sub(blank, text))


def scan(path):
    with open(path, errors="replace") as f:
        return scan_text(f.read())


def scan_text(text):
    found = []
    text = strip(text)
    lines = text.split("\n")
    names = NUM_DEFINE.findall(text)
    by_define = re.compile(r"\b" + BUFFER + r"\s*(?:\+\s*|\[\s*)(?:" + "|".join(names) + r")\b") \
        if names else None
    for no, line in enumerate(lines, 1):
        for m in HEX.finditer(line):
            v = int(m.group(1), 16)
            if v in CTRL:
                found.append((no, m.group(0), "control " + CTRL[v]))
            elif v in CLASS:
                found.append((no, m.group(0), "class " + CLASS[v]))
            elif v in ESC and ESC_CONTEXT.search(line):
                found.append((no, m.group(0), "escape " + ESC[v]))
        for m in OFFSET.finditer(line):
            found.append((no, m.group(0), "a struct read at a fixed offset"))
        for m in (by_define.finditer(line) if by_define else []):
            found.append((no, m.group(0), "a struct read at an offset #defined in the file"))
    return found


def main():
    t = Tap()
    folders = source_folders()
    unscanned = [d for d in folders if d.split(os.sep)[0] not in DIRS]
    t.ok(not unscanned, "every folder of the program's C is scanned", "not scanned: %s" % unscanned)
    files = sorted(os.path.join(d, f) for d in folders if d.split(os.sep)[0] in DIRS
                   for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".c"))
    t.ok(len(files) > 10, "found the hand-written C files (%d)" % len(files))
    # The scanner itself: what it must catch, and what it must let pass.
    bad = ["if (nr == 0x2a && len == 32)", "case 0x3d0b: return 0;", "cls == 0x2080",
           "*ptr = *(__u64 *)(arg + 16);", "h = u32_at(a, 8);",
           "#define CI_BUS 8\nx = c[CI_BUS];"]
    good = ["n = 0x2a;", "/* NV_ESC_RM_CONTROL 0x2a */ f(NV_ESC_RM_CONTROL);",
            "printf(\"0x3d0b\");", "v = p + 4 * (n - 1);", "s = p + 1;", "mask = 0xffff;"]
    t.ok(all(scan_text(b) for b in bad), "the scan catches escape, control, class and offset literals",
         "\n".join(b for b in bad if not scan_text(b)))
    t.ok(not any(scan_text(g) for g in good), "the scan passes ordinary numbers, comments, strings",
         "\n".join(g for g in good if scan_text(g)))
    for rel in files:
        if rel in EXEMPT:
            t.skip(rel, "exempt")
            continue
        found = scan(os.path.join(ROOT, rel))
        t.ok(not found, "%s: no NVIDIA number or struct offset as a literal" % rel,
             "\n".join("%s:%d: %s (%s)" % (rel, no, lit, what) for no, lit, what in found))
    t.done()


if __name__ == "__main__":
    main()
