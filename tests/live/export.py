# SPDX-License-Identifier: MIT
"""Objects handed between processes through an export fd: the capture says
which open file the fd named in EXPORT/IMPORT_OBJECT(S) params is, the same
file under another fd number in the process that received it (SCM_RIGHTS),
and a different one for a different open file.  The stand-in fails every
ioctl (ENOTTY), so the object links themselves are checked offline, in
tests/unit/test_decode.c and on the real two-GPU trace (tests/golden/gpus.py)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, decode_json, run,  # noqa: E402
                 scratch_dir)

t = Tap()
t.live_capture_or_skip("export fd tests")

tmp = scratch_dir("ct-export-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
tr = os.path.join(tmp, "export.ctrace")
p = run([CUDATRACE, "--device", ctl, "-w", tr, "--", NVFAKE, "-f", ctl, "export"])
t.ok(p.returncode == 0 and "sent 3" in p.stdout, "nvfake export ran under the tracer", p.stderr)
said = {m.group(1): (int(m.group(2)), int(m.group(3)))
        for m in re.finditer(r"^(export|import|other) pid (\d+) fd (\d+)$", p.stdout, re.M)}
t.ok(len(said) == 3 and said["export"][1] != said["import"][1] and
     said["export"][0] != said["import"][0],
     "the export fd reached another process under another number", said)

ev = decode_json(tr)
refs = [e for e in ev if e["type"] == "fileref"]
calls = [e for e in ev if e["type"] == "ioctl"]
t.ok(len(calls) == 3 and len(refs) == 3, "3 controls, one file reference each",
     (len(calls), len(refs)))
by = {(e["pid"], e["fd"]): e["file"] for e in refs}
ex = by.get(said.get("export", (0, 0)))
im = by.get(said.get("import", (0, 0)))
other = by.get(said.get("other", (0, 0)))
t.ok(ex is not None and ex == im,
     "exporter and importer see the same open file behind different fd numbers", (ex, im))
t.ok(other is not None and other != ex, "another open file has another id", (ex, other))
t.ok(all(int(v, 16) & 1 for v in by.values()), "file ids are opaque odd numbers, never 0", by)
# The reference comes right after the entry of the call that named the fd.
order = [e["type"] for e in ev if e["type"] in ("ioctl", "fileref")]
t.ok(order == ["fileref", "ioctl"] * 3,
     "one reference per call", order)

# Two captures never share ids (the key is random per capture): file ids
# are not kernel addresses.
tr2 = os.path.join(tmp, "export2.ctrace")
p2 = run([CUDATRACE, "--device", ctl, "-w", tr2, "--", NVFAKE, "-f", ctl, "export"])
ids2 = {e["file"] for e in decode_json(tr2) if e["type"] == "fileref"}
t.ok(p2.returncode == 0 and not (ids2 & set(by.values())),
     "a second capture gives other ids", (ids2, by))

# Text: -vv shows them; the default does not.
txt = run([CUDATRACE, "-r", tr, "-vv"]).stdout
t.ok(re.search(r"\+\+\+ fd %d is open file 0x[0-9a-f]+" % said["export"][1], txt) is not None,
     "-vv names the open file behind the fd", txt[:400])
t.ok("is open file" not in run([CUDATRACE, "-r", tr]).stdout, "the default text leaves them out")
t.done()
