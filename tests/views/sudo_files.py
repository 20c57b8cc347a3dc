# SPDX-License-Identifier: MIT
"""One policy for every file cudatrace writes (issue 33, item 5): -o,
--perfetto and --sqlite, as -w, are made 0600 (they hold process memory)
and, under sudo, given to the user who ran it, so that the user reads them
and adds to the database without root.  A file that is not regular (a
device node) is left as it is.  sudo is stood in for by SUDO_UID and
SUDO_GID; the user is nobody.  Needs root; no BPF."""
import os
import pwd
import shutil
import sqlite3
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run, scratch_dir  # noqa: E402

t = Tap()
SAXPY = os.path.join(ROOT, "traces", "h100-saxpy.ctrace")
WITH_K = os.path.join(ROOT, "traces", "h100-torch_matmul-k.ctrace")
try:
    nobody = pwd.getpwnam("nobody")
except KeyError:
    nobody = None
if os.geteuid() != 0 or not nobody:
    t.skip("files under sudo", "needs root and a user nobody")
    t.done()

tmp = scratch_dir("ct-sudofiles-")
os.chmod(tmp, 0o711)
SUDO = dict(os.environ, SUDO_UID=str(nobody.pw_uid), SUDO_GID=str(nobody.pw_gid),
            SUDO_USER="nobody")
NOSUDO = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}
USER = (nobody.pw_uid, nobody.pw_gid)


def owner(path):
    st = os.stat(path)
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


def as_nobody():
    os.setgid(nobody.pw_gid)
    os.setuid(nobody.pw_uid)


# The user's own directory, as under sudo in one's home: the user can make
# files in it (SQLite's journal), others cannot look in.
home = os.path.join(tmp, "home")
os.mkdir(home, 0o700)
os.chown(home, *USER)
reader = os.path.join(tmp, "cudatrace")   # a copy nobody can run
shutil.copy(CUDATRACE, reader)
os.chmod(reader, 0o755)
with_k = os.path.join(tmp, "with-k.ctrace")   # and a trace it can read (a clone in
shutil.copy(WITH_K, with_k)                   # /root is not readable to it)
os.chmod(with_k, 0o644)

# 1. -o, --perfetto, --sqlite from -r: the user's, 0600; without sudo, root's, 0600.
for env, who, want in ((SUDO, "under sudo", USER), (NOSUDO, "without sudo", (0, 0))):
    out, pf, db = (os.path.join(home, n) for n in ("out.txt", "t.json", "t.db"))
    for f in (out, pf, db):
        if os.path.exists(f):
            os.unlink(f)
    p = run([CUDATRACE, "-r", SAXPY, "-v", "-o", out, "--perfetto", pf, "--sqlite", db],
            env=env)
    got = {os.path.basename(f): owner(f) for f in (out, pf, db)}
    t.ok(p.returncode == 0 and set(got.values()) == {want + (0o600,)},
         "%s: -o, --perfetto and --sqlite files are uid %d gid %d, mode 0600" % (who, *want),
         (got, p.stderr))

# 2. The user adds to the database made under sudo, without root.
sdb = os.path.join(home, "sudo.db")
p = run([CUDATRACE, "-r", SAXPY, "--sqlite", sdb, "-c"], env=SUDO)
q = run([reader, "-r", with_k, "--sqlite", sdb, "-c"], env=NOSUDO, preexec_fn=as_nobody)
n = sqlite3.connect(sdb).execute("SELECT count(*) FROM traces").fetchone()[0]
t.ok(p.returncode == 0 and q.returncode == 0 and n == 2 and owner(sdb) == USER + (0o600,),
     "a database made under sudo: the same user adds a trace to it without root (%d traces)"
     % n, (p.stderr, q.stderr))

# 3. An existing -o file: it holds process memory now, 0600 and the user's.
old = os.path.join(home, "old.txt")
open(old, "w").write("x\n")
os.chmod(old, 0o644)
os.chown(old, 0, 0)
p = run([CUDATRACE, "-r", SAXPY, "-o", old], env=SUDO)
t.ok(p.returncode == 0 and owner(old) == USER + (0o600,),
     "an existing 0644 -o file of root's: made 0600 and the user's", (owner(old), p.stderr))

# 4. Not a regular file: left as it is (a stand-in for /dev/null).
node = os.path.join(tmp, "null")
os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
os.chmod(node, 0o666)
p = run([CUDATRACE, "-r", SAXPY, "-o", node], env=SUDO)
t.ok(p.returncode == 0 and owner(node) == (0, 0, 0o666),
     "-o to a device node: its owner and mode left as they were", (owner(node), p.stderr))
t.done()
