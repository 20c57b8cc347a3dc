#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How many bytes of native stack -k must copy for a call's native frames
to reach the Python interpreter: for each -k size given, the share of a
trace's driver calls whose native frames go on past their first Python
frame (the merge put Python frames in place of the interpreter's), and
the share that reached the stack's end.

  py_reach.py CUDATRACE SIZES -- COMMAND...   (SIZES: 4096,8192,...)
CT_ARGS: more options for the capture (--device FILE on a stand-in)."""
import json
import os
import subprocess
import sys
import tempfile


def reach(ct, size, cmd, out):
    subprocess.run([ct, "-k%d" % size, "-w", out] + os.environ.get("CT_ARGS", "").split() +
                   ["--"] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    p = subprocess.run([ct, "-r", out, "--json"], capture_output=True, text=True)
    calls = eval_ = ends = 0
    for line in p.stdout.splitlines():
        e = json.loads(line)
        if e.get("type") != "ioctl" or "stack" not in e:
            continue
        calls += 1
        kinds = [f.get("kind") == "python" for f in e["stack"]]
        eval_ += True in kinds and False in kinds[kinds.index(True):]
        ends += e.get("stack_end") == "end"
    return calls, eval_, ends


def main():
    if len(sys.argv) < 4 or sys.argv[3] != "--":
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in sys.argv[2].split(",")):
            calls, ev, ends = reach(sys.argv[1], size, sys.argv[4:], tmp + "/t.ctrace")
            print("py-reach -k%d: %d calls, %d reach the interpreter (%.0f%%), %d complete"
                  % (size, calls, ev, 100.0 * ev / max(calls, 1), ends))


if __name__ == "__main__":
    main()
