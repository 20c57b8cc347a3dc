/* SPDX-License-Identifier: MIT */
/*
 * CPython's layout facts for one minor version (3.10 .. 3.14, x86-64): the
 * offsets that find a thread's frames and name its code objects from
 * outside the process.  Never typed in C: for 3.10-3.12 they come from
 * generated tables (capture/python/pyabi/cpython-3.X.tsv, each offset with the header
 * and tag it was read from); from 3.13 on from the process's own
 * _Py_DebugOffsets (at _PyRuntime, cookie "xdebugpy"), read through a
 * per-version description of that struct (capture/python/pyabi/debug-offsets-3.X.tsv),
 * plus the few constants it does not carry.
 */
#ifndef CT_PYABI_H
#define CT_PYABI_H

#include <stddef.h>
#include <stdint.h>

#define CT_PY_NONE UINT32_MAX   /* the field does not exist in this version */

struct ct_pyabi {
	uint32_t minor;                    /* 10 .. 14 */

	/* Interpreters and their threads. */
	uint32_t runtime_interpreters_head;  /* _PyRuntimeState.interpreters.head */
	uint32_t interp_next;                /* PyInterpreterState.next */
	uint32_t interp_threads_head;        /* PyInterpreterState.threads.head */
	uint32_t interp_code_counter;        /* 3.13+: PyInterpreterState.func_state.next_version,
	                                      * whence each new code object's co_version */
	uint32_t tstate_next;                /* PyThreadState.next */
	uint32_t tstate_interp;              /* PyThreadState.interp */
	uint32_t tstate_native_thread_id;    /* 3.11+: PyThreadState.native_thread_id */
	uint32_t tstate_thread_id;           /* PyThreadState.thread_id (pthread_self()): 3.10
	                                      * has no native id, so match on this there */
	uint32_t tstate_frame;               /* 3.10: PyThreadState.frame (PyFrameObject *) */
	uint32_t tstate_cframe;              /* 3.11, 3.12: PyThreadState.cframe */
	uint32_t tstate_current_frame;       /* 3.13+: PyThreadState.current_frame */
	uint32_t cframe_current_frame;       /* 3.11, 3.12: _PyCFrame.current_frame */
	uint32_t tstate_datastack_chunk;     /* 3.11+: PyThreadState.datastack_chunk, where */
	uint32_t tstate_datastack_top;       /* frames are pushed (up to datastack_top) */

	/* A frame: PyFrameObject (3.10), _PyInterpreterFrame (3.11+). */
	uint32_t frame_previous;             /* f_back (3.10), previous */
	uint32_t frame_code;                 /* f_code; 3.13+: f_executable */
	uint32_t frame_instr;                /* f_lasti (int, 3.10); prev_instr (3.11, 3.12); instr_ptr */
	uint32_t frame_owner;                /* 3.11+: owner (char) */
	uint32_t frame_is_entry;             /* 3.11 only: is_entry (bool) */

	/* A code object. */
	uint32_t code_filename;              /* co_filename (str) */
	uint32_t code_name;                  /* co_name (str) */
	uint32_t code_qualname;              /* co_qualname (str), 3.11+ */
	uint32_t code_firstlineno;           /* co_firstlineno (int) */
	uint32_t code_linetable;             /* co_linetable (bytes) */
	uint32_t code_version;               /* 3.12+: co_version, from a counter: new per code object */
	uint32_t code_code;                  /* 3.10: co_code (bytes) */
	uint32_t code_code_adaptive;         /* 3.11+: co_code_adaptive, the bytecode itself */

	/* Any object; bytes and str objects. */
	uint32_t object_ob_type;             /* PyObject.ob_type */
	uint32_t object_ob_refcnt;           /* PyObject.ob_refcnt: its low 32 bits count */
	uint32_t object_ob_overflow;         /* 3.14+: PyObject.ob_overflow (u16), 0 in a live object */
	uint32_t bytes_ob_size;              /* PyVarObject.ob_size of a bytes */
	uint32_t bytes_ob_sval;              /* PyBytesObject.ob_sval */
	uint32_t unicode_state;              /* PyASCIIObject.state */
	uint32_t unicode_length;             /* PyASCIIObject.length */
	uint32_t unicode_hash;               /* PyASCIIObject.hash (the cached hash, -1: none yet) */
	uint32_t unicode_ascii_size;         /* sizeof(PyASCIIObject): data of a compact ASCII str */
	uint32_t unicode_compact_size;       /* sizeof(PyCompactUnicodeObject): data of a compact str */

	/* Constants. */
	uint32_t unicode_kind_shift;         /* bit of state where kind (1, 2, 4) starts, 3 bits */
	uint32_t unicode_compact_bit;        /* bit of state: compact */
	uint32_t unicode_ascii_bit;          /* bit of state: ascii */
	uint32_t owned_by_cstack;            /* 3.12+: owner value of a shim frame (FRAME_OWNED_BY_CSTACK) */
	uint32_t owned_by_interpreter;       /* 3.14+: owner value of the interpreter's own entry
	                                      * frame (FRAME_OWNED_BY_INTERPRETER): skip it too */
	uint32_t code_ptr_tag_mask;          /* bits of frame_code to clear (3.14 _PyStackRef tags), else 0 */
	uint32_t code_unit_size;             /* sizeof(_Py_CODEUNIT): f_lasti (3.10) counts these */
};

/* The CPython versions the tables cover, as "3.10-3.14" (runs of minors
 * joined, others listed: "3.10-3.12, 3.14"), into buf; for what the user
 * is told.  Returns buf. */
const char *ct_pyabi_versions(char *buf, size_t n);

/* The built-in table for 3.minor (3.10 .. 3.12, and 3.13+ where a table
 * was generated as a fallback), or NULL. */
const struct ct_pyabi *ct_pyabi_builtin(unsigned minor);

/*
 * From the bytes of a process's _Py_DebugOffsets (read at _PyRuntime):
 * checks the cookie, the version it states (PY_VERSION_HEX, 3.minor) and
 * that every field it needs lies inside len bytes; fills *out.  Returns 0,
 * or -1 when the blob is not one this build knows (unknown minor, bad
 * cookie, too short).
 */
int ct_pyabi_from_debug_offsets(const void *blob, size_t len, struct ct_pyabi *out);

/* Bytes of _Py_DebugOffsets to read for 3.minor (0: unknown). */
size_t ct_pyabi_debug_offsets_size(unsigned minor);

/*
 * The source line of the instruction at byte offset `offset` of a code
 * object's bytecode, from its co_linetable (3.10: PEP 626 line table;
 * 3.11+: the location table of Objects/locations.md).  firstlineno is
 * co_firstlineno.  Returns the line, or -1 when the table says none or is
 * malformed (never reads past n).
 */
int ct_pyline(unsigned minor, const uint8_t *table, size_t n, int firstlineno, uint32_t offset);

#endif
