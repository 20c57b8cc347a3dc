# SPDX-License-Identifier: MIT
"""--gpu-work, live, on a stand-in (tests/gpfifo_fake.c): a process that
lays out a GPFIFO ring, a USERD and pushbuffers in its own memory and
announces them through a channel allocation on a --device file.  What the
capture reads from it through /proc/PID/mem and decodes must be exactly
what it submitted (launches with grid, block and shared memory, copies with
size and addresses, semaphore releases), in text, JSON and with -w/-r; a
hostile ring must leave the capture standing and be reported."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (BUILD, CUDATRACE, Tap, decode_json, run,  # noqa: E402
                 scratch_dir)

FAKE = os.path.join(BUILD, "gpfifo_fake")
t = Tap()
t.live_capture_or_skip("live --gpu-work tests")

tmp = scratch_dir("ct-gpuwork-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()


def sent(stdout):
    want = {"launch": [], "copy": [], "release": []}
    for line in stdout.splitlines():
        w = line.split()
        if w and w[0] in want:
            want[w[0]].append(tuple(int(x, 0) for x in w[1:]))
    return want


def got(events):
    gw = [e for e in events if e["type"] == "gpu-work"]
    return {
        "launch": [(e["grid"]["x"], e["grid"]["y"], e["grid"]["z"], e["block"]["x"],
                    e["block"]["y"], e["block"]["z"], e["smem"], int(e["qmd"], 16))
                   for e in gw if e["kind"] == "LAUNCH"],
        "copy": [(e["bytes"], int(e["src"], 16), int(e["dst"], 16))
                 for e in gw if e["kind"] == "COPY"],
        "release": [(int(e["address"], 16), int(e["payload"], 16))
                    for e in gw if e["kind"] == "SEMAPHORE" and e["operation"] == "RELEASE"],
    }, gw


# 1. Work, to a file and back: every launch, copy and release, in order.
tr = os.path.join(tmp, "work.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--",
         FAKE, "-f", ctl, "work", "37", "23", "5"])
want = sent(p.stdout)
want_ctl = [l.split()[1:] for l in p.stdout.splitlines() if l.startswith("control ")]
t.ok(p.returncode == 0 and "gpu-work: 1 channels" in p.stderr and
     " 0 unreadable, 0 ring entries lost" in p.stderr, "capture ran, 1 channel, nothing lost",
     p.stderr[-600:])
have, gw = got(decode_json(tr))
for k, n in (("launch", 37), ("copy", 23), ("release", 37)):
    t.ok(len(want[k]) == n and have[k] == want[k], "%s: %d read and decoded as sent" % (k, n),
         (len(have[k]), have[k][:3], want[k][:3]))
t.ok(all(e["channel"] == "0x5c00f01c" and e["pid"] == gw[0]["pid"] for e in gw),
     "every event names the channel and the process")
t.ok(sum(1 for e in gw if e["kind"] == "METHOD" and e["method"] == "0x3ff0") == 37,
     "the method no table names is kept by number, once per launch")
ctl_ev = [(int(e["opcode"], 16), e.get("opcode_name"), int(e["operand"], 16))
          for e in gw if e["kind"] == "GP-ENTRY" and e["entry"] == "control"]
t.ok(ctl_ev == [(0, "NOP", 0), (4, "SET_PB_SEGMENT_EXTENDED_BASE", 0)] and
     [(o, v) for o, _, v in ctl_ev] == [tuple(int(x, 0) for x in c) for c in want_ctl],
     "control entries (length 0) are named, not read as segments", ctl_ev)
t.ok(not any(e["kind"] == "GP-ENTRY" and e["entry"] == "segment" for e in gw),
     "a segment's own entry only with -v")
vj = [e for e in decode_json(tr, "-v") if e["type"] == "gpu-work" and e["kind"] == "GP-ENTRY"
      and e["entry"] == "segment"]
t.ok(len(vj) == 37 * 2 + 23 + 1 and all(e["level_name"] == "SUBROUTINE" and
                                         e["sync_name"] == "PROCEED" for e in vj),
     "with -v: every segment's entry, its level (SUBROUTINE, as CUDA's) and sync (%d)" % len(vj))

# 2. Live text: the lines issue 21 asks for.
p = run([CUDATRACE, "--device", ctl, "--gpu-work=500", "--", FAKE, "-f", ctl, "work", "3", "2", "8"])
lines = [l for l in p.stdout.splitlines() if " gpu-work " in l]
w = sent(p.stdout)
g0 = w["launch"][0]
t.ok(any("COMPUTE LAUNCH grid=(%d,1,1) block=(%d,1,1) smem=%d qmd=0x%x" % (g0[0], g0[3], g0[6], g0[7])
         in l for l in lines), "text: COMPUTE LAUNCH grid=(..) block=(..) smem= qmd=", lines[:4])
c0 = w["copy"][0]
t.ok(any("COPY %d B 0x%x -> 0x%x" % c0 in l for l in lines), "text: COPY N B src -> dst")
t.ok(any("HOST SEMAPHORE RELEASE 0x204f00010=0x1" in l for l in lines), "text: SEMAPHORE RELEASE addr=payload")

# 2b. After which driver call: each launch 30 ms after a call (every third
# from another thread) and 30 ms before the next is tied to that call, of
# that call's thread; a launch with a call right after it, inside the same
# poll window, is said to be of unknown order (or, if a poll fell between
# the two, tied to the call before it).  A tie that names any other call
# than the last one before the launch would be wrong.
tr4 = os.path.join(tmp, "tie.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work=1000", "-w", tr4, "--",
         FAKE, "-f", ctl, "tie", "6"])
order, last_call = [], None
for line in p.stdout.splitlines():
    w = line.split()
    if w and w[0] == "call":
        last_call = ("NV_ESC_RM_CONTROL %s (no public name)" % w[1], int(w[2]))
    elif w and w[0] == "launch":
        order.append((int(w[1]), last_call))
ev = decode_json(tr4)
launches = [e for e in ev if e["type"] == "gpu-work" and e["kind"] == "LAUNCH"]
got = [(e["grid"]["x"], e.get("after")) for e in launches]
spaced = [(g, a) for g, a in got if g != 99]
truth = dict(order)
t.ok(len(spaced) == 6 and all(a and a["certain"] and (a["call"], a["tid"]) == truth[g]
                              for g, a in spaced),
     "a launch 30 ms after a call: after that call, of its thread", (got, order))
t.ok(len({a["tid"] for _, a in spaced}) == 3,
     "two of them after calls of other threads (3 threads named)")
race = [a for g, a in got if g == 99]
t.ok(len(race) == 1 and race[0] and (
    (not race[0]["certain"] and race[0]["calls_while_put"] >= 1) or
    (race[0]["certain"] and (race[0]["call"], race[0]["tid"]) == truth[99])),
     "a launch with a call right after it: order unknown, with the count (or, polled "
     "between them, the call before)", race)
txt = run([CUDATRACE, "-r", tr4]).stdout
g0, c0 = order[0]
t.ok(any("COMPUTE LAUNCH grid=(%d,1,1)" % g0 in l and l.endswith(" after %s of tid %d" % c0)
         for l in txt.splitlines()), "text: ... after NAME of tid N",
     [l for l in txt.splitlines() if "LAUNCH" in l][:2])
t.ok(all("after" not in e for e in ev if e["type"] == "gpu-work" and e["kind"] == "SEMAPHORE"),
     "launches and copies are tied, not every method")
# the check the H100 runs (tests/gpu/gpuwork_check.py tie): every tie
# against the trace's own calls and the window it names
js = os.path.join(tmp, "tie.jsonl")
with open(js, "w") as f:
    f.write(run([CUDATRACE, "-r", tr4, "--json"]).stdout)
chk = run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "gpu",
                                        "gpuwork_check.py"), "tie", js])
# 6 spaced launches are certain; the raced one is certain or unknown, by
# where a poll fell (as the check above allows).
m = re.match(r"tie PASS certain (\d+) unknown (\d+) none 0 wrong 0", chk.stdout)
t.ok(chk.returncode == 0 and m and int(m.group(1)) >= 6 and
     int(m.group(1)) + int(m.group(2)) == 7,
     "each tie agrees with the calls and the window (gpuwork_check.py tie)", chk.stdout)

# 2c. -p on a process whose channel was made before the capture: its
# ring cannot be found from outside, so its work is not seen; the capture
# says so at its start and at its end, never silently.
fake = subprocess.Popen([FAKE, "-f", ctl, "late", "10"], stdout=subprocess.PIPE, text=True)
ready = [""]
while ready and ready[0] != "ready":   # after the set-up's own lines
    ready = fake.stdout.readline().split()
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-p", ready[1]])
fake.wait()
before = [l for l in p.stderr.splitlines() if "before the capture began" in l]
t.ok(len(before) == 2 and ("process %s already has the NVIDIA driver's memory mapped (1 "
                           "mapping): channels it made before the capture began are not "
                           "followed" % ready[1]) in before[0] and
     ("channels made before the capture began by process %s were not followed" % ready[1])
     in before[1], "-p: channels made before the capture are said not followed, at the start "
     "and at the end", p.stderr[-800:])
t.ok(" gpu-work " not in p.stdout and "gpu-work: 0 channels" in p.stderr,
     "(and indeed none was: no work seen)")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "--", FAKE, "-f", ctl, "work", "1", "0"])
t.ok("before the capture began" not in p.stderr, "a program started under cudatrace: no such line")

# 3. Hostile: unmapped and oversized segments, garbage, a GPPut outside the ring.
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "--", FAKE, "-f", ctl, "hostile"])
t.ok(p.returncode == 0 and "done" in p.stdout, "a hostile ring leaves the capture standing",
     p.stderr[-400:])
t.ok("3 unreadable" in p.stderr, "unmapped and past-the-mapping segments, and one under an "
     "extended base where nothing is, are counted unreadable", p.stderr[-400:])
t.ok(" BAD header=" in p.stdout and "UNREADABLE segment 0x10 " in p.stdout,
     "and shown: BAD headers, UNREADABLE segments")
t.ok(" HOST GP-ENTRY ILLEGAL operand=0x12345678 sync=PROCEED" in p.stdout and
     " HOST GP-ENTRY opcode=0x7f (no table names it) operand=0x1" in p.stdout and
     " HOST GP-ENTRY SET_PB_SEGMENT_EXTENDED_BASE base=0x1ffff0000000000" in p.stdout,
     "control entries ILLEGAL, of no known opcode, and an extended base, by name",
     [l for l in p.stdout.splitlines() if "GP-ENTRY" in l])
t.ok("UNREADABLE segment 0x1ffff0" in p.stdout, "the segment after that base is read (and "
     "not found) at its full address", [l for l in p.stdout.splitlines() if "UNREADABLE" in l])
t.ok("GPPut 69 is outside the ring of 64 entries" in p.stdout,
     "a GPPut outside the ring is said, and the channel dropped")

# 3b. A poller that fell behind: 74 entries at once on a ring of 64 laps it
# between two polls.  GPPut is an index into the ring: the 10 it moved past
# the last one read are said lost, as a lower bound; the slot it points at
# is the producer's next, not read either.  (A poll landing inside the
# burst, a few microseconds, would read part of it first: tried again.)
for attempt in range(3):
    tr3 = os.path.join(tmp, "burst.ctrace")
    p = run([CUDATRACE, "--device", ctl, "--gpu-work=50", "-w", tr3, "--",
             FAKE, "-f", ctl, "burst", "74"])
    if "1 ring wraps" in p.stderr:
        break
ev = [e for e in decode_json(tr3) if e["type"] == "gpu-work"]
wraps = [e for e in ev if e["kind"] == "LOST" and e["wrapped"]]
copies = [e for e in ev if e["kind"] == "COPY"]
t.ok(len(wraps) == 1 and wraps[0]["entries"] == 10 and wraps[0]["at_least"],
     "a lapped ring: at least 10 entries lost, labelled a lower bound", (p.stderr[-500:], wraps))
t.ok("at least 11 ring entries lost (1 overwritten while read), 1 ring wraps between polls "
     "(10 entries lost in them at least: GPPut is an index into the ring" in p.stderr,
     "the closing line says it, and why it is a lower bound", p.stderr[-500:])
t.ok(len(copies) == 63 and sorted(c["bytes"] for c in copies) == list(range(1011, 1074)),
     "the 63 others are read, each once (%d)" % len(copies))
txt = run([CUDATRACE, "-r", tr3]).stdout
t.ok("went round between two polls: at least 10 entries before index" in txt,
     "text: the lower bound, in words", [l for l in txt.splitlines() if "LOST" in l])

# 4. Not with -r: the records in a trace decode without it.
p = run([CUDATRACE, "-r", tr, "--gpu-work"])
t.ok(p.returncode != 0 and "--gpu-work reads running processes" in p.stderr,
     "--gpu-work with -r is refused with the reason", p.stderr)
t.done()
