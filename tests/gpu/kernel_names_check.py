# SPDX-License-Identifier: MIT
"""Checks --gpu-work's kernel names in a trace (docs/KERNELS.md), for
tests/gpu/device-kernel-names.sh.

    kernel_names_check.py CUDATRACE TRACE LABEL [--manifest M.json] [--want SHARE]

Prints the share of launches named from files, by jit: id, ambiguous and
unnamed, then PASS/FAIL lines: with a manifest (tests/gpu/gen_kernels.py),
every launch whose grid and block one kernel of the manifest has must carry
that kernel's name; --want SHARE: at least that share of launches named
(from files or jit:)."""
import argparse
import collections
import json
import subprocess

p = argparse.ArgumentParser()
p.add_argument("cudatrace")
p.add_argument("trace")
p.add_argument("label")
p.add_argument("--manifest")
p.add_argument("--want", type=float, default=0.0)
a = p.parse_args()

out = subprocess.run([a.cudatrace, "-r", a.trace, "--json"], capture_output=True, text=True)
ev = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
launches = [e for e in ev if e.get("type") == "gpu-work" and e.get("kind") == "LAUNCH"]
kinds = collections.Counter()
for e in launches:
    k = e.get("kernel")
    kinds["unnamed" if k is None else "ambiguous" if k == "?" or "kernel_candidates" in e else
          "jit" if k.startswith("jit:") else "file"] += 1
n = len(launches)
named = kinds["file"] + kinds["jit"]
share = named / n if n else 0.0
found = collections.Counter(e["kernel_found"] for e in launches if "kernel_found" in e)
print("%s: %d launches: %d named from files, %d jit: ids, %d ambiguous (code several functions "
      "have: labelled), %d unnamed: %.1f%% named, %.1f%% named or labelled (found: %s)"
      % (a.label, n, kinds["file"], kinds["jit"], kinds["ambiguous"], kinds["unnamed"],
         100 * share, 100 * (named + kinds["ambiguous"]) / n if n else 0.0,
         ", ".join("%s %d" % kv for kv in sorted(found.items()))))
top = collections.Counter(e.get("kernel", "(unnamed %s)" % e.get("program")) for e in launches)
for name, c in top.most_common(8):
    print("  %6d  %s" % (c, name[:150]))
ok = True
if a.want:
    good = share >= a.want
    ok &= good
    print("%s %s: %.1f%% of launches named (want %.1f%%)" % ("PASS" if good else "FAIL", a.label,
                                                            100 * share, 100 * a.want))
if a.manifest:
    m = json.load(open(a.manifest))
    by_shape = collections.defaultdict(set)
    for l in m["launches"]:
        if "kernel" in l:
            by_shape[(tuple(l["grid"]), tuple(l["block"]))].add(l["kernel"])
    checked = wrong = 0
    for e in launches:
        shape = ((e["grid"]["x"], e["grid"]["y"], e["grid"]["z"]),
                 (e["block"]["x"], e["block"]["y"], e["block"]["z"]))
        want = by_shape.get(shape)
        if not want or len(want) != 1:
            continue
        checked += 1
        if e.get("kernel") not in want:
            wrong += 1
            if wrong <= 5:
                print("  launch grid=%s block=%s: %s, the manifest says %s"
                      % (shape[0], shape[1], e.get("kernel"), next(iter(want))))
    good = checked > 0 and wrong == 0
    ok &= good
    print("%s %s: %d launches the manifest names, %d named wrong or not"
          % ("PASS" if good else "FAIL", a.label, checked, wrong))
    big = [l["kernel"] for l in m["launches"] if l.get("big")]
    if big:
        got = any(e.get("kernel") == big[0] for e in launches)
        ok &= got
        print("%s %s: the big kernel (copy engine upload) %s named" % (
            "PASS" if got else "FAIL", a.label, big[0]))
    own = [e for e in launches if ((e["grid"]["x"], e["grid"]["y"], e["grid"]["z"]),
                                   (e["block"]["x"], e["block"]["y"], e["block"]["z"]))
           not in by_shape]
    print("  launches the manifest does not list (CUDA's own memset/copy kernels): %s"
          % dict(collections.Counter(e.get("kernel", "(unnamed)") for e in own)))
raise SystemExit(0 if ok else 1)
