# SPDX-License-Identifier: MIT
"""docs/COMPAT.md says what --compat does (issue 33, items 13 and 15): the
exit statuses its "Exit status" sentence gives are the ones cudatrace
returns (clean, refused, an unknown VERSION or capability), and the runsc
capability flag it names is the one imported from gVisor's runsc sources."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
doc = open(os.path.join(ROOT, "docs", "COMPAT.md")).read()
para = doc[doc.index("**Exit status**"):]
para = " ".join(para[:para.index("\n\n")].split())


def said(what):
    """The status the paragraph gives for what ("if nothing would be refused" ...)."""
    m = re.search(r"(\d) " + re.escape(what), para) or re.search(r"(\d) on an? " + re.escape(what),
                                                                 para)
    return int(m.group(1)) if m else None


SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
TORCH = os.path.join(ROOT, "traces", "h100-torch_train.ctrace")
cases = [
    ("if nothing would be refused", [SAXPY, "--compat=gvisor"]),
    ("if something would", [TORCH, "--compat=gvisor"]),
    ("usage error", [SAXPY, "--compat=gvisor:no-such-snapshot"]),
    ("usage error", [SAXPY, "--compat=gvisor", "--compat-caps", "no-such-capability"]),
]
for what, args in cases:
    p = run([CUDATRACE, "-r"] + args)
    t.ok(said(what) is not None and p.returncode == said(what),
         "COMPAT.md: exit %s %s; `cudatrace -r %s` exits %d" % (
             said(what), what, " ".join(os.path.basename(a) for a in args), p.returncode),
         para)

# runsc's capability flag: the page names the one imported from runsc's
# sources (views/compat/tables/gvisor_rules.tsv), never another.
rules = open(os.path.join(ROOT, "views", "compat", "tables", "gvisor_rules.tsv")).read()
imported = set(re.findall(r"\tcaps_allow_flag\t(--[\w-]+)\t", rules))
named = set(re.findall(r"--nvproxy[\w-]*cap[\w-]*", doc))
t.ok(imported and named == imported,
     "COMPAT.md names runsc's capability flag as imported: %s (imported: %s)"
     % (sorted(named), sorted(imported)))
t.done()
