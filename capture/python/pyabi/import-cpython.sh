#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Derive the CPython layout facts of struct ct_pyabi (capture/python/pyabi.h) for one
# minor version from that version's real headers, by compiling an
# offsetof()/sizeof() probe against them (x86-64, the installed pyconfig.h of
# a real build), and write this project's data files:
#
#   capture/python/pyabi/cpython-3.X.tsv         every ct_pyabi field: value, header,
#                                      member, tag
#   capture/python/pyabi/debug-offsets-3.X.tsv   3.13+: where each field's uint64 lies
#                                      inside _Py_DebugOffsets
#
# Those files are committed; capture/python/pyabi/gen-pyabi.awk turns them into C at
# build time, so building needs neither this script nor CPython's headers.
#
# Usage: capture/python/pyabi/import-cpython.sh TAG INCLUDE_DIR [EXTRA_DIR]
#   TAG          the CPython tag the headers are from, e.g. v3.12.1
#   INCLUDE_DIR  the headers as installed (include/python3.X, with internal/
#                and cpython/) or a source tree's Include/
#   EXTRA_DIR    another include directory, for a pyconfig.h that includes
#                another (Debian's: give /usr/include)
#
# The tables in the repository came from (see the #From lines):
#
#   for v in 3.10.13 3.11.7 3.12.1 3.13.0; do m=${v%.*}
#       PYABI_FROM="pyenv build of the $v release, include/python$m" \
#       capture/python/pyabi/import-cpython.sh v$v ~/.pyenv/versions/$v/include/python$m; done
#   # Debian sid's libpython3.14-dev 3.14.10-1, unpacked with dpkg-deb -x into $D
#   PYABI_FROM="Debian sid libpython3.14-dev 3.14.10-1, /usr/include/python3.14" \
#   capture/python/pyabi/import-cpython.sh v3.14.10 $D/usr/include/python3.14 $D/usr/include
#
# and were checked against running interpreters by capture/python/pyabi/check-live.py
# (docs/PYABI.md says which).
set -eu

[ $# -ge 2 ] || { echo "usage: $0 TAG INCLUDE_DIR [EXTRA_DIR]" >&2; exit 2; }
tag=$1
inc=$(cd "$2" && pwd) || { echo "import-cpython: no such directory: $2" >&2; exit 1; }
cfg=${3:-$inc}
case "$tag" in
v3.1[0-9].[0-9]*) ;;
*) echo "import-cpython: tag \"$tag\" is not v3.1X.Y" >&2; exit 1;;
esac
minor=$(echo "$tag" | sed 's/^v3\.\([0-9]*\)\..*$/\1/')
[ -r "$inc/Python.h" ] || { echo "import-cpython: no Python.h in $inc" >&2; exit 1; }
[ -r "$inc/pyconfig.h" ] || { echo "import-cpython: no pyconfig.h in $inc (run ./configure in the source)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../../.." && pwd)
# PYABI_FROM: where the headers came from, for the #From line.
from=${PYABI_FROM:-$inc}
# PYABI_OUT: write the files elsewhere (to compare two tags of one minor).
out=${PYABI_OUT:-$root/capture/python/pyabi}
CC=${CC:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The probe: field | minors | C expression | header (path under Include/) |
# what it is.  "none" is a field this minor does not have.  Bit positions
# are measured on a zeroed PyASCIIObject (bitfield layout is the compiler's).
cat > "$work/spec" <<'SPEC'
minor|10-14|PY_MINOR_VERSION|patchlevel.h|PY_MINOR_VERSION
runtime_interpreters_head|10-13|offsetof(_PyRuntimeState, interpreters.head)|internal/pycore_runtime.h|_PyRuntimeState.interpreters.head
runtime_interpreters_head|14|offsetof(_PyRuntimeState, interpreters.head)|internal/pycore_runtime_structs.h|_PyRuntimeState.interpreters.head
interp_next|10-13|offsetof(PyInterpreterState, next)|internal/pycore_interp.h|PyInterpreterState.next
interp_next|14|offsetof(PyInterpreterState, next)|internal/pycore_interp_structs.h|PyInterpreterState.next
interp_threads_head|10|offsetof(PyInterpreterState, tstate_head)|internal/pycore_interp.h|PyInterpreterState.tstate_head
interp_threads_head|11-13|offsetof(PyInterpreterState, threads.head)|internal/pycore_interp.h|PyInterpreterState.threads.head
interp_threads_head|14|offsetof(PyInterpreterState, threads.head)|internal/pycore_interp_structs.h|PyInterpreterState.threads.head
interp_code_counter|10-11|none|internal/pycore_interp.h|co_version (and its counter) is new in 3.12
interp_code_counter|12|none|internal/pycore_code.h|3.12 counts code objects in the global _Py_next_func_version
interp_code_counter|13|offsetof(PyInterpreterState, func_state.next_version)|internal/pycore_function.h|PyInterpreterState.func_state.next_version
interp_code_counter|14|offsetof(PyInterpreterState, func_state.next_version)|internal/pycore_interp_structs.h|PyInterpreterState.func_state.next_version
tstate_next|10-14|offsetof(PyThreadState, next)|cpython/pystate.h|PyThreadState.next
tstate_interp|10-14|offsetof(PyThreadState, interp)|cpython/pystate.h|PyThreadState.interp
tstate_thread_id|10-14|offsetof(PyThreadState, thread_id)|cpython/pystate.h|PyThreadState.thread_id
tstate_native_thread_id|10|none|cpython/pystate.h|PyThreadState has no native_thread_id before 3.11
tstate_native_thread_id|11-14|offsetof(PyThreadState, native_thread_id)|cpython/pystate.h|PyThreadState.native_thread_id
tstate_frame|10|offsetof(PyThreadState, frame)|cpython/pystate.h|PyThreadState.frame
tstate_frame|11-14|none|cpython/pystate.h|PyThreadState.frame is gone from 3.11
tstate_cframe|10|none|cpython/pystate.h|3.10's cframe holds no frame pointer; frames hang off PyThreadState.frame
tstate_cframe|11-12|offsetof(PyThreadState, cframe)|cpython/pystate.h|PyThreadState.cframe
tstate_cframe|13-14|none|cpython/pystate.h|PyThreadState.cframe is gone from 3.13
tstate_current_frame|10-12|none|cpython/pystate.h|PyThreadState.current_frame is new in 3.13
tstate_current_frame|13-14|offsetof(PyThreadState, current_frame)|cpython/pystate.h|PyThreadState.current_frame
tstate_datastack_chunk|10|none|cpython/pystate.h|3.10 has no data stack: its frames are heap objects
tstate_datastack_chunk|11-14|offsetof(PyThreadState, datastack_chunk)|cpython/pystate.h|PyThreadState.datastack_chunk
tstate_datastack_top|10|none|cpython/pystate.h|3.10 has no data stack: its frames are heap objects
tstate_datastack_top|11-14|offsetof(PyThreadState, datastack_top)|cpython/pystate.h|PyThreadState.datastack_top
cframe_current_frame|10|none|cpython/pystate.h|3.10's CFrame has no current_frame
cframe_current_frame|11-12|offsetof(_PyCFrame, current_frame)|cpython/pystate.h|_PyCFrame.current_frame
cframe_current_frame|13-14|none|cpython/pystate.h|_PyCFrame is gone from 3.13
frame_previous|10|offsetof(PyFrameObject, f_back)|cpython/frameobject.h|PyFrameObject.f_back
frame_previous|11-13|offsetof(_PyInterpreterFrame, previous)|internal/pycore_frame.h|_PyInterpreterFrame.previous
frame_previous|14|offsetof(_PyInterpreterFrame, previous)|internal/pycore_interpframe_structs.h|_PyInterpreterFrame.previous
frame_code|10|offsetof(PyFrameObject, f_code)|cpython/frameobject.h|PyFrameObject.f_code
frame_code|11-12|offsetof(_PyInterpreterFrame, f_code)|internal/pycore_frame.h|_PyInterpreterFrame.f_code
frame_code|13|offsetof(_PyInterpreterFrame, f_executable)|internal/pycore_frame.h|_PyInterpreterFrame.f_executable
frame_code|14|offsetof(_PyInterpreterFrame, f_executable)|internal/pycore_interpframe_structs.h|_PyInterpreterFrame.f_executable
frame_instr|10|offsetof(PyFrameObject, f_lasti)|cpython/frameobject.h|PyFrameObject.f_lasti
frame_instr|11-12|offsetof(_PyInterpreterFrame, prev_instr)|internal/pycore_frame.h|_PyInterpreterFrame.prev_instr
frame_instr|13|offsetof(_PyInterpreterFrame, instr_ptr)|internal/pycore_frame.h|_PyInterpreterFrame.instr_ptr
frame_instr|14|offsetof(_PyInterpreterFrame, instr_ptr)|internal/pycore_interpframe_structs.h|_PyInterpreterFrame.instr_ptr
frame_owner|10|none|cpython/frameobject.h|PyFrameObject has no owner
frame_owner|11-13|offsetof(_PyInterpreterFrame, owner)|internal/pycore_frame.h|_PyInterpreterFrame.owner
frame_owner|14|offsetof(_PyInterpreterFrame, owner)|internal/pycore_interpframe_structs.h|_PyInterpreterFrame.owner
frame_is_entry|10|none|cpython/frameobject.h|PyFrameObject has no is_entry
frame_is_entry|11|offsetof(_PyInterpreterFrame, is_entry)|internal/pycore_frame.h|_PyInterpreterFrame.is_entry
frame_is_entry|12-13|none|internal/pycore_frame.h|_PyInterpreterFrame.is_entry is gone from 3.12 (FRAME_OWNED_BY_CSTACK)
frame_is_entry|14|none|internal/pycore_interpframe_structs.h|_PyInterpreterFrame.is_entry is gone from 3.12 (FRAME_OWNED_BY_CSTACK)
code_filename|10-14|offsetof(PyCodeObject, co_filename)|cpython/code.h|PyCodeObject.co_filename
code_name|10-14|offsetof(PyCodeObject, co_name)|cpython/code.h|PyCodeObject.co_name
code_qualname|10|none|cpython/code.h|PyCodeObject.co_qualname is new in 3.11
code_qualname|11-14|offsetof(PyCodeObject, co_qualname)|cpython/code.h|PyCodeObject.co_qualname
code_firstlineno|10-14|offsetof(PyCodeObject, co_firstlineno)|cpython/code.h|PyCodeObject.co_firstlineno
code_linetable|10-14|offsetof(PyCodeObject, co_linetable)|cpython/code.h|PyCodeObject.co_linetable
code_version|10-11|none|cpython/code.h|PyCodeObject.co_version is new in 3.12
code_version|12-14|offsetof(PyCodeObject, co_version)|cpython/code.h|PyCodeObject.co_version
code_code|10|offsetof(PyCodeObject, co_code)|cpython/code.h|PyCodeObject.co_code
code_code|11-14|none|cpython/code.h|PyCodeObject.co_code is gone from 3.11 (co_code_adaptive)
code_code_adaptive|10|none|cpython/code.h|PyCodeObject.co_code_adaptive is new in 3.11
code_code_adaptive|11-14|offsetof(PyCodeObject, co_code_adaptive)|cpython/code.h|PyCodeObject.co_code_adaptive
object_ob_type|10-14|offsetof(PyObject, ob_type)|object.h|PyObject.ob_type
object_ob_refcnt|10-14|offsetof(PyObject, ob_refcnt)|object.h|PyObject.ob_refcnt
object_ob_overflow|10-13|none|object.h|PyObject.ob_overflow is new in 3.14 (the count split: ob_refcnt, ob_overflow, ob_flags)
object_ob_overflow|14|offsetof(PyObject, ob_overflow)|object.h|PyObject.ob_overflow
bytes_ob_size|10-14|offsetof(PyBytesObject, ob_base.ob_size)|cpython/bytesobject.h|PyBytesObject.ob_base.ob_size
bytes_ob_sval|10-14|offsetof(PyBytesObject, ob_sval)|cpython/bytesobject.h|PyBytesObject.ob_sval
unicode_state|10-14|offsetof(PyASCIIObject, state)|cpython/unicodeobject.h|PyASCIIObject.state
unicode_length|10-14|offsetof(PyASCIIObject, length)|cpython/unicodeobject.h|PyASCIIObject.length
unicode_hash|10-14|offsetof(PyASCIIObject, hash)|cpython/unicodeobject.h|PyASCIIObject.hash
unicode_ascii_size|10-14|sizeof(PyASCIIObject)|cpython/unicodeobject.h|sizeof(PyASCIIObject)
unicode_compact_size|10-14|sizeof(PyCompactUnicodeObject)|cpython/unicodeobject.h|sizeof(PyCompactUnicodeObject)
unicode_kind_shift|10-14|state_bit(STATE_KIND)|cpython/unicodeobject.h|PyASCIIObject.state.kind (first bit)
unicode_compact_bit|10-14|state_bit(STATE_COMPACT)|cpython/unicodeobject.h|PyASCIIObject.state.compact
unicode_ascii_bit|10-14|state_bit(STATE_ASCII)|cpython/unicodeobject.h|PyASCIIObject.state.ascii
owned_by_cstack|10|none|cpython/frameobject.h|PyFrameObject has no owner (FRAME_OWNED_BY_CSTACK is new in 3.12)
owned_by_cstack|11|none|internal/pycore_frame.h|FRAME_OWNED_BY_CSTACK is new in 3.12
owned_by_cstack|12-13|FRAME_OWNED_BY_CSTACK|internal/pycore_frame.h|FRAME_OWNED_BY_CSTACK
owned_by_cstack|14|FRAME_OWNED_BY_CSTACK|internal/pycore_interpframe_structs.h|FRAME_OWNED_BY_CSTACK
owned_by_interpreter|10|none|cpython/frameobject.h|PyFrameObject has no owner (FRAME_OWNED_BY_INTERPRETER is new in 3.14)
owned_by_interpreter|11-13|none|internal/pycore_frame.h|FRAME_OWNED_BY_INTERPRETER is new in 3.14
owned_by_interpreter|14|FRAME_OWNED_BY_INTERPRETER|internal/pycore_interpframe_structs.h|FRAME_OWNED_BY_INTERPRETER
code_ptr_tag_mask|10-12|0|cpython/code.h|the frame holds a plain PyCodeObject *
code_ptr_tag_mask|13|0|internal/pycore_frame.h|f_executable is a plain PyObject *
code_ptr_tag_mask|14|Py_TAG_BITS|internal/pycore_stackref.h|Py_TAG_BITS (f_executable is a _PyStackRef)
code_unit_size|10-12|sizeof(_Py_CODEUNIT)|cpython/code.h|sizeof(_Py_CODEUNIT)
code_unit_size|13|sizeof(_Py_CODEUNIT)|internal/pycore_code.h|sizeof(_Py_CODEUNIT)
code_unit_size|14|sizeof(_Py_CODEUNIT)|internal/pycore_structs.h|sizeof(_Py_CODEUNIT)
SPEC

# Where each carried field lies inside _Py_DebugOffsets (3.13+), and the
# members that give the size of the struct each offset belongs to, for the
# bounds check in ct_pyabi_from_debug_offsets().
cat > "$work/dspec" <<'SPEC'
cookie|cookie
version|version
free_threaded|free_threaded
runtime_size|runtime_state.size
interp_size|interpreter_state.size
tstate_size|thread_state.size
frame_size|interpreter_frame.size
code_size|code_object.size
bytes_size|bytes_object.size
unicode_size|unicode_object.size
runtime_interpreters_head|runtime_state.interpreters_head
interp_next|interpreter_state.next
interp_threads_head|interpreter_state.threads_head
tstate_next|thread_state.next
tstate_interp|thread_state.interp
tstate_thread_id|thread_state.thread_id
tstate_native_thread_id|thread_state.native_thread_id
tstate_current_frame|thread_state.current_frame
tstate_datastack_chunk|thread_state.datastack_chunk
frame_previous|interpreter_frame.previous
frame_code|interpreter_frame.executable
frame_instr|interpreter_frame.instr_ptr
frame_owner|interpreter_frame.owner
code_filename|code_object.filename
code_name|code_object.name
code_qualname|code_object.qualname
code_firstlineno|code_object.firstlineno
code_linetable|code_object.linetable
code_code_adaptive|code_object.co_code_adaptive
bytes_ob_size|bytes_object.ob_size
bytes_ob_sval|bytes_object.ob_sval
unicode_state|unicode_object.state
unicode_length|unicode_object.length
unicode_ascii_size|unicode_object.asciiobject_size
SPEC

in_range() {	# $1 = "10-13" or "14", $2 = minor
	lo=${1%-*}; hi=${1#*-}
	[ "$2" -ge "$lo" ] && [ "$2" -le "$hi" ]
}

# --- the probe ---------------------------------------------------------------
{
	echo '#define Py_BUILD_CORE 1'
	echo '#include <Python.h>'
	echo '#include <stddef.h>'
	echo '#include <stdio.h>'
	echo '#include <string.h>'
	echo '#include "frameobject.h"'
	for h in pycore_runtime.h pycore_interp.h pycore_frame.h pycore_code.h pycore_stackref.h \
		 pycore_interpframe.h pycore_debug_offsets.h; do
		[ -r "$inc/internal/$h" ] && echo "#include \"internal/$h\""
	done
	cat <<'C'
enum { STATE_KIND, STATE_COMPACT, STATE_ASCII };
/* The lowest bit of PyASCIIObject.state that the member sets. */
static unsigned long state_bit(int which)
{
	PyASCIIObject o;
	unsigned int word, bit;

	memset(&o, 0, sizeof(o));
	if (which == STATE_KIND) o.state.kind = 1;
	if (which == STATE_COMPACT) o.state.compact = 1;
	if (which == STATE_ASCII) o.state.ascii = 1;
	memcpy(&word, &o.state, sizeof(word));
	for (bit = 0; bit < 32; bit++)
		if (word & (1u << bit))
			return bit;
	return 99;
}
static void row(const char *f, unsigned long v, const char *h, const char *m)
{
	printf("F\t%s\t%lu\t%s\t%s\n", f, v, h, m);
}
static void none(const char *f, const char *h, const char *m)
{
	printf("F\t%s\tnone\t%s\t%s\n", f, h, m);
}
static void pos(const char *f, unsigned long p, const char *m)
{
	printf("D\t%s\t%lu\t%s\n", f, p, m);
}
int main(void)
{
	if (sizeof(void *) != 8) return 1;
C
	while IFS='|' read -r f r e h m; do
		in_range "$r" "$minor" || continue
		[ -r "$inc/$h" ] || { echo "import-cpython: $tag: no $h (for $f)" >&2; exit 1; }
		# Provenance: the member read is named in the header given for it.
		case "$e" in none|[0-9]*) ;; *)
			word=$(echo "$m" | sed -e 's/^sizeof(\(.*\))$/\1/' -e 's/ (.*$//' -e 's/^.*\.//')
			grep -q -w -- "$word" "$inc/$h" ||
				{ echo "import-cpython: $tag: $word ($f) is not in $h" >&2; exit 1; };;
		esac
		if [ "$e" = none ]; then
			printf '\tnone("%s", "%s", "%s");\n' "$f" "$h" "$m"
		else
			printf '\trow("%s", (unsigned long)(%s), "%s", "%s");\n' "$f" "$e" "$h" "$m"
		fi
	done < "$work/spec"
	if [ "$minor" -ge 13 ]; then
		printf '\tpos("sizeof", sizeof(_Py_DebugOffsets), "sizeof(_Py_DebugOffsets)");\n'
		# What the cookie says, and the version the headers are of.
		printf '\tprintf("D\\tcookie_text\\t%%s\\t_Py_Debug_Cookie\\n", _Py_Debug_Cookie);\n'
		printf '\tpos("version_hex", PY_VERSION_HEX, "PY_VERSION_HEX");\n'
		while IFS='|' read -r f m; do
			printf '\tpos("%s", offsetof(_Py_DebugOffsets, %s), "_Py_DebugOffsets.%s");\n' "$f" "$m" "$m"
		done < "$work/dspec"
	fi
	printf '\treturn 0;\n}\n'
} > "$work/probe.c"

$CC -std=gnu11 -w -I"$inc" -I"$inc/internal" -I"$cfg" "$work/probe.c" -o "$work/probe" ||
	{ echo "import-cpython: $tag: the probe does not compile against $inc" >&2; exit 1; }
"$work/probe" > "$work/rows" || { echo "import-cpython: $tag: the probe failed" >&2; exit 1; }
got=$(awk -F '\t' '$2 == "minor" { print $3 }' "$work/rows")
[ "$got" = "$minor" ] || { echo "import-cpython: $tag: the headers say 3.$got" >&2; exit 1; }
if grep -q '	99	' "$work/rows"; then
	echo "import-cpython: $tag: a PyASCIIObject.state bit was not found" >&2; exit 1
fi

cc_version=$($CC --version | head -n 1)
{
	printf '#From CPython %s headers (%s), x86-64, default (GIL) build\n' "$tag" "$from"
	printf '#Generated by capture/python/pyabi/import-cpython.sh (offsetof/sizeof probe, %s); do not edit by hand\n' "$cc_version"
	printf '#field\tvalue\theader\tmember\ttag\n'
	awk -F '\t' -v tag="$tag" '$1 == "F" { print $2 "\t" $3 "\tInclude/" $4 "\t" $5 "\t" tag }' "$work/rows"
} > "$out/.cpython-3.$minor.tsv.tmp"
mv "$out/.cpython-3.$minor.tsv.tmp" "$out/cpython-3.$minor.tsv"
echo "import-cpython: cpython-3.$minor.tsv: $(grep -c -v '^#' "$out/cpython-3.$minor.tsv") fields from $tag"

if [ "$minor" -ge 13 ]; then
	dh=internal/pycore_runtime.h
	[ "$minor" -ge 14 ] && dh=internal/pycore_debug_offsets.h
	grep -q '_Py_DebugOffsets;' "$inc/$dh" || { echo "import-cpython: $tag: _Py_DebugOffsets is not in $dh" >&2; exit 1; }
	{
		printf '#From CPython %s headers (%s), Include/%s struct _Py_DebugOffsets\n' "$tag" "$from" "$dh"
		printf '#Generated by capture/python/pyabi/import-cpython.sh (offsetof probe, %s); do not edit by hand\n' "$cc_version"
		printf '#field\tposition\tmember\ttag\n'
		awk -F '\t' -v tag="$tag" '$1 == "D" { print $2 "\t" $3 "\t" $4 "\t" tag }' "$work/rows"
	} > "$out/.debug-offsets-3.$minor.tsv.tmp"
	mv "$out/.debug-offsets-3.$minor.tsv.tmp" "$out/debug-offsets-3.$minor.tsv"
	echo "import-cpython: debug-offsets-3.$minor.tsv: $(grep -c -v '^#' "$out/debug-offsets-3.$minor.tsv") positions from $tag"
fi
