# SPDX-License-Identifier: MIT
"""make STATIC=1: a binary with no dynamic section that serves --metrics
(libmicrohttpd built without TLS from Debian's source package by the
build): a live capture answers GET /metrics, the page passes promtool."""
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
p = run(["make", "-C", ROOT, "--no-print-directory", "STATIC=1", "-j2"], timeout=900)
if p.returncode != 0 and "cannot fetch Debian's source of libmicrohttpd" in p.stderr:
    t.skip("make STATIC=1 with --metrics", "no Debian mirror reachable for libmicrohttpd's "
           "source (offline: make STATIC=1 MHD_DSC=...)")
    t.done()
t.ok(p.returncode == 0, "make STATIC=1 builds", p.stderr[-3000:])
binary = os.path.join(ROOT, "cudatrace-static")
elf = run(["readelf", "-d", binary])
t.ok("There is no dynamic section" in elf.stdout + elf.stderr,
     "cudatrace-static has no dynamic section (fully static)")
nm = run(["nm", binary]).stdout
t.ok(re.search(r" T MHD_start_daemon$", nm, re.M) and "gnutls" not in nm,
     "it links libmicrohttpd, without GnuTLS")

t.live_capture_or_skip("cudatrace-static serves /metrics")
tmp = scratch_dir("ct-static-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
tracer = subprocess.Popen([binary, "--device", ctl, "--metrics", "127.0.0.1:0"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    lines = [tracer.stderr.readline() for _ in range(2)]
    m = re.search(r"http://127\.0\.0\.1:\d+/metrics", lines[1])
    t.ok(m is not None, "cudatrace-static --metrics 127.0.0.1:0 serves: " + lines[1].strip(),
         "".join(lines))
    body = urllib.request.urlopen(m.group(0), timeout=5).read() if m else b""
    t.ok(b"# TYPE cudatrace_calls_total counter" in body, "GET /metrics answers the page")
    if shutil.which("promtool"):
        pt = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
        t.ok(pt.returncode == 0 and body, "promtool check metrics accepts it",
             pt.stdout + pt.stderr)
    else:
        t.skip("promtool check metrics", "promtool not installed (make deps)")
finally:
    tracer.send_signal(signal.SIGINT)
    tracer.communicate(timeout=30)
t.done()
