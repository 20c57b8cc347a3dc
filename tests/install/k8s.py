# SPDX-License-Identifier: MIT
"""deploy/kubernetes/cudatrace-daemonset.yaml parses, is a DaemonSet that runs
what docs/CONTAINERS.md says (its command line, its capability table, its
host-path table), is not privileged, drops all capabilities, mounts every
host path read-only except the trace folder, exposes the --metrics port it
annotates for Prometheus; every option it passes is one cudatrace accepts
(--help lists it); deploy/Dockerfile takes the static cudatrace (which
serves metrics); tests/install/container.py builds and runs it."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
try:
    import yaml
except ImportError:
    t.skip("DaemonSet manifest", "python3-yaml missing (make deps)")
    t.done()

MANIFEST = os.path.join(ROOT, "deploy", "kubernetes", "cudatrace-daemonset.yaml")
doc = open(os.path.join(ROOT, "docs", "CONTAINERS.md")).read()
docs = list(yaml.safe_load_all(open(MANIFEST)))
ds = [d for d in docs if d and d.get("kind") == "DaemonSet"]
t.ok(len(ds) == 1 and ds[0]["apiVersion"] == "apps/v1", "the manifest parses: one apps/v1 DaemonSet")
ds = ds[0]
pod = ds["spec"]["template"]["spec"]
(c,) = pod["containers"]
sc = c["securityContext"]


def table(title_word):
    """First-column values of the doc's table whose header starts with title_word."""
    m = re.search(r"^\| %s \|.*\n\|[-| ]+\|\n((?:\|.*\n)+)" % title_word, doc, re.M)
    return [re.match(r"\| `([^`]+)` \| ([^|]*)\|", r).groups() for r in m.group(1).splitlines()] \
        if m else []


caps = [k for k, _ in table("capability")]
t.ok(caps and sc["capabilities"]["add"] == caps,
     "capabilities added are the doc's table: %s" % caps, sc["capabilities"])
t.ok(sc["capabilities"]["drop"] == ["ALL"] and sc.get("privileged") is False and
     sc.get("allowPrivilegeEscalation") is False and sc.get("readOnlyRootFilesystem") is True,
     "drops ALL, not privileged, no privilege escalation, read-only root")
t.ok(pod.get("hostPID") is True and not pod.get("hostNetwork") and
     pod.get("automountServiceAccountToken") is False,
     "hostPID, not hostNetwork, no service account token")

paths = {v["name"]: v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v}
mounts = {paths[m["name"]]: ("read-only" if m.get("readOnly") else "read-write")
          for m in c["volumeMounts"] if m["name"] in paths}
want = {p: mode.strip() for p, mode in table("host path")}
t.ok(want and mounts == want, "host paths and their modes are the doc's table", (mounts, want))
t.ok(all(m["mountPath"] == paths[m["name"]] for m in c["volumeMounts"]),
     "each host path is mounted where it is on the host")

args = c["args"]
cmdline = "cudatrace " + " ".join(args)
t.ok(cmdline in doc, "the doc shows the container's command line: %s" % cmdline)
port = int(args[args.index("--metrics") + 1].rsplit(":", 1)[1])
ann = ds["spec"]["template"]["metadata"]["annotations"]
t.ok(c["ports"][0]["containerPort"] == port and ann.get("prometheus.io/port") == str(port) and
     ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/path") == "/metrics",
     "the metrics port %d is exposed and annotated for Prometheus" % port)
wfile = args[args.index("-w") + 1]
t.ok(any(wfile.startswith(p + "/") and mode == "read-write" for p, mode in mounts.items()) and
     "-z" in args and "--rotate" in args and "--max-size" in args,
     "rotating zstd traces (-w -z --max-size --rotate) in the read-write host path")
helptext = run([CUDATRACE, "--help"]).stdout
opts = [a for a in args if a.startswith("-")]
t.ok(all(re.search(r"(^|[ ,])%s\b" % re.escape(o), helptext, re.M) for o in opts),
     "every option it passes is in cudatrace --help: %s" % opts)
sel = pod.get("nodeSelector", {})
t.ok(sel.get("nvidia.com/gpu.present") == "true" and "nvidia.com/gpu.present" in doc,
     "runs on GPU nodes (nvidia.com/gpu.present), as the doc says")
df = open(os.path.join(ROOT, "deploy", "Dockerfile")).read()
t.ok(re.search(r"^COPY cudatrace-static /usr/sbin/cudatrace$", df, re.M) and
     "make STATIC=1" in df and "deploy/Dockerfile" in doc and
     re.search(r'ENTRYPOINT \["/usr/sbin/cudatrace"\]', df),
     "deploy/Dockerfile takes the static cudatrace (make STATIC=1); the doc names it")
t.done()
