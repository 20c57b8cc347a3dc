#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# Import the facts of gVisor's nvproxy (which driver ioctls, RM controls and
# allocation classes it lets through, per driver ABI node) into this
# project's own tables:
#
#   views/compat/tables/gvisor_snapshots.tsv  one row per imported gVisor commit
#   views/compat/tables/gvisor_sources.tsv    the blob of every file read
#   views/compat/tables/gvisor_rules.tsv      per snapshot: what nvproxy answers when
#                                       it refuses, its control pass-through masks,
#                                       runsc's flag that allows capabilities
#   views/compat/tables/gvisor_caps.tsv       per snapshot: driver capabilities (bits)
#   views/compat/tables/gvisor_nodes.tsv      per snapshot: the driver ABI tree
#   views/compat/tables/gvisor_ops.tsv        per node: entries added / deleted
#
# Only numbers, names and the shape of the tree are kept: no gVisor code.
# The files are committed; views/compat/tables/gen-compat.awk turns them into C at
# build time, so building needs neither this script nor gVisor.
#
# Usage: views/compat/tables/import-gvisor.py GVISOR_GIT_DIR
#   GVISOR_GIT_DIR is a clone (or bare mirror) of github.com/google/gvisor with
#   its history; the snapshots read are listed in SNAPSHOTS below (a release
#   tag or a commit each).  See docs/COMPAT.md, "Refreshing the data".
import os
import re
import subprocess
import sys

REPO = "github.com/google/gvisor"
NVPROXY = "pkg/sentry/devices/nvproxy"
NVGPU = "pkg/abi/nvgpu"

# (id, revision, role).  The latest release first: it is the default.
SNAPSHOTS = [
    ("release-20260817.0", "release-20260817.0", "latest release"),
    ("20240313.5c64bbab3", "5c64bbab3", "last with 525.x nodes (09f56c1f1^)"),
    ("20230922.b5dea0ea0", "b5dea0ea0",
     "before e81e0c72a (gVisor #9372: class 0xf8); no driver ABI tree yet"),
    ("20230923.e81e0c72a", "e81e0c72a", "fix of gVisor #9372 (class 0xf8)"),
    ("20240207.272d23e1e", "272d23e1e",
     "before 3a86eaf0d (gVisor #9846: control 0x20801230)"),
    ("20240208.3a86eaf0d", "3a86eaf0d", "fix of gVisor #9846 (control 0x20801230)"),
    ("20240411.5e9207a96", "5e9207a96",
     "before 0699532f6 (gVisor #10272: escape 0xd4)"),
    ("20240412.0699532f6", "0699532f6", "fix of gVisor #10272 (escape 0xd4)"),
    ("20240508.e5156012a", "e5156012a",
     "before e9b321868 (gVisor #10413: control 0x3d05)"),
    ("20240509.e9b321868", "e9b321868", "fix of gVisor #10413 (control 0x3d05)"),
    ("20240710.87c3b6f74", "87c3b6f74",
     "before 32ed2f798 (gVisor #10647: control 0x20803801)"),
    ("20240711.32ed2f798", "32ed2f798", "fix of gVisor #10647 (control 0x20803801)"),
    ("20240721.4cd597212", "4cd597212",
     "before 4763cf231 (control 0x20802068, NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE)"),
    ("20240722.4763cf231", "4763cf231",
     "adds control 0x20802068 (NV2080_CTRL_CMD_PERF_GET_CURRENT_PSTATE)"),
]

KINDS = {"frontendIoctl": "frontend", "uvmIoctl": "uvm",
         "controlCmd": "control", "allocationClass": "class"}


def die(msg):
    sys.stderr.write("import-gvisor: %s\n" % msg)
    sys.exit(1)


class Snapshot:
    def __init__(self, git_dir, rev):
        self.git = git_dir
        self.commit = self.run("rev-parse", rev + "^{commit}").strip()
        self.date = self.run("log", "-1", "--format=%cs", self.commit).strip()
        self.blobs = {}

    def run(self, *args):
        try:
            return subprocess.run(["git", "--git-dir", self.git] + list(args),
                                  check=True, capture_output=True, text=True).stdout
        except subprocess.CalledProcessError as e:
            die("git %s: %s" % (" ".join(args), e.stderr.strip()))

    def ls(self, path):
        out = self.run("ls-tree", self.commit, path + "/")
        return sorted(l.split("\t")[1] for l in out.splitlines()
                      if l.split()[1] == "blob")

    def read(self, path):
        """A file's text, or None if the snapshot has no such file."""
        line = self.run("ls-tree", self.commit, path).strip()
        if not line:
            return None
        blob = line.split()[2]
        self.blobs[path] = blob
        return self.run("cat-file", "blob", blob)


# --- pkg/abi/nvgpu: names -> numbers ---------------------------------------

CONST_RE = re.compile(r"^\s*(?:const\s+)?([A-Za-z_]\w*)(?:\s+[A-Za-z_][\w.]*)?\s*=\s*(.+?)\s*(?://.*)?$")


def go_value(expr, known):
    """The value of a constant expression of literals, names, + | << and
    conversions such as uint32('F'); None if it uses anything else."""
    e = re.sub(r"'(.)'", lambda m: str(ord(m.group(1))), expr)
    e = re.sub(r"\b(?:uint8|uint16|uint32|uint64|int|ClassID)\(", "(", e)
    if not re.fullmatch(r"[\w\s()+|<>&^x-]*", e):
        return None
    names = set(re.findall(r"\b[A-Za-z_]\w*\b", e))
    if any(n not in known for n in names):
        return None
    try:
        return int(eval(re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(known[m.group(0)]), e),
                        {"__builtins__": {}}))
    except Exception:
        return None


def nvgpu_constants(snap):
    pending, known = [], {}
    for path in snap.ls(NVGPU):
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        in_const = False
        for line in snap.read(path).splitlines():
            if line.startswith("const ("):
                in_const = True
                continue
            if in_const and line.startswith(")"):
                in_const = False
                continue
            if in_const or line.startswith("const "):
                m = CONST_RE.match(line)
                if m:
                    pending.append((m.group(1), m.group(2)))
    while pending:   # constants may use constants defined further down
        left = []
        for name, expr in pending:
            v = go_value(expr, known)
            if v is None:
                left.append((name, expr))
            else:
                known[name] = v
        if len(left) == len(pending):
            break
        pending = left
    return known


# --- nvconf/caps.go: capabilities ------------------------------------------

def capabilities(snap):
    """[(name, bit, default, all)], or [] if the snapshot has no capabilities."""
    text = snap.read(NVPROXY + "/nvconf/caps.go")
    if text is None:
        return []
    block = re.search(r"CapCompute DriverCaps = 1 << iota(.*?)numValidCaps", text, re.S)
    if not block:
        die("caps.go: no iota list of capabilities")
    consts = ["CapCompute"] + re.findall(r"^\s*(Cap\w+)\b", block.group(1), re.M)
    names = dict(re.findall(r"case (Cap\w+):\s*return \"([\w-]+)\"", text))

    def set_of(const):
        m = re.search(const + r"\s*=\s*(?:DriverCaps\()?([^\n]+)", text)
        return set(re.findall(r"Cap\w+", m.group(1))) if m else set()
    default, every = set_of("DefaultDriverCaps"), set_of("AllContainerDriverCaps")
    rows = []
    for bit, c in enumerate(consts):
        if c not in names:
            die("caps.go: %s has no name" % c)
        rows.append((names[c], bit, int(c in default), int(c in every)))
    return rows


# --- version.go: the driver ABI tree ---------------------------------------

VAR = r"(v\d+_\d+_\d+)"
ADD_RE = re.compile(VAR + r"?\s*:?=\s*(addDriverABI|addUnsupportedDriverABI)\((\d+),\s*(\d+),\s*(\d+),(.*)$")
ALIAS_RE = re.compile(r"^\s*" + VAR + r"\s*:=\s*(v\d+_\d+_\d+)\s*$")
ANON_RE = re.compile(r"^\s*" + VAR + r"\s*:=\s*func\(\) \*driverABI \{")
PARENT_RE = re.compile(r"abi\s*:=\s*(v\d+_\d+_\d+)\(\)")
SET_RE = re.compile(r"^\s*abi\.(\w+)\[nvgpu\.(\w+)\]\s*=\s*(.*)$")
DEL_RE = re.compile(r"^\s*delete\(abi\.(\w+),\s*nvgpu\.(\w+)\)")
ENTRY_RE = re.compile(r"^\s*nvgpu\.(\w+)\s*:\s*(.*)$")
MAP_RE = re.compile(r"^\s*(\w+):\s*map\[[^\]]+\]\w+\{\s*$")


def version_of_var(v):
    return ".".join(str(int(p)) if i == 0 else p for i, p in enumerate(v[1:].split("_")))


def caps_of(value):
    """The capabilities named in a handler's value, "-" if none."""
    found = re.findall(r"\b(compUtil|Cap\w+)\b", value)
    if not found:
        return "-"
    out = []
    for f in found:
        out += ["CapCompute", "CapUtility"] if f == "compUtil" else [f]
    return "|".join(sorted(set(out)))


def abi_tree(text):
    """nodes: [(version, parent, registered, supported)], ops: [(version, op,
    map, name, caps)], root literal counts per map."""
    nodes, ops, literal = [], [], {}
    cur = None          # the node whose body is being read
    cur_map = None
    for line in text.splitlines():
        code = line.split("//")[0]
        m = ADD_RE.search(code)
        a = ALIAS_RE.match(code)
        f = ANON_RE.match(code)
        if m:
            var, fn, ver = m.group(1), m.group(2), "%s.%s.%s" % (m.group(3), m.group(4), m.group(5))
            rest = m.group(6)
            parent = re.search(r"(v\d+_\d+_\d+)\)\s*$", rest.strip())
            node = {"version": ver, "var": var, "registered": 1,
                    "supported": int(fn == "addDriverABI"),
                    "parent": parent.group(1) if parent else None}
            nodes.append(node)
            if "func() *driverABI" in rest:
                cur = node
            continue
        if a:
            nodes.append({"version": version_of_var(a.group(1)), "var": a.group(1),
                          "registered": 0, "supported": 0, "parent": a.group(2)})
            continue
        if f:
            cur = {"version": version_of_var(f.group(1)), "var": f.group(1),
                   "registered": 0, "supported": 0, "parent": None}
            nodes.append(cur)
            continue
        if cur is None:
            continue
        p = PARENT_RE.search(code)
        if p:
            cur["parent"] = p.group(1)
            continue
        s = SET_RE.match(code)
        d = DEL_RE.match(code)
        if s and s.group(1) in KINDS:
            ops.append((cur["version"], "add", KINDS[s.group(1)], s.group(2), caps_of(s.group(3))))
            continue
        if d and d.group(1) in KINDS:
            ops.append((cur["version"], "del", KINDS[d.group(1)], d.group(2), "-"))
            continue
        mm = MAP_RE.match(code)
        if mm and mm.group(1) in KINDS:
            cur_map = KINDS[mm.group(1)]
            literal.setdefault(cur_map, 0)
            continue
        if cur_map:
            if re.match(r"^\s*\},?\s*$", code):
                cur_map = None
                continue
            e = ENTRY_RE.match(code)
            if e:
                literal[cur_map] += 1
                ops.append((cur["version"], "add", cur_map, e.group(1), caps_of(e.group(2))))
    return nodes, ops, literal


def split_info(text):
    """Drops every getInfo closure (the struct names nvproxy records for its
    own tests) before reading the tree: it repeats the maps' keys."""
    out, depth = [], 0
    for line in text.splitlines():
        code = line.split("//")[0]
        if depth == 0 and re.search(r"getInfo\s*(:|=)\s*func\(\)", code):
            depth = code.count("{") - code.count("}")
            continue
        if depth > 0:
            depth += code.count("{") - code.count("}")
            continue
        out.append(line)
    return abi_tree("\n".join(out))


# --- before the tree: switch statements (gVisor before 2023-10) -------------

def switch_cases(text, func, subject):
    """Names in the case lists of `switch subject` in func's body."""
    m = re.search(r"^func " + re.escape(func) + r"\(.*?^\}", text, re.S | re.M)
    if not m:
        die("no func %s" % func)
    body = m.group(0)
    s = re.search(r"^(\t+)switch " + re.escape(subject) + r" \{\n(.*?)^\1\}", body, re.S | re.M)
    if not s:
        die("no switch %s in %s" % (subject, func))
    names = []
    for case in re.findall(r"case\s+(.*?):", s.group(2), re.S):
        names += re.findall(r"nvgpu\.(\w+)", case)
    return names


def flat_tree(snap):
    fe = snap.read(NVPROXY + "/frontend.go")
    uvm = snap.read(NVPROXY + "/uvm.go")
    ops = []
    for kind, names in (("frontend", switch_cases(fe, "(fd *frontendFD) Ioctl", "nr")),
                        ("uvm", switch_cases(uvm, "(fd *uvmFD) Ioctl", "cmd")),
                        ("control", switch_cases(fe, "rmControl", "ioctlParams.Cmd")),
                        ("class", switch_cases(fe, "rmAlloc", "ioctlParams.HClass"))):
        ops += [("any", "add", kind, n, "-") for n in names]
    nodes = [{"version": "any", "var": None, "registered": 1, "supported": 1, "parent": None}]
    return nodes, ops, {}


# --- what nvproxy answers when it refuses ----------------------------------

def func_body(text, name):
    m = re.search(r"^func " + re.escape(name) + r"\(.*?^\}", text, re.S | re.M)
    return m.group(0) if m else ""


def rules(snap, consts):
    fe = snap.read(NVPROXY + "/frontend.go")
    ctl, alloc = func_body(fe, "rmControl"), func_body(fe, "rmAlloc") + func_body(fe, "fixupHClass")
    rows = [("frontend_refusal", "EINVAL", "-"), ("uvm_refusal", "EINVAL", "-")]
    for key, body, status in (("control_refusal", ctl, "NV_ERR_NOT_SUPPORTED"),
                              ("class_refusal", alloc, "NV_ERR_INVALID_CLASS")):
        if "nvgpu." + status in body:
            rows.append((key, status, "0x%08x" % consts[status]))
        else:
            rows.append((key, "EINVAL", "-"))
    if "RM_GSS_LEGACY_MASK" in ctl:
        rows.append(("control_passthrough_mask", "RM_GSS_LEGACY_MASK",
                     "0x%08x" % consts["RM_GSS_LEGACY_MASK"]))
    if re.search(r"Cmd>>16\)&0xffff == nvgpu.NV2081_BINAPI", ctl.replace(" ", "")
                 .replace("Cmd>>16)&0xffff==", "Cmd>>16)&0xffff == ")):
        rows.append(("control_passthrough_class", "NV2081_BINAPI",
                     "0x%08x" % consts["NV2081_BINAPI"]))
    if "HClass == nvgpu.NV01_EVENT" in alloc or "HClass == nvgpu.NV01_EVENT " in alloc:
        rows.append(("class_rewrite_from_params", "NV01_EVENT", "0x%08x" % consts["NV01_EVENT"]))
    nvp = snap.read(NVPROXY + "/nvproxy.go") or ""
    for group in re.findall(r'GroupName:\s*"([\w-]+)"', nvp):
        rows.append(("device_group", group, "-"))
    return rows


def runsc_caps(snap):
    """How capabilities get enabled: runsc's flag that bounds them and its
    default (runsc/config/flags.go), and the container's variable that asks
    for them (runsc/specutils/nvidia.go).  An enabled capability must be
    both asked for and allowed."""
    flags = snap.read("runsc/config/flags.go") or ""
    m = re.search(r'flagSet\.String\("(nvproxy-[\w-]*driver-capabilities)",\s*"([\w,-]*)"', flags)
    spec = snap.read("runsc/specutils/nvidia.go") or ""
    e = re.search(r'nvidiaDriverCapsEnv\s*=\s*"(\w+)"', spec)
    if not m or not e:
        die("a snapshot with capabilities, but no runsc flag or variable for them")
    return [("caps_allow_flag", "--" + m.group(1), m.group(2)),
            ("caps_request_env", e.group(1), "-")]


# --- output -----------------------------------------------------------------

def write(path, header, rows):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("#Generated by views/compat/tables/import-gvisor.py from %s; do not edit by hand\n" % REPO)
        f.write("#" + "\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    return tmp


def resolve_parents(nodes):
    by_var = {n["var"]: n for n in nodes if n["var"]}
    for n in nodes:
        p = n["parent"]
        if p is not None and p not in by_var:
            die("node %s: unknown parent %s" % (n["version"], p))
        n["parent_version"] = by_var[p]["version"] if p else "-"


def import_snapshot(git_dir, sid, rev, role):
    snap = Snapshot(git_dir, rev)
    consts = nvgpu_constants(snap)
    text = snap.read(NVPROXY + "/version.go")
    if text is None:
        layout = "switch"
        nodes, ops, literal = flat_tree(snap)
    else:
        layout = "tree"
        nodes, ops, literal = split_info(text)
    resolve_parents(nodes)
    caps = capabilities(snap)
    out_ops = []
    for ver, op, kind, name, cps in ops:
        if name not in consts:
            die("%s: nvgpu.%s has no value" % (sid, name))
        if cps != "-":
            cps = "|".join(cap_name_of(c, caps, snap) for c in cps.split("|"))
        out_ops.append((sid, ver, op, kind, "0x%08x" % consts[name], cps, name))
    rl = rules(snap, consts) + (runsc_caps(snap) if caps else [])
    root = [n for n in nodes if n["parent_version"] == "-"]
    if len(root) != 1:
        die("%s: %d root nodes" % (sid, len(root)))
    lit = "-" if not literal else ",".join("%s=%d" % (k, literal.get(k, 0))
                                           for k in ("frontend", "uvm", "control", "class"))
    node_rows = [(sid, n["version"], n["parent_version"], n["registered"], n["supported"],
                  lit if n is root[0] else "-") for n in nodes]
    return snap, layout, role, node_rows, out_ops, caps, rl


CAP_CONSTS = {}


def cap_name_of(const, caps, snap):
    """CapGraphics -> "graphics", by caps.go's own switch."""
    if not CAP_CONSTS.get(snap.commit):
        text = snap.read(NVPROXY + "/nvconf/caps.go") or ""
        CAP_CONSTS[snap.commit] = dict(re.findall(r"case (Cap\w+):\s*return \"([\w-]+)\"", text))
    names = CAP_CONSTS[snap.commit]
    if const not in names:
        die("capability %s has no name in caps.go" % const)
    return names[const]


def main():
    if len(sys.argv) != 2:
        die("usage: views/compat/tables/import-gvisor.py GVISOR_GIT_DIR")
    git_dir = sys.argv[1]
    if not os.path.isdir(git_dir):
        die("no such directory: %s" % git_dir)
    if os.path.isdir(os.path.join(git_dir, ".git")):
        git_dir = os.path.join(git_dir, ".git")
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)))
    snaps, sources, nodes, ops, caps, rls = [], [], [], [], [], []
    for sid, rev, role in SNAPSHOTS:
        snap, layout, role, n, o, c, r = import_snapshot(git_dir, sid, rev, role)
        snaps.append((sid, snap.commit, snap.date, layout, role))
        sources += [(sid, p, b) for p, b in sorted(snap.blobs.items())]
        nodes += n
        ops += o
        caps += [(sid,) + row for row in c]
        rls += [(sid,) + row for row in r]
    tmps = [
        write(os.path.join(out, "gvisor_snapshots.tsv"),
              ["id", "commit", "date", "layout", "role"], snaps),
        write(os.path.join(out, "gvisor_sources.tsv"), ["snapshot", "path", "blob"], sources),
        write(os.path.join(out, "gvisor_rules.tsv"), ["snapshot", "rule", "name", "value"], rls),
        write(os.path.join(out, "gvisor_caps.tsv"),
              ["snapshot", "name", "bit", "default", "all"], caps),
        write(os.path.join(out, "gvisor_nodes.tsv"),
              ["snapshot", "version", "parent", "registered", "supported",
               "root_literal_counts"], nodes),
        write(os.path.join(out, "gvisor_ops.tsv"),
              ["snapshot", "node", "op", "kind", "number", "caps", "name"], ops),
    ]
    for t in tmps:   # all or nothing: no tables from two imports
        os.replace(t, t[:-4])


if __name__ == "__main__":
    main()
