# SPDX-License-Identifier: MIT
"""--gpu-work, live, on the stand-in (tests/gpfifo_fake.c): a cluster launch
shows its grid in blocks and its cluster shape; a stand-in CUDA graph (node
QMDs uploaded and sent once with REQUIRE_SCHEDULING_PCAS, a head of grid 0
that SCHEDULEs the first, sent R times) shows R x its kernels, each marked
with its graph launch, and a head whose chain leads to a QMD never uploaded
is said and counted (text, JSON, -c, the decoder's closing line)."""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (BUILD, CUDATRACE, Tap, decode_json, live_capture_possible, run,  # noqa: E402
                 scratch_dir)

FAKE = os.path.join(BUILD, "gpfifo_fake")
t = Tap()
why = live_capture_possible()
if why:
    t.skip("live --gpu-work graph tests", why)
    t.done()

tmp = scratch_dir("ct-gpuwork-graph-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()


def gpu_work(events, kind=None):
    return [e for e in events if e["type"] == "gpu-work" and (kind is None or e["kind"] == kind)]


# 1. A cluster launch: grid in blocks, and the cluster.
tr = os.path.join(tmp, "cluster.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--", FAKE, "-f", ctl, "cluster"])
t.ok(p.returncode == 0 and "launch 724 2 1 128 1 1 cluster 2 1 1" in p.stdout,
     "the stand-in sent a cluster launch", p.stderr[-400:])
ln = gpu_work(decode_json(tr), "LAUNCH")
t.ok(len(ln) == 1 and ln[0]["grid"] == {"x": 724, "y": 2, "z": 1} and
     ln[0]["cluster"] == {"x": 2, "y": 1, "z": 1} and ln[0]["block"]["x"] == 128,
     "JSON: grid in blocks (724,2,1), cluster (2,1,1)", ln)
p = run([CUDATRACE, "-r", tr])
t.ok(any("COMPUTE LAUNCH grid=(724,2,1) cluster=(2,1,1) block=(128,1,1)" in l
         for l in p.stdout.splitlines()), "text: grid=(724,2,1) cluster=(2,1,1) block=(128,1,1)")

# 2. A graph of K kernels launched R times (random), and a chain to nowhere.
k, r = random.randint(2, 6), random.randint(2, 7)
tr = os.path.join(tmp, "graph.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--",
         FAKE, "-f", ctl, "graph", str(k), str(r)])
want = [tuple(int(x) for x in (w[1], w[4], w[8])) for w in
        (l.split() for l in p.stdout.splitlines()) if w and w[0] == "launch"]
t.ok(p.returncode == 0 and len(want) == k * r and "0 ring entries lost" in p.stderr,
     "the stand-in launched a graph of %d kernels %d times, nothing lost" % (k, r),
     p.stderr[-400:])
ev = decode_json(tr)
have = [(e["grid"]["x"], e["block"]["x"], e["graph_launch"]) for e in gpu_work(ev, "LAUNCH")]
t.ok(have == want, "JSON: %d x %d kernels, each with grid, block and its graph launch, in order"
     % (r, k), (have[:4], want[:4]))
heads = gpu_work(ev, "GRAPH-LAUNCH")
t.ok([(h["graph_launch"], h["kernels"], h["unseen"]) for h in heads] ==
     [(n, k, 0) for n in range(1, r + 1)] + [(1, 0, 1)],
     "one GRAPH-LAUNCH per launch, numbered, with its kernels; then the head to nowhere",
     [(h["graph_launch"], h["kernels"], h["unseen"]) for h in heads])
un = gpu_work(ev, "UNSEEN-QMD")
t.ok(len(un) == 1 and un[0]["qmd"] == "0x204d00000" and "not seen uploaded" in un[0]["error"],
     "the QMD never uploaded: UNSEEN-QMD, with why", un)
t.ok(not gpu_work(ev, "QMD-LOAD") and len(gpu_work(decode_json(tr, "-v"), "QMD-LOAD")) == k,
     "the node QMDs sent at the first launch are no launches: QMD-LOAD, with -v only")
p = run([CUDATRACE, "-r", tr])
lines = [l for l in p.stdout.splitlines() if " gpu-work " in l]
t.ok(any("COMPUTE GRAPH-LAUNCH %d qmd=0x204c00000: %d QMDs started" % (r, k) in l for l in lines)
     and any("(graph launch %d of 0x204c00000)" % r in l for l in lines),
     "text: GRAPH-LAUNCH N, kernels marked (graph launch N of HEAD)", lines[:6])
t.ok(any("UNSEEN-QMD qmd=0x204d00000: not seen uploaded" in l for l in lines),
     "text: UNSEEN-QMD with why")
t.ok("%d graph launches followed, 1 QMDs a chain led to could not be followed" % (r + 1)
     in p.stderr, "the decoder's closing line counts them", p.stderr[-300:])
p = run([CUDATRACE, "-r", tr, "-c"])
t.ok(any("COMPUTE GRAPH-LAUNCH" in l and l.split()[-2] == str(r + 1) for l in p.stdout.splitlines())
     and any("COMPUTE UNSEEN-QMD" in l and l.split()[-2] == "1" for l in p.stdout.splitlines())
     and any("COMPUTE LAUNCH " in l and l.split()[-2] == str(k * r) for l in p.stdout.splitlines()),
     "-c: launches, graph launches and unseen QMDs counted", p.stdout[-600:])

# 3. A fork-join graph (its head a kernel SCHEDULEing two branches, each
# DECREMENT_DEPENDENCEing a join that waits for 2), launched R times; then
# a head with one branch only, whose join never starts: said and counted.
r = random.randint(2, 7)
tr = os.path.join(tmp, "join.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--",
         FAKE, "-f", ctl, "graph-join", str(r)])
want = [tuple(int(x) for x in (w[1], w[4], w[8])) for w in
        (l.split() for l in p.stdout.splitlines()) if w and w[0] == "launch"]
t.ok(p.returncode == 0 and len(want) == 4 * r + 2 and "0 ring entries lost" in p.stderr,
     "the stand-in launched a fork-join graph %d times" % r, p.stderr[-400:])
ev = decode_json(tr)
have = [(e["grid"]["x"], e["block"]["x"], e["graph_launch"]) for e in gpu_work(ev, "LAUNCH")]
t.ok(have == want, "JSON: %d x 4 kernels, the join (404) included, each with its graph launch"
     % r, (have[:5], want[:5]))
heads = gpu_work(ev, "GRAPH-LAUNCH")
t.ok([(h["graph_launch"], h["kernels"], h["unseen"]) for h in heads] ==
     [(n, 3, 0) for n in range(1, r + 1)] + [(1, 1, 1)],
     "each launch starts 3 QMDs after its head; the one-branch head: 1 started, 1 unseen",
     [(h["graph_launch"], h["kernels"], h["unseen"]) for h in heads])
un = gpu_work(ev, "UNSEEN-QMD")
t.ok(len(un) == 1 and un[0]["qmd"] == "0x204c00e00" and "join node" in un[0]["error"],
     "the join whose second branch never ended: UNSEEN-QMD, with why", un)
p = run([CUDATRACE, "-r", tr])
t.ok("%d graph launches followed, 1 QMDs a chain led to could not be followed" % (r + 1)
     in p.stderr, "the decoder's closing line counts it", p.stderr[-300:])
t.done()
