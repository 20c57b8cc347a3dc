# SPDX-License-Identifier: MIT
"""--metrics with a real Prometheus (Debian's): it scrapes cudatrace every
second while stand-in load runs (nvfake on --device files), and the totals
read back through Prometheus's HTTP query API equal the calls in the trace
written at the same time (-w): 1,000 RM_CONTROLs of one command sum to
1,000 under that command's name; /metrics answers during a 4-thread burst
with 0 lost; device memory and duration series are there; a port in use
and a bad address are refused with a reason; process names that are not
UTF-8 do not stop Prometheus from storing the page (promtool accepts it)."""
import atexit
import collections
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (CUDATRACE, NVFAKE, Tap, mounted,  # noqa: E402
                 run, scratch_dir, start_tracer)

t = Tap()
t.live_capture_or_skip("--metrics with Prometheus", None if shutil.which("prometheus") else
                       "prometheus not installed (make deps)")

CMD = "0x20800110"   # NV2080_CTRL_CMD_GPU_GET_NAME_STRING
CMD_NAME = "NV2080_CTRL_CMD_GPU_GET_NAME_STRING"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


tmp = scratch_dir("ct-metrics-")
ctl = os.path.join(tmp, "nvidiactl")
uvm = os.path.join(tmp, "nvidia-uvm")
for f in (ctl, uvm):
    open(f, "w").close()
mport, pport = free_port(), free_port()
conf = os.path.join(tmp, "prometheus.yml")
with open(conf, "w") as f:
    f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: cudatrace\n    static_configs:\n"
            "      - targets: ['127.0.0.1:%d']\n" % mport)
prom = subprocess.Popen(["prometheus", "--config.file", conf, "--storage.tsdb.path",
                         os.path.join(tmp, "tsdb"), "--web.listen-address",
                         "127.0.0.1:%d" % pport], stdout=subprocess.DEVNULL,
                        stderr=open(os.path.join(tmp, "prometheus.log"), "w"))
# Stopped at exit too: a check that stops the test before its finally
# would leave it running (and writing to tmp).
atexit.register(lambda: prom.poll() is None and (prom.kill(), prom.wait()))


def query(expr):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (pport, urllib.parse.urlencode({"query": expr}))
    try:
        _, body = http_get(url)
    except OSError:
        return None
    return json.loads(body)["data"]["result"]


def scalar(expr):
    r = query(expr)
    return float(r[0]["value"][1]) if r else None


def wait_for(expr, want, secs=30):
    """Polls Prometheus until expr equals want; returns the last value."""
    end = time.time() + secs
    v = None
    while time.time() < end:
        v = scalar(expr)
        if v == want:
            return v
        time.sleep(0.5)
    return v


# Names itself argv[2] (hex bytes), then 3 ioctls on argv[1].
NAMED = ("import ctypes, fcntl, os, sys\n"
         "ctypes.CDLL(None).prctl(15, ctypes.c_char_p(bytes.fromhex(sys.argv[2])), 0, 0, 0)\n"
         "fd = os.open(sys.argv[1], os.O_RDWR)\n"
         "for i in range(3):\n"
         "    try: fcntl.ioctl(fd, 0xc020462a, bytearray(32))\n"
         "    except OSError: pass\n")
trace = os.path.join(tmp, "metrics.ctrace")
tracer = None
try:
    tracer = start_tracer(["--device", ctl, "--device", uvm, "--metrics", "127.0.0.1:%d" % mport,
                           "-w", trace])
    # Prometheus sees the target up (cudatrace answers its scrapes).
    t.ok(wait_for('up{job="cudatrace"}', 1.0) == 1.0, "Prometheus scrapes cudatrace (up == 1)")

    p = run([NVFAKE, "-f", ctl, "burst", "1000", CMD])
    t.ok(p.returncode == 0 and "sent 1000" in p.stdout, "1,000 RM_CONTROLs of %s sent" % CMD)
    got = wait_for('sum(cudatrace_calls_total{request="%s"})' % CMD_NAME, 1000.0)
    t.ok(got == 1000.0, "Prometheus: cudatrace_calls_total{request=\"%s\"} sums to 1,000 (%s)"
         % (CMD_NAME, got))
    r = query('cudatrace_calls_total{request="%s"}' % CMD_NAME) or []
    t.ok(len(r) == 1 and r[0]["metric"].get("comm") == "nvfake" and
         r[0]["metric"].get("gpu") == "unknown",
         "one series, comm=nvfake, gpu=unknown (a stand-in file)", r)
    err = scalar('sum(cudatrace_call_errors_total{request="%s",status="ENOTTY"})' % CMD_NAME)
    t.ok(err == 1000.0, "errors: 1,000 with status ENOTTY (a regular file refuses ioctls)", err)

    # Under load: /metrics answers while 4 threads send 200,000 calls.
    load = subprocess.Popen([NVFAKE, "-f", ctl, "threads", "4", "50000"],
                            stdout=subprocess.PIPE, text=True)
    answers, worst = 0, 0.0
    while load.poll() is None:
        t0 = time.time()
        status, body = http_get("http://127.0.0.1:%d/metrics" % mport)
        worst = max(worst, time.time() - t0)
        answers += status == 200 and "cudatrace_calls_total" in body
        time.sleep(0.05)
    load.wait()
    t.ok(answers >= 3, "/metrics answered %d times during the burst (slowest %.3f s)"
         % (answers, worst))
    # Process names that are not UTF-8: one the kernel cut mid-character
    # (TASK_COMM_LEN), one that names itself 0xff.  Prometheus refuses a
    # whole page over one such label: up must stay 1, the series stored.
    for name in ("обучение_модели".encode(), b"\xff"):
        subprocess.run([sys.executable, "-c", NAMED, ctl, name.hex()], check=True)
    # (PromQL takes no U+FFFD in a string: the values are compared here.)
    want_comms = {"обучени\ufffd": 3.0, "\ufffd": 3.0}
    end, comms = time.time() + 30, {}
    while time.time() < end and any(comms.get(k) != v for k, v in want_comms.items()):
        comms = {r["metric"]["comm"]: float(r["value"][1])
                 for r in query("sum by (comm) (cudatrace_calls_total)") or []}
        time.sleep(0.5)
    t.ok(all(comms.get(k) == v for k, v in want_comms.items()) and
         scalar('up{job="cudatrace"}') == 1.0,
         "comm cut mid-character and comm 0xff: Prometheus keeps scraping (up 1) and stores "
         "their 3 calls each under %s" % [k.encode() for k in want_comms], comms)
    _, body = http_get("http://127.0.0.1:%d/metrics" % mport)
    pt = subprocess.run(["promtool", "check", "metrics"], input=body.encode(),
                        capture_output=True)
    t.ok(pt.returncode == 0, "promtool check metrics accepts the page", pt.stdout + pt.stderr)
    subprocess.run([NVFAKE, "-f", ctl, "-u", uvm, "script"], capture_output=True)
    lost = wait_for("cudatrace_events_lost_total", 0.0)
    t.ok(lost == 0.0, "cudatrace_events_lost_total is 0 (%s)" % lost)
    # Wait until Prometheus has the final total: two equal scrapes in a row.
    prev, stable = None, 0
    end = time.time() + 30
    while time.time() < end and stable < 2:
        cur = scalar("sum(cudatrace_calls_total)")
        stable = stable + 1 if cur is not None and cur == prev else 0
        prev = cur
        time.sleep(1.1)
    by_req = {r["metric"]["request"]: float(r["value"][1])
              for r in query("sum by (request) (cudatrace_calls_total)") or []}
    hist = scalar('sum(cudatrace_call_duration_seconds_count{request="NV_ESC_RM_CONTROL"})')
finally:
    if tracer:
        tracer.send_signal(signal.SIGINT)
        _, err = tracer.communicate(timeout=60)
    prom.terminate()
    prom.wait(timeout=30)



def sql_label(name, ctrl, hclass, req):
    """The metrics' request label of a calls row: its name, else (an id
    without one, name NULL) the number as -c writes it."""
    if name:
        return name
    if ctrl is not None:
        return "0x%08x (no public name%s)" % (ctrl, ", GSS legacy" if ctrl & 0x8000 else "")
    if hclass is not None:
        return "0x%x" % hclass
    d, ty = req >> 30, (req >> 8) & 0xff
    return ("_IOC(%u, 0x%x, 0x%x, 0x%x)" % (d, ty, req & 0xff, (req >> 16) & 0x3fff)
            if d or ty else "0x%x" % req)


t.ok("0 lost" in err, "the capture lost nothing", err)
db = os.path.join(tmp, "trace.db")
p = run([CUDATRACE, "-r", trace, "--sqlite", db, "-c"])
c = sqlite3.connect(db)
want = collections.Counter()
for name, ctrl, hclass, req, n in c.execute(
        "SELECT name, ctrl, hclass, request, count(*) FROM calls"
        " GROUP BY name, ctrl, hclass, request"):
    want[sql_label(name, ctrl, hclass, req)] += float(n)
want = dict(want)
ctl_calls = c.execute("SELECT count(*) FROM calls WHERE request_name = 'NV_ESC_RM_CONTROL'"
                      " AND finished").fetchone()[0]
c.close()
t.ok(want and by_req == want, "per request, Prometheus's totals equal the calls in the trace "
     "written at the same time (%d requests, %d calls)" % (len(want), sum(want.values())),
     {k: (want.get(k), by_req.get(k)) for k in set(want) | set(by_req)
      if want.get(k) != by_req.get(k)})
t.ok(hist == ctl_calls, "duration histogram count for NV_ESC_RM_CONTROL equals the trace's "
     "finished RM_CONTROLs (%s, %d)" % (hist, ctl_calls))

# The container and pod labels, from a process in a Kubernetes-shaped cgroup
# (made under the cgroup v2 mount: .../kubepods-pod<uid>.slice/cri-containerd-<id>.scope).
root = mounted("cgroup2")
if root is None:
    t.skip("container label from the cgroup path", "no cgroup v2 hierarchy mounted")
else:
    uid = "6a1e9c42-5b7f-4d3e-9a0c-%012x" % os.getpid()
    cid = "%064x" % (0xc0ffee0000 + os.getpid())
    pod_cg = os.path.join(root, "kubepods-pod%s.slice" % uid.replace("-", "_"))
    ctr_cg = os.path.join(pod_cg, "cri-containerd-%s.scope" % cid)
    os.makedirs(ctr_cg)
    try:
        tracer = start_tracer(["--device", ctl, "--metrics", "127.0.0.1:%d" % mport])
        # A process that stays a while after its calls (the label is read from
        # /proc when its first call is decoded: a process gone by then has none).
        prog = ("import fcntl, os, sys, time\n"
                "open(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
                "fd = os.open(sys.argv[2], os.O_RDWR)\n"
                "for i in range(9):\n"
                "    try: fcntl.ioctl(fd, 0xc020462a, bytearray(32))\n"
                "    except OSError: pass\n"
                "time.sleep(1.5)\n")
        inside = subprocess.Popen([sys.executable, "-c", prog, ctr_cg, ctl])
        time.sleep(1.0)
        _, body = http_get("http://127.0.0.1:%d/metrics" % mport)
        inside.wait(timeout=30)
        tracer.send_signal(signal.SIGINT)
        tracer.communicate(timeout=30)
        want = 'container="%s",pod="%s"} 9' % (cid, uid)
        t.ok(inside.returncode == 0 and any(l.startswith("cudatrace_calls_total{") and
                                            l.endswith(want) for l in body.splitlines()),
             "a process in cri-containerd-<id>.scope under kubepods-pod<uid>.slice: its 9 "
             "calls carry container=<id> and pod=<uid>",
             [l for l in body.splitlines() if l.startswith("cudatrace_calls_total")])
    finally:
        os.rmdir(ctr_cg)
        os.rmdir(pod_cg)

# Refusals.
busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen()
p = run([CUDATRACE, "--device", ctl, "--metrics", "127.0.0.1:%d" % busy.getsockname()[1],
         "-d", "1"])
t.ok(p.returncode != 0 and p.stderr.startswith("cudatrace: --metrics 127.0.0.1:") and
     "cannot listen" in p.stderr and "in use" in p.stderr,
     "a port in use: refused, our message first, with the library's reason", p.stderr)
busy.close()
for bad in ("localhost", "127.0.0.1:99999", "example.org:9400", ":http"):
    p = run([CUDATRACE, "--device", ctl, "--metrics", bad, "-d", "1"])
    t.ok(p.returncode == 2 and "ADDR:PORT" in p.stderr,
         "--metrics %s: a usage error, exit 2 (%d)" % (bad, p.returncode), p.stderr)
# localhost is 127.0.0.1; a wildcard is announced by an address one can open.
for given, want in (("localhost:%d", "http://127.0.0.1:%d/metrics\n"),
                    (":%d", "http://127.0.0.1:%d/metrics (and every other IPv4 address)\n")):
    port = free_port()
    tracer = start_tracer(["--device", ctl, "--metrics", given % port])
    line = tracer.stderr.readline()
    status, _ = http_get("http://127.0.0.1:%d/metrics" % port)
    tracer.send_signal(signal.SIGINT)
    tracer.communicate(timeout=30)
    t.ok(line.endswith(want % port) and status == 200,
         "--metrics %s: serves, announced as %s" % (given % port, (want % port).strip()), line)
p = run([CUDATRACE, "-r", trace, "--metrics", "127.0.0.1:1"])
t.ok(p.returncode != 0 and "live capture" in p.stderr, "--metrics with -r: refused", p.stderr)
t.done()
