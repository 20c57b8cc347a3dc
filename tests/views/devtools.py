# SPDX-License-Identifier: MIT
"""--perfetto in Chromium's DevTools Performance panel, offline: headless
Chromium (Debian's) serves its own DevTools, attached to about:blank; the
script presses "Load trace", gives it the --perfetto file of a real -k
trace, and searches the flame chart for an API slice (cuInit) and an
ioctl slice (UVM_REGISTER_GPU): each must be found, and no more often
than the file holds it.  CT_SCREENSHOT=PATH also saves what the panel
shows (docs/devtools-perfetto.png was made so).  Bounded: 60 s."""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from cdp import Cdp  # noqa: E402
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

DEADLINE = time.time() + 60
TRACE = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
WIDTH, HEIGHT = 1600, 900
# Every element, shadow roots included (DevTools is made of web components).
ALL = ("const all=[]; const walk=(r)=>{ for (const e of r.querySelectorAll('*')) {"
       " all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } }; walk(document);")

t = Tap()
browser = shutil.which("chromium")
if not browser:
    t.skip("the --perfetto file in Chromium's DevTools", "chromium is not installed "
           "(tests/deps.sh installs it)")
    t.done()


def left():
    return max(1.0, DEADLINE - time.time())


def wait_for(what, fn, step=0.25):
    while time.time() < DEADLINE:
        v = fn()
        if v:
            return v
        time.sleep(step)
    raise TimeoutError("gave up waiting for " + what)


def start_browser(profile):
    """Headless Chromium with DevTools on a port it picks (DevToolsActivePort)."""
    p = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu",
                          "--no-first-run", "--remote-debugging-port=0",
                          "--remote-allow-origins=*", "--user-data-dir=" + profile,
                          "--window-size=%d,%d" % (WIDTH, HEIGHT), "about:blank"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)   # its helpers killed with it
    port_file = os.path.join(profile, "DevToolsActivePort")
    try:
        port = wait_for("DevToolsActivePort", lambda: os.path.exists(port_file) and
                        open(port_file).read().split("\n")[0].strip())
    except BaseException:   # no port, no caller to stop it: stop it here
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise
    return p, int(port)


def open_devtools(port):
    """DevTools as the browser serves it (no network), on about:blank's page."""
    base = "http://127.0.0.1:%d" % port
    pages = json.load(urllib.request.urlopen(base + "/json", timeout=left()))
    blank = next(pg for pg in pages if pg["type"] == "page" and pg["url"] == "about:blank")
    url = "%s/devtools/inspector.html?ws=127.0.0.1:%d/devtools/page/%s&panel=timeline" % (
        base, port, blank["id"])
    req = urllib.request.Request(base + "/json/new?" + urllib.parse.quote(url, safe=""),
                                 method="PUT")
    fe = json.load(urllib.request.urlopen(req, timeout=left()))
    c = Cdp(fe["webSocketDebuggerUrl"], timeout=left())
    c.call("Page.enable")
    c.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=HEIGHT,
           deviceScaleFactor=1, mobile=False)
    return c


def press(c, label):
    """Clicks the button whose label starts with label; False if none."""
    return c.evaluate("(() => { %s const b = all.find(e => e.tagName === 'BUTTON' &&"
                      " (e.getAttribute('aria-label') || '').startsWith(%s));"
                      " if (b) b.click(); return !!b; })()" % (ALL, json.dumps(label)))


def click(c, x, y):
    c.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
    for kind in ("mousePressed", "mouseReleased"):
        c.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def canvas_rect(c):
    """The flame chart's place on the page, [x, y, width], or None."""
    return c.evaluate("(() => { %s const f = all.find(e => e.tagName === 'CANVAS' &&"
                      " e.classList.contains('flame-chart-canvas') &&"
                      " e.getBoundingClientRect().height > 100); if (!f) return null;"
                      " const r = f.getBoundingClientRect(); return [r.x, r.y, r.width]; })()"
                      % ALL)


def wide_chart(c):
    """The flame chart over the whole width: the page's picture (screencast)
    and the sidebar put away once the trace is there."""
    r = canvas_rect(c)
    if r and r[2] > WIDTH * 0.9:
        return r
    press(c, "Toggle screencast" if r and r[2] < WIDTH * 0.5 else "Hide sidebar")
    time.sleep(0.5)
    return None


def load(c, path):
    wait_for("the Load trace button", lambda: c.evaluate(
        "(() => { %s return all.some(e => (e.getAttribute('aria-label') || '')"
        ".startsWith('Load trace')); })()" % ALL))
    c.call("Page.setInterceptFileChooserDialog", enabled=True)
    press(c, "Load trace")
    ev = c.wait_event("Page.fileChooserOpened", left())
    if not ev:
        raise TimeoutError("Load trace opened no file chooser")
    c.call("DOM.setFileInputFiles", files=[path], backendNodeId=ev["params"]["backendNodeId"])
    wait_for("the flame chart", lambda: canvas_rect(c))
    return wait_for("the flame chart over the page's width", lambda: wide_chart(c), 0.5)


def expand_tracks(c, top):
    """Opens the process group, then its first thread (rows 25 and 42 px
    under the flame chart's top, at the triangle), and selects a slice of
    the row under them: for the picture only."""
    time.sleep(1)
    click(c, 12, top + 25)
    time.sleep(0.5)
    click(c, 20, top + 42)
    time.sleep(0.5)
    click(c, int(WIDTH * 0.62), top + 60)   # an API slice: its args in the summary
    time.sleep(1)


def found(c, name):
    """The flame chart's own search: how many slices it finds ("1 of N")."""
    click(c, WIDTH // 2, HEIGHT // 2)
    for kind in ("rawKeyDown", "keyUp"):
        c.call("Input.dispatchKeyEvent", type=kind, key="f", code="KeyF",
               windowsVirtualKeyCode=70, modifiers=2)
    time.sleep(0.5)
    c.evaluate("(() => { %s const i = all.find(e => e.tagName === 'INPUT' &&"
               " e.classList.contains('search-replace') && e.classList.contains('search'));"
               " if (i) { i.focus(); i.select(); } })()" % ALL)
    c.call("Input.insertText", text=name)

    def count():
        txt = c.evaluate("(() => { %s return all.filter(e => e.children.length === 0 &&"
                         " /^\\d+ of \\d+$|^No results$/.test(e.textContent.trim()) &&"
                         " e.getBoundingClientRect().width > 0).map(e => e.textContent.trim());"
                         " })()" % ALL)
        for s in txt or []:
            return 0 if s == "No results" else int(s.split(" of ")[1]) or None
        return None
    try:
        return wait_for("the search's count", count)
    except TimeoutError:
        return 0


tmp = scratch_dir("ct-devtools-")
pf = os.path.join(tmp, "torch_matmul-k.json")
p = run([CUDATRACE, "-r", TRACE, "--perfetto", pf, "-c"])
t.ok(p.returncode == 0, "--perfetto of a real -k trace written", p.stderr)
names = [e["name"] for e in json.load(open(pf))["traceEvents"] if e.get("ph") == "X"]
proc, c = None, None
try:
    proc, port = start_browser(os.path.join(tmp, "profile"))
    c = open_devtools(port)
    rect = load(c, pf)
    t.ok(rect is not None, "DevTools' Performance panel loaded the file (Load trace)")
    expand_tracks(c, rect[1])
    if os.environ.get("CT_SCREENSHOT"):
        shot = c.call("Page.captureScreenshot", format="png")["data"]
        open(os.environ["CT_SCREENSHOT"], "wb").write(base64.b64decode(shot))
    for name in ("cuInit", "UVM_REGISTER_GPU"):
        want = sum(1 for n in names if name.lower() in n.lower())
        n = found(c, name)
        t.ok(want and 0 < n <= want, "the panel shows %s slices: found %d (the file has %d)"
             % (name, n, want))
except (TimeoutError, ConnectionError, RuntimeError, OSError, StopIteration) as e:
    t.ok(False, "DevTools shows the --perfetto file's slices", repr(e))
finally:
    if proc:   # the whole group: a helper left writing to the profile kept tmp
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
t.done()
