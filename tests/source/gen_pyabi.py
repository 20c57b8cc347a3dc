# SPDX-License-Identifier: MIT
"""capture/python/pyabi/gen-pyabi.awk, the generator of the CPython tables: the
committed TSV files go through; a broken one fails (exit status 1, a
message naming the file and what is wrong, nothing on stdout), so that a
bad table stops the build instead of becoming wrong offsets."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import ROOT, Tap  # noqa: E402

GEN = os.path.join(ROOT, "capture", "python", "pyabi", "gen-pyabi.awk")
SRC = os.path.join(ROOT, "capture", "python", "pyabi")
AWK = os.environ.get("AWK", "awk")


def run(folder):
    files = [os.path.join(ROOT, "capture", "python", "pyabi.h")] + \
        sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".tsv"))
    r = subprocess.run([AWK, "-f", GEN] + files, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def broken(t, what, name, edit, expect):
    with tempfile.TemporaryDirectory() as tmp:
        for f in os.listdir(SRC):
            if f.endswith(".tsv"):
                shutil.copy(os.path.join(SRC, f), tmp)
        path = os.path.join(tmp, name)
        with open(path) as f:
            text = f.read()
        new = edit(text)
        assert new != text, what
        with open(path, "w") as f:
            f.write(new)
        rc, out, err = run(tmp)
    t.ok(rc != 0 and out == "" and expect in err and name in err,
         "%s: refused (%s)" % (what, err.strip().splitlines()[-1] if err.strip() else "no message"),
         "rc %d, stdout %d bytes, stderr: %s" % (rc, len(out), err))


def drop_row(field):
    return lambda text: "".join(line for line in text.splitlines(True) if not line.startswith(field + "\t"))


def set_value(field, value):
    def edit(text):
        out = []
        for line in text.splitlines(True):
            cols = line.split("\t")
            if cols[0] == field:
                cols[1] = value
                line = "\t".join(cols)
            out.append(line)
        return "".join(out)
    return edit


def main():
    t = Tap()
    rc, out, err = run(SRC)
    t.ok(rc == 0 and "ct_pyabi_tab[]" in out and "ct_pyabi_dbg_tab[]" in out and not err,
         "the committed tables generate (%d lines of C)" % out.count("\n"), err)
    broken(t, "a field missing", "cpython-3.12.tsv", drop_row("frame_owner"), "no row for frame_owner")
    broken(t, "a field twice", "cpython-3.11.tsv",
           lambda s: s + "tstate_next\t8\tInclude/cpython/pystate.h\tPyThreadState.next\tv3.11.7\n",
           "second row for tstate_next")
    broken(t, "an unknown field", "cpython-3.10.tsv",
           lambda s: s + "tstate_gil\t8\tInclude/cpython/pystate.h\tPyThreadState.gil\tv3.10.13\n",
           "is not a field of struct ct_pyabi")
    broken(t, "a value that is not a number", "cpython-3.13.tsv", set_value("code_name", "12x"),
           "neither a number nor none")
    broken(t, "a value past 32 bits", "cpython-3.13.tsv", set_value("code_name", "4294967296"),
           "neither a number nor none")
    broken(t, "the minor row of another version", "cpython-3.14.tsv", set_value("minor", "13"),
           "minor row says 13")
    broken(t, "a position not 8-aligned", "debug-offsets-3.13.tsv", set_value("tstate_next", "170"),
           "is not that of a uint64")
    broken(t, "a position past sizeof", "debug-offsets-3.14.tsv", set_value("unicode_length", "760"),
           "runs past sizeof")
    broken(t, "a version of another minor", "debug-offsets-3.14.tsv", set_value("version_hex", "51183856"),
           "is not 3.14")
    broken(t, "a cookie of 7 letters", "debug-offsets-3.13.tsv", set_value("cookie_text", "xdebugp"),
           "is not 8 lower-case letters")
    broken(t, "a carried field without its struct's size", "debug-offsets-3.13.tsv", drop_row("code_size"),
           "no code_size row")
    broken(t, "a carried field the version lacks", "debug-offsets-3.14.tsv",
           lambda s: s + "tstate_cframe\t184\t_Py_DebugOffsets.thread_state.cframe\tv3.14.10\n",
           "has no such field")
    t.done()


if __name__ == "__main__":
    main()
