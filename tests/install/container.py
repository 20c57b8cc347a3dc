# SPDX-License-Identifier: MIT
"""deploy/ for real, with podman: the image is built offline (deploy/Dockerfile
on a debootstrapped Debian 12 root imported by deploy/base-image.sh, the
static cudatrace in it) and run as the DaemonSet runs it: not privileged,
every capability dropped and only the DaemonSet's four added, the host's
pids, read-only root and host mounts, the traces on a host path.  A second
container calls a --device stand-in: /metrics labels those calls with that
container's real id, the rotating traces appear on the host path and hold
them, cudatrace's own process keeps exactly the four capabilities and is
not traced.  Skips, saying why, where no container engine runs."""
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
BASE = "localhost/cudatrace-base:debian12"
IMAGE = "localhost/cudatrace:test"
CALLS = 6000
CMD = "0x20800110"   # NV2080_CTRL_CMD_GPU_GET_NAME_STRING
WHAT = "the image built and run as the DaemonSet runs it"

t.live_capture_or_skip(WHAT, None if shutil.which("podman") else
                       "podman not installed (tests/deps.sh installs it)")


def probe_image():
    """A one-file image (a static program that exits 0), imported in a
    second: whether podman can unpack and run images here is known before
    the minute deploy/base-image.sh takes.  (name, None) or (None, why)."""
    # podman's storage unpacks layers in a mount namespace whose / it makes
    # private, as unshare -m does: a bare chroot's / is no mount point, and
    # podman would fail there after mounting its storage (a mount left on
    # the host, which stops the chroot's removal).
    p = run(["unshare", "-m", "true"])
    if p.returncode != 0:
        hint = ": / is not a mount point (a bare chroot?)" if "Invalid argument" in p.stderr else ""
        return None, "podman cannot unpack an image here: unshare -m: %s%s" % (
            p.stderr.strip()[-200:], hint)
    d = scratch_dir("ct-container-probe-")
    p = run(["cc", "-O2", "-static", "-x", "c", "-", "-o", os.path.join(d, "true")],
            input="int main(void) { return 0; }\n")
    if p.returncode != 0:
        return None, "cannot build a static program for a probe image: " + p.stderr[-300:]
    tar = subprocess.run(["tar", "-C", d, "-c", "true"], capture_output=True)
    p = subprocess.run(["podman", "import", "-q", "-", PROBE], input=tar.stdout,
                       capture_output=True, timeout=120)
    if p.returncode != 0:
        return None, "podman cannot unpack an image here: " + \
            p.stderr.decode(errors="replace").strip()[-300:]
    return PROBE, None


PROBE = "localhost/cudatrace-probe:test"
probe, why = probe_image()
t.skip_rest(WHAT, why)

# Engines differ by host: this VM's crun refuses hybrid cgroups, and neither
# runtime may raise rlimits above the caller's (no CAP_SYS_RESOURCE here).
LIMITS = ["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"]
ENGINE = None
for glob, extra in (([], []), ([], LIMITS), (["--runtime", "runc"], LIMITS)):
    p = run(["podman"] + glob + ["run", "--rm"] + extra + [probe, "/true"], timeout=120)
    if p.returncode == 0:
        ENGINE = (["podman"] + glob, extra)
        break
run(["podman", "rmi", "-f", probe])
if ENGINE is None:
    t.skip_rest(WHAT, "podman cannot run a container here: " + p.stderr.strip()[-300:])
if run(["podman", "image", "exists", BASE]).returncode != 0:
    p = run([os.path.join(ROOT, "deploy", "base-image.sh"), BASE], timeout=600)
    if p.returncode != 0:
        t.skip_rest(WHAT, "no base image: deploy/base-image.sh failed: " + p.stderr.strip()[-300:])
podman, run_opts = ENGINE
t.ok(True, "podman runs containers here with: %s" % (" ".join(podman[1:] + run_opts) or
                                                     "its defaults"))

p = run(["make", "-C", ROOT, "--no-print-directory", "STATIC=1", "-j2"], timeout=900)
t.ok(p.returncode == 0, "make STATIC=1 (the image's binary)", p.stderr[-2000:])
p = run(podman + ["build", "--pull=never", "--build-arg", "BASE=" + BASE, "-f",
                  os.path.join(ROOT, "deploy", "Dockerfile"), "-t", IMAGE, ROOT], timeout=600)
t.ok(p.returncode == 0, "deploy/Dockerfile builds offline on the debootstrapped base "
     "(--pull=never)", p.stderr[-2000:])

tmp = scratch_dir("ct-container-")
traces = os.path.join(tmp, "traces")
stand = os.path.join(tmp, "standin")
os.makedirs(traces)
os.makedirs(stand)
open(os.path.join(stand, "nvidiactl"), "w").close()
# The workload's own program: nvfake, static, so any base runs it.
p = run(["cc", "-O2", "-static", "-pthread", os.path.join(ROOT, "tests", "nvfake.c"), "-o",
         os.path.join(stand, "nvfake")])
t.ok(p.returncode == 0, "a static nvfake for the workload container", p.stderr)

port = None
with __import__("socket").socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
name = "cudatrace-test-%d" % os.getpid()
work = name + "-work"
# As deploy/kubernetes/cudatrace-daemonset.yaml runs it (tests/install/k8s.py
# holds that file to docs/CONTAINERS.md), with a small --max-size to rotate.
agent = podman + ["run", "-d", "--name", name] + run_opts + [
    "--pid=host", "--cap-drop=ALL",
    "--cap-add=BPF,PERFMON,SYS_PTRACE,DAC_READ_SEARCH",
    "--security-opt", "seccomp=unconfined", "--security-opt", "no-new-privileges",
    "--read-only",
    "-v", "/sys/kernel/btf:/sys/kernel/btf:ro",
    "-v", "/sys/kernel/tracing:/sys/kernel/tracing:ro",
    "-v", "/dev:/dev:ro",
    "-v", traces + ":/var/log/cudatrace",
    "-v", stand + ":/standin:ro",
    "-p", "127.0.0.1:%d:9400" % port,
    IMAGE, "--metrics", ":9400", "-w", "/var/log/cudatrace/gpu.ctrace", "-z",
    "--max-size", "16K", "--rotate", "3", "--device", "/standin/nvidiactl"]


def metrics():
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=2) as r:
            return r.read().decode()
    except OSError:
        return ""


try:
    p = run(agent)
    t.ok(p.returncode == 0, "the cudatrace container starts, not privileged, with the "
         "DaemonSet's 4 capabilities", p.stderr)
    end = time.time() + 30
    while time.time() < end and "cudatrace_calls_total" not in metrics():
        time.sleep(0.3)
    logs = run(podman + ["logs", name])
    t.ok("serving Prometheus metrics" in logs.stderr + logs.stdout and
         "warning" not in logs.stderr + logs.stdout,
         "it serves /metrics through the published port, no warning in its log",
         logs.stderr + logs.stdout)
    agent_pid = int(run(podman + ["inspect", "-f", "{{.State.Pid}}", name]).stdout)
    agent_id = run(podman + ["inspect", "-f", "{{.Id}}", name]).stdout.strip()
    caps = {l.split(":")[0]: int(l.split()[1], 16) for l in open("/proc/%d/status" % agent_pid)
            if l.startswith("Cap")}
    want = (1 << 39) | (1 << 38) | (1 << 19) | (1 << 2)   # BPF PERFMON SYS_PTRACE DAC_READ_SEARCH
    t.ok(caps.get("CapEff") == want and caps.get("CapPrm") == want,
         "cudatrace in it holds exactly BPF, PERFMON, SYS_PTRACE, DAC_READ_SEARCH "
         "(CapEff %#x)" % caps.get("CapEff", 0))

    # The workload: another container, the stand-in mounted at /dev/nvidiactl.
    p = run(podman + ["run", "--name", work] + run_opts +
            ["-v", stand + "/nvidiactl:/dev/nvidiactl", "-v", stand + "/nvfake:/nvfake:ro",
             BASE, "/nvfake", "-f", "/dev/nvidiactl", "then-wait", "2", "burst", str(CALLS),
             CMD], timeout=120)
    t.ok(p.returncode == 0 and "sent %d" % CALLS in p.stdout,
         "a second container sends %d RM_CONTROLs to the stand-in" % CALLS, p.stderr)
    work_id = run(podman + ["inspect", "-f", "{{.Id}}", work]).stdout.strip()
    series = []
    end = time.time() + 60
    while time.time() < end:
        series = [l for l in metrics().splitlines() if l.startswith("cudatrace_calls_total{")]
        if any(l.endswith(" %d" % CALLS) for l in series):
            break
        time.sleep(0.5)
    t.ok(len(series) == 1 and 'comm="nvfake"' in series[0] and
         'container="%s"' % work_id in series[0] and series[0].endswith(" %d" % CALLS),
         "/metrics: its %d calls under container=<its real id> %s..." % (CALLS, work_id[:12]),
         series)
    t.ok(not any(agent_id in l for l in metrics().splitlines()),
         "no series carries the cudatrace container's own id")
finally:
    run(podman + ["kill", "--signal", "INT", name])
    run(podman + ["wait", name], timeout=60)
    logs = run(podman + ["logs", name])
    run(podman + ["rm", "-f", name, work])

files = sorted(os.listdir(traces))
t.ok(files and len(files) <= 3 and all(re.fullmatch(r"gpu\.ctrace\.\d+", f) for f in files) and
     int(files[-1].split(".")[-1]) >= 1,
     "rotating zstd traces on the host path, the last 3 kept: %s" % files)
pids, own = set(), 0
for f in files:
    out = run([CUDATRACE, "-r", os.path.join(traces, f), "--json"]).stdout
    for l in out.splitlines():
        m = re.search(r'"pid": ?(\d+)', l)
        if m:
            pids.add(int(m.group(1)))
    own += out.count('"pid":%d,' % agent_pid) + out.count('"pid": %d,' % agent_pid)
t.ok(pids and agent_pid not in pids and own == 0,
     "the host reads them (cudatrace -r): calls of pid %s, none of cudatrace's own (%d)"
     % (sorted(pids), agent_pid))
t.ok("0 lost" in logs.stderr + logs.stdout, "stopped with Ctrl-C (podman kill -s INT): 0 lost",
     logs.stderr[-500:])
t.done()
