#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Import the field layouts of the driver's ioctl parameter structs from the
# facts extracted out of NVIDIA's open-gpu-kernel-modules (shared/nvabi, see
# its README.md) into this project's own data files:
#
#   decoders/layouts/escape_fields.tsv   NV_ESC_* ('F' ioctl nr) param structs
#   decoders/layouts/uvm_fields.tsv      /dev/nvidia-uvm params structs
#
# One row per field: key (escape nr or UVM request), struct name, struct
# size, field, offset, size, kind, and the range of driver tags in which the
# struct had exactly this layout.  The decoder matches on key AND size (as
# envytools demmt does), so every size a struct has had in any tag of
# shared/nvabi gets its own row set; a size not listed falls back to a hex
# dump.  Those files are committed; gen-layouts.awk turns them into C at
# build time, so building needs neither this script nor shared/nvabi.
#
# Usage: decoders/layouts/import-nvabi.sh [NVABI_DIR]
#   NVABI_DIR defaults to ../shared/nvabi relative to the repository root.
#   Its top-level tables are the primary tag; versions/<tag>/ adds the others.
#
# POSIX sh + awk + sort only (runs with mawk: no gawk extensions).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
src=${1:-$root/../shared/nvabi}
src=$(cd "$src" && pwd) || { echo "import-nvabi: no such directory: $src" >&2; exit 1; }
out=$root/decoders/layouts
AWK=${AWK:-awk}
rows_tmp=$out/.rows.tmp
trap 'rm -f "$rows_tmp" "$out"/.*.tsv.tmp' EXIT

for f in summary.txt nv_esc.tsv struct_layouts.tsv uvm_ioctls.tsv; do
	[ -r "$src/$f" ] || { echo "import-nvabi: missing $src/$f" >&2; exit 1; }
done

summary() {	# $1 = dir, $2 = key
	$AWK -F '\t' -v k="$2" '$1 == k { print $2 }' "$1/summary.txt"
}
tag=$(summary "$src" tag)
commit=$(summary "$src" commit)
[ -n "$tag" ] && [ -n "$commit" ] ||
	{ echo "import-nvabi: no tag/commit in $src/summary.txt" >&2; exit 1; }
uvm_txt=$src/uvm_layouts_$tag.txt
[ -r "$uvm_txt" ] || { echo "import-nvabi: missing $uvm_txt" >&2; exit 1; }

# The primary tag first: where two tags name the same layout differently,
# the first name seen is kept.  Each tag's files come after "tag=" and
# "commit=" operands, which awk assigns as it reaches them.
esc_args="tag=$tag commit=$commit $src/struct_layouts.tsv $src/nv_esc.tsv"
from="#From open-gpu-kernel-modules $tag (commit $commit)"
if [ -d "$src/versions" ]; then
	# In version order, so that the #From lines read in order.
	for v in $(ls -1 "$src/versions" | LC_ALL=C sort -t . -k 1,1n -k 2,2n -k 3,3n); do
		d=$src/versions/$v
		[ -d "$d" ] || continue
		t=$(summary "$d" tag)
		c=$(summary "$d" commit)
		[ -n "$t" ] && [ -n "$c" ] ||
			{ echo "import-nvabi: no tag/commit in $d/summary.txt" >&2; exit 1; }
		[ "$t" = "$tag" ] && continue
		case "$t$c$d" in *[!A-Za-z0-9._/+-]*)
			echo "import-nvabi: unexpected characters in $d" >&2; exit 1;;
		esac
		for f in struct_layouts.tsv nv_esc.tsv; do
			[ -r "$d/$f" ] || { echo "import-nvabi: missing $d/$f" >&2; exit 1; }
		done
		esc_args="$esc_args tag=$t commit=$c $d/struct_layouts.tsv $d/nv_esc.tsv"
		from="$from
#From open-gpu-kernel-modules $t (commit $c)"
	done
fi
case "$src" in *[!A-Za-z0-9._/+-]*)
	echo "import-nvabi: unexpected characters in $src" >&2; exit 1;;
esac

# Helpers shared by both awk programs below, including the kind inference
# rules.  Kinds: u s handle status ptr bool uuid fd class bytes (see
# docs/LAYOUTS.md).
AWKLIB='
# In END there is no current line: "where" says what was being checked.
function die(msg) {
	if (where != "") printf "import-nvabi: %s: %s\n", where, msg | "cat 1>&2"
	else printf "import-nvabi: %s:%d: %s\n", FILENAME, FNR, msg | "cat 1>&2"
	failed = 1
	exit 1
}
# "0x2B" -> "0x2b", zero-padded to w digits, so that text order is numeric order.
function hexnorm(s, w,    d) {
	d = tolower(s)
	if (d !~ /^0x[0-9a-f]+$/) die("bad hex value \"" s "\"")
	d = substr(d, 3)
	sub(/^0+/, "", d)
	if (length(d) > w) die("hex value \"" s "\" wider than " w " digits")
	while (length(d) < w) d = "0" d
	return "0x" d
}
# Driver tag -> major*1000000 + minor*1000 + patch, for ordering tags.
function ver(s,    p, n, i) {
	n = split(s, p, ".")
	if (n < 2 || n > 3) die("bad driver tag \"" s "\"")
	for (i = 1; i <= n; i++)
		if (p[i] !~ /^[0-9]+$/ || (i > 1 && p[i] + 0 > 999)) die("bad driver tag \"" s "\"")
	return p[1] * 1000000 + p[2] * 1000 + (n == 3 ? p[3] : 0)
}
# Name rules, applied to 4-byte integers only.
function is_class(f)  { return f ~ /^(hClass|[a-z][A-Za-z0-9]*Class)$/ }
function is_handle(f) { return f ~ /^h[A-Z]/ }
function is_fd(f)     { return f == "fd" || f ~ /Fd$/ || f ~ /_fd$/ }
function is_status(f) { return f == "status" || f == "Status" || f == "rmStatus" }
# NvP64 user pointers (p*, ph*, *Ptr, ptr, NVOS54 params), 8 bytes only.
function is_ptr(f)    { return f ~ /^ph?[A-Z]/ || f ~ /Ptr$/ || f == "ptr" || f == "params" }
function int_kind(k, f, size) {
	if (size != 4 || (k != "u" && k != "s")) return k
	if (is_status(f)) return "status"
	if (is_class(f)) return "class"
	if (is_handle(f)) return "handle"
	if (is_fd(f)) return "fd"
	return k
}
END { if (failed) exit 1 }
'

# Write one file: $1 = output name, $2 = the #From lines, $3 = column
# names; the rows (sort key TAB row) are in $rows_tmp.
emit() {
	tmp=$out/.$1.tmp
	{
		printf '%s\n' "$2"
		echo '#Generated by decoders/layouts/import-nvabi.sh from shared/nvabi; do not edit by hand'
		printf '#Tag %s\n' "$tag"
		printf '#%s\n' "$3"
		LC_ALL=C sort "$rows_tmp" | cut -f 2-
	} > "$tmp"
	rows=$(grep -c -v '^#' "$tmp" || true)
	[ "$rows" -gt 0 ] || { echo "import-nvabi: $1: no rows" >&2; rm -f "$tmp"; exit 1; }
	layouts=$(grep -v '^#' "$tmp" | cut -f 1,2,3,8 | LC_ALL=C sort -u | wc -l)
	mv "$tmp" "$out/$1"
	rm -f "$rows_tmp"
	echo "import-nvabi: $1: $layouts layouts, $rows fields"
}

tab=$(printf '\t')
cols="struct_name${tab}struct_size${tab}field${tab}offset${tab}size${tab}kind${tab}drivers"
esc_headers="src/nvidia/arch/nvalloc/unix/include/nv_escape.h src/common/sdk/nvidia/inc/nvos.h src/common/sdk/nvidia/inc/rs_access.h src/nvidia/arch/nvalloc/unix/include/nv-unix-nvos-params-wrappers.h src/nvidia/arch/nvalloc/unix/include/nv-ioctl-lockless-diag.h kernel-open/common/inc/nv-ioctl.h kernel-open/common/inc/nv-ioctl-numbers.h kernel-open/common/inc/nv-ioctl-numa.h"

# --- NV_ESC_* param structs ---------------------------------------------------
# struct_layouts.tsv has offsets and sizes but no types, so the kind of each
# field is inferred from its name and size (rules in ekind()); a member that
# is itself a struct is flattened into "outer.inner" fields.  Every tag is
# read; a layout is keyed by (nr, size, fields) and remembers the first and
# last tag it was seen in.
# shellcheck disable=SC2086  # $esc_args is a word list on purpose
$AWK -F '\t' "$AWKLIB"'
BEGIN {
	# Struct-typed members (struct_layouts.tsv has no types): flattened.
	nested["nv_ioctl_nvos02_parameters_with_fd.params"] = "NVOS02_PARAMETERS"
	nested["nv_ioctl_nvos33_parameters_with_fd.params"] = "NVOS33_PARAMETERS"
	nested["NVOS57_PARAMETERS.sharePolicy"] = "RS_SHARE_POLICY"
	nested["RS_SHARE_POLICY.accessMask"] = "RS_ACCESS_MASK"
	nested["nv_ioctl_card_info_t.pci_info"] = "nv_pci_info_t"
	nested["nv_ioctl_numa_info_t.offline_addresses"] = "nv_offline_addresses_t"
	# Fields the name rules would get wrong (types read in the headers).
	override["nv_ioctl_numa_info_t.nid"] = "s"                   # int32_t
	override["nv_ioctl_numa_info_t.status"] = "s"                # NV_IOCTL_NUMA_STATUS_*, not NV_STATUS
	override["nv_ioctl_set_numa_status_t.status"] = "s"          # ditto
	override["nv_ioctl_wait_open_complete_t.rc"] = "s"           # int
	override["nv_ioctl_wait_open_complete_t.adapterStatus"] = "status"
	override["nv_ioctl_card_info_t.valid"] = "bool"              # NvBool
	override["nv_ioctl_numa_info_t.use_auto_online"] = "bool"    # NvBool
}
function ekind(st, f, size,    k) {
	if ((st "." f) in override) return override[st "." f]
	if (size > 8) return "bytes"                 # arrays, unions
	if (size == 8 && is_ptr(f)) return "ptr"
	if (size == 1 && f ~ /^b[A-Z]/) return "bool"
	if (size == 4) return int_kind("u", f, size)
	if (size == 1 || size == 2 || size == 8) return "u"
	return "bytes"
}
# Appends the leaves of struct st (at tag t) to lname/loff/lsize/lkind.
function flatten(t, st, prefix, base,    i, f, sub_st, full) {
	for (i = 1; i <= nf[t, st]; i++) {
		f = fname[t, st, i]
		full = prefix f
		if ((st "." f) in nested) {
			sub_st = nested[st "." f]
			if (!((t, sub_st) in sizeof)) die("tag " t ": no layout for " sub_st " (" st "." f ")")
			if (sizeof[t, sub_st] != fsize[t, st, i])
				die("tag " t ": " st "." f " is " fsize[t, st, i] " bytes, " sub_st " is " sizeof[t, sub_st])
			# A wrapper of one member (RS_ACCESS_MASK.limbs) keeps the outer name.
			if (nf[t, sub_st] == 1 && foff[t, sub_st, 1] == 0 && fsize[t, sub_st, 1] == fsize[t, st, i]) {
				leaf(full, base + foff[t, st, i], fsize[t, st, i], ekind(sub_st, fname[t, sub_st, 1], fsize[t, st, i]))
			} else {
				flatten(t, sub_st, full ".", base + foff[t, st, i])
			}
		} else {
			leaf(full, base + foff[t, st, i], fsize[t, st, i], ekind(st, f, fsize[t, st, i]))
		}
	}
}
function leaf(name, off, size, kind) {
	nl++
	lname[nl] = name; loff[nl] = off; lsize[nl] = size; lkind[nl] = kind
}
FNR == 1 {
	if (tag == "" || commit == "") die("no tag= operand before this file")
	if (!(tag in tagno)) { tagno[tag] = ++ntags; tags[ntags] = tag; tagver[tag] = ver(tag) }
}
/^#/ { next }
FILENAME ~ /struct_layouts\.tsv$/ {
	if (NF != 4) die("expected 4 fields, got " NF)
	if ($1 !~ /^[A-Za-z_][A-Za-z0-9_]*$/) die("bad struct name \"" $1 "\"")
	if ($3 !~ /^[0-9]+$/ || $4 !~ /^[0-9]+$/) die("bad offset/size")
	if ($2 == "") {
		if ((tag, $1) in sizeof) die("second sizeof row for " $1)
		sizeof[tag, $1] = $4 + 0
		next
	}
	if ($2 !~ /^[A-Za-z_][A-Za-z0-9_]*$/) die("bad field name \"" $2 "\"")
	n = ++nf[tag, $1]
	fname[tag, $1, n] = $2; foff[tag, $1, n] = $3 + 0; fsize[tag, $1, n] = $4 + 0
	next
}
FILENAME ~ /nv_esc\.tsv$/ {
	if (NF != 8) die("expected 8 fields, got " NF)
	if ($4 == "const") next
	n = ++nesc[tag]
	enr[tag, n] = hexnorm($2, 2); ename[tag, n] = $1; est[tag, n] = $5; esz[tag, n] = $6
	next
}
{ die("unexpected input file") }
END {
	if (failed) exit 1
	for (ti = 1; ti <= ntags; ti++) {
		t = tags[ti]
		for (e = 1; e <= nesc[t]; e++) {
			where = "tag " t " " ename[t, e]
			ns = split(est[t, e], sts, "|")
			if (split(esz[t, e], szs, "|") != ns) die("struct and size lists differ in length")
			for (j = 1; j <= ns; j++) {
				st = sts[j]; sz = szs[j]
				sub(/ *\(.*$/, "", st)   # "nv_ioctl_card_info_t (array; ...)": one element
				if (st == "-" || sz == "-" || st ~ /\[\]$/) continue
				if (sz !~ /^[0-9]+$/) die("bad size \"" sz "\"")
				if (!((t, st) in sizeof)) die("no layout for " st)
				if (sizeof[t, st] != sz) die(st " is " sizeof[t, st] " bytes in struct_layouts.tsv, " sz " in nv_esc.tsv")
				if (nf[t, st] == 0) { nofields[st] = 1; continue }
				nl = 0
				flatten(t, st, "", 0)
				sig = enr[t, e] SUBSEP sz
				for (i = 1; i <= nl; i++) sig = sig SUBSEP lname[i] ":" loff[i] ":" lsize[i] ":" lkind[i]
				if (!(sig in vid)) {
					v = vid[sig] = ++nv
					vnr[v] = enr[t, e]; vsz[v] = sz + 0; vname[v] = st
					vsince[v] = vuntil[v] = t
					vn[v] = nl
					for (i = 1; i <= nl; i++) {
						vf[v, i] = lname[i]; vo[v, i] = loff[i]; vs[v, i] = lsize[i]; vk[v, i] = lkind[i]
					}
				} else {
					v = vid[sig]
					if (tagver[t] < tagver[vsince[v]]) vsince[v] = t
					if (tagver[t] > tagver[vuntil[v]]) vuntil[v] = t
				}
			}
		}
	}
	# Two layouts of one (nr, size) must belong to disjoint tag ranges, or
	# the decoder could not tell from the driver version which one applies.
	where = "escape layouts"
	for (a = 1; a <= nv; a++) for (b = a + 1; b <= nv; b++)
		if (vnr[a] == vnr[b] && vsz[a] == vsz[b] &&
		    tagver[vsince[a]] <= tagver[vuntil[b]] && tagver[vsince[b]] <= tagver[vuntil[a]])
			die(vnr[a] "/" vsz[a] ": " vname[a] " (" vsince[a] ".." vuntil[a] ") and " \
			    vname[b] " (" vsince[b] ".." vuntil[b] ") overlap; a tag range cannot tell them apart")
	for (st in nofields)
		printf "import-nvabi: note: %s has no field rows in struct_layouts.tsv; left to the hex dump\n", st | "cat 1>&2"
	for (v = 1; v <= nv; v++)
		for (i = 1; i <= vn[v]; i++)
			printf "%s %010d %010d %010d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s..%s\n", \
				vnr[v], vsz[v], tagver[vsince[v]], vo[v, i], \
				vnr[v], vname[v], vsz[v], vf[v, i], vo[v, i], vs[v, i], vk[v, i], vsince[v], vuntil[v]
}' $esc_args > "$rows_tmp"
emit escape_fields.tsv "$(printf '%s' "$from" | sed "s|\$| $esc_headers|")" "nr_hex${tab}$cols"

# --- /dev/nvidia-uvm params structs --------------------------------------------
# uvm_layouts_<tag>.txt gives C types, so kinds come from the type; 4-byte
# integers then go through the same name rules (rmCtrlFd -> fd, NvU32
# hClient -> handle).  Only the primary tag has UVM layouts.
$AWK -F '\t' -v tag="$tag" "$AWKLIB"'
function ukind(type, name, size,    k) {
	if (name ~ /\[/) return "bytes"              # arrays
	if (type == "NvProcessorUuid") k = "uuid"
	else if (type == "NV_STATUS") k = "status"
	else if (type == "NvHandle") k = "handle"
	else if (type == "NvBool") k = "bool"
	else if (type == "NvP64") k = "ptr"
	else if (type ~ /^NvS(8|16|32|64)$/ || type == "int") k = "s"
	else if (type ~ /^NvU(8|16|32|64)$/ || type == "NvV32" || type == "unsigned") k = "u"
	else die("no kind rule for type \"" type "\" (" name "); add one to ukind()")
	return int_kind(k, name, size)
}
FILENAME ~ /uvm_layouts_[^\/]*\.txt$/ {
	if (FNR == 1) {
		if (index($0, " open-gpu-kernel-modules " tag " ") == 0) die("first line does not name tag " tag)
		next
	}
	if ($0 ~ /^#/ || $0 ~ /^[ \t]*$/) next
	if ($0 ~ /^[A-Za-z_][A-Za-z0-9_]* +\(sizeof=[0-9]+\)[ \t]*$/) {
		cur = $0; sub(/ .*$/, "", cur)
		s = $0; sub(/^.*sizeof=/, "", s); sub(/\).*$/, "", s)
		if (cur in usize) die("second layout for " cur)
		usize[cur] = s + 0; order[++nstructs] = cur
		next
	}
	if ($0 !~ /^[ \t]/ || cur == "") die("unexpected line")
	n = split($0, w, " ")
	if (n < 4 || w[3] !~ /^off=/ || w[n] !~ /^size=[0-9]+$/) die("unexpected field line")
	o = $0; sub(/^.*off= */, "", o); sub(/[^0-9].*$/, "", o)
	s = w[n]; sub(/^size=/, "", s)
	if (o == "") die("no offset")
	name = w[2]
	k = ukind(w[1], name, s + 0)
	sub(/\[.*$/, "", name)
	if (name !~ /^[A-Za-z_][A-Za-z0-9_]*$/) die("bad field name \"" w[2] "\"")
	i = ++unf[cur]
	uf[cur, i] = name; uo[cur, i] = o + 0; us[cur, i] = s + 0; uk[cur, i] = k
	next
}
/^#/ { next }
{
	if (NF != 8) die("expected 8 fields, got " NF)
	if ($2 == "-" || !($5 in usize)) next
	if ($6 != usize[$5]) die($1 ": params size " $6 ", but " $5 " is " usize[$5] " bytes")
	used[$5] = 1
	cmd = hexnorm($2, 8)
	for (i = 1; i <= unf[$5]; i++)
		printf "%s %010d %010d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\t%s..%s\n", \
			cmd, usize[$5], uo[$5, i], cmd, $5, usize[$5], uf[$5, i], uo[$5, i], us[$5, i], uk[$5, i], tag, tag
}
END {
	if (failed) exit 1
	for (i = 1; i <= nstructs; i++)
		if (!(order[i] in used))
			printf "import-nvabi: note: %s is not the params struct of any UVM ioctl; skipped\n", order[i] | "cat 1>&2"
}' "$uvm_txt" "$src/uvm_ioctls.tsv" > "$rows_tmp"
emit uvm_fields.tsv \
	"#From open-gpu-kernel-modules $tag (commit $commit) kernel-open/nvidia-uvm/uvm_ioctl.h kernel-open/nvidia-uvm/uvm_linux_ioctl.h" \
	"cmd_hex${tab}$cols"

# The generator is the final check: overlaps, sizes, kinds.
gen=$out/gen-layouts.awk
if [ -r "$gen" ]; then
	$AWK -f "$gen" "$out/escape_fields.tsv" "$out/uvm_fields.tsv" > /dev/null ||
		{ echo "import-nvabi: gen-layouts.awk rejects the new files" >&2; exit 1; }
fi
