# SPDX-License-Identifier: MIT
"""Under sudo, the trace files (rotated ones too), and -o, --perfetto and
--sqlite (issue 33, item 5), belong to the user who ran sudo, still 0600, so that `cudatrace -r` needs no root; -u USER runs the
command as USER with USER's groups (issue 22, item 8).  sudo is stood in
for by its SUDO_UID and SUDO_GID; the user is nobody."""
import grp
import os
import pwd
import shutil
import stat
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, NVFAKE, Tap, run, scratch_dir  # noqa: E402

t = Tap()
t.live_capture_or_skip("-u and files under sudo")
try:
    nobody = pwd.getpwnam("nobody")
except KeyError:
    t.skip("-u and files under sudo", "no user nobody")
    t.done()

tmp = scratch_dir("ct-sudo-")
os.chmod(tmp, 0o711)   # nobody reaches the files it owns, lists nothing
ctl = os.path.join(tmp, "nvidiactl")
open(ctl, "w").close()
DEV = ["--device", ctl]
SUDO = dict(os.environ, SUDO_UID=str(nobody.pw_uid), SUDO_GID=str(nobody.pw_gid),
            SUDO_USER="nobody")
NOSUDO = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}


def owner(path):
    st = os.stat(path)
    return st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


# 1. One file: handed to SUDO_UID:SUDO_GID, mode 0600; without sudo, root's.
for env, who, want in ((SUDO, "under sudo", (nobody.pw_uid, nobody.pw_gid)),
                       (NOSUDO, "without sudo", (0, 0))):
    tr = os.path.join(tmp, "one.ctrace")
    p = run([CUDATRACE] + DEV + ["-w", tr, "--", NVFAKE, "-f", ctl, "burst", "10"], env=env)
    t.ok(p.returncode == 0 and owner(tr) == want + (0o600,),
         "%s: the trace file is uid %d gid %d, mode 0600" % (who, want[0], want[1]),
         (owner(tr), p.stderr))
    os.unlink(tr)

# 2. Rotated files too, opened after the capture dropped its privileges.
rot = os.path.join(tmp, "rot.ctrace")
p = run([CUDATRACE] + DEV + ["-w", rot, "--max-size", "256K", "--rotate", "3", "--",
                             NVFAKE, "-f", ctl, "burst", "20000"], env=SUDO)
files = sorted(f for f in os.listdir(tmp) if f.startswith("rot.ctrace."))
owners = set(owner(os.path.join(tmp, f)) for f in files)
t.ok(p.returncode == 0 and len(files) == 3 and "rot.ctrace.0" not in files and
     owners == {(nobody.pw_uid, nobody.pw_gid, 0o600)},
     "under sudo, rotated files (%s) are the user's too, 0600" % ", ".join(files),
     (files, owners, p.stderr))
# A copy nobody can run: the tree may be under /root (a fresh clone), 0700.
reader = os.path.join(tmp, "cudatrace")
shutil.copy(CUDATRACE, reader)
os.chmod(reader, 0o755)
p = run([reader, "-r", os.path.join(tmp, files[-1]), "-c"], env=NOSUDO,
        preexec_fn=lambda: (os.setgid(nobody.pw_gid), os.setuid(nobody.pw_uid)))
t.ok(p.returncode == 0, "the user reads them back without root", p.stderr)

# 2b. Issue 33, item 5: every file, not only -w: a live capture's -o,
# --perfetto and --sqlite are the user's too, 0600.
outs = [os.path.join(tmp, n) for n in ("live.txt", "live.json", "live.db")]
p = run([CUDATRACE] + DEV + ["-o", outs[0], "--perfetto", outs[1], "--sqlite", outs[2], "--",
                             NVFAKE, "-f", ctl, "burst", "10"], env=SUDO)
got = [owner(f) for f in outs]
t.ok(p.returncode == 0 and set(got) == {(nobody.pw_uid, nobody.pw_gid, 0o600)},
     "under sudo, live -o, --perfetto and --sqlite files are the user's, 0600", (got, p.stderr))
# -w on a file that is not regular (a stand-in for /dev/null): left as it is,
# not made 0600 or given away.
node = os.path.join(tmp, "null")
os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
os.chmod(node, 0o666)
p = run([CUDATRACE] + DEV + ["-w", node, "--", NVFAKE, "-f", ctl, "burst", "10"], env=SUDO)
t.ok(p.returncode == 0 and owner(node) == (0, 0, 0o666),
     "-w to a device node under sudo: its owner and mode left as they were",
     (owner(node), p.stderr))

# 3. -u nobody: the command runs as nobody, with nobody's groups.
out = os.path.join(tmp, "u.ctrace")
p = run([CUDATRACE] + DEV + ["-u", "nobody", "-w", out, "--", "sh", "-c", "id -u; id -g; id -G"],
        env=NOSUDO)
want = [str(nobody.pw_uid), str(nobody.pw_gid),
        " ".join(str(g) for g in sorted(os.getgrouplist("nobody", nobody.pw_gid)))]
got = p.stdout.split("\n")[:3]
got[2:] = [" ".join(sorted(got[2].split(), key=int))] if len(got) == 3 else []
t.ok(p.returncode == 0 and got == want, "-u nobody: id says uid, gid, groups %s" % want,
     (got, p.stderr))
p = run([CUDATRACE] + DEV + ["-u", str(nobody.pw_uid), "-w", out, "--", "id", "-u"],
        env=NOSUDO)
t.ok(p.returncode == 0 and p.stdout.strip() == str(nobody.pw_uid), "-u by number", p.stderr)
p = run([CUDATRACE] + DEV + ["-u", "no-such-user-ct", "--", "true"], env=NOSUDO)
t.ok(p.returncode == 1 and "-u no-such-user-ct: no such user" in p.stderr,
     "-u of an unknown user: said, exit 1", p.stderr)
p = run([CUDATRACE] + DEV + ["-u", "nobody", "-d", "1"], env=NOSUDO)
t.ok(p.returncode == 2 and "goes with -- COMMAND" in p.stderr, "-u without a command: exit 2",
     p.stderr)

t.done()
