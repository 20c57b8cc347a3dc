# SPDX-License-Identifier: MIT
"""Checks a --gpu-work decode (cudatrace -r T --json) against graph_probe's
printed launches (tests/gpu/graph_probe.cu): stream and cluster launches in
order with grid (in blocks), block and cluster; each graph launch of the
program found as one GRAPH-LAUNCH whose kernels (graph_launch N) hold that
launch's kernels (extra ones, such as a memset node's kernel, are counted,
not failed).  usage: graph_check.py PROBE_STDOUT DECODE_JSONL"""
import collections
import json
import sys

want = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ev = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]
gw = [e for e in ev if e.get("type") == "gpu-work"]
bad = 0


def xyz(d):
    return [d["x"], d["y"], d["z"]] if d else [0, 0, 0]


# 1. stream and cluster launches: each found, in order on its channel (the
# probe's streams are channels of their own: the order between two of them
# is not the trace's to keep when one look reads both)
plain = [e for e in gw if e["kind"] == "LAUNCH" and "graph_launch" not in e]
ws = [w for w in want if not w["graph"]]
used, last, j = set(), {}, 0
for w in ws:
    for i, e in enumerate(plain):
        if i not in used and xyz(e["grid"]) == w["grid"] and xyz(e["block"]) == w["block"] \
                and xyz(e.get("cluster")) == w["cluster"]:
            used.add(i)
            j += i > last.get(e["channel"], -1)
            last[e["channel"]] = i
            break
print("stream/cluster launches: %d of %d found in order on their channels" % (j, len(ws)))
bad += j != len(ws)

# 2. graph launches: (head, N) -> kernels
groups = collections.defaultdict(list)
for e in gw:
    if e["kind"] == "LAUNCH" and "graph_launch" in e:
        groups[(e["graph"], e["graph_launch"])].append((xyz(e["grid"])[0], xyz(e["block"])[0]))
wg = collections.defaultdict(list)
for w in want:
    if w["graph"]:
        wg[(w["graph"], w["graph_launch"])].append((w["grid"][0], w["block"][0]))
used, extra = set(), 0
for (name, n), ks in sorted(wg.items()):
    hit = [k for k, v in groups.items() if k not in used and k[1] == n and
           not (collections.Counter(ks) - collections.Counter(v))]
    if hit:
        used.add(hit[0])
        extra += len(groups[hit[0]]) - len(ks)
    else:
        bad += 1
        print("graph %s launch %d: kernels %s not found" % (name, n, sorted(ks)))
print("graph launches: %d of %d found (with %d kernels more than the program launched: "
      "memset/copy nodes' own)" % (len(used), len(wg), extra))
kinds = collections.Counter(e["kind"] for e in gw)
print("GRAPH-LAUNCH %d, QMD-LOAD (with -v only: 0 here) %d, UNSEEN-QMD %d, EMPTY-QMD %d" % (
    kinds["GRAPH-LAUNCH"], kinds["QMD-LOAD"], kinds["UNSEEN-QMD"], kinds["EMPTY-QMD"]))
for e in gw:
    if e["kind"] == "UNSEEN-QMD":
        print("  unseen: %s" % e)
        break
print("VERDICT %s" % ("ok" if not bad else "FAIL (%d)" % bad))
sys.exit(1 if bad else 0)
