# SPDX-License-Identifier: MIT
"""Checks of tests/gpu/device-gpuwork-trust.sh (issue 32) on decoded
--gpu-work traces (cudatrace -r T --json > T.jsonl).

  gpuwork_trust_check.py manifest MANIFEST.json T.jsonl
      the launches of a tests/gpu/gen_kernels.py program (grid and block,
      in order) among the trace's LAUNCH events: prints "manifest seed S
      launches M/N lost L unseen U" and PASS (M == N) or FAIL; exit 1 on FAIL
  gpuwork_trust_check.py count T.jsonl
      prints "launches N lost L unseen U reasons {...}": LOST entries (at
      least, where a ring went round) and UNREADABLE segments, by reason
"""
import json
import sys


def events(path):
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                e = json.loads(line)
                if e.get("type") == "gpu-work":
                    out.append(e)
    return out


def unseen(ev):
    lost, unread, reasons = 0, 0, {}
    for e in ev:
        if e["kind"] == "LOST":
            lost += e.get("entries", 0)
        elif e["kind"] == "UNREADABLE":
            unread += 1
        else:
            continue
        r = e.get("reason", "?")
        reasons[r] = reasons.get(r, 0) + (e.get("entries", 0) if e["kind"] == "LOST" else 1)
    return lost, unread, reasons


def launches(ev):
    return [((e["grid"]["x"], e["grid"]["y"], e["grid"]["z"]), (e["block"]["x"], e["block"]["y"],
                                                                 e["block"]["z"]))
            for e in ev if e["kind"] == "LAUNCH"]


def manifest(man_path, path):
    man = json.load(open(man_path))
    want = [(tuple(l["grid"]), tuple(l["block"])) for l in man["launches"] if "kernel" in l]
    got = launches(events(path))
    # in order, others (CUDA's own, e.g. cudaMemset's kernel) between them
    i = 0
    for g in got:
        if i < len(want) and g == want[i]:
            i += 1
    lost, unread, _ = unseen(events(path))
    verdict = "PASS" if i == len(want) else "FAIL"
    print("manifest seed %s launches %d/%d lost %d unseen %d (%d LAUNCH events) %s"
          % (man.get("seed"), i, len(want), lost, unread, len(got), verdict))
    return 0 if verdict == "PASS" else 1


def count(path):
    ev = events(path)
    lost, unread, reasons = unseen(ev)
    print("launches %d lost %d unseen %d reasons %s" % (len(launches(ev)), lost, unread,
                                                         json.dumps(reasons, sort_keys=True)))
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "manifest":
        return manifest(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "count":
        return count(sys.argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
