#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Import the facts --gpu-work decodes with (docs/GPUWORK.md) from NVIDIA's
# open class headers into this project's own tables:
#
#   decoders/gputables/methods.tsv  class, method offset, method name
#   decoders/gputables/fields.tsv   scope, field, high bit, low bit
#   decoders/gputables/values.tsv   scope, value name, value
#
# Sources, read from git snapshots (no work tree needed):
#   KMOD  github.com/NVIDIA/open-gpu-kernel-modules: the host class
#         (clc86f.h: GPFIFO entry fields, the USERD control struct, host methods)
#   DOC   github.com/NVIDIA/open-gpu-doc: the method header format (host class
#         clc76f.h: clc86f.h no longer carries it), compute classes and their
#         QMD layouts (classes/compute/cl*c0{,qmd}.h), copy classes
#         (classes/dma-copy/cl*b5.h)
#
# Only names, numbers and bit positions are taken (facts), never code.  The
# files are committed; gen.awk turns them into C at build time.
#
# Usage: decoders/gputables/import.sh KMOD_GIT_DIR DOC_GIT_DIR
# POSIX sh + awk + sort only.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
kmod=${1:?usage: decoders/gputables/import.sh KMOD_GIT_DIR DOC_GIT_DIR}
doc=${2:?usage: decoders/gputables/import.sh KMOD_GIT_DIR DOC_GIT_DIR}
out=$root/decoders/gputables
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kcommit=$(git --git-dir="$kmod" rev-parse HEAD)
ktag=$(git --git-dir="$kmod" log -1 --format=%s HEAD)
dcommit=$(git --git-dir="$doc" rev-parse HEAD)
kpath=src/common/sdk/nvidia/inc/class

# Host: GPFIFO channel class.  Compute and copy classes by generation:
# Ampere (c6c0/c7c0, c6b5/c7b5), Ada (c9c0), Hopper (cbc0, c8b5),
# Blackwell (cdc0/cec0, c9b5/cab5).
hosts="c56f c86f c96f ca6f"
host=c86f   # the one whose USERD struct is read (the same GPGet/GPPut in all)
computes="c6c0 c7c0 c9c0 cbc0 cdc0 cec0"
copies="c6b5 c7b5 c8b5 c9b5 cab5"

for c in $hosts; do
	git --git-dir="$kmod" show "HEAD:$kpath/cl$c.h" > "$tmp/cl$c.h"
done
git --git-dir="$doc" show HEAD:classes/host/clc76f.h > "$tmp/clc76f.h"
for c in $computes; do
	git --git-dir="$doc" show "HEAD:classes/compute/cl$c.h" > "$tmp/cl$c.h"
	git --git-dir="$doc" show "HEAD:classes/compute/cl${c}qmd.h" > "$tmp/cl${c}qmd.h"
done
for c in $copies; do
	git --git-dir="$doc" show "HEAD:classes/dma-copy/cl$c.h" > "$tmp/cl$c.h"
done

# Methods, bit fields and values of one class header.  A define "(0x...)"
# or "0x..." is a method unless its name extends a bit field's name (then
# it is one of that field's values).  Indexed methods "(i)" are skipped.
# Fields and values are kept for the methods in WANT only.
CLASS_AWK='
function up(s) { return toupper(s) }
$1 == "#define" && $3 ~ /^[0-9]+:[0-9]+$/ {
	name = substr($2, length(pfx) + 1)
	split($3, b, ":")
	field[name] = b[1] "\t" b[2]
	next
}
$1 == "#define" && $3 ~ /^\(?0[xX][0-9a-fA-F]+\)?$/ && $2 !~ /\(/ {
	name = substr($2, length(pfx) + 1)
	v = $3; gsub(/[()]/, "", v)
	val[name] = v
	order[++n] = name
}
END {
	for (i = 1; i <= n; i++) {
		name = order[i]; owner = ""
		for (f in field)
			if (index(name, f "_") == 1 && length(f) > length(owner))
				owner = f
		if (owner == "") {
			printf "M\t%s\t%s\n", val[name], name
			continue
		}
		for (w in want)
			if (index(owner, w) == 1)
				printf "V\t%s\t%s\n", name, val[name]
	}
	for (f in field)
		for (w in want)
			if (index(f, w) == 1)
				printf "F\t%s\t%s\n", f, field[f]
}'

# class_facts CLASS HEADER WANTED...: M/F/V rows, tagged with the class.
class_facts() {
	c=$1; h=$2; shift 2
	awk -v pfx="NV$(echo "$c" | tr a-f A-F)_" -v wants="$*" "
BEGIN { n = split(wants, ws, \" \"); for (i = 1; i <= n; i++) want[ws[i]] = 1; n = 0 }
$CLASS_AWK" "$h" | sed "s/^/$c\t/"
}

{
	for c in $hosts; do
		class_facts "$c" "$tmp/cl$c.h" SEM_EXECUTE GP_ENTRY
	done
	for c in $computes; do
		class_facts "$c" "$tmp/cl$c.h" LAUNCH_DMA SEND_SIGNALING_PCAS2_B SET_REPORT_SEMAPHORE_D
	done
	for c in $copies; do
		class_facts "$c" "$tmp/cl$c.h" LAUNCH_DMA
	done
} > "$tmp/facts"

# The method header ("DMA" format): fields and opcodes (clc76f.h, the last
# host class open-gpu-doc has; the format is the same for c86f).
# SET_OBJECT's class field, from the same header (clc86f.h lacks it).
awk '$1 == "#define" && $2 ~ /^NVC76F_SET_OBJECT_(NVCLASS|ENGINE)$/ {
	split($3, b, ":"); printf "dma\t%s\t%s\t%s\n", substr($2, 8), b[1], b[2] }' \
	"$tmp/clc76f.h" > "$tmp/setobj_fields"
awk '$1 == "#define" && $2 ~ /^NVC76F_DMA_(METHOD_ADDRESS|METHOD_ADDRESS_OLD|METHOD_SUBCHANNEL|METHOD_COUNT|METHOD_COUNT_OLD|TERT_OP|SEC_OP|IMMD_DATA)$/ {
	split($3, b, ":"); printf "dma\t%s\t%s\t%s\n", substr($2, 12), b[1], b[2] }' \
	"$tmp/clc76f.h" > "$tmp/dma_fields"
awk '$1 == "#define" && $2 ~ /^NVC76F_DMA_(SEC_OP|TERT_OP)_/ {
	v = $3; gsub(/[()]/, "", v); printf "dma\t%s\t%s\n", substr($2, 12), v }' \
	"$tmp/clc76f.h" > "$tmp/dma_values"

# USERD: byte offsets of GPGet/GPPut from the control struct's comments
# ("NvU32 GPPut; /* ... 008c-008f*/"), as bit ranges of the struct.
awk '/typedef volatile struct Nvc86fControl_struct/ { on = 1; next }
on && /^}/ { on = 0 }
function hex(s,   i, d, v) { v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + d }
	return v }
on && $1 == "NvU32" && ($2 == "GPGet;" || $2 == "GPPut;") {
	match($0, /[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]/)
	lo = hex(substr($0, RSTART, 4)); hi = hex(substr($0, RSTART + 5, 4))
	printf "userd\t%s\t%d\t%d\n", substr($2, 1, length($2) - 1), hi * 8 + 7, lo * 8 }' \
	"$tmp/cl$host.h" > "$tmp/userd"
[ "$(wc -l < "$tmp/userd")" -eq 2 ] || { echo "import-gpuwork: no GPGet/GPPut in cl$host.h" >&2; exit 1; }

# QMD layouts: the fields a launch line shows (grid, block, cluster shape),
# the version fields that choose a layout (V03 names the minor version
# QMD_VERSION, V04 on QMD_MINOR_VERSION), and those that link QMDs into
# chains (CUDA graphs: dependent QMDs, what they do, dependence counters).
QMD_WANT='QMD_MAJOR_VERSION|QMD_VERSION|QMD_MINOR_VERSION|QMD_TYPE|QMD_GROUP_ID|DEPENDENCE_COUNTER|REQUIRE_SCHEDULING_PCAS|CTA_RASTER_WIDTH|CTA_RASTER_HEIGHT|CTA_RASTER_DEPTH|GRID_WIDTH|GRID_HEIGHT|GRID_DEPTH|GPC_CGA_WIDTH|GPC_CGA_HEIGHT|GPC_CGA_DEPTH|CTA_THREAD_DIMENSION0|CTA_THREAD_DIMENSION1|CTA_THREAD_DIMENSION2|SHARED_MEMORY_SIZE|REGISTER_COUNT|REGISTER_COUNT_V|PROGRAM_ADDRESS_LOWER|PROGRAM_ADDRESS_UPPER|PROGRAM_OFFSET|DEPENDENT_QMD[01]_(POINTER|ENABLE|ACTION|PREFETCH)'
# Indexed fields, "NAME(i)  MW((a+(i)*s):(b+(i)*s))", kept as "NAME(0)" ..
# "NAME(n-1)": the dependent QMDs are as many as the plain
# DEPENDENT_QMD<i>_POINTER fields (two); constant buffers: bank 0 only
# (where a kernel's parameters are).
QMD_INDEXED='DEPENDENT_QMD_ENABLE:2 DEPENDENT_QMD_ACTION:2 DEPENDENT_QMD_PREFETCH:2 CONSTANT_BUFFER_VALID:1 CONSTANT_BUFFER_ADDR_LOWER:1 CONSTANT_BUFFER_ADDR_UPPER:1 CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6:1 CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6:1 CONSTANT_BUFFER_SIZE_SHIFTED4:1'
# Fields whose named values are kept (values.tsv, scope qmd:CLASS:VERSION).
QMD_VALUES='QMD_TYPE|REQUIRE_SCHEDULING_PCAS|DEPENDENT_QMD_ACTION|DEPENDENT_QMD[01]_ACTION|DEPENDENT_QMD_ENABLE|DEPENDENT_QMD[01]_ENABLE'
for c in $computes; do
	awk -v c="$c" -v want="^($QMD_WANT)\$" -v vwant="^($QMD_VALUES)_" -v indexed="$QMD_INDEXED" '
	BEGIN { n = split(indexed, ix, " "); for (k = 1; k <= n; k++) { split(ix[k], p, ":"); count[p[1]] = p[2] } }
	function strip(s) { sub(/^NV[0-9A-F]+_QMDV/, "", s); return s }
	# "368+(i)*5" -> base and step (a plain number: step 0)
	function term(e, r) { r[1] = e + 0; r[2] = 0
		if (match(e, /\+\(i\)\*[0-9]+$/)) { r[1] = substr(e, 1, RSTART - 1) + 0; r[2] = substr(e, RSTART + 5) + 0 } }
	$1 == "#define" && $2 ~ /_QMDV[0-9][0-9]_[0-9][0-9]_/ {
		s = strip($2); ver = substr(s, 1, 5); f = substr(s, 7)
		if ($3 ~ /^MW\([0-9]+:[0-9]+\)$/ && f ~ want) {
			b = $3; gsub(/MW\(|\)/, "", b); split(b, hl, ":")
			printf "F\tqmd:%s:%s\t%s\t%s\t%s\n", c, ver, f, hl[1], hl[2]
		} else if (f ~ /\(i\)$/ && $3 ~ /^MW\(\(/ && (substr(f, 1, length(f) - 3) in count)) {
			base = substr(f, 1, length(f) - 3)
			b = $3; sub(/^MW\(\(/, "", b); sub(/\)\)$/, "", b); split(b, e, "\\):\\(")
			term(e[1], hi); term(e[2], lo)
			for (i = 0; i < count[base]; i++)
				printf "F\tqmd:%s:%s\t%s(%d)\t%d\t%d\n", c, ver, base, i, hi[1] + i * hi[2], lo[1] + i * lo[2]
		} else if ($3 ~ /^0x[0-9a-fA-F]+$/ && f ~ vwant) {
			printf "V\tqmd:%s:%s\t%s\t%s\n", c, ver, f, $3
		}
	}' "$tmp/cl${c}qmd.h"
done | LC_ALL=C sort -u > "$tmp/qmdall"
awk -F '\t' '$1 == "F" { print $2 "\t" $3 "\t" $4 "\t" $5 }' "$tmp/qmdall" > "$tmp/qmd"
awk -F '\t' '$1 == "V" { print $2 "\t" $3 "\t" $4 }' "$tmp/qmdall" > "$tmp/qmd_values"

head3() {
	printf '#From %s\n' "$1"
	echo '#Generated by decoders/gputables/import.sh; do not edit by hand'
	printf '#%s\n' "$2"
}
KSRC="open-gpu-kernel-modules $ktag (commit $kcommit)"
DSRC="open-gpu-doc (commit $dcommit)"
{
	head3 "$KSRC $kpath/cl{$(echo $hosts | tr ' ' ,)}.h; $DSRC classes/compute/cl{$(echo $computes | tr ' ' ,)}.h classes/dma-copy/cl{$(echo $copies | tr ' ' ,)}.h" \
		"class_hex	method_hex	name"
	awk -F '\t' 'function hex(s,   i, d, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
		for (i = 1; i <= length(s); i++) { d = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + d }
		return v }
		$2 == "M" && hex($3) % 4 == 0 && hex($3) < 16384 { printf "0x%s\t0x%04x\t%s\n", $1, hex($3), $4 }' \
		"$tmp/facts" | LC_ALL=C sort -u
} > "$tmp/methods.tsv"
{
	head3 "$KSRC $kpath/cl{$(echo $hosts | tr ' ' ,)}.h (GP_ENTRY, SEM_EXECUTE, USERD GPGet/GPPut); $DSRC classes/host/clc76f.h (dma: method header, SET_OBJECT fields), classes/compute/cl*c0.h and cl*c0qmd.h, classes/dma-copy/cl*b5.h" \
		"scope	field	hi	lo"
	{
		awk -F '\t' '$2 == "F" { printf "%s\t%s\t%s\t%s\n", $1, $3, $4, $5 }' "$tmp/facts"
		cat "$tmp/dma_fields" "$tmp/setobj_fields" "$tmp/userd" "$tmp/qmd"
	} | LC_ALL=C sort -u
} > "$tmp/fields.tsv"
{
	head3 "$KSRC $kpath/cl{$(echo $hosts | tr ' ' ,)}.h; $DSRC classes/host/clc76f.h, classes/compute/cl*c0.h and cl*c0qmd.h, classes/dma-copy/cl*b5.h" \
		"scope	name	value"
	{
		awk -F '\t' '$2 == "V" { printf "%s\t%s\t%s\n", $1, $3, $4 }' "$tmp/facts"
		cat "$tmp/dma_values" "$tmp/qmd_values"
	} | LC_ALL=C sort -u
} > "$tmp/values.tsv"

for f in methods fields values; do
	[ "$(grep -vc '^#' "$tmp/$f.tsv")" -gt 0 ] || { echo "import-gpuwork: $f is empty" >&2; exit 1; }
	mv -f "$tmp/$f.tsv" "$out/$f.tsv"
done
echo "import-gpuwork: $(grep -vc '^#' "$out/methods.tsv") methods, $(grep -vc '^#' "$out/fields.tsv") fields, $(grep -vc '^#' "$out/values.tsv") values"
