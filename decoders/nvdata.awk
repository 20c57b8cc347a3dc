# SPDX-License-Identifier: MIT
#
# nvdata.awk: the functions shared by the programs that make the NVIDIA data
# files and turn them into C: the generators, run as
#
#   awk -f decoders/nvdata.awk -f decoders/tables/gen-tables.awk ...
#   awk -f decoders/nvdata.awk -f decoders/layouts/gen-layouts.awk ...
#
# and the importers (decoders/{tables,layouts}/import-nvabi.sh), which put
# this file before the text of each of their awk programs.  A program sets
# prog, the name its messages start with.  Plain POSIX awk (mawk).

# A message on stderr, then exit status 1 (the END rule below ends the run
# at once): "prog: FILE:LINE: msg", or "prog: WHERE: msg" when the program
# set where (in END there is no current line), or "prog: FILE: msg" when
# FNR is 0.
function die(msg) {
	if (where != "") printf "%s: %s: %s\n", prog, where, msg | "cat 1>&2"
	else if (FNR) printf "%s: %s:%d: %s\n", prog, FILENAME, FNR, msg | "cat 1>&2"
	else printf "%s: %s: %s\n", prog, FILENAME, msg | "cat 1>&2"
	failed = 1
	exit 1
}

# Hex digits to a number; at most 8 digits, so exact in awk's doubles.
function hexval(s,    i, v, d) {
	v = 0
	for (i = 1; i <= length(s); i++) {
		d = index("0123456789abcdef", substr(s, i, 1))
		if (d == 0) return -1
		v = v * 16 + d - 1
	}
	return v
}

# "0x2B" -> "0x2b", zero-padded to w digits, so that text order (a plain
# C-locale sort) is numeric order.
function hexnorm(s, w,    d) {
	d = tolower(s)
	if (d !~ /^0x[0-9a-f]+$/) die("bad hex value \"" s "\"")
	d = substr(d, 3)
	sub(/^0+/, "", d)
	if (length(d) > w) die("hex value \"" s "\" wider than " w " digits")
	while (length(d) < w) d = "0" d
	return "0x" d
}

# What a data file holds, from its name: "decoders/tables/nv_esc.tsv" -> "nv_esc".
function file_table(path) {
	sub(/^.*\//, "", path)
	sub(/\.tsv$/, "", path)
	return path
}

# A "#Tag <tag>" line ($0): one per file (ftag, which the program empties
# at each file's first line), the same in every file (tag, first given in
# tagfile).
function tag_line(    v) {
	v = substr($0, 6)
	if (v == "" || v ~ /[\t ]/) die("bad #Tag line")
	if (ftag != "") die("second #Tag line")
	ftag = v
	if (tag == "") { tag = v; tagfile = FILENAME }
	else if (v != tag) die("tag " v " differs from " tag " in " tagfile)
}

END { if (failed) exit 1 }
