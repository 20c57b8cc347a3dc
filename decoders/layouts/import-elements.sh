#!/bin/sh
# SPDX-License-Identifier: MIT
#
# What one entry of a counted array holds, from NVIDIA's headers, into
# decoders/layouts/array_elems.tsv.
#
# ctrl_fields.tsv and alloc_fields.tsv give an array of more than 8 entries,
# or of 1-byte entries, as one bytes field (docs/LAYOUTS.md, "How the rows
# were made"): its entries are not known, so its count field could not cut
# it.  gen-layouts.awk -v list=arrays lists the arrays that have a count of
# entries beside them; for each, at every driver tag where one of its
# layouts is, this script asks the compilers what an entry is:
#
#   * clang -fdump-record-layouts of the params struct names the entry's
#     type as declared (NvU32[200] classList: NvU32), and of the entry its
#     members, nested structs opened (NV2080_CTRL_GPU_INFO: index, data);
#   * a program gcc builds prints offsetof and sizeof of each member, the
#     entry's sizeof, and the struct's sizeof and the array's offset and
#     size, which must equal the TSV files' (and the members' offsets,
#     clang's);
#   * kinds from the declared type, as for the control params (NvHandle
#     handle, NV_STATUS status, NvP64 and pointers ptr, NvBool bool,
#     NvU*/NvV*/unsigned/enum u, NvS*/int/char s, arrays and unions bytes),
#     then the name rules of 4-byte integers (status, class, handle, fd);
#     an entry of an array named classList, classes or *ClassList is a class.
#
# Tags in a row where an entry had the same layout make one drivers range.
# An entry with bit-fields or an unnamed member is left out (its array stays
# bytes), and so is an entry layout that covers no layout's whole drivers
# range (the entry changed inside it): both are listed on stderr.
#
# The struct of a control command or class at each tag is the one that
# shared/nvabi's versions/<tag>/ctrl_cmds.tsv or alloc_classes.tsv names
# (the TSV files keep one name over all tags; a few structs were renamed).
#
# Usage: decoders/layouts/import-elements.sh OPEN_GPU_KERNEL_MODULES [NVABI_DIR]
#   a clone of https://github.com/NVIDIA/open-gpu-kernel-modules (its .git,
#   or a bare repository) with the tags that ctrl_fields.tsv's #From lines
#   name, at the commits they name; NVABI_DIR defaults to ../shared/nvabi
#   relative to the repository root.  Needs git, clang, cc, awk.  KEEP_WORK=1
#   keeps the probes and the compilers' output (the folder is named on stderr).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/decoders/layouts
AWK=${AWK:-awk}
CLANG=${CLANG:-clang}
CC=${CC:-cc}
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: $0 OPEN_GPU_KERNEL_MODULES [NVABI_DIR]" >&2; exit 2; }
repo=$1
nvabi=${2:-$root/../shared/nvabi}
[ -d "$nvabi/versions" ] || { echo "import-elements: no $nvabi/versions" >&2; exit 1; }
[ -d "$repo/.git" ] && repo=$repo/.git
git --git-dir="$repo" rev-parse --git-dir >/dev/null 2>&1 ||
	{ echo "import-elements: $1 is not a git repository" >&2; exit 1; }
work=$(mktemp -d)
if [ -n "${KEEP_WORK:-}" ]; then   # to look at the probes
	echo "import-elements: work in $work" >&2
else
	trap 'rm -rf "$work"' EXIT
fi
inc=src/common/sdk/nvidia/inc
tab=$(printf '\t')

# The tags and commits, from the #From lines of the control and alloc files
# (the same tags), in version order.
for f in ctrl_fields alloc_fields; do
	sed -n 's/^#From open-gpu-kernel-modules \([^ ]*\) (commit \([0-9a-f]*\)).*/\1 \2/p' \
		"$out/$f.tsv" > "$work/$f.tags"
done
cmp -s "$work/ctrl_fields.tags" "$work/alloc_fields.tags" ||
	{ echo "import-elements: ctrl_fields.tsv and alloc_fields.tsv name different tags" >&2; exit 1; }
LC_ALL=C sort -t . -k 1,1n -k 2,2n -k 3,3n "$work/ctrl_fields.tags" > "$work/tags"
[ -s "$work/tags" ] || { echo "import-elements: no #From lines in ctrl_fields.tsv" >&2; exit 1; }
primary=$(sed -n 's/^#Tag //p' "$out/ctrl_fields.tsv")

# The arrays, by the generator's own rule (array_elems.tsv itself left out).
set --
for f in "$out"/*.tsv; do
	case $f in */array_elems.tsv) ;; *) set -- "$@" "$f";; esac
done
$AWK -v list=arrays -f "$out/../nvdata.awk" -f "$out/gen-layouts.awk" "$@" > "$work/arrays"
[ -s "$work/arrays" ] || { echo "import-elements: gen-layouts.awk listed no arrays" >&2; exit 1; }

# Helpers for the awk programs below.
AWKLIB='
function die(msg) {
	printf "import-elements: %s\n", msg | "cat 1>&2"
	failed = 1
	exit 1
}
function ver(s,    p, n) {
	n = split(s, p, ".")
	return p[1] * 1000000 + p[2] * 1000 + (n == 3 ? p[3] : 0)
}
# The name rules of 4-byte integers (import-nvabi.sh, docs/LAYOUTS.md).
function is_class(f)  { return f ~ /^(hClass|[a-z][A-Za-z0-9]*Class)$/ }
function is_handle(f) { return f ~ /^h[A-Z]/ }
function is_fd(f)     { return f == "fd" || f ~ /Fd$/ || f ~ /_fd$/ }
function is_status(f) { return f == "status" || f == "Status" || f == "rmStatus" }
# Display timings named h...: integers (docs/LAYOUTS.md, overrides).
function is_timing(f) {
	return f ~ /^h(Active|BackPorch|FrontPorch|SyncWidth|BlankSym|Slices|Total|BlankEnd|BlankStart|DeltaMax|DeltaStep|SyncEnd|Resolution|MaxResolution)$/
}
function int_kind(k, f, size) {
	if (size != 4 || (k != "u" && k != "s") || is_timing(f)) return k
	if (is_status(f)) return "status"
	if (is_class(f)) return "class"
	if (is_handle(f)) return "handle"
	if (is_fd(f)) return "fd"
	return k
}
# Kind of a member of declared type t (clang spells typedefs as declared).
function tkind(t, name, size,    k) {
	if (t ~ /\[/ || t ~ /^union /) return "bytes"
	if (t == "NvHandle") k = "handle"
	else if (t == "NV_STATUS") k = "status"
	else if (t == "NvBool") k = "bool"
	else if (t == "NvP64" || t ~ /\*$/) k = "ptr"
	else if (t ~ /^NvS(8|16|32|64)$/ || t ~ /^(signed )?(char|short|int|long|long long)$/) k = "s"
	else if (t ~ /^Nv[UV](8|16|32|64)$/ || t ~ /^unsigned( (char|short|int|long|long long))?$/ || t ~ /^enum /) k = "u"
	else die("no kind rule for type \"" t "\" (" name "); add one to tkind() in import-elements.sh")
	return int_kind(k, name, size)
}
function leaf(n) { sub(/.*[.]/, "", n); return n }
END { if (failed) exit 1 }
'

: > "$work/rows"
while read -r tag commit; do
	case "$tag$commit" in *[!A-Za-z0-9.]*)
		echo "import-elements: unexpected characters in tag $tag" >&2; exit 1;;
	esac
	have=$(git --git-dir="$repo" rev-parse -q --verify "refs/tags/$tag^{commit}" 2>/dev/null) ||
		{ echo "import-elements: no tag $tag in $repo" >&2; exit 1; }
	[ "$have" = "$commit" ] ||
		{ echo "import-elements: tag $tag is $have, ctrl_fields.tsv says $commit" >&2; exit 1; }
	# The arrays of the layouts in use at this tag, one line each, numbered:
	# N, struct (TSV name), array, size, offset, struct size, C type there.
	tv=$nvabi/versions/$tag
	[ -r "$tv/ctrl_cmds.tsv" ] && [ -r "$tv/alloc_classes.tsv" ] ||
		{ echo "import-elements: no $tv/ctrl_cmds.tsv or alloc_classes.tsv" >&2; exit 1; }
	$AWK -F '\t' -v tag="$tag" "$AWKLIB"'
	function hexkey(s) { s = tolower(s); sub(/^0x0*/, "", s); return s == "" ? "0" : s }
	FILENAME ~ /ctrl_cmds\.tsv$/ && !/^#/ { ty["control", hexkey($2)] = $6; sz["control", hexkey($2)] = $7; next }
	FILENAME ~ /alloc_classes\.tsv$/ && !/^#/ { ty["class", hexkey($2)] = $5; sz["class", hexkey($2)] = $6; next }
	FILENAME ~ /(ctrl_cmds|alloc_classes)\.tsv$/ { next }
	{
		p = index($6, "..")
		v = ver(tag)
		if (ver(substr($6, 1, p - 1)) > v || ver(substr($6, p + 2)) < v) next
		key = $7 SUBSEP hexkey($8)
		if (!(key in ty) || ty[key] !~ /^[A-Za-z_][A-Za-z0-9_]*$/)
			die(tag ": " $7 " " $8 " (" $1 "): no params struct in shared/nvabi")
		if (sz[key] != $5) die(tag ": " $7 " " $8 ": shared/nvabi says " sz[key] " bytes, the TSV files " $5)
		k = $1 "\t" $2
		if (k in seen) {
			if (seen[k] != $3 "\t" $4 "\t" $5 "\t" ty[key]) die(k " has two layouts at " tag)
			next
		}
		seen[k] = $3 "\t" $4 "\t" $5 "\t" ty[key]
		print ++n "\t" k "\t" seen[k]
	}' "$tv/ctrl_cmds.tsv" "$tv/alloc_classes.tsv" "$work/arrays" > "$work/cands"
	[ -s "$work/cands" ] || continue
	rm -rf "$work/src"
	git --git-dir="$repo" archive "$commit" "$inc" | tar -x -C "$work"
	# One translation unit, as ctrl_fields.tsv was made (docs/LAYOUTS.md).
	{
		echo '#include "nvtypes.h"'
		echo '#include "nvos.h"'
		(cd "$work/$inc" && for d in class ctrl alloc; do
			[ ! -d "$d" ] || find "$d" -name '*.h'
		done | LC_ALL=C sort) |
			sed 's/.*/#include "&"/'
	} > "$work/tu.h"
	# clang: the declared types.  ct_tN holds a params struct, ct_eN one
	# entry of an array; sizeof makes clang lay both out.
	$AWK -F '\t' '
	!($7 in t) { t[$7] = ++nt; printf "struct ct_t%d { %s t; };\n", nt, $7 }
	{ printf "struct ct_e%d { __typeof__(((%s *)0)->%s[0]) e; };\n", $1, $7, $3; n = $1 }
	END {
		printf "int ct_force[] = {"
		for (i = 1; i <= nt; i++) printf " sizeof(struct ct_t%d),", i
		for (i = 1; i <= n; i++) printf " sizeof(struct ct_e%d),", i
		print " 0 };"
	}' "$work/cands" > "$work/decls.h"
	printf '#include "tu.h"\n#include "decls.h"\n' > "$work/clang.c"
	$CLANG -fsyntax-only -w -I "$work/$inc" -I "$work" -Xclang -fdump-record-layouts \
		"$work/clang.c" > "$work/dump" ||
		{ echo "import-elements: clang failed at $tag" >&2; exit 1; }
	# The dump -> each entry's leaves: N, path ("-" for a scalar entry),
	# declared type, clang's offset; or N, "!", why it is left out.
	$AWK -F '\t' "$AWKLIB"'
	FILENAME ~ /cands$/ { st[$1] = $7; arr[$1] = $3; if (!($7 in tn)) tn[$7] = ++nt; n = $1; next }
	/^\*\*\* Dumping AST Record Layout/ { blk = ""; next }
	{
		bar = index($0, "|")
		if (!bar) next
		off = substr($0, 1, bar - 1); gsub(/ /, "", off)
		rest = substr($0, bar + 2)
		ind = match(rest, /[^ ]/) - 1
		txt = substr(rest, ind + 1)
		d = ind / 2
		if (d == 0) {
			blk = ""
			if (txt ~ /^struct ct_[te][0-9]+$/) { blk = substr(txt, 11); nl[blk] = 0 }
			next
		}
		if (blk == "" || off == "") next
		i = ++nl[blk]
		L[blk, i] = d SUBSEP off SUBSEP txt
	}
	function split_line(s,    p) {
		split(s, p, SUBSEP)
		ld = p[1] + 0; loff = p[2]; ltxt = p[3]
		lname = ltxt; sub(/.* /, "", lname)
		ltype = substr(ltxt, 1, length(ltxt) - length(lname) - 1)
	}
	END {
		if (failed) exit 1
		for (k = 1; k <= n; k++) {
			b = "t" tn[st[k]]
			# The array as declared in the params struct: its entry type.
			ptype = ""
			delete path
			for (i = 1; i <= nl[b]; i++) {
				split_line(L[b, i])
				path[ld] = lname
				full = ""
				for (j = 2; j <= ld; j++) full = full (j > 2 ? "." : "") path[j]
				if (full == arr[k]) { ptype = ltype; break }
			}
			if (ptype == "" || ptype !~ /\[[0-9]+\]/) { print k "\t!\tno array " arr[k] " in the dump of " st[k]; continue }
			etype = ptype; sub(/\[[0-9]+\]/, "", etype)
			b = "e" k
			if (nl[b] < 1) { print k "\t!\tno dump of its entry"; continue }
			split_line(L[b, 1])
			if (ltype ~ /^union /) { print k "\t-\t" ltype "\t0"; continue }
			if (ltype !~ /^struct /) { print k "\t-\t" etype "\t0"; continue }
			bad = ""; m = 0; skip = 0
			delete path
			for (i = 2; i <= nl[b]; i++) {
				split_line(L[b, i])
				if (skip && ld > skip) continue
				skip = 0
				if (loff !~ /^[0-9]+$/) { bad = "a bit-field"; break }
				if (lname ~ /\)$/) { bad = "an unnamed member"; break }
				path[ld] = lname
				full = ""
				for (j = 2; j <= ld; j++) full = full (j > 2 ? "." : "") path[j]
				if (ltype ~ /^struct / && ltype !~ /\[/) continue   # opened below
				leafs[++m] = full "\t" ltype "\t" loff
				skip = ld                                   # a union or array: one leaf
			}
			if (bad != "") { print k "\t!\t" bad " in its entry"; continue }
			if (m == 0) { print k "\t!\tno members in its entry"; continue }
			for (i = 1; i <= m; i++) print k "\t" leafs[i]
		}
	}' "$work/cands" "$work/dump" > "$work/leaves"
	# gcc: the numbers.
	{
		printf '#include <stddef.h>\n#include <stdio.h>\n#include "tu.h"\n#include "decls.h"\n'
		printf 'int main(void)\n{\n'
		$AWK -F '\t' '
		FILENAME ~ /cands$/ { st[$1] = $7; arr[$1] = $3; next }
		$2 == "!" { next }
		!($1 in done) {
			done[$1] = 1
			printf "\tprintf(\"S\\t%d\\t%%zu\\t%%zu\\t%%zu\\t%%zu\\n\", sizeof(%s), offsetof(%s, %s), sizeof(((%s *)0)->%s), sizeof(((%s *)0)->%s[0]));\n", \
				$1, st[$1], st[$1], arr[$1], st[$1], arr[$1], st[$1], arr[$1]
		}
		$2 == "-" { next }
		{
			printf "\tprintf(\"M\\t%d\\t%s\\t%%zu\\t%%zu\\n\", offsetof(struct ct_e%d, e.%s), sizeof(((struct ct_e%d *)0)->e.%s));\n", \
				$1, $2, $1, $2, $1, $2
		}' "$work/cands" "$work/leaves"
		printf '\treturn 0;\n}\n'
	} > "$work/gcc.c"
	$CC -w -I "$work/$inc" -I "$work" -o "$work/probe" "$work/gcc.c" ||
		{ echo "import-elements: the probe did not build at $tag" >&2; exit 1; }
	"$work/probe" > "$work/nums"
	# Join, check, and write this tag's rows: struct, array, entry size,
	# member, offset, size, kind, tag.
	$AWK -F '\t' -v tag="$tag" "$AWKLIB"'
	FILENAME ~ /cands$/ { st[$1] = $2; arr[$1] = $3; asz[$1] = $4; aoff[$1] = $5; ssz[$1] = $6; next }
	FILENAME ~ /nums$/ {
		if ($1 == "S") { S[$2] = $3 "\t" $4 "\t" $5; esz[$2] = $6 }
		else { moff[$2, $3] = $4; msz[$2, $3] = $5 }
		next
	}
	$2 == "!" { printf "import-elements: %s: %s.%s: %s: left out\n", tag, st[$1], arr[$1], $3 | "cat 1>&2"; next }
	{
		k = $1
		if (S[k] != ssz[k] "\t" aoff[k] "\t" asz[k])
			die(tag ": " st[k] "." arr[k] ": sizeof, offset, size " S[k] " but the TSV files say " ssz[k] ", " aoff[k] ", " asz[k])
		if (!esz[k] || asz[k] % esz[k]) die(tag ": " st[k] "." arr[k] ": entries of " esz[k] " bytes")
		if ($2 == "-") {
			kd = tkind($3, leaf(arr[k]), esz[k])
			if (kd == "u" && esz[k] == 4 && leaf(arr[k]) ~ /^(classList|classes|[a-z][A-Za-z0-9]*ClassList)$/) kd = "class"
			print st[k] "\t" arr[k] "\t" esz[k] "\t-\t0\t" esz[k] "\t" kd "\t" tag
			next
		}
		if (!((k, $2) in moff)) die(tag ": " st[k] "." arr[k] ": gcc gave no offset of " $2)
		if (moff[k, $2] != $4) die(tag ": " st[k] "." arr[k] "." $2 ": clang says offset " $4 ", gcc " moff[k, $2])
		kd = tkind($3, leaf($2), msz[k, $2])
		if (kd == "bool" && msz[k, $2] != 1) kd = "u"
		print st[k] "\t" arr[k] "\t" esz[k] "\t" $2 "\t" moff[k, $2] "\t" msz[k, $2] "\t" kd "\t" tag
	}' "$work/cands" "$work/nums" "$work/leaves" >> "$work/rows"
	echo "import-elements: $tag: $(cut -f 1 "$work/cands" | wc -l) arrays" >&2
done < "$work/tags"

# Tags in a row (version order) with the same entry layout: one range.
# Kept only where the range holds a whole layout's range.
$AWK -F '\t' "$AWKLIB"'
FILENAME ~ /tags$/ { split($0, w, " "); order[++nt] = w[1]; next }
FILENAME ~ /arrays$/ {
	p = index($6, "..")
	k = $1 SUBSEP $2
	nlay[k]++
	lsince[k, nlay[k]] = ver(substr($6, 1, p - 1)); luntil[k, nlay[k]] = ver(substr($6, p + 2))
	lname[k, nlay[k]] = $1 "." $2 " (" $6 ")"
	next
}
{
	k = $1 SUBSEP $2
	if (!(k in keys)) { keys[k] = 1; kl[++nk] = k }
	sig[k, $8] = sig[k, $8] $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\n"
	at[k, $8] = 1
}
END {
	if (failed) exit 1
	for (q = 1; q <= nk; q++) {
		k = kl[q]
		split(k, kp, SUBSEP)
		r = 0
		for (i = 1; i <= nt; i++) {
			t = order[i]
			if (!((k, t) in at)) { open = 0; continue }
			if (open && sig[k, t] == rsig[r]) { rlast[r] = t; continue }
			r++; rsig[r] = sig[k, t]; rfirst[r] = t; rlast[r] = t; open = 1
		}
		open = 0
		for (j = 1; j <= r; j++) {
			used = 0
			for (i = 1; i <= nlay[k]; i++)
				if (ver(rfirst[j]) <= lsince[k, i] && luntil[k, i] <= ver(rlast[j])) { used = 1; covered[k, i] = 1 }
			if (!used) continue
			n = split(rsig[j], rows, "\n")
			for (i = 1; i < n; i++)
				print kp[1] "\t" kp[2] "\t" rows[i] "\t" rfirst[j] ".." rlast[j]
		}
		for (i = 1; i <= nlay[k]; i++)
			if (!covered[k, i]) printf "import-elements: %s: no one entry layout over its range: left out\n", lname[k, i] | "cat 1>&2"
	}
}' "$work/tags" "$work/arrays" "$work/rows" > "$work/merged"

tmp=$out/.array_elems.tsv.tmp
{
	while read -r tag commit; do
		printf '#From open-gpu-kernel-modules %s (commit %s) %s/ctrl/**/*.h, alloc/*.h, class/*.h (clang -fdump-record-layouts, gcc offsetof/sizeof)\n' \
			"$tag" "$commit" "$inc"
	done < "$work/tags"
	echo '#Generated by decoders/layouts/import-elements.sh from the headers at those tags; do not edit by hand'
	printf '#Tag %s\n' "$primary"
	printf '#struct_name%sarray%selem_size%smember%soffset%ssize%skind%sdrivers\n' \
		"$tab" "$tab" "$tab" "$tab" "$tab" "$tab" "$tab"
	LC_ALL=C sort -t "$tab" -k 1,1 -k 2,2 -k 8,8 -k 5,5n "$work/merged"
} > "$tmp"
mv "$tmp" "$out/array_elems.tsv"
echo "import-elements: array_elems.tsv: $(grep -v '^#' "$out/array_elems.tsv" | cut -f 1,2,8 | LC_ALL=C sort -u | wc -l) entry layouts, $(grep -c -v '^#' "$out/array_elems.tsv") rows" >&2
