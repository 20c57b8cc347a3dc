# SPDX-License-Identifier: MIT
"""--gpu-work's kernel names, live, on a stand-in (tests/gpfifo_fake.c
`kernel`): an executable that holds a real fatbin (tests/kernels/
k_plain.fatbin, nvcc 13.0, as its .nv_fatbin section) uploads the code of
one of its functions (k_add, tests/kernels/k_add.code) inline to a
program address and launches it there, then copies the same code by copy
engine from a staging buffer of its own to another address and launches
it there.  The capture must name both launches k_add, from the
executable, by how it found them, in JSON, text and through -w/-r; and
name nothing in a process whose files hold no such code."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import (BUILD, CUDATRACE, ROOT, Tap, decode_json, live_capture_possible, run,  # noqa: E402
                 scratch_dir)

FAKE = os.path.join(BUILD, "gpfifo_fake")
KDIR = os.path.join(ROOT, "tests", "kernels")
CODE = os.path.join(KDIR, "k_add.code")
t = Tap()

# The namer's mappings are read on a thread of their own: a watch from the
# reader thread returns while /proc/PID/maps cannot be read (a FIFO).
kk = scratch_dir("ct-kmaps-")
p = run([os.path.join(BUILD, "kernels", "kmaps_keep_check"), kk], timeout=60)
t.ok(p.returncode == 0 and "not ok" not in p.stdout,
     "mappings read off the reader thread, kept for the namer (kmaps_keep_check)",
     p.stdout[-600:] + p.stderr[-300:])

why = live_capture_possible()
if why:
    t.skip("live --gpu-work kernel names", why)
    t.done()

tmp = scratch_dir("ct-knames-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
kfake = os.path.join(tmp, "kfake")
shutil.copy(FAKE, kfake)
subprocess.run(["objcopy", "--add-section",
                ".nv_fatbin=" + os.path.join(KDIR, "k_plain.fatbin"),
                "--set-section-flags", ".nv_fatbin=alloc,readonly", kfake], check=True,
               capture_output=True)   # "not in segment": read from the file, as a section


def launches(events):
    return {int(e["program"], 16): e for e in events
            if e["type"] == "gpu-work" and e["kind"] == "LAUNCH" and "program" in e}


def programs(stdout):
    return {w[0]: int(w[1], 16) for w in (l.split() for l in stdout.splitlines())
            if w and w[0].startswith(("kernel-", "staged-"))}


# 1. Named inline and from the copy's staging buffer, to a file and back.
cache = os.path.join(tmp, "cache", "kernels")
env = dict(os.environ, CUDATRACE_KERNEL_CACHE=cache)
tr = os.path.join(tmp, "k.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--", kfake, "-f", ctl, "kernel",
         CODE], env=env)
sent = programs(p.stdout)
t.ok(p.returncode == 0 and len(sent) == 3, "the stand-in uploaded and launched three times",
     p.stderr[-600:] + p.stdout[-300:])
t.ok("kernel names: 3 of 3 program addresses named (3 from files" in p.stderr,
     "the closing line: all three named from files", p.stderr[-800:])
got = launches(decode_json(tr))
li, lc = got.get(sent.get("kernel-inline")), got.get(sent.get("kernel-copy"))
t.ok(li and li.get("kernel") == "k_add" and li.get("kernel_found") == "inline" and
     li.get("kernel_module", "").endswith("/kfake"),
     "inline upload: k_add, found inline, from the executable", li)
t.ok(lc and lc.get("kernel") == "k_add" and lc.get("kernel_found") == "copy" and
     lc.get("kernel_mangled") == "k_add",
     "copy engine upload: k_add, found in the staging buffer read back", lc)

lm = got.get(sent.get("kernel-module"))
t.ok(lm and lm.get("kernel") == "k_add" and lm.get("kernel_found") == "module",
     "inside a larger inline upload (a module): k_add, found by its place in it", lm)

# 2. Text: the name on the launch line, before the grid.
r = run([CUDATRACE, "-r", tr])
lines = [l for l in r.stdout.splitlines() if "COMPUTE LAUNCH" in l]
t.ok(len(lines) == 3 and all("COMPUTE LAUNCH k_add grid=(" in l for l in lines),
     "text: COMPUTE LAUNCH k_add grid=...", lines)

# 2b. The index of each code file was cached (the executable's by its
# build-id; libc's and the loader's too, with no function: a file with no
# fatbin is looked through for bare cubins once): the next capture reads them.
cached = os.listdir(cache)
written = re.search(r"kernel index cache %s: 0 files read from it, (\d+) written" % re.escape(cache),
                    p.stderr)
t.ok(written and int(written.group(1)) == len(cached) >= 1 and
     any(c.startswith("build-id-") for c in cached),
     "the executable's index written to the cache, by its build-id", (p.stderr[-400:], cached))
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr, "--", kfake, "-f", ctl, "kernel",
         CODE], env=env)
got = launches(decode_json(tr))
t.ok("%d files read from it, 0 written" % len(cached) in p.stderr and
     sorted(e.get("kernel") for e in got.values()) == ["k_add", "k_add", "k_add"],
     "the second capture reads it from the cache and names both launches", p.stderr[-400:])

# 2c. A launch read before its upload: the launch on one channel, its code
# copied on a second channel made after it, both put at once; the reader
# reads the launch first, and the segment waits for the upload's name.
trl = os.path.join(tmp, "late.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trl, "--", kfake, "-f", ctl,
         "kernel-late", CODE], env=env)
late = programs(p.stdout).get("kernel-late")
got = launches(decode_json(trl))
t.ok(late in got and got[late].get("kernel") == "k_add",
     "launched once, read before its copy-engine upload: the launch line is named",
     (got.get(late), p.stderr[-500:]))
# (held, or -- when a poll's snapshot of the first ring came just before the
# launch was put -- the copy read first: named either way; never given up)
held = re.search(r"kernel names: (\d+) times a launch was read before its upload .* (\d+) of them "
                 r"given up", p.stderr)
t.ok(held is None or (held.group(1) == "1" and held.group(2) == "0"),
     "the closing line says it was held (%s), none given up" % (held.group(1) if held else 0),
     p.stderr[-500:])

# 2c'. The same with a driver call between the launch and its upload,
# read in another poll (JAX on an H200: the copy's ring was not due when
# the launch's was): the call waits with the held segments, in order.
trl2 = os.path.join(tmp, "later.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trl2, "--", kfake, "-f", ctl,
         "kernel-later", CODE], env=env)
later = programs(p.stdout).get("kernel-late")
ev2 = decode_json(trl2)
got = launches(ev2)
t.ok(later in got and got[later].get("kernel") == "k_add",
     "a driver call between the launch and its later upload: the launch line is still named",
     (got.get(later), p.stderr[-500:]))
order = [e.get("cmd") == "0xdead0001" and "call" or e.get("kind") for e in ev2
         if e.get("cmd") == "0xdead0001" or e.get("kind") in ("LAUNCH", "COPY")]
t.ok(order.index("call") < order.index("COPY") if "call" in order and "COPY" in order else False,
     "... and the call stays where it was, before the copy it came before", order)

# 2c''. Code uploaded once and first launched after 700 launches of other
# code, each writing its QMD to one of four places (CUDA reuses its QMD
# slots, constant banks and parameters' places): the rewrites take their
# slots, the code stays kept (before: pushed out of the 512 kept, no name).
trc = os.path.join(tmp, "churn.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trc, "--", kfake, "-f", ctl,
         "kernel-churn", CODE, "700"], env=env)
first = programs(p.stdout).get("kernel-churn")
got = launches(decode_json(trc))
t.ok(first in got and got[first].get("kernel") == "k_add",
     "code uploaded once, first launched after 700 QMD rewrites: still named",
     (got.get(first), p.stderr[-500:]))

# 2d. Code copied through one staging buffer that the next upload reuses
# (eager loading's chunks): at the launches the buffer holds other code, so
# each copy that looks like code is read when it is seen, a module's
# chunks joined (B's code lies across them).  Then a copy whose buffer is
# reused before it is read: it holds k_add's code (10 registers a thread,
# tests/kernels/k.cubin's .nv.info), launched with k_scale's 8: not k_add.
scale = os.path.join(tmp, "k_scale_d.code")
subprocess.run([sys.executable, os.path.join(KDIR, "section.py"), os.path.join(KDIR, "k.cubin"),
                ".text._Z7k_scaleIdEvPT_S0_i", scale], check=True)
trs = os.path.join(tmp, "staged.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trs, "--", kfake, "-f", ctl,
         "kernel-staged", CODE, scale, "8"], env=env)
staged = programs(p.stdout)
got = launches(decode_json(trs))
want = {"staged-a": "k_add", "staged-b": "_Z7k_scaleIdEvPT_S0_i",
        "staged-module-a": "k_add", "staged-module-b": "_Z7k_scaleIdEvPT_S0_i"}
named = {k: (got.get(staged.get(k)) or {}).get("kernel_mangled") for k in want}
t.ok(named == want and all(got[staged[k]].get("kernel_found") == "copy" for k in want),
     "uploads through a reused staging buffer, a function across a module's chunks: each "
     "named from the copy read when seen", (named, p.stderr[-700:]))
t.ok(re.search(r"\b5 code copies read when seen", p.stderr),
     "the closing line counts the code copies read when seen (5)", p.stderr[-700:])
fast = got.get(staged.get("staged-fast")) or {}
refused = re.search(r"(\d+) matches refused \(the code needs more registers", p.stderr)
t.ok(fast and fast.get("kernel_mangled") != "k_add" and refused and int(refused.group(1)) >= 1,
     "a copy read after its buffer was reused (k_add's code, 10 registers) launched with 8: "
     "not named k_add (%s), the refusal counted" % fast.get("kernel_mangled"),
     (fast, p.stderr[-700:]))

# 2e. The same with the record loop slowed on purpose (30 ms a record, as
# stacks or a slow sink make it): the namer comes to each copy long after
# the buffer was reused; the reader thread kept each copy's bytes when it
# read the copy (before: staged-b was named k_add, the buffer's last code).
trw = os.path.join(tmp, "staged-slow.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trw, "--", kfake, "-f", ctl,
         "kernel-staged", CODE, scale, "8"], env=dict(env, CT_TEST_SLOW_RECORD_US="30000"))
staged = programs(p.stdout)
got = launches(decode_json(trw))
named = {k: (got.get(staged.get(k)) or {}).get("kernel_mangled") for k in want}
t.ok(named == want, "a record loop 30 ms a record behind: each staged copy named from the "
     "bytes the reader kept", (named, p.stderr[-900:]))
kept = re.search(r"(\d+) copies' sources kept as they were read after the reader saw "
                 r"them .* (\d+) answered from them, (\d+) past them found unchanged, (\d+) found written since", p.stderr)
t.ok(kept and int(kept.group(1)) == 5 and int(kept.group(2)) >= 5,
     "the closing line: 5 copies kept, the namer's reads answered from them", p.stderr[-900:])

# 2f. The same code under three names (tests/kernels/k_twins.fatbin: k_twin_a,
# k_twin_b and k_twin_c have one code): never one of them; the label of
# the three, their names in JSON, the same in -c and text.
twins = os.path.join(tmp, "twinfake")
shutil.copy(FAKE, twins)
subprocess.run(["objcopy", "--add-section",
                ".nv_fatbin=" + os.path.join(KDIR, "k_twins.fatbin"),
                "--set-section-flags", ".nv_fatbin=alloc,readonly", twins], check=True,
               capture_output=True)
trt = os.path.join(tmp, "twins.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", trt, "--", twins, "-f", ctl, "kernel",
         os.path.join(KDIR, "k_twin.code")], env=env)
sent = programs(p.stdout)
lt = launches(decode_json(trt)).get(sent.get("kernel-inline")) or {}
t.ok(lt.get("kernel") == "k_twin_{a|b|c}" or
     (lt.get("kernel", "").startswith("k_twin_{") and lt.get("kernel_candidates") == 3 and
      sorted(lt.get("kernel_names", [])) == ["k_twin_a", "k_twin_b", "k_twin_c"]),
     "one code under three names: labelled k_twin_{...} with the three names, none taken "
     "for the launch's", (lt, p.stderr[-600:]))
t.ok(sorted(lt.get("kernel_names", [])) == ["k_twin_a", "k_twin_b", "k_twin_c"] and
     lt.get("kernel_candidates") == 3, "JSON: kernel_candidates 3, kernel_names the three", lt)
r = run([CUDATRACE, "-r", trt])
t.ok(any("COMPUTE LAUNCH k_twin_{" in l and "(3 functions have this code) grid=(" in l
         for l in r.stdout.splitlines()), "text: the label, then how many have this code",
     r.stdout[-600:])

# 3. Live, no file: the same stand-in without the fatbin names nothing
#    from files: inline code in no file is a jit: id; the copy stays unnamed.
tr2 = os.path.join(tmp, "nofile.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr2, "--", FAKE, "-f", ctl, "kernel",
         CODE], env=env)
got = launches(decode_json(tr2))
names = sorted(e.get("kernel", "") for e in got.values())
t.ok(p.returncode == 0 and len(got) == 3 and not any(n == "k_add" for n in names) and
     any(n.startswith("jit:") for n in names),
     "without the fatbin: no k_add; the inline code gets a jit: id", names)

# 4. JIT code in Triton's cache folder (TRITON_CACHE_DIR, else ~/.triton/cache
#    of the process: here HOME): named from the cubin there.
home = os.path.join(tmp, "home")
os.makedirs(os.path.join(home, ".triton", "cache", "f00d"))
shutil.copy(os.path.join(KDIR, "k.cubin"), os.path.join(home, ".triton", "cache", "f00d",
                                                         "k_add.cubin"))
tr3 = os.path.join(tmp, "triton.ctrace")
p = run([CUDATRACE, "--device", ctl, "--gpu-work", "-w", tr3, "--", "env", "HOME=" + home, FAKE,
         "-f", ctl, "kernel", CODE], env=env)
got = launches(decode_json(tr3))
li = got.get(sent.get("kernel-inline"))
t.ok(li and li.get("kernel") == "k_add" and
     li.get("kernel_module") == os.path.join(home, ".triton/cache/f00d/k_add.cubin"),
     "JIT code named from the Triton cache of the process's HOME", li)
t.done()
