/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * --py-stack: the Python frames of the calling thread, at the entry of each
 * traced call.  The thread's own PyThreadState is found by its thread id
 * (native_thread_id, as its pid namespace numbers it) in its interpreter's
 * thread list: not the GIL holder, since PyTorch and JAX release the GIL
 * around most of their driver calls.  Found once, it is kept in py_threads
 * and checked at each call (the tid matches), so a thread state freed and
 * a tid reused lead to a new walk, never to another thread's frames.
 * Included by cudatrace.bpf.c after emit() and get_scratch().
 */
#ifndef CT_PYFRAMES_BPF_H
#define CT_PYFRAMES_BPF_H

#include "pyframes.h"

const volatile bool py_frames = false;   /* --py-stack, or -k */

#define PY_INTERPS_MAX 8        /* sub-interpreters walked for a thread */
#define PY_THREADS_MAX 1024     /* thread states walked per interpreter */

/* Processes running CPython (filled by the capture), and what to read. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);                  /* tgid */
	__type(value, struct ct_py_proc);
} py_procs SEC(".maps");

/*
 * A copy of each stack that may name code objects the capture has not read
 * (one that differs from the thread's last), for the capture's thread that
 * reads them at once: the main ring may wait behind slow unwinding while a
 * short-lived process exits and its memory goes.  Full: the copy is
 * skipped (the capture still names the frames, later).
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} py_rb SEC(".maps");

/* Thread -> its PyThreadState, as last found, and its last stack sent. */
struct py_thread {
	__u64 tstate;                        /* PyThreadState * */
	__u64 last_stack;                    /* a hash of its frames' code objects and checks */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);                  /* tid, as the kernel numbers it */
	__type(value, struct py_thread);
} py_threads SEC(".maps");

static __always_inline __u64 read_ptr(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

/* The current thread's id in its own pid namespace: what CPython 3.11+ stores. */
static __always_inline __u32 ns_tid(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pid *p = task->thread_pid;
	unsigned int level;
	int nr = 0;

	if (!p)
		return 0;
	level = p->level & 31;
	bpf_probe_read_kernel(&nr, sizeof(nr), (void *)p + bpf_core_field_offset(struct pid, numbers) +
			      level * bpf_core_type_size(struct upid));
	return (__u32)nr;
}

/* What a thread state's thread key holds for the current thread: its
 * namespace tid, or (3.10) its pthread_t, which glibc makes the thread pointer. */
static __always_inline __u64 thread_key(const struct ct_py_proc *pp)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return pp->thread_key_is_pthread ? task->thread.fsbase : ns_tid();
}

/* A thread state's key, as comparable to thread_key(). */
static __always_inline __u64 tstate_key(const struct ct_py_proc *pp, __u64 tstate)
{
	__u64 id = 0;

	bpf_probe_read_user(&id, sizeof(id), (void *)(tstate + pp->tstate_thread_key));
	return pp->thread_key_is_pthread ? id : (__u32)id;
}

struct tstate_walk {
	const struct ct_py_proc *pp;
	__u64 tstate;                        /* the next to look at */
	__u64 found;
	__u64 key;
};

static long tstate_step(__u32 i, void *ctx)
{
	struct tstate_walk *w = ctx;

	if (!w->tstate)
		return 1;
	if (tstate_key(w->pp, w->tstate) == w->key) {
		w->found = w->tstate;
		return 1;
	}
	w->tstate = read_ptr(w->tstate + w->pp->tstate_next);
	return 0;
}

/* Every interpreter's thread list, for the thread state of this thread. */
static __noinline __u64 find_tstate(const struct ct_py_proc *pp, __u64 key)
{
	struct tstate_walk w = { .pp = pp, .key = key };
	__u64 interp = read_ptr(pp->runtime + pp->runtime_interpreters_head);

	for (int i = 0; i < PY_INTERPS_MAX && interp && !w.found; i++) {
		w.tstate = read_ptr(interp + pp->interp_threads_head);
		bpf_loop(PY_THREADS_MAX, tstate_step, &w, 0);
		interp = read_ptr(interp + pp->interp_next);
	}
	return w.found;
}

/* The calling thread's entry (its PyThreadState), or NULL; *fresh: found by a walk now. */
static __always_inline struct py_thread *current_thread(const struct ct_py_proc *pp, __u32 tid,
							 bool *fresh)
{
	struct py_thread *known = bpf_map_lookup_elem(&py_threads, &tid), t = {};
	__u64 key = thread_key(pp);

	if (known && tstate_key(pp, known->tstate) == key)
		return known;
	t.tstate = find_tstate(pp, key);
	*fresh = true;
	if (!t.tstate) {
		if (known)
			bpf_map_delete_elem(&py_threads, &tid);
		return NULL;
	}
	bpf_map_update_elem(&py_threads, &tid, &t, BPF_ANY);
	return bpf_map_lookup_elem(&py_threads, &tid);
}

/* The innermost frame of a thread state. */
static __always_inline __u64 top_frame(const struct ct_py_proc *pp, __u64 tstate)
{
	__u64 f = read_ptr(tstate + pp->tstate_frame);

	if (f && pp->cframe_current_frame != CT_PY_NO_FIELD)
		f = read_ptr(f + pp->cframe_current_frame);
	return f;
}

struct py_scratch {
	struct ct_pystack rec;
	struct ct_pyframe_raw frames[CT_PY_FRAMES_MAX];
	__u8 frame[CT_PY_FRAME_CHUNK + 8];
	__u8 code[CT_PY_CODE_CHUNK + 8];
};

struct py_walk {
	const struct ct_py_proc *pp;
	struct py_scratch *ps;
	__u64 frame;
	__u64 hash;                          /* of the code objects and checks sent */
	__u32 n;
};

/* A field of a chunk just read; off was checked against the chunk by the capture. */
static __always_inline __u64 chunk_u64(const __u8 *chunk, __u32 off, __u32 chunk_size)
{
	__u64 v;

	if (off > chunk_size - 8)
		return 0;
	off &= chunk_size - 1;
	__builtin_memcpy(&v, chunk + off, sizeof(v));
	return v;
}

static __always_inline __u64 frame_field(struct py_walk *w, __u32 off)
{
	return chunk_u64(w->ps->frame, off, CT_PY_FRAME_CHUNK);
}

static __always_inline __u64 code_field(struct py_walk *w, __u32 off)
{
	return chunk_u64(w->ps->code, off, CT_PY_CODE_CHUNK);
}

/* ct_py_check of the code object just read into the chunk. */
static __always_inline __u64 code_check(struct py_walk *w)
{
	const struct ct_py_proc *pp = w->pp;
	struct ct_py_code_id id = {
		.filename = code_field(w, pp->code_filename),
		.qualname = code_field(w, pp->code_qualname),
		.linetable = code_field(w, pp->code_linetable),
		.firstlineno = (__u32)code_field(w, pp->code_firstlineno),
	};

	if (pp->code_version != CT_PY_NO_FIELD)
		id.version = (__u32)code_field(w, pp->code_version);
	if (!id.version) {
		bpf_probe_read_user(id.filename_head, CT_PY_NAME_HEAD,
				    (void *)(id.filename + pp->unicode_hash));
		bpf_probe_read_user(id.qualname_head, CT_PY_NAME_HEAD,
				    (void *)(id.qualname + pp->unicode_hash));
	}
	return ct_py_check(&id);
}

/* The previous frame sent began a C-level call into the interpreter. */
static __always_inline void mark_entry(struct py_walk *w)
{
	__u32 last = w->n - 1;

	if (w->n && last < CT_PY_FRAMES_MAX)
		w->ps->frames[last].marks |= CT_PYF_ENTRY;
}

/* Copies len bytes (at most max, a power of two) from addr; 0 or an error. */
static __always_inline long read_window(__u8 *dst, __u32 max, __u64 addr, __u32 len)
{
	if (len == 0 || len > max)
		return -1;
	len &= 2 * max - 1;
	return bpf_probe_read_user(dst, len, (void *)addr);
}

/* A frame the interpreter pushes where C calls into it: no code of its own. */
static __always_inline bool is_shim(const struct ct_py_proc *pp, __u8 owner)
{
	return owner == pp->owned_by_cstack || owner == pp->owned_by_interpreter;
}

static long py_frame_step(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;
	const struct ct_py_proc *pp = w->pp;
	struct ct_pyframe_raw *out;
	__u64 code, instr;
	__u32 n = w->n;

	if (!w->frame)
		return 1;
	if (n >= CT_PY_FRAMES_MAX) {
		w->ps->rec.flags |= CT_PY_TRUNC;
		return 1;
	}
	if (read_window(w->ps->frame, CT_PY_FRAME_CHUNK, w->frame + pp->frame_read_off,
			pp->frame_read_len)) {
		w->ps->rec.flags |= CT_PY_FAULT;
		return 1;
	}
	w->frame = frame_field(w, pp->frame_previous);
	if (pp->frame_owner != CT_PY_NO_FIELD && is_shim(pp, (__u8)frame_field(w, pp->frame_owner))) {
		mark_entry(w);      /* a shim: the frame before it is an entry */
		return 0;
	}
	code = frame_field(w, pp->frame_code) & ~pp->code_tag_mask;
	instr = frame_field(w, pp->frame_instr);
	if (pp->frame_instr_size == sizeof(__u32))
		instr = (__u32)instr;
	out = &w->ps->frames[n & (CT_PY_FRAMES_MAX - 1)];
	out->code = code;
	out->instr = instr;
	out->marks = 0;
	out->_pad = 0;
	out->check = 0;
	if (pp->every_frame_entry ||
	    (pp->frame_is_entry != CT_PY_NO_FIELD && (__u8)frame_field(w, pp->frame_is_entry)))
		out->marks = CT_PYF_ENTRY;
	if (code && !read_window(w->ps->code, CT_PY_CODE_CHUNK, code + pp->code_read_off,
				 pp->code_read_len))
		out->check = code_check(w);
	w->hash = (w->hash ^ code ^ out->check) * 0x100000001b3ULL;
	w->n = n + 1;
	return 0;
}

static __noinline void send_pystack(__u64 ts)
{
	__u64 id = bpf_get_current_pid_tgid(), size;
	__u32 tgid = id >> 32, tid = (__u32)id;
	const struct ct_py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	struct scratch *s;
	struct py_walk w = {};
	struct py_thread *t;
	bool fresh = false, prefetch = false;

	if (!pp || !pp->runtime)
		return;
	s = get_scratch();
	if (!s)
		return;
	w.pp = pp;
	w.ps = (struct py_scratch *)s->data;
	w.ps->rec.h.type = CT_REC_PYSTACK;
	w.ps->rec.h.ts_ns = ts;
	w.ps->rec.h.pid = tgid;
	w.ps->rec.h.tid = tid;
	w.ps->rec.flags = 0;
	t = current_thread(pp, tid, &fresh);
	w.ps->rec.tstate = t ? t->tstate : 0;
	if (fresh)
		w.ps->rec.flags |= CT_PY_NEW_TSTATE;
	if (t)
		w.frame = top_frame(pp, t->tstate);
	else
		w.ps->rec.flags |= CT_PY_NO_TSTATE;
	bpf_loop(CT_PY_FRAMES_MAX + 1, py_frame_step, &w, 0);
	/* Frames this thread did not send last time may name code objects the
	 * capture has not read: have them read now, while the process lives. */
	if (t && t->last_stack != w.hash) {
		t->last_stack = w.hash;
		prefetch = true;
	}
	w.ps->rec.nframes = w.n;
	size = sizeof(w.ps->rec) + (__u64)(w.n & (CT_PY_FRAMES_MAX * 2 - 1)) * sizeof(w.ps->frames[0]);
	if (size > sizeof(w.ps->rec) + sizeof(w.ps->frames))
		return;
	w.ps->rec.h.size = size;
	if (prefetch)
		bpf_ringbuf_output(&py_rb, w.ps, size, BPF_RB_FORCE_WAKEUP);
	emit(w.ps, size);
}

#endif /* CT_PYFRAMES_BPF_H */
