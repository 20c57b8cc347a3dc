#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The gVisor import (views/compat/tables/import-gvisor.py), checked:

- root counts: the root node of every snapshot with a tree has, per kind,
  as many entries as its version.go writes out in the map literals,
  counted here from the blob itself (read from a gVisor clone named by
  $GVISOR_GIT or /work/.mirror/google+gvisor/repo; skipped without one);
- name parity: every name the import took for a number is the name
  cudatrace's own tables (decoders/tables/*.tsv) give that number, except the
  differences listed, with why, in views/compat/tables/gvisor_name_differences.tsv.
  A new difference fails, and so does a listed one that is gone.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import tap  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLES = os.path.join(ROOT, "views", "compat", "tables")
OURS = {"frontend": "nv_esc.tsv", "uvm": "uvm_ioctl.tsv", "control": "nv_ctrl.tsv",
        "class": "nv_class.tsv"}
MAPS = {"frontendIoctl": "frontend", "uvmIoctl": "uvm", "controlCmd": "control",
        "allocationClass": "class"}


def rows(name):
    with open(os.path.join(TABLES, name)) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]


def our_names(kind):
    names = {}
    with open(os.path.join(ROOT, "decoders", "tables", OURS[kind])) as f:
        for l in f:
            if l.startswith("#") or not l.strip():
                continue
            cols = l.rstrip("\n").split("\t")
            names.setdefault(int(cols[0], 16), set()).add(cols[1])
    return names


def literal_counts(text):
    """Entries written out in the root node's map literals: the lines
    `nvgpu.NAME:` between `<map>: map[...]...{` and its closing brace, in the
    first node (after func Init), before its getInfo closure."""
    counts, cur = {}, None
    body = text[text.index("func Init()"):]
    for line in body.splitlines():
        if "getInfo" in line:
            break
        m = re.match(r"^\s*(\w+): map\[", line)
        if m and m.group(1) in MAPS:
            cur = MAPS[m.group(1)]
            counts[cur] = 0
        elif cur and re.match(r"^\s*\},?\s*$", line):
            cur = None
        elif cur and re.match(r"^\s*nvgpu\.\w+\s*:", line):
            counts[cur] += 1
    return counts


def test_root_counts(t):
    git = os.environ.get("GVISOR_GIT", "/work/.mirror/google+gvisor/repo")
    if not os.path.isdir(git):
        t.skip("root counts", "no gVisor clone at %s (set GVISOR_GIT)" % git)
        return
    blobs = {(r[0], r[1]): r[2] for r in rows("gvisor_sources.tsv")}
    roots = {r[0]: r[5] for r in rows("gvisor_nodes.tsv") if r[2] == "-"}
    for snap, recorded in sorted(roots.items()):
        blob = blobs.get((snap, "pkg/sentry/devices/nvproxy/version.go"))
        if not blob:
            t.ok(recorded == "-", "%s: no version.go, no literal counts" % snap)
            continue
        text = subprocess.run(["git", "--git-dir", git, "cat-file", "blob", blob],
                              capture_output=True, text=True, check=True).stdout
        got = literal_counts(text)
        want = ",".join("%s=%d" % (k, got.get(k, 0))
                        for k in ("frontend", "uvm", "control", "class"))
        t.ok(recorded == want, "%s: root literal counts %s (version.go blob %s: %s)"
             % (snap, recorded, blob[:12], want))
        imported = {}
        root_ver = [r[1] for r in rows("gvisor_nodes.tsv") if r[0] == snap and r[2] == "-"][0]
        for r in rows("gvisor_ops.tsv"):
            if r[0] == snap and r[1] == root_ver and r[2] == "add":
                imported[r[3]] = imported.get(r[3], 0) + 1
        t.ok(all(imported.get(k, 0) == got.get(k, 0) for k in MAPS.values()),
             "%s: the import took each root entry once (%s)" % (snap, imported))


def test_caps_flag(t):
    """runsc's flag that allows capabilities, and the container's variable
    that asks for them, are in the blobs the import read (gVisor once had
    neither; a report once named a flag runsc never had)."""
    git = os.environ.get("GVISOR_GIT", "/work/.mirror/google+gvisor/repo")
    rules = {(r[0], r[1]): (r[2], r[3]) for r in rows("gvisor_rules.tsv")}
    blobs = {(r[0], r[1]): r[2] for r in rows("gvisor_sources.tsv")}
    with_caps = sorted(set(r[0] for r in rows("gvisor_caps.tsv")))
    t.ok(with_caps and all((s, "caps_allow_flag") in rules and (s, "caps_request_env") in rules
                           for s in with_caps),
         "every snapshot with capabilities names runsc's flag and the container's variable")
    if not os.path.isdir(git):
        t.skip("the flag in runsc's sources", "no gVisor clone at %s (set GVISOR_GIT)" % git)
        return
    for snap in with_caps:
        flag, default = rules[(snap, "caps_allow_flag")]
        env = rules[(snap, "caps_request_env")][0]
        text = {}
        for path in ("runsc/config/flags.go", "runsc/specutils/nvidia.go"):
            text[path] = subprocess.run(["git", "--git-dir", git, "cat-file", "blob",
                                         blobs[(snap, path)]], capture_output=True,
                                        text=True, check=True).stdout
        t.ok(re.search(r'flagSet\.String\("%s",\s*"%s"' % (re.escape(flag[2:]), re.escape(default)),
                       text["runsc/config/flags.go"]) is not None,
             "%s: runsc/config/flags.go registers %s, default %s" % (snap, flag, default))
        t.ok('"%s"' % env in text["runsc/specutils/nvidia.go"] and
             "update %s" % flag in text["runsc/specutils/nvidia.go"],
             "%s: runsc/specutils/nvidia.go reads %s and refuses what %s does not allow"
             % (snap, env, flag))


def test_parity(t):
    listed = {(r[0], int(r[1], 16), r[2]): r[3] for r in rows("gvisor_name_differences.tsv")}
    ours = {k: our_names(k) for k in OURS}
    found = set()
    for r in rows("gvisor_ops.tsv"):
        kind, number, name = r[3], int(r[4], 16), r[6]
        if name not in ours[kind].get(number, set()):
            found.add((kind, number, name))
    new = sorted(found - set(listed))
    gone = sorted(set(listed) - found)
    t.ok(not new, "every name the import took is cudatrace's name for that number, but "
         "for the listed differences; new: %s" % ["%s 0x%x %s" % n for n in new])
    t.ok(not gone, "every listed difference is still there; gone: %s"
         % ["%s 0x%x %s" % n for n in gone])
    names = set((r[3], int(r[4], 16), r[6]) for r in rows("gvisor_ops.tsv"))
    t.ok(len(names) > len(found), "%d distinct (kind, number, name) imported, %d differ"
         % (len(names), len(found)))


def main():
    t = tap.Tap()
    test_root_counts(t)
    test_caps_flag(t)
    test_parity(t)
    t.done()


main()
