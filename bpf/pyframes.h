/* SPDX-License-Identifier: MIT */
/*
 * What the BPF program needs to walk one process's Python frames: where
 * _PyRuntime is, and CPython's offsets for that process's minor version
 * (capture/python/pyabi.h, filled by the capture: capture/python/python.c).  Not a record: it
 * lives in the py_procs map and never reaches a trace file.
 */
#ifndef CT_PYFRAMES_H
#define CT_PYFRAMES_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* A frame, and a code object, are each read with one copy of at most this
 * many bytes: the window from the first field the walker reads to the end
 * of the last (the capture works it out per version). */
#define CT_PY_FRAME_CHUNK 128
#define CT_PY_CODE_CHUNK  256
/* A thread state likewise: its thread key, frame and data stack fields,
 * and its next (the walk of a thread list), in one copy. */
#define CT_PY_TSTATE_CHUNK 512
#define CT_PY_NO_FIELD    0xffffffffu

/* 3.11+ push their frames on a per-thread data stack: the innermost bytes
 * of it (at most this many) are copied at once, and the frames that lie in
 * that copy are read from it, not one by one (a power of two). */
#define CT_PY_STACK_WINDOW 16384

struct ct_py_proc {
	__u64 runtime;                   /* address of _PyRuntime */
	__u64 code_tag_mask;             /* bits of frame_code that are tags, not address */
	__u64 proc_id;                   /* this process as the capture found it, never reused */
	__u64 code_counter;              /* 3.12: address of the counter of code objects made; 0: none */
	__u32 interp_code_counter;       /* 3.13+: the same counter, per interpreter; NO_FIELD: none */
	__u32 minor;
	__u32 runtime_interpreters_head;
	__u32 interp_next;
	__u32 interp_threads_head;
	__u32 tstate_read_off, tstate_read_len; /* the window of a thread state to copy */
	__u32 tstate_next;               /* from tstate_read_off, as all tstate_* */
	__u32 tstate_thread_key;         /* the field that names the thread: */
	__u32 thread_key_is_pthread;     /* 1: thread_id, pthread_self() (3.10); 0: native_thread_id */
	__u32 tstate_frame;              /* the field of PyThreadState that leads to the frame */
	__u32 cframe_current_frame;      /* 3.11, 3.12: tstate_frame is a _PyCFrame *; else NO_FIELD */
	__u32 tstate_datastack;          /* datastack_chunk, datastack_top right after it; NO_FIELD: none */
	__u32 frame_read_off, frame_read_len;   /* the window of a frame to copy */
	__u32 code_read_off, code_read_len;     /* the window of a code object to copy */
	__u32 frame_previous;            /* from frame_read_off, as all frame_* */
	__u32 frame_code;
	__u32 frame_instr;
	__u32 frame_instr_size;          /* 4 (3.10's int f_lasti) or 8 */
	__u32 frame_owner;               /* NO_FIELD: none */
	__u32 frame_is_entry;            /* 3.11; NO_FIELD: none */
	__u32 owned_by_cstack;           /* owner of a shim frame; NO_FIELD: none */
	__u32 owned_by_interpreter;      /* 3.14: owner of the interpreter's entry frame; NO_FIELD: none */
	__u32 every_frame_entry;         /* 3.10: each frame has its own eval call */
	__u32 code_filename;             /* from code_read_off, as all code_* */
	__u32 code_qualname;
	__u32 code_linetable;
	__u32 code_firstlineno;
	__u32 code_version;              /* 3.12+: co_version; NO_FIELD: none */
	__u32 unicode_hash;              /* PyASCIIObject.hash of co_filename, co_qualname */
	__u32 forked_from;               /* copied by the kernel at a fork: the parent; else 0 */
	__u32 _pad;
	__u64 forked_at;                 /* and when (CLOCK_MONOTONIC ns) */
};

/*
 * The check of a code object sent with each frame and recomputed by the
 * capture from what it reads.  Pointers alone are not enough: a loop that
 * compiles and drops functions gets the code object, its name and its file
 * name back at the very same addresses (pymalloc reuses them in order), and
 * a freed object keeps most of its bytes.  From 3.12 each code object has
 * its own co_version (a counter, new per code object: nothing else is read);
 * before, or once the counter ran out (0), the check covers content of both
 * names: CT_PY_NAME_HEAD bytes from their cached hash on (the hash, the
 * state bits, the first characters of a compact ASCII name).
 */
#define CT_PY_NAME_HEAD 24
struct ct_py_code_id {
	__u64 filename, qualname, linetable;   /* the pointers */
	__u64 firstlineno;
	__u64 version;                         /* co_version, 0: none */
	__u64 filename_head[CT_PY_NAME_HEAD / 8], qualname_head[CT_PY_NAME_HEAD / 8];
};

static inline __u64 ct_py_check(const struct ct_py_code_id *id)
{
	__u64 h = 0xcbf29ce484222325ULL;

	h = (h ^ id->filename) * 0x100000001b3ULL;
	h = (h ^ id->qualname) * 0x100000001b3ULL;
	h = (h ^ id->linetable) * 0x100000001b3ULL;
	h = (h ^ id->firstlineno) * 0x100000001b3ULL;
	h = (h ^ id->version) * 0x100000001b3ULL;
	for (int i = 0; i < CT_PY_NAME_HEAD / 8; i++) {
		h = (h ^ id->filename_head[i]) * 0x100000001b3ULL;
		h = (h ^ id->qualname_head[i]) * 0x100000001b3ULL;
	}
	return h ? h : 1;      /* 0 means "not read" */
}

#endif /* CT_PYFRAMES_H */
