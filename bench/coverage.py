#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Decoder coverage of real traces: for each trace, the events, how many
have every id named (escape or UVM request, control command, class,
status), which ids have no public name, how many were decoded to fields
(argument struct, and the nested params when the call has them), and the
decode speed of `cudatrace -r FILE > /dev/null`.

usage: bench/coverage.py [TRACE...]   (default: traces/*.ctrace)"""
import collections
import glob
import json
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("CUDATRACE_BIN", os.path.join(ROOT, "cudatrace"))


def decode(trace):
    p = subprocess.run([BIN, "-r", trace, "--json"], capture_output=True, text=True, check=True)
    return [json.loads(l) for l in p.stdout.splitlines()]


def speed(trace, records):
    """Best of 3 wall-clock runs of the text decode to /dev/null."""
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([BIN, "-r", trace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        dt = time.perf_counter() - t0
        best = dt if best is None or dt < best else best
    return records / best, best


def main():
    traces = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "traces", "*.ctrace")))
    tot = collections.Counter()
    print("%-30s %7s %7s %7s %7s %9s %12s  %s" % ("trace", "events", "ioctls", "named",
                                                  "fields", "records", "records/s", "ids without a public name"))
    for tr in traces:
        ev = decode(tr)
        calls = [e for e in ev if e["type"] in ("ioctl", "mmap", "munmap")]
        ioctls = [e for e in calls if e["type"] == "ioctl"]
        records = sum(1 for e in ev if e["type"] != "ioctl") + 2 * len(ioctls)
        named = fields = 0
        nameless = collections.Counter()
        for e in calls:
            if e["type"] != "ioctl":
                named += 1
                fields += 1
                continue
            ok = e["name"].startswith(("NV_ESC_", "UVM_"))
            if "cmd" in e and "cmd_name" not in e:
                c = int(e["cmd"], 16)
                nameless["%#x%s" % (c, " (GSS legacy)" if c & 0x8000 else "")] += 1
            if "hClass" in e and "hClass_name" not in e:
                ok = False
                nameless["class %s" % e["hClass"]] += 1
            if ok:
                named += 1
            # A struct or array by field; a request without an argument
            # (UVM_DEINITIALIZE) has nothing to decode.
            decoded = (isinstance(e.get("args"), (dict, list)) or "gpu_ids" in e or
                       not e.get("arg_in"))
            if e.get("nested_size"):
                decoded = decoded and ("params" in e or "pAllocParms" in e or "ptr" in e)
            fields += decoded
        eps, secs = speed(tr, records)
        print("%-30s %7d %7d %7d %7d %9d %12.0f  %s" % (
            os.path.basename(tr), len(calls), len(ioctls), named, fields, records, eps,
            ", ".join("%s x%d" % kv for kv in sorted(nameless.items())) or "-"))
        tot.update(events=len(calls), named=named, fields=fields)
    print("all: %d events, %d with every id named that has a public name (the rest: RM controls "
          "with no public name, listed), %d decoded to fields" %
          (tot["events"], tot["named"], tot["fields"]))


if __name__ == "__main__":
    main()
