# SPDX-License-Identifier: MIT
"""Build and test dependencies are apart (issue 22, item 17): `make demo`
and `make deps` install only what the build needs, `make test` also what
the tests need (Prometheus among them: a server on :9090 on a systemd
host).  Read from make -n and tests/deps.sh --print; nothing installed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap, run  # noqa: E402

t = Tap()
DEPS = os.path.join(ROOT, "tests", "deps.sh")


def pkgs(*sets):
    p = run(["sh", DEPS, "--print"] + list(sets))
    return set(p.stdout.split()) if p.returncode == 0 else None


def deps_runs(target):
    """The tests/deps.sh command lines make TARGET runs (make -n)."""
    p = run(["make", "-C", ROOT, "--no-print-directory", "-n", target])
    return [l.strip() for l in p.stdout.splitlines() if "tests/deps.sh" in l]


build, test = pkgs("build"), pkgs("build", "test")
TEST_ONLY = {"prometheus", "python3-yaml", "libclang-rt-14-dev", "zstd",
             "podman", "runc", "debootstrap"}   # the last three: tests/install/container.py
t.ok(build is not None and "clang" in build and "libbpf-dev" in build and
     not (build & TEST_ONLY), "the build set has the compilers and libraries, no test tools",
     sorted(build or []))
t.ok(test is not None and build is not None and test >= build | TEST_ONLY,
     "the test set adds Prometheus, PyYAML, the ASan runtime, zstd, podman, runc, debootstrap", sorted(test or []))
t.ok(pkgs() == test, "no argument: both sets (bench/run.sh)")
for target, want in (("demo", ["tests/deps.sh build"]), ("deps", ["tests/deps.sh build"]),
                     ("test", ["tests/deps.sh build test"])):
    got = deps_runs(target)
    t.ok(got == want, "make %s runs %s" % (target, want[0]), got)
p = run(["sh", DEPS, "--print", "tset"])
t.ok(p.returncode == 2 and "unknown set 'tset'" in p.stderr, "an unknown set: exit 2")
t.done()
