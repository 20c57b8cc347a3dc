#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--compat=gvisor live (BPF capture of nvfake on a stand-in nvidiactl): a
control nvproxy knows gives a clean report and exit 0, one it does not
gives exit 1 and an unsupported row; -w and --compat are refused together."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("live --compat")

tmp = scratch_dir("ct-compat-")
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()


def live(cmd, *extra):
    return run([CUDATRACE, "--device", ctl, "--compat=gvisor", "--json"] + list(extra) +
               ["--", NVFAKE, "-f", ctl, "burst", "3", cmd])


p = live("0x20801230")   # NV2080_CTRL_CMD_GR_GET_SM_ISSUE_RATE_MODIFIER
t.ok(p.returncode == 0, "a control nvproxy knows: exit 0 (%d)" % p.returncode, p.stderr)
t.ok('"kind":"control","number":545264176,' in p.stdout and
     '"verdict":"supported"' in p.stdout and '"clean":true' in p.stdout,
     "... its row is supported, the report clean", p.stdout[-400:])
p = live("0xcafe0200")
t.ok(p.returncode == 1, "a control nvproxy does not know: exit 1 (%d)" % p.returncode, p.stderr)
t.ok('"kind":"control","number":3405644288,' in p.stdout and
     '"detail":"unsupported (nvproxy: NV_ERR_NOT_SUPPORTED)"' in p.stdout,
     "... unsupported, and what nvproxy would answer", p.stdout[-400:])
p = run([CUDATRACE, "--device", ctl, "--compat=gvisor", "-w", os.path.join(tmp, "x.ctrace"),
         "--", NVFAKE, "-f", ctl, "burst", "1"])
t.ok(p.returncode == 2 and "run cudatrace -r FILE --compat=gvisor afterwards" in p.stderr,
     "-w with --compat: a usage error that says what to do", p.stderr)
p = run([CUDATRACE, "-r", "/dev/null", "--compat=qemu"])
t.ok(p.returncode == 2 and "the one sandbox known is gvisor" in p.stderr,
     "--compat=qemu: a usage error, saying what is known", p.stderr)
p = run([CUDATRACE, "-r", os.path.join(os.path.dirname(__file__), "..", "..", "traces",
                                        "h100-saxpy.ctrace"), "--compat=gvisor:nosuch"])
t.ok(p.returncode == 2 and "no gVisor snapshot nosuch" in p.stderr and
     "release-20260817.0" in p.stderr, "an unknown snapshot: the known ones listed", p.stderr)
p = run([CUDATRACE, "-r", "/dev/null", "--compat=gvisor", "--compat-caps", "compute,gpu"])
t.ok(p.returncode == 2 and "unknown capability 'gpu'" in p.stderr,
     "an unknown capability is named", p.stderr)
t.done()
