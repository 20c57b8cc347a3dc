# SPDX-License-Identifier: MIT
#
# gen-pyabi.awk: turn the CPython layout facts in capture/python/pyabi/*.tsv into one
# C file of data (on stdout), read by capture/python/pyabi.c:
#
#   awk -f capture/python/pyabi/gen-pyabi.awk capture/python/pyabi.h capture/python/pyabi/*.tsv > build/pyabi_data.c
#
# Inputs, recognised by file name:
#
#   pyabi.h                  struct ct_pyabi: the field names every table must give
#   cpython-3.N.tsv          field  value  header  member  tag
#                            one row per ct_pyabi field; value a number or "none"
#   debug-offsets-3.N.tsv    field  position  member  tag
#                            where a field's uint64 lies in _Py_DebugOffsets, plus
#                            the rows sizeof, cookie_text, version_hex, cookie,
#                            version, free_threaded and <struct>_size (the size of
#                            the struct a field's offset is inside: tstate_next ->
#                            tstate_size)
#
# A field whose member in cpython-3.N.tsv is "sizeof(...)" is a size, not
# an offset: from a process it may equal its struct's size, not just be
# below it.
#
# Every check fails the build with a message on stderr and nothing on
# stdout: a field missing, repeated or unknown, a value that is not a
# number, a position not 8-aligned or past sizeof, a debug-offsets file
# without the per-version table of its minor.  The version range a
# PY_VERSION_HEX must fall in (3.N.anything) is computed here, so that no
# CPython number is written in C.
#
# Plain POSIX awk (mawk is the awk of minimal Debian).

BEGIN {
	FS = "\t"
	NONE = 4294967295
	meta["sizeof"] = meta["cookie_text"] = meta["version_hex"] = 1
	meta["cookie"] = meta["version"] = meta["free_threaded"] = 1
}

function die(msg) {
	if (where != "") printf "gen-pyabi: %s: %s\n", where, msg | "cat 1>&2"
	else printf "gen-pyabi: %s:%d: %s\n", FILENAME, FNR, msg | "cat 1>&2"
	failed = 1
	exit 1
}
function is_num(s) { return s ~ /^[0-9]+$/ && length(s) <= 10 && s + 0 < NONE }
# The struct whose size bounds field f: the name's first word ("tstate").
function owner(f) { return substr(f, 1, index(f, "_") - 1) }

FNR == 1 {
	file = FILENAME
	sub(/^.*\//, "", file)
	kind = ""
	minor = ""
	if (file == "pyabi.h") kind = "h"
	else if (file ~ /^cpython-3\.[0-9]+\.tsv$/) kind = "t"
	else if (file ~ /^debug-offsets-3\.[0-9]+\.tsv$/) kind = "d"
	else die("not an input this script knows (pyabi.h, cpython-3.N.tsv, debug-offsets-3.N.tsv)")
	if (kind != "h") {
		minor = file
		sub(/^[a-z-]*3\./, "", minor)
		sub(/\.tsv$/, "", minor)
		if ((kind, minor) in seen) die("given twice")
		seen[kind, minor] = 1
	}
	if (kind == "t") tminor[++nt] = minor
	if (kind == "d") dminor[++nd] = minor
}

kind == "h" {
	if ($0 ~ /^struct ct_pyabi \{/) { in_struct = 1; next }
	if (in_struct && $0 ~ /^\};/) { in_struct = 0; next }
	if (in_struct && $0 ~ /^[ \t]*uint32_t [a-z_]+;/) {
		f = $0
		sub(/^[ \t]*uint32_t /, "", f)
		sub(/;.*$/, "", f)
		fields[++nfields] = f
		is_field[f] = 1
	}
	next
}

/^#/ || /^[ \t]*$/ { next }

kind == "t" {
	if (!nfields) die("capture/python/pyabi.h must come first (it names the fields)")
	if (NF != 5) die("expected 5 columns (field value header member tag), got " NF)
	if (!($1 in is_field)) die("\"" $1 "\" is not a field of struct ct_pyabi")
	if ((minor, $1) in tval) die("second row for " $1)
	if ($2 != "none" && !is_num($2)) die($1 ": value \"" $2 "\" is neither a number nor none")
	if ($3 !~ /^Include\// || $5 !~ /^v3\.[0-9]+\.[0-9]+/) die($1 ": no header or tag for the value")
	tval[minor, $1] = $2
	tsizeof[minor, $1] = $4 ~ /^sizeof\(/
	if (!(minor in ttag)) ttag[minor] = $5
	next
}

kind == "d" {
	if (NF != 4) die("expected 4 columns (field position member tag), got " NF)
	if ((minor, $1) in dpos) die("second row for " $1)
	if ($1 == "cookie_text") {
		if ($2 !~ /^[a-z]+$/ || length($2) != 8) die("cookie \"" $2 "\" is not 8 lower-case letters")
	} else {
		if (!is_num($2)) die($1 ": position \"" $2 "\" is not a number")
		if (!($1 in meta) && !($1 in is_field) && $1 !~ /^[a-z]+_size$/)
			die("\"" $1 "\" is neither a field of struct ct_pyabi nor a sizeof/cookie/version row")
		if ($1 in is_field) dfield[minor, ++dn[minor]] = $1
	}
	dpos[minor, $1] = $2
	if (!(minor in dtag)) dtag[minor] = $4
	next
}

END {
	if (failed) exit 1
	where = "input"
	if (!nfields) die("no struct ct_pyabi fields found in capture/python/pyabi.h")
	if (!nt) die("no cpython-3.N.tsv given")
	for (i = 1; i <= nt; i++) {
		m = tminor[i]
		where = "cpython-3." m ".tsv"
		for (j = 1; j <= nfields; j++)
			if (!((m, fields[j]) in tval)) die("no row for " fields[j])
		if (tval[m, "minor"] != m) die("minor row says " tval[m, "minor"])
	}
	for (i = 1; i <= nd; i++) {
		m = dminor[i]
		where = "debug-offsets-3." m ".tsv"
		if (!(("t", m) in seen)) die("no cpython-3." m ".tsv for the fields _Py_DebugOffsets lacks")
		for (k in meta) if (!((m, k) in dpos)) die("no " k " row")
		size = dpos[m, "sizeof"] + 0
		lo = 3 * 16777216 + m * 65536
		v = dpos[m, "version_hex"] + 0
		if (v < lo || v > lo + 65535) die("version_hex " v " is not 3." m)
		for (k in meta) {
			if (k == "sizeof" || k == "cookie_text" || k == "version_hex") continue
			check_pos(m, k, size)
		}
		for (j = 1; j <= dn[m]; j++) {
			f = dfield[m, j]
			check_pos(m, f, size)
			if (!((m, owner(f) "_size") in dpos)) die(f ": no " owner(f) "_size row for its bounds check")
			check_pos(m, owner(f) "_size", size)
			if (tval[m, f] == "none") die(f ": the process would give it, but 3." m " has no such field")
		}
	}
	where = ""

	print "/* Generated by capture/python/pyabi/gen-pyabi.awk from the TSV files in capture/python/pyabi/; do not edit. */"
	print "/* Data only: capture/python/pyabi.c holds the code that reads it. */"
	print "#include <stddef.h>"
	print "#include \"pyabi.h\""
	print "#include \"pyabi_data.h\""
	print ""
	sort_minors(tminor, nt)
	print "/* In minor order. */"
	print "const struct ct_pyabi ct_pyabi_tab[] = {"
	for (i = 1; i <= nt; i++) {
		m = tminor[i]
		printf "\t{\t/* CPython %s (capture/python/pyabi/cpython-3.%s.tsv) */\n", ttag[m], m
		for (j = 1; j <= nfields; j++) {
			v = tval[m, fields[j]]
			printf "\t\t.%s = %s,\n", fields[j], v == "none" ? "CT_PY_NONE" : v "u"
		}
		print "\t},"
	}
	print "};"
	printf "const size_t ct_pyabi_tab_len = %d;\n\n", nt

	print "/* Every field by name, in struct order (tests, diagnostics). */"
	print "const struct ct_pyabi_field_name ct_pyabi_field_names[] = {"
	for (j = 1; j <= nfields; j++)
		printf "\t{ \"%s\", offsetof(struct ct_pyabi, %s) },\n", fields[j], fields[j]
	print "};"
	printf "const size_t ct_pyabi_field_names_len = %d;\n\n", nfields

	sort_minors(dminor, nd)
	for (i = 1; i <= nd; i++) {
		m = dminor[i]
		printf "/* _Py_DebugOffsets of CPython %s (capture/python/pyabi/debug-offsets-3.%s.tsv) */\n", dtag[m], m
		printf "static const struct ct_pyabi_dbg_field dbg_fields_3_%s[] = {\n", m
		for (j = 1; j <= dn[m]; j++) {
			f = dfield[m, j]
			printf "\t{ offsetof(struct ct_pyabi, %s), %su, %su, %d },\n", \
				f, dpos[m, f], dpos[m, owner(f) "_size"], tsizeof[m, f]
		}
		print "};"
	}
	print "const struct ct_pyabi_dbg_layout ct_pyabi_dbg_tab[] = {"
	for (i = 1; i <= nd; i++) {
		m = dminor[i]
		lo = 3 * 16777216 + m * 65536
		printf "\t{ %su, %su, \"%s\", %su, %su, 0x%08xu, 0x%08xu, %su,\n", m, dpos[m, "sizeof"], \
			dpos[m, "cookie_text"], dpos[m, "cookie"], dpos[m, "version"], lo, lo + 65535, \
			dpos[m, "free_threaded"]
		printf "\t  dbg_fields_3_%s, %d },\n", m, dn[m]
	}
	print "};"
	printf "const size_t ct_pyabi_dbg_tab_len = %d;\n", nd
}

function check_pos(m, k, size,    p) {
	p = dpos[m, k] + 0
	if (p % 8 != 0) die(k ": position " p " is not that of a uint64")
	if (p + 8 > size) die(k ": position " p " + 8 runs past sizeof " size)
}

# Insertion sort of a[1..n] by number.
function sort_minors(a, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]
		a[j + 1] = x
	}
}
