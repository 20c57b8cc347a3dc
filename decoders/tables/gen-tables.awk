# SPDX-License-Identifier: MIT
#
# gen-tables.awk: turn the value->name tables in decoders/tables/*.tsv into
# one C file of data (on stdout): the sorted arrays <table>_tab[] and
# <table>_tab_len that decoders/tables/nvtables.c searches, and nv_tables_tag:
#
#   awk -f decoders/tables/gen-tables.awk decoders/tables/*.tsv > build/nvtables_data.c
#
# Each input is recognised by its file name (nv_esc.tsv, nv_ctrl.tsv,
# nv_class.tsv, nv_status.tsv, uvm_ioctl.tsv); all five must be given.
# Rows are tab-separated, '#' lines are comments, "#Tag <tag>" names the
# driver tag.  Any malformed row, duplicate key, unknown file or missing
# table is an error: a message on stderr, exit status 1, nothing on stdout.
#
# Plain POSIX awk (mawk is the awk of minimal Debian): no strtonum, asort or
# regex intervals, so hex is parsed by hand and the sort is our own.

BEGIN {
	FS = "\t"
	ntables = split("nv_esc nv_ctrl nv_class nv_status uvm_ioctl", tables, " ")
	# Per table: C struct, and the columns after the key:
	# S = required string, s = string or '-' (NULL), n = uint32 decimal.
	ctype["nv_esc"] = "nv_esc_info";       cols["nv_esc"] = "Ssn"
	ctype["nv_ctrl"] = "nv_ctrl_info";     cols["nv_ctrl"] = "Ssn"
	ctype["nv_class"] = "nv_class_info";   cols["nv_class"] = "Ssn"
	ctype["nv_status"] = "nv_status_info"; cols["nv_status"] = "SS"
	ctype["uvm_ioctl"] = "uvm_ioctl_info"; cols["uvm_ioctl"] = "Ssn"
	for (i = 1; i <= ntables; i++) known[tables[i]] = 1
	# Control characters, which have no place in a name or message.
	for (i = 1; i < 32; i++) ctl = ctl sprintf("%c", i)
	ctl = ctl sprintf("%c", 127)
}

function die(msg) {
	if (FNR) printf "gen-tables.awk: %s:%d: %s\n", FILENAME, FNR, msg | "cat 1>&2"
	else printf "gen-tables.awk: %s: %s\n", FILENAME, msg | "cat 1>&2"
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

# A C string literal.  '?' is escaped too, so that no "??x" trigraph can form.
function cstr(s,    i, c, out) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\\" || c == "\"" || c == "?") out = out "\\" c
		else if (index(ctl, c)) die("control character in \"" s "\"")
		else out = out c
	}
	return "\"" out "\""
}

FNR == 1 {
	t = FILENAME
	sub(/^.*\//, "", t)
	sub(/\.tsv$/, "", t)
	if (!(t in known)) die("unknown table file (expected one of: nv_esc nv_ctrl nv_class nv_status uvm_ioctl .tsv)")
	if (t in seen_file) die("table given twice")
	seen_file[t] = 1
	ftag = ""
}

/^#Tag / {
	v = substr($0, 6)
	if (v == "" || v ~ /[\t ]/) die("bad #Tag line")
	if (ftag != "") die("second #Tag line")
	ftag = v
	if (tag == "") { tag = v; tagfile = FILENAME }
	else if (v != tag) die("tag " v " differs from " tag " in " tagfile)
	next
}

/^#/ { next }

{
	spec = cols[t]
	if (NF != length(spec) + 1) die("expected " (length(spec) + 1) " tab-separated fields, got " NF)
	if (ftag == "") die("data row before the #Tag line")

	k = tolower($1)
	if (k !~ /^0x[0-9a-f]+$/ || length(k) > 10) die("bad key \"" $1 "\" (want 0x + 1..8 hex digits)")
	kv = hexval(substr(k, 3))
	# Duplicates are found by the canonical hex text, not by kv: awk turns
	# numbers above 2^31 into "%.6g" text when they are used as array subscripts.
	ks = substr(k, 3)
	sub(/^0+/, "", ks)
	if ((t, ks) in line_of) die("duplicate key " $1 " (first at line " line_of[t, ks] ")")
	line_of[t, ks] = FNR

	init = k "u"
	for (c = 1; c <= length(spec); c++) {
		f = $(c + 1)
		ty = substr(spec, c, 1)
		if (ty == "n") {
			if (f !~ /^[0-9]+$/ || length(f) > 10 || f + 0 > 4294967295)
				die("bad number \"" f "\" in column " (c + 1))
			sub(/^0+/, "", f)
			init = init ", " (f == "" ? 0 : f) "u"
		} else if (f == "" || (ty == "S" && f == "-")) {
			die("empty column " (c + 1))
		} else {
			init = init ", " (f == "-" ? "NULL" : cstr(f))
		}
	}
	n = ++count[t]
	key[t, n] = kv
	row[t, n] = init
}

# Insertion sort of row numbers by key: the imported files are already
# sorted, which makes this linear in the usual case.
function sort_table(t,    i, j, n, x) {
	n = count[t]
	for (i = 1; i <= n; i++) ord[i] = i
	for (i = 2; i <= n; i++) {
		x = ord[i]
		for (j = i - 1; j >= 1 && key[t, ord[j]] > key[t, x]; j--)
			ord[j + 1] = ord[j]
		ord[j + 1] = x
	}
}

function emit_table(t,    i) {
	sort_table(t)
	printf "const struct %s %s_tab[] = {\n", ctype[t], t
	for (i = 1; i <= count[t]; i++)
		printf "\t{ %s },\n", row[t, ord[i]]
	printf "};\n"
	printf "const size_t %s_tab_len = sizeof(%s_tab) / sizeof(%s_tab[0]);\n", t, t, t
	printf "_Static_assert(offsetof(struct %s, %s) == 0, \"key must be the first member\");\n\n", \
		ctype[t], (t == "nv_esc") ? "nr" : (t == "nv_class") ? "id" : (t == "nv_status") ? "code" : "cmd"
}

END {
	if (failed) exit 1
	FNR = 0
	for (i = 1; i <= ntables; i++)
		if (!(tables[i] in seen_file)) { FILENAME = tables[i] ".tsv"; die("table file not given") }
		else if (count[tables[i]] == 0) { FILENAME = tables[i] ".tsv"; die("table has no rows") }

	print "/* Generated by decoders/tables/gen-tables.awk from the TSV files in decoders/tables/; do not edit. */"
	print "/* Data only: decoders/tables/nvtables.c holds the code that searches it. */"
	print "#include <stddef.h>"
	print "#include \"nvtables.h\""
	print ""
	printf "const char nv_tables_tag[] = %s;\n\n", cstr(tag)
	for (i = 1; i <= ntables; i++)
		emit_table(tables[i])
}
