# SPDX-License-Identifier: MIT
"""--metrics under hostile HTTP clients, loopback only, about 30 s: slow
request heads and idle floods (64+ connections, from one address and from
many), resets, garbage, huge heads, pipelining, and a label explosion past
--metrics-max-series with names that are not UTF-8.  A scraper from
127.0.0.1 asks for /metrics every 0.1 s throughout: every answer must come
within 1 s.  cudatrace's stderr is a pipe nobody reads (what a client does
must not fill it), the capture loses nothing, the page passes promtool, and
Ctrl-C stops it at once."""
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, Tap, run, scratch_dir, start_tracer  # noqa: E402

t = Tap()
t.live_capture_or_skip("--metrics under hostile clients")
signal.alarm(150)   # a bound on the whole test, whatever hangs
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))

HEAD_DEADLINE = 5.0   # views/metrics/metrics.h, CT_METRICS_HEAD_DEADLINE_S
PER_ADDRESS = 8       # views/metrics/metrics_http.c, MAX_PER_ADDRESS
MAX_SERIES = 60

tmp = scratch_dir("ct-hostile-http-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
trace = os.path.join(tmp, "hostile.ctrace")


def connect(src, port, timeout=2):
    s = socket.socket()
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


def closed_by_peer(s):
    """True once the server closed s (EOF or reset), without blocking."""
    try:
        s.setblocking(False)
        return s.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def answers(s, want, secs=3):
    """Reads from s until want HTTP answers (by status line) or secs pass."""
    data, end = b"", time.time() + secs
    s.setblocking(True)
    while data.count(b"HTTP/1.1 ") < want and time.time() < end:
        s.settimeout(max(0.01, end - time.time()))
        try:
            d = s.recv(1 << 20)
        except OSError:
            break
        if not d:
            break
        data += d
    return data


class Scraper(threading.Thread):
    """GET /metrics from 127.0.0.1 every 0.1 s: the slowest answer, failures."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop, self.n, self.slowest, self.failures = port, False, 0, 0.0, []

    def run(self):
        while not self.stop:
            t0 = time.time()
            try:
                s = connect("127.0.0.1", self.port, timeout=1.0)
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                body = answers(s, 1, secs=1.0)
                s.close()
                if not body.startswith(b"HTTP/1.1 200"):
                    raise OSError("answer: %r" % body[:60])
            except OSError as e:
                self.failures.append("%.1f s: %s" % (time.time() - start, e))
            took = time.time() - t0
            self.slowest = max(self.slowest, took)
            self.n += 1
            time.sleep(0.1)


def page():
    s = connect("127.0.0.1", port)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = answers(s, 1)
    s.close()
    return data.partition(b"\r\n\r\n")[2]   # bytes: promtool judges them as sent


def value(text, name):
    m = re.search(r"^%s (\d+)$" % name, text, re.M)
    return int(m.group(1)) if m else None


tracer = start_tracer(["--device", ctl, "--metrics", "127.0.0.1:0", "--metrics-max-series",
                       str(MAX_SERIES), "-w", trace])
line = tracer.stderr.readline()
m = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
t.ok(m is not None, "cudatrace names the port it bound for :0: " + line.strip())
port = int(m.group(1))
start = time.time()
scraper = Scraper(port)
scraper.start()
# From here on nobody reads cudatrace's stderr: a pipe of 64 KiB.

# 1. Slow heads: 80 connections from 10 addresses, a byte every 0.5 s.
slow = [connect("127.0.0.%d" % (10 + i % 10), port) for i in range(80)]
# 2. An idle flood from one address: all but PER_ADDRESS refused at once.
flood = []
for i in range(500):
    try:
        flood.append(connect("127.0.0.3", port))
    except OSError:
        pass
time.sleep(0.3)
refused = sum(closed_by_peer(s) for s in flood)
t.ok(refused >= len(flood) - PER_ADDRESS,
     "500 idle connections from one address: %d refused at once (at most %d kept)"
     % (refused, PER_ADDRESS))
t0, closed_at = time.time(), {}
while time.time() - t0 < HEAD_DEADLINE + 3 and len(closed_at) < len(slow):
    for i, s in enumerate(slow):
        if i in closed_at:
            continue
        try:
            s.send(b"G")
        except OSError:
            closed_at[i] = time.time() - t0
            continue
        if closed_by_peer(s):
            closed_at[i] = time.time() - t0
    time.sleep(0.5)
times = sorted(closed_at.values())
# (seen within a 0.5 s round of sends, on a machine that may be busy)
t.ok(len(times) == 80 and HEAD_DEADLINE - 0.5 <= times[0] and times[-1] <= HEAD_DEADLINE + 2.5,
     "80 connections sending a byte every 0.5 s: all closed at the %.0f s head deadline "
     "(%.1f to %.1f s)" % (HEAD_DEADLINE, times[0] if times else -1, times[-1] if times else -1),
     times)
for s in slow + flood:
    s.close()

# 3. Resets: 2,000 connections that send half a head and reset (RST).
for i in range(2000):
    s = connect("127.0.0.4", port)
    s.send(b"GET /met")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
# 4. Garbage, and heads larger than a connection's memory (64 KiB each).
bad = []
for i in range(40):
    s = connect("127.0.0.5", port)
    s.sendall(os.urandom(200) + b"\r\n\r\n" if i % 2 else
              b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")
    bad.append(answers(s, 1, secs=2))
    s.close()
t.ok(all(b.startswith(b"HTTP/1.1 4") or b == b"" for b in bad),
     "garbage and 64 KiB heads: refused with a 4xx or closed (%s)"
     % sorted(set(b[:12].decode(errors="replace") for b in bad)))

# 5. Keep-alive and pipelining: 50 requests in one write, 50 answers.
s = connect("127.0.0.6", port)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
data = answers(s, 50, secs=5)
t.ok(data.count(b"HTTP/1.1 200") == 50 and b"onnection: close" not in data,
     "50 pipelined requests on one connection: %d answers, the connection kept"
     % data.count(b"HTTP/1.1 200"))
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
t.ok(answers(s, 1).startswith(b"HTTP/1.1 200"), "and a 51st on it, later, is answered")
s.close()

# 6. A label explosion: 400 processes names (some not UTF-8) call the device.
prog = r"""
import ctypes, fcntl, os, sys
libc = ctypes.CDLL(None)
fd = os.open(sys.argv[1], os.O_RDWR)
for i in range(400):
    name = (b"\xff\xfe%d" % i) if i % 2 else ("обучение_%d" % i).encode()
    libc.prctl(15, ctypes.c_char_p(name[:15]), 0, 0, 0)
    try: fcntl.ioctl(fd, 0xc020462a, bytearray(32))
    except OSError: pass
"""
p = run([sys.executable, "-c", prog, ctl])
t.ok(p.returncode == 0, "400 calls from 400 process names", p.stderr)
time.sleep(1.0)
raw = page()
text = raw.decode("utf-8", "replace")
series = len(re.findall(r"^cudatrace_(calls_total|call_errors_total|call_duration_seconds_"
                        r"count|device_memory_bytes)\{", text, re.M))
dropped = value(text, "cudatrace_metrics_series_dropped_total")
t.ok(series <= MAX_SERIES and dropped and dropped > 0,
     "--metrics-max-series %d holds: %d series, %s updates dropped" % (MAX_SERIES, series, dropped))
if shutil.which("promtool"):
    pt = subprocess.run(["promtool", "check", "metrics"], input=raw,
                        capture_output=True)
    t.ok(pt.returncode == 0 and b"cudatrace_calls_total{" in raw,
         "promtool check metrics accepts the page (names not UTF-8 among them)",
         pt.stdout + pt.stderr)
else:
    t.skip("promtool check metrics", "promtool not installed (make deps)")
errors = value(text, "cudatrace_metrics_http_errors_total")
slows = value(text, "cudatrace_metrics_http_slow_requests_total")
# Each refusal of the flood is counted; how many of the 2,000 resets are
# depends on whether the server reads a half head before its reset lands
# (here 1,787 and 2,238 errors in all; on a busier machine 962 and 991):
# beyond the refusals, some, not a share.
t.ok(errors and errors > refused and slows and slows >= 80,
     "what clients did is counted, not printed: %s errors (the flood alone refused %d), "
     "%s slow heads" % (errors, refused, slows))

scraper.stop = True
scraper.join()
t.ok(not scraper.failures and scraper.slowest < 1.0,
     "a scrape from 127.0.0.1 every 0.1 s throughout: %d, %d failed, slowest %.3f s"
     % (scraper.n, len(scraper.failures), scraper.slowest), scraper.failures[:10])

t0 = time.time()
tracer.send_signal(signal.SIGINT)
_, err = tracer.communicate(timeout=30)
took = time.time() - t0
t.ok(tracer.returncode == 0 and took < 2.0, "Ctrl-C stops it in %.2f s" % took)
t.ok(len(err) < 4096 and "0 lost" in err,
     "its stderr, never read during the attacks, holds %d bytes; 0 lost" % len(err), err[-2000:])
ioctls = run([CUDATRACE, "-r", trace]).stdout.count(" ioctl(")
t.ok(ioctls == 400, "the trace written meanwhile has the 400 calls (%d)" % ioctls)
t.done()
