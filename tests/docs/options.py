# SPDX-License-Identifier: MIT
"""--help, the man page and bash completion come from one option table
(user/cli_table.c): the committed docs match what the binary makes, every
option the parser takes is in all three, and the completion script parses."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import CUDATRACE, ROOT, Tap, run  # noqa: E402

t = Tap()
man_in = open(os.path.join(ROOT, "docs", "cudatrace.8.in")).read()
man = open(os.path.join(ROOT, "docs", "cudatrace.8")).read()
bash = open(os.path.join(ROOT, "docs", "cudatrace.bash-completion")).read()
helptext = run([CUDATRACE, "--help"]).stdout
man_opts = run([CUDATRACE, "--help=man"]).stdout
bash_gen = run([CUDATRACE, "--help=bash"]).stdout

t.ok(man == man_in.replace("@OPTIONS@\n", man_opts),
     "docs/cudatrace.8 is current (run `make docs` after changing user/cli_table.c)")
t.ok(bash == bash_gen, "docs/cudatrace.bash-completion is current (`make docs`)")

# The long options the parser knows, from the table's source.
src = open(os.path.join(ROOT, "user", "cli_table.c")).read()
longs = sorted(set(re.findall(r'^\t\{ "([a-z-]+)", ', src, re.M)) - {"colour"})
t.ok(len(longs) >= 20, "the table has the options (%d long ones)" % len(longs))
missing = [o for o in longs if "--" + o not in helptext]
t.ok(not missing, "--help lists every long option", missing)
missing = [o for o in longs if "\\-\\-" + o.replace("-", "\\-") not in man]
t.ok(not missing, "the man page lists every long option", missing)
missing = [o for o in longs if "--" + o not in bash]
t.ok(not missing, "the completion offers every long option", missing)
t.ok(run(["bash", "-n", os.path.join(ROOT, "docs", "cudatrace.bash-completion")]).returncode == 0,
     "the completion script parses (bash -n)")
p = run([CUDATRACE, "--no-such-option"])
t.ok(p.returncode == 2 and "Try 'cudatrace --help'" in p.stderr,
     "an unknown option says where to look, exit 2")
p = run([CUDATRACE, "--help=pdf"])
t.ok(p.returncode == 2 and "Invalid --help format" in p.stderr, "--help=FORMAT is checked")
t.done()
