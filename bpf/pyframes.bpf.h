/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * --py-stack: the Python frames of the calling thread, at the entry of each
 * traced call.  The thread's own PyThreadState is found by its thread id
 * (native_thread_id, as its pid namespace numbers it) in its interpreter's
 * thread list: not the GIL holder, since PyTorch and JAX release the GIL
 * around most of their driver calls.  Found once, it is kept in the
 * thread's own storage (py_threads) and checked at each call (its thread
 * key matches), so a thread state freed or handed to another thread leads
 * to a new walk, never to another thread's frames.
 * Included by cudatrace.bpf.c.
 */
#ifndef CT_PYFRAMES_BPF_H
#define CT_PYFRAMES_BPF_H

#include "emit.bpf.h"

#include "pyframes.h"
#include "pysent.bpf.h"

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

struct py_code_seen {
	__u64 code, check;
};

/* A thread's PyThreadState, as last found, and its last stack sent. */
struct py_thread {
	__u64 tstate;                        /* PyThreadState *; 0: none found */
	__u64 interp;                        /* the PyInterpreterState whose list held it */
	struct py_sent sent;                 /* its last record: frames and checks (pysent.bpf.h) */
};

/* Per thread, as inflight_ioctl (cudatrace.bpf.c): found without hashing,
 * gone with the thread (a tid reused starts afresh). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct py_thread);
} py_threads SEC(".maps");

/*
 * The checks of code objects read by earlier calls, each kept with the
 * value that the process's counter of code objects made had when it was
 * read (3.12+: each new code object takes the counter's value as its
 * co_version and bumps it).  While the counter has not moved, no code
 * object was made, so a live one at a known address is the one that was
 * read there: its check is taken from here, not read again.  Per CPU, so
 * no entry is ever half written by another CPU; a bucket of two per
 * address hash (two code objects of one loop that share a bucket both
 * stay), a new entry in place of the older.
 */
#define PY_CODE_BUCKETS_LOG2 11
#define PY_CODE_BUCKETS (1u << PY_CODE_BUCKETS_LOG2)

struct py_code_cached {
	__u64 code, proc_id;
	__u64 scope;                         /* the interpreter whose counter (3.13+), else 0 */
	__u64 check;
	__u32 counter, _pad;
};

struct py_code_bucket {
	struct py_code_cached way[2];
	__u32 older, _pad;                   /* the way a new entry takes */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PY_CODE_BUCKETS);
	__type(key, __u32);
	__type(value, struct py_code_bucket);
} py_code_cache SEC(".maps");

/* Numbers for the processes a fork makes (top bit set: apart from the
 * capture's own, ct_py_proc.proc_id). */
static __u64 forked_procs;

/*
 * A fork of a process running CPython: the child has its parent's
 * interpreter at the same addresses, so it gets its parent's entry at
 * once, under a number of its own (code objects made after the fork
 * differ between the two), and its first calls are walked before the
 * capture hears of it (which then gives it an entry of its own).
 */
static __always_inline void py_proc_forked(__u32 parent, __u32 child)
{
	const struct ct_py_proc *pp = bpf_map_lookup_elem(&py_procs, &parent);
	struct ct_py_proc v;

	if (!pp)
		return;
	v = *pp;
	v.proc_id = 1ULL << 63 | __sync_fetch_and_add(&forked_procs, 1);
	v.forked_from = parent;
	v.forked_at = bpf_ktime_get_ns();
	bpf_map_update_elem(&py_procs, &child, &v, BPF_ANY);
}

static __always_inline __u64 read_ptr(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

#define PY_WINDOW CT_PY_STACK_WINDOW
#define PY_CODES_SEEN 4                 /* code objects whose check a walk keeps (a power of two) */

/* Where a walk starts (its first frame, the data stack's copy, where the
 * count of code objects was read, the call's time) and the count:
 * make_pystack's, for walk_frames. */
struct py_start {
	__u64 frame, win_lo, win_hi, scope, ts;
	__u32 counter;
	__u32 checks_n;                      /* py_sent_checks_kept's */
	__u32 _pad;
	/* then, for pysent.bpf.h: 1 + the depth (from the innermost) of the
	 * outermost frame unlike the last record's there, marks aside; the
	 * marks, a bit a depth; and, from the check loop, where a frame's
	 * code object or check is not the last record's at its depth */
	__u32 differ_end;
	__u64 entries[2];
	__u64 code_differs;
};

struct py_scratch {
	struct ct_pystack rec;
	struct ct_pyframe_raw frames[CT_PY_FRAMES_MAX];
	/* [0, PY_WINDOW): a copy of the data stack's innermost bytes;
	 * [PY_WINDOW, PY_WINDOW + CT_PY_FRAME_CHUNK): a frame read on its own.
	 * Twice the window, so that a masked offset stays inside. */
	__u8 stack[2 * PY_WINDOW];
	__u8 code[CT_PY_CODE_CHUNK + 8];
	__u8 tstate[CT_PY_TSTATE_CHUNK];     /* the thread state's window */
	/* The checks of code objects this walk read (recursion, and the
	 * same module machinery at many levels, repeat them). */
	struct py_code_seen seen[PY_CODES_SEEN];
	__u32 code_reads, code_known;        /* this walk's, for the counters */
	__u32 frames_alone, frames_walked;   /* ... of these, taken from -k's read */
	/* 1: a frame's check was not the thread's last record's (here, in
	 * the map value, rather than in the walk: the verifier would then
	 * follow each value through the frame loop) */
	__u32 missed;
	__u32 not_kept;                      /* frames whose check that record did not have */
	struct py_start start;               /* walk_frames' */
};
_Static_assert(sizeof(struct py_scratch) <= sizeof(((struct scratch *)0)->data),
	       "the walk's scratch must fit in the per-CPU scratch");

/*
 * A field of a chunk just read; off was checked against the chunk by the
 * capture.  One 8-byte load, as field_u64() does: a field need not be
 * 8-aligned in the chunk (a u8 owner, an int line number), which x86-64
 * and the verifier (no strict alignment there) allow; a memcpy would be
 * compiled to eight byte loads, and a walk reads four or five fields a frame.
 */
static __always_inline __u64 chunk_u64(const __u8 *chunk, __u32 off, __u32 chunk_size)
{
	if (off > chunk_size - 8)
		return 0;
	off &= chunk_size - 1;
	return *(const __u64 *)(chunk + off);
}

/* Copies len bytes (at most max, a power of two) from addr; 0 or an error. */
static __always_inline long read_window(__u8 *dst, __u32 max, __u64 addr, __u32 len)
{
	if (len == 0 || len > max)
		return -1;
	len &= 2 * max - 1;
	return bpf_probe_read_user(dst, len, (void *)addr);
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
	if (level == 0)              /* the initial namespace: the kernel's own id */
		return task->pid;
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

/* Copies the window of the thread state at tstate into ps->tstate: every
 * field of it the walk reads, in one copy; 0 or an error. */
static __always_inline long load_tstate(struct py_scratch *ps, const struct ct_py_proc *pp,
					__u64 tstate)
{
	return read_window(ps->tstate, CT_PY_TSTATE_CHUNK, tstate + pp->tstate_read_off,
			   pp->tstate_read_len);
}

static __always_inline __u64 tstate_field(const struct py_scratch *ps, __u32 off)
{
	return chunk_u64(ps->tstate, off, CT_PY_TSTATE_CHUNK);
}

/* The loaded thread state's key, as comparable to thread_key(). */
static __always_inline __u64 loaded_key(const struct ct_py_proc *pp, const struct py_scratch *ps)
{
	__u64 id = tstate_field(ps, pp->tstate_thread_key);

	return pp->thread_key_is_pthread ? id : (__u32)id;
}

struct tstate_walk {
	const struct ct_py_proc *pp;
	struct py_scratch *ps;
	__u64 tstate;                        /* the next to look at */
	__u64 found, found_interp;
	__u64 interp;                        /* whose list tstate is in */
	__u64 key;
};

static long tstate_step(__u32 i, void *ctx)
{
	struct tstate_walk *w = ctx;

	if (!w->tstate || load_tstate(w->ps, w->pp, w->tstate))
		return 1;
	if (loaded_key(w->pp, w->ps) == w->key) {
		w->found = w->tstate;
		w->found_interp = w->interp;
		return 1;
	}
	w->tstate = tstate_field(w->ps, w->pp->tstate_next);
	return 0;
}

/* Every interpreter's thread list, for the thread state of this thread
 * (its interpreter in *interp); the one found is left loaded in ps. */
static __noinline __u64 find_tstate(const struct ct_py_proc *pp, struct py_scratch *ps, __u64 key,
				    __u64 *interp)
{
	struct tstate_walk w = { .pp = pp, .ps = ps, .key = key };

	w.interp = read_ptr(pp->runtime + pp->runtime_interpreters_head);
	for (int i = 0; i < PY_INTERPS_MAX && w.interp && !w.found; i++) {
		w.tstate = read_ptr(w.interp + pp->interp_threads_head);
		bpf_loop(PY_THREADS_MAX, tstate_step, &w, 0);
		w.interp = read_ptr(w.interp + pp->interp_next);
	}
	*interp = w.found_interp;
	return w.found;
}

/* The calling thread's entry (its PyThreadState, left loaded in ps), or
 * NULL; *fresh: found by a walk now. */
static __always_inline struct py_thread *current_thread(const struct ct_py_proc *pp,
							 struct py_scratch *ps, bool *fresh)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct py_thread *t = bpf_task_storage_get(&py_threads, task, 0, 0);
	__u64 key = thread_key(pp), tstate, interp = 0;

	if (t && t->tstate && !load_tstate(ps, pp, t->tstate) && loaded_key(pp, ps) == key)
		return t;
	tstate = find_tstate(pp, ps, key, &interp);
	*fresh = true;
	if (!tstate) {
		if (t)
			t->tstate = 0;
		return NULL;
	}
	if (!t)
		t = bpf_task_storage_get(&py_threads, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return NULL;
	t->tstate = tstate;
	t->interp = interp;
	return t;
}

/* The innermost frame of the thread state loaded in ps.  3.11 and 3.12
 * keep it in a C frame (_PyCFrame) on the native stack, which -k's walk
 * of this call has mostly just read (kwalk_stack_word). */
static __always_inline __u64 top_frame(const struct ct_py_proc *pp, const struct py_scratch *ps,
				       __u64 ts)
{
	__u64 f = tstate_field(ps, pp->tstate_frame), at;

	if (!f || pp->cframe_current_frame == CT_PY_NO_FIELD)
		return f;
	at = f + pp->cframe_current_frame;
	if (kwalk_stack_word(ts, at, &f)) {
		count(CT_CNT_PY_CFRAME_WALKED);
		return f;
	}
	return read_ptr(at);
}

struct py_walk {
	const struct ct_py_proc *pp;
	struct py_scratch *ps;
	__u64 frame;
	__u64 win_lo, win_hi;                /* the user addresses that ps->stack holds */
	__u64 scope;                         /* where counter was read: py_code_cached.scope */
	__u32 counter;                       /* the code objects' counter now; 0: no cache */
	__u32 _pad;
	__u64 ts;                            /* the call's: whose -k's read is (kwalk_stack_bytes) */
	/* n shares its 8 bytes with fbase: the verifier then does not track
	 * n's value, and checks the frame loop in a few passes, not one per
	 * value of n (over its 1M-instruction limit). */
	__u32 fbase;                         /* where in ps->stack the frame being read is */
	__u32 n;
	const struct py_sent *sent;          /* the thread's last record (pysent.bpf.h) */
};

static __always_inline __u64 frame_field(struct py_walk *w, __u32 off)
{
	return chunk_u64(w->ps->stack, w->fbase + off, sizeof(w->ps->stack));
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

	if (w->n && last < CT_PY_FRAMES_MAX) {
		w->ps->frames[last].marks |= CT_PYF_ENTRY;
		py_sent_mark(w->ps->start.entries, last);
	}
}

/* A frame the interpreter pushes where C calls into it: no code of its own. */
static __always_inline bool is_shim(const struct ct_py_proc *pp, __u8 owner)
{
	return owner == pp->owned_by_cstack || owner == pp->owned_by_interpreter;
}

/*
 * Copies the innermost bytes of the thread's data stack (3.11+), where its
 * running frames are: one copy for all of them, not one per frame.  Which
 * bytes does not matter for being right: the copy is of the very memory a
 * frame inside it would be read from, at the same instant (the thread is in
 * a system call); a frame outside it is read on its own.
 */
static __always_inline void copy_datastack(struct py_walk *w)
{
	__u32 at = w->pp->tstate_datastack;
	__u64 chunk, top, lo;

	if (at == CT_PY_NO_FIELD)
		return;
	chunk = tstate_field(w->ps, at);
	top = tstate_field(w->ps, at + 8);
	if (top <= chunk)
		return;
	lo = top - chunk > PY_WINDOW ? top - PY_WINDOW : chunk;
	if (read_window(w->ps->stack, PY_WINDOW, lo, top - lo))
		return;
	w->win_lo = lo;
	w->win_hi = top;
}

/* The frame at w->frame into ps->stack (from the data stack's copy where
 * it lies inside it), w->fbase set to it; 0 or an error.  A frame outside
 * it (3.12's entry frames are on the native stack) is taken from -k's
 * read of the native stack where that holds it, else read. */
static __always_inline long load_frame(struct py_walk *w)
{
	const struct ct_py_proc *pp = w->pp;
	__u64 at = w->frame + pp->frame_read_off;
	__u32 len = pp->frame_read_len;
	const __u8 *walked;

	if (at >= w->win_lo && at + len <= w->win_hi) {
		w->fbase = at - w->win_lo;
		return 0;
	}
	w->fbase = PY_WINDOW;
	if (len && len <= CT_PY_FRAME_CHUNK && (walked = kwalk_stack_bytes(w->ts, at, len))) {
		w->ps->frames_walked++;
		return bpf_probe_read_kernel(w->ps->stack + PY_WINDOW, len, walked);
	}
	w->ps->frames_alone++;
	return read_window(w->ps->stack + PY_WINDOW, CT_PY_FRAME_CHUNK, at, len);
}

/* The process's counter of code objects made, for the cache: 0 where it
 * has none (3.10, 3.11, a 3.12 without symbols) or it ran out. */
static __always_inline void read_code_counter(struct py_walk *w, const struct py_thread *t)
{
	const struct ct_py_proc *pp = w->pp;
	__u64 at = pp->code_counter;
	__u32 counter = 0;

	if (pp->interp_code_counter != CT_PY_NO_FIELD) {
		w->scope = t->interp;
		at = t->interp ? t->interp + pp->interp_code_counter : 0;
	}
	if (at && !bpf_probe_read_user(&counter, sizeof(counter), (void *)at))
		w->counter = counter;
}

/* The bucket of code's address (Fibonacci hashing: nearby addresses, as a
 * process allocates its code objects, spread over all buckets). */
static __always_inline struct py_code_bucket *code_bucket(struct py_walk *w, __u64 code)
{
	__u32 slot = (code * 0x9e3779b97f4a7c15ULL) >> (64 - PY_CODE_BUCKETS_LOG2);

	return w->counter ? bpf_map_lookup_elem(&py_code_cache, &slot) : NULL;
}

static __always_inline bool cache_holds(const struct py_walk *w, const struct py_code_cached *c,
					__u64 code)
{
	return c && c->code == code && c->proc_id == w->pp->proc_id && c->scope == w->scope &&
	       c->counter == w->counter;
}

/* The check bucket b keeps for code, 0: none (a check kept is never 0). */
static __always_inline __u64 kept_check(const struct py_walk *w, const struct py_code_bucket *b,
					__u64 code)
{
	if (b && cache_holds(w, &b->way[0], code))
		return b->way[0].check;
	if (b && cache_holds(w, &b->way[1], code))
		return b->way[1].check;
	return 0;
}

/* Keeps code's check in b, in place of the older of its two. */
static __always_inline void keep_check(struct py_walk *w, struct py_code_bucket *b, __u64 code,
				       __u64 check)
{
	struct py_code_cached *c = &b->way[b->older & 1];

	b->older ^= 1;
	c->code = code;
	c->proc_id = w->pp->proc_id;
	c->scope = w->scope;
	c->counter = w->counter;
	c->check = check;
}

/* The check of the code object at code: from this walk's last read of it,
 * from an earlier call's while no code object was made since, else read
 * now (0: it could not be read). */
static __always_inline __u64 code_check_of(struct py_walk *w, __u64 code)
{
	struct py_code_seen *seen = &w->ps->seen[(code >> 4) & (PY_CODES_SEEN - 1)];
	struct py_code_bucket *b;
	__u64 check;

	if (seen->code == code) {
		w->ps->code_known++;
		return seen->check;
	}
	b = code_bucket(w, code);
	check = kept_check(w, b, code);
	if (check) {
		w->ps->code_known++;
	} else {
		w->ps->code_reads++;
		if (!read_window(w->ps->code, CT_PY_CODE_CHUNK, code + w->pp->code_read_off,
				 w->pp->code_read_len))
			check = code_check(w);
		if (b && check)
			keep_check(w, b, code, check);
	}
	seen->code = code;
	seen->check = check;
	return check;
}

/*
 * code_check_of as a function of its own, for a frame whose check the
 * thread's last record did not have: global, so the verifier checks the
 * reads and caches once, not in each of the check loop's unrolled steps
 * for each state it came with.
 * A global function takes no pointer from its caller's memory: the walk's
 * fields come as arguments.
 */
__noinline __u64 code_check_apart(const struct ct_py_proc *pp, struct py_scratch *ps,
				  __u64 code, __u64 scope, __u32 counter)
{
	struct py_walk w = { .pp = pp, .ps = ps, .scope = scope, .counter = counter };

	if (!pp || !ps)
		return 0;
	return code_check_of(&w, code);
}

static __always_inline long py_frame_step(struct py_walk *w)
{
	const struct ct_py_proc *pp = w->pp;
	struct ct_pyframe_raw *out;
	__u64 code, instr, check;
	__u32 n = w->n;

	if (!w->frame)
		return 1;
	if (n >= CT_PY_FRAMES_MAX) {
		w->ps->rec.flags |= CT_PY_TRUNC;
		return 1;
	}
	if (load_frame(w)) {
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
	/* compared before the frame is stored: the stores could be to the
	 * last record's memory, for all the compiler knows, and it would
	 * load that again */
	check = py_sent_check(w->sent, w->ps->start.checks_n, n, code);
	if (!py_sent_same_instr(w->sent, n, check, instr))
		w->ps->start.differ_end = n + 1;   /* in the map value, as missed */
	out = &w->ps->frames[n & (CT_PY_FRAMES_MAX - 1)];
	out->code = code;
	out->instr = instr;
	out->check = check;
	out->marks = 0;
	out->_pad = 0;
	if (!check) {
		w->ps->not_kept++;
		w->ps->missed |= code != 0;
	}
	if (pp->every_frame_entry ||
	    (pp->frame_is_entry != CT_PY_NO_FIELD && (__u8)frame_field(w, pp->frame_is_entry))) {
		out->marks = CT_PYF_ENTRY;
		py_sent_mark(w->ps->start.entries, n);
	}
	w->n = n + 1;
	return 0;
}

/* The check of frame i's code object, once all frames are found, where
 * the thread's last record did not have it: a loop of its own, run w->n
 * times (never compared here: the frame loop's count would have to be
 * tracked exactly, one verifier state per value).  Every frame is
 * compared again, its check made (3.10 and 3.11 keep none). */
static __always_inline void py_check_step(struct py_walk *w, __u32 i)
{
	struct ct_pyframe_raw *f = &w->ps->frames[i & (CT_PY_FRAMES_MAX - 1)];
	__u64 differs;

	if (f->code && !f->check)
		f->check = code_check_apart(w->pp, w->ps, f->code, w->scope, w->counter);
	differs = py_sent_code_differs(w->sent, i, f);
	w->ps->start.code_differs |= differs;
	if (differs || !py_sent_same_instr(w->sent, i, f->check, f->instr))
		w->ps->start.differ_end = i + 1;
}

/* PY_UNROLL frames a call of bpf_loop's callback, as the native walk
 * (kwalk.bpf.h): a call's entry and return are a good part of a frame. */
#ifndef PY_UNROLL
#define PY_UNROLL 4
#endif

static long py_frame_steps(__u32 i, void *ctx)
{
	for (int k = 0; k < PY_UNROLL; k++)
		if (py_frame_step(ctx))
			return 1;
	return 0;
}

static long py_check_steps(__u32 i, void *ctx)
{
	struct py_walk *w = ctx;

	for (int k = 0; k < PY_UNROLL; k++) {
		if (i * PY_UNROLL + k >= w->n)
			return 1;
		py_check_step(w, i * PY_UNROLL + k);
	}
	return 0;
}

/*
 * The frame loop, then the check loop where a check was missed, from the
 * walk's start left in ps->start; returns the frames found.  Global, so
 * the verifier checks the loops from one start, whatever values it came
 * with (before, make_pystack's ways of finding the thread and its window
 * reached the loop in 18 states, each checked through it: a third of -k's
 * sys_enter).
 */
__noinline __u32 walk_frames(const struct ct_py_proc *pp, struct py_scratch *ps,
			     const struct py_sent *sent)
{
	struct py_walk w = { .pp = pp, .ps = ps, .sent = sent };

	if (!pp || !ps || !sent)
		return 0;
	ps->start.differ_end = 0;
	ps->start.entries[0] = ps->start.entries[1] = 0;
	ps->start.code_differs = 0;
	w.frame = ps->start.frame;
	w.win_lo = ps->start.win_lo;
	w.win_hi = ps->start.win_hi;
	w.scope = ps->start.scope;
	w.counter = ps->start.counter;
	w.ts = ps->start.ts;
	bpf_loop(CT_PY_FRAMES_MAX / PY_UNROLL + 1, py_frame_steps, &w, 0);
	if (ps->missed) {
		ps->start.differ_end = 0;
		bpf_loop((w.n + PY_UNROLL - 1) / PY_UNROLL, py_check_steps, &w, 0);
	}
	return w.n;
}

/*
 * The calling thread's Python frames, as a CT_REC_PYSTACK record left in
 * the per-CPU scratch (pystack_record), and a copy for the prefetch ring
 * where they may name code objects not read yet.  Returns the record's
 * size, 0: none.  The caller sends it, alone or with the native stack's.
 * Global, so verified on its own: static, the verifier walked it again for
 * each state -k's native walk left (-k's sys_enter: 256,285 instructions
 * verified, 183,854 global).
 */
__noinline __u64 make_pystack(__u64 ts)
{
	__u64 id = bpf_get_current_pid_tgid(), size;
	__u32 tgid = id >> 32, tid = (__u32)id;
	const struct ct_py_proc *pp = bpf_map_lookup_elem(&py_procs, &tgid);
	struct scratch *s;
	struct py_walk w = {};
	struct py_thread *t;
	bool fresh = false, prefetch = false;
	__u32 code_memo;
	TIMER_START(t_all);

	if (!pp || !pp->runtime)
		return 0;
	s = get_scratch();
	if (!s)
		return 0;
	w.pp = pp;
	w.ps = (struct py_scratch *)s->data;
	w.ps->rec.h.type = CT_REC_PYSTACK;
	w.ps->rec.h.ts_ns = ts;
	w.ps->rec.h.pid = tgid;
	w.ps->rec.h.tid = tid;
	w.ps->rec.flags = 0;
	t = current_thread(pp, w.ps, &fresh);
	w.ps->rec.tstate = t ? t->tstate : 0;
	if (fresh)
		w.ps->rec.flags |= CT_PY_NEW_TSTATE;
	__builtin_memset(w.ps->seen, 0, sizeof(w.ps->seen));
	w.ps->code_reads = w.ps->code_known = w.ps->frames_alone = w.ps->frames_walked = 0;
	w.ps->missed = w.ps->not_kept = 0;
	w.ts = ts;
	if (t) {
		w.frame = top_frame(pp, w.ps, ts);
		copy_datastack(&w);
		read_code_counter(&w, t);
	} else {
		w.ps->rec.flags |= CT_PY_NO_TSTATE;
	}
	w.ps->start = (struct py_start){ .frame = w.frame, .win_lo = w.win_lo, .win_hi = w.win_hi,
					 .scope = w.scope, .ts = ts, .counter = w.counter };
	/* no thread state: no frames to walk */
	if (t)
		w.ps->start.checks_n = py_sent_checks_kept(&t->sent, pp->proc_id, w.scope,
							   w.counter);
	w.n = t ? walk_frames(pp, w.ps, &t->sent) : 0;
	/* checks the last record had: counted here, not a frame at a time */
	code_memo = w.n > w.ps->not_kept ? w.n - w.ps->not_kept : 0;
	if (w.ps->code_reads)
		count_n(CT_CNT_PY_CODE_READ, w.ps->code_reads);
	if (w.ps->code_known + code_memo)
		count_n(CT_CNT_PY_CODE_KNOWN, w.ps->code_known + code_memo);
	if (code_memo)
		count_n(CT_CNT_PY_CODE_MEMO, code_memo);
	if (w.ps->frames_alone)
		count_n(CT_CNT_PY_FRAME_ALONE, w.ps->frames_alone);
	if (w.ps->frames_walked)
		count_n(CT_CNT_PY_FRAME_WALKED, w.ps->frames_walked);
	/* Frames this thread did not send last time may name code objects the
	 * capture has not read: have them read now, while the process lives.
	 * The prefetch ring wakes its reader only when it has read all before
	 * (flags 0): one that is still reading comes to this record anyway. */
	prefetch = t && py_sent_new_code(&t->sent, pp->proc_id, w.n, w.ps->start.code_differs);
	w.ps->rec.nframes = w.n;
	w.ps->rec.seq = w.ps->rec.outer_kept = 0;
	size = sizeof(w.ps->rec) + (__u64)(w.n & (CT_PY_FRAMES_MAX * 2 - 1)) * sizeof(w.ps->frames[0]);
	if (size > CT_PYSTACK_RECORD_MAX)
		return 0;
	w.ps->rec.h.size = size;
	if (prefetch)          /* whole: the prefetch thread keeps no last stack */
		bpf_ringbuf_output(&py_rb, w.ps, size, 0);
	if (t) {
		w.ps->rec.seq = t->sent.seq + 1;
		w.ps->rec.outer_kept = py_sent_same_outer(&t->sent, pp->proc_id, w.n,
							  w.ps->start.differ_end,
							  w.ps->start.entries);
		size -= (__u64)(w.ps->rec.outer_kept & (PY_SENT_FRAMES * 2 - 1)) *
			sizeof(w.ps->frames[0]);
		w.ps->rec.h.size = size;
		/* the thread's last from now, before it is sent: here the thread's
		 * storage is at hand, and a send seldom fails (pystack_unsent) */
		py_sent_keep(&t->sent, pp->proc_id, w.scope, w.counter, w.ps->rec.seq,
			     w.ps->frames, w.n, w.ps->rec.outer_kept, w.ps->start.entries);
	}
	TIMER_ADD(CT_CNT_TIMED_PYSTACK_NS, t_all);
#ifdef CT_TIMED
	count(CT_CNT_TIMED_PYSTACKS);
#endif
	return size;
}

/* The record make_pystack left in the scratch; NULL where there is none. */
static __always_inline const void *pystack_record(void)
{
	struct scratch *s = get_scratch();

	return s ? s->data : NULL;
}

/* ... sent alone; true: it went into the ring. */
static __always_inline bool send_pystack(__u64 size)
{
	const void *rec = pystack_record();

	keep_in_register(size);
	return rec && size && size <= CT_PYSTACK_RECORD_MAX && emit((void *)rec, size);
}

/* The record make_pystack kept as the thread's last did not go into the
 * ring (full): nothing of it may be left out of the next. */
static __always_inline void pystack_unsent(void)
{
	struct py_thread *t = bpf_task_storage_get(&py_threads, bpf_get_current_task_btf(), 0, 0);

	if (t)
		t->sent.unsent = 1;   /* the next is sent whole */
}

#endif /* CT_PYFRAMES_BPF_H */
