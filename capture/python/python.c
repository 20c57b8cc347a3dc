// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "codemaps.h"
#include "idmap.h"
#include "privs.h"
#include "pyabi.h"
#include "pycode.h"
#include "pycounter.h"
#include "pyelf.h"
#include "pyframes.h"
#include "pylast.h"
#include "python.h"
#include "record.h"
#include "msg.h"

#define STR_SLOTS 1024
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct py_proc {
	struct ct_pycode code;
	struct ct_pycounter_hunt counter;   /* 3.12 without the counter's symbol */
	bool found;
	bool warned;      /* its CPython cannot be read, and the user was told */
};

/* One CT_REC_PYFRAMES being built. */
struct pyframes_builder {
	unsigned char *buf;
	uint32_t nframes, strings_size;
	uint32_t slots[STR_SLOTS];    /* string offset + 1, by hash: dedupe */
};

#define PYFRAMES_BUF (sizeof(struct ct_pyframes) + sizeof(struct ct_pyframe) * CT_PY_FRAMES_MAX + \
		      CT_STRINGS_MAX)

struct ct_python {
	const char *proc_root;
	int map_fd;
	/* The prefetch thread: reads the code objects of new stacks as soon
	 * as the kernel sends them (py_rb), while the main loop may be busy.
	 * lock guards procs and every code cache. */
	pthread_mutex_t lock;
	pthread_t thread;
	bool thread_started;
	sem_t started;               /* posted once the thread dropped its privileges */
	int drop_err;
	volatile bool stop;
	struct ring_buffer *prefetch_rb;
	ct_python_sink sink;
	void *ctx;
	struct idmap procs;          /* pid -> struct py_proc */
	struct ct_pylast last;       /* each thread's latest stack, whole and named */
	struct ct_pyframe_raw whole[CT_PY_FRAMES_MAX];   /* the stack being named */
	struct pyframes_builder b;
	struct ct_python_stats st;
	uint64_t procs_seen;         /* numbers each process found: ct_py_proc.proc_id */
};

/* --- finding CPython ------------------------------------------------------ */

/*
 * The window that holds the fields present (each read as 8 bytes): its
 * start and length, the fields made relative to it.  -1 if it does not fit
 * in max bytes or no field is present.
 */
static int window(uint32_t **fields, int n, uint32_t max, uint32_t *off, uint32_t *len)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	for (int i = 0; i < n; i++) {
		if (*fields[i] == CT_PY_NO_FIELD)
			continue;
		lo = *fields[i] < lo ? *fields[i] : lo;
		hi = *fields[i] + 8 > hi ? *fields[i] + 8 : hi;
	}
	if (lo == UINT32_MAX || hi - lo > max)
		return -1;
	for (int i = 0; i < n; i++)
		if (*fields[i] != CT_PY_NO_FIELD)
			*fields[i] -= lo;
	*off = lo;
	*len = hi - lo;
	return 0;
}

/* The kernel's view of a process's CPython; -1 where a field it reads is
 * missing or the fields are too far apart for the window it copies. */
static int bpf_view(const struct ct_pyabi *a, uint64_t runtime, struct ct_py_proc *v)
{
	uint32_t ds_top;
	uint32_t *tstate_fields[] = { &v->tstate_next, &v->tstate_thread_key, &v->tstate_frame,
				      &v->tstate_datastack, &ds_top };
	uint32_t *frame_fields[] = { &v->frame_previous, &v->frame_code, &v->frame_instr,
				     &v->frame_owner, &v->frame_is_entry };
	uint32_t *code_fields[] = { &v->code_filename, &v->code_qualname, &v->code_linetable,
				    &v->code_firstlineno, &v->code_version };

	memset(v, 0, sizeof(*v));
	v->runtime = runtime;
	v->code_tag_mask = a->code_ptr_tag_mask;
	v->minor = a->minor;
	v->runtime_interpreters_head = a->runtime_interpreters_head;
	v->interp_next = a->interp_next;
	v->interp_threads_head = a->interp_threads_head;
	v->tstate_next = a->tstate_next;
	v->thread_key_is_pthread = a->tstate_native_thread_id == CT_PY_NONE;
	v->tstate_thread_key = v->thread_key_is_pthread ? a->tstate_thread_id
							: a->tstate_native_thread_id;
	v->cframe_current_frame = CT_PY_NO_FIELD;
	if (a->tstate_frame != CT_PY_NONE) {
		v->tstate_frame = a->tstate_frame;
	} else if (a->tstate_cframe != CT_PY_NONE) {
		v->tstate_frame = a->tstate_cframe;
		v->cframe_current_frame = a->cframe_current_frame;
	} else {
		v->tstate_frame = a->tstate_current_frame;
	}
	/* One copy reads both: the BPF program needs them side by side. */
	v->tstate_datastack = a->tstate_datastack_chunk != CT_PY_NONE &&
			      a->tstate_datastack_top == a->tstate_datastack_chunk + sizeof(uint64_t)
			      ? a->tstate_datastack_chunk : CT_PY_NO_FIELD;
	v->frame_previous = a->frame_previous;
	v->frame_code = a->frame_code;
	v->frame_instr = a->frame_instr;
	/* 3.10 (no co_code_adaptive) keeps an int f_lasti; later a pointer */
	v->frame_instr_size = a->code_code_adaptive == CT_PY_NONE ? sizeof(int) : sizeof(uint64_t);
	v->frame_owner = a->frame_owner;
	v->frame_is_entry = a->frame_is_entry;
	v->owned_by_cstack = a->owned_by_cstack;
	v->owned_by_interpreter = a->owned_by_interpreter;
	/* No owner, no is_entry (3.10): each frame has an eval call of its own. */
	v->every_frame_entry = a->frame_owner == CT_PY_NONE && a->frame_is_entry == CT_PY_NONE;
	v->code_filename = a->code_filename;
	v->code_qualname = a->code_qualname != CT_PY_NONE ? a->code_qualname : a->code_name;
	v->code_linetable = a->code_linetable;
	v->code_firstlineno = a->code_firstlineno;
	v->unicode_hash = a->unicode_hash;
	v->code_version = a->code_version;
	v->interp_code_counter = a->interp_code_counter;
	if (v->unicode_hash == CT_PY_NONE)
		return -1;

	if (v->tstate_frame == CT_PY_NONE || v->tstate_next == CT_PY_NONE ||
	    v->tstate_thread_key == CT_PY_NONE || v->interp_threads_head == CT_PY_NONE ||
	    v->frame_previous == CT_PY_NONE || v->frame_code == CT_PY_NONE ||
	    v->frame_instr == CT_PY_NONE || v->code_filename == CT_PY_NONE ||
	    v->code_qualname == CT_PY_NONE || v->code_linetable == CT_PY_NONE ||
	    v->code_firstlineno == CT_PY_NONE)
		return -1;
	/* datastack_top, right after datastack_chunk: in the window too */
	ds_top = v->tstate_datastack == CT_PY_NO_FIELD ? CT_PY_NO_FIELD
						       : v->tstate_datastack + sizeof(uint64_t);
	return window(tstate_fields, ARRAY_LEN(tstate_fields), CT_PY_TSTATE_CHUNK,
		      &v->tstate_read_off, &v->tstate_read_len) ||
	       window(frame_fields, ARRAY_LEN(frame_fields), CT_PY_FRAME_CHUNK,
		      &v->frame_read_off, &v->frame_read_len) ||
	       window(code_fields, ARRAY_LEN(code_fields), CT_PY_CODE_CHUNK,
		      &v->code_read_off, &v->code_read_len) ? -1 : 0;
}

/*
 * The offsets for one process: its own _Py_DebugOffsets where its minor
 * has one (3.13+: from the file's initialised data, else its memory), and
 * then never a guess (a free-threaded build fails here and gets no
 * frames); else the built-in table of its minor.
 */
static int abi_of(pid_t pid, const struct ct_pyelf *e, uint64_t runtime, struct ct_pyabi *out)
{
	size_t n = ct_pyabi_debug_offsets_size(e->minor);
	const struct ct_pyabi *builtin;
	uint8_t *blob;
	int rc = -1;

	if (!n) {
		builtin = ct_pyabi_builtin(e->minor);
		if (!builtin)
			return -1;
		*out = *builtin;
		return 0;
	}
	blob = malloc(n);
	if (!blob)
		return -1;
	if (e->head_len >= n)
		memcpy(blob, e->head, n);
	if (e->head_len >= n || ct_pymem_read(pid, runtime, blob, n) == 0)
		rc = ct_pyabi_from_debug_offsets(blob, n, out);
	free(blob);
	return rc;
}

static struct py_proc *get_proc(struct ct_python *p, uint32_t pid)
{
	return idmap_get_or_new(&p->procs, pid, sizeof(struct py_proc), NULL);
}

/* Once per process: a CPython found but not readable gets no frames, and
 * the user hears why, with the versions the tables cover. */
static void unreadable(struct ct_python *p, uint32_t pid, const struct ct_pyelf *e,
		       const char *path)
{
	struct py_proc *pr = get_proc(p, pid);
	char versions[96];

	if (!pr || pr->found || pr->warned)
		return;
	pr->warned = true;
	p->st.unreadable++;
	if (!ct_pyabi_builtin(e->minor))
		ct_warn("pid %u runs CPython 3.%u (%s): cudatrace reads the frames of "
			"CPython %s only; its calls get no Python frames\n", pid, e->minor,
			path, ct_pyabi_versions(versions, sizeof(versions)));
	else
		ct_warn("pid %u runs CPython 3.%u (%s) laid out otherwise than its table "
			"says (a free-threaded build?): its calls get no Python frames\n", pid,
			e->minor, path);
}

/* A version with co_version but no per-interpreter counter (3.12) counts
 * the code objects it makes in a global: by its symbol where the file has
 * them, else searched for (pycounter.h). */
static bool global_code_counter(const struct ct_pyabi *abi)
{
	return abi->code_version != CT_PY_NONE && abi->interp_code_counter == CT_PY_NONE;
}

static void start_counter_search(struct ct_python *p, struct py_proc *pr, const struct ct_pyelf *e,
				 const struct ct_codemap *m, const struct ct_pyabi *abi,
				 uint64_t code_type)
{
	struct ct_pycounter_layout lay = { .code_type = code_type, .ob_type = abi->object_ob_type,
					   .version = abi->code_version };

	if (e->code_counter) {
		p->st.counter_by_symbol++;
		return;
	}
	if (ct_pycounter_hunt_start(&pr->counter, m->fd, e->data_off, e->data_addr, e->data_size,
				    m->bias, &lay)) {
		p->st.counter_missed++;
		p->st.counter_miss_why = e->data_size ? "its .data could not be read from the file"
						      : "its file has no .data";
	}
}

/* A search under way tried again with a stack of pid's; the kernel told
 * where the counter is once found. */
static void search_counter(struct ct_python *p, uint32_t pid, struct py_proc *pr,
			   const struct ct_pyframe_raw *raw, uint32_t nframes)
{
	uint64_t codes[CT_PYCOUNTER_CODES_MAX], at;
	struct ct_py_proc v;
	size_t n = 0;

	if (!pr || !pr->counter.file)
		return;
	for (uint32_t i = 0; i < nframes && n < ARRAY_LEN(codes); i++)
		codes[n++] = raw[i].code;
	at = ct_pycounter_hunt_try(&pr->counter, (pid_t)pid, codes, n,
				   ct_now_ns(CLOCK_MONOTONIC));
	if (pr->counter.file)
		return;
	if (at && !bpf_map_lookup_elem(p->map_fd, &pid, &v)) {
		v.code_counter = at;
		if (!bpf_map_update_elem(p->map_fd, &pid, &v, BPF_EXIST)) {
			p->st.counter_found++;
			return;
		}
	}
	p->st.counter_missed++;
	p->st.counter_miss_why = at ? "the kernel's entry could not be updated"
				    : ct_pycounter_why(pr->counter.last, &pr->counter.found);
}

/* A mapped file of pid: if it holds CPython, tell the kernel. */
static void consider(struct ct_python *p, uint32_t pid, const struct ct_codemap *m)
{
	struct ct_pyelf e;
	struct ct_pyabi abi;
	struct ct_py_proc v;
	struct ct_pytypes types;
	struct py_proc *pr;
	uint64_t runtime;

	if (!m->is_elf || m->fd < 0 || !ct_pyelf_candidate(m->path) ||
	    ct_pyelf_find(m->fd, m->path, &e))
		return;
	runtime = e.runtime + m->bias;
	types.code = e.code_type ? e.code_type + m->bias : 0;
	types.str = e.str_type ? e.str_type + m->bias : 0;
	types.bytes = e.bytes_type ? e.bytes_type + m->bias : 0;
	if (abi_of((pid_t)pid, &e, runtime, &abi) || bpf_view(&abi, runtime, &v)) {
		unreadable(p, pid, &e, m->path);
		return;
	}
	if (global_code_counter(&abi) && e.code_counter)
		v.code_counter = e.code_counter + m->bias;
	pr = get_proc(p, pid);
	if (!pr || pr->found)
		return;
	v.proc_id = ++p->procs_seen;
	if (bpf_map_update_elem(p->map_fd, &pid, &v, BPF_ANY))
		return;
	ct_pycode_init(&pr->code, (pid_t)pid, &abi, &types);
	pr->found = true;
	p->st.procs++;
	if (global_code_counter(&abi))
		start_counter_search(p, pr, &e, m, &abi, types.code);
}

void ct_python_scan(struct ct_python *p, uint32_t pid)
{
	struct ct_codemaps old = {}, maps = {};

	if (ct_codemaps_read(p->proc_root, pid, &old, &maps))
		return;
	for (size_t i = 0; i < maps.n; i++)
		consider(p, pid, &maps.v[i]);
	ct_codemaps_free(&maps);
}

static void code_mapped(struct ct_python *p, const struct ct_code_map *r)
{
	const char *leaf = (const char *)(r + 1);   /* components leaf first */
	struct ct_codemap m;

	if (!r->path_size || strnlen(leaf, r->path_size) == r->path_size ||
	    !ct_pyelf_candidate(leaf) || ct_codemap_from_record(p->proc_root, r, &m))
		return;
	consider(p, r->h.pid, &m);
	close(m.fd);
	free(m.path);
}

static void forget(struct ct_python *p, uint32_t pid)
{
	struct py_proc *pr = idmap_del(&p->procs, pid);

	ct_pylast_forget_process(&p->last, pid);
	if (!pr)
		return;
	if (pr->counter.file) {    /* the search had not ended */
		p->st.counter_missed++;
		p->st.counter_miss_why = ct_pycounter_why(pr->counter.last, &pr->counter.found);
		ct_pycounter_hunt_end(&pr->counter);
	}
	if (pr->found) {
		ct_pycode_free(&pr->code);
		bpf_map_delete_elem(p->map_fd, &pid);
	}
	free(pr);
}

/*
 * A fork of a process running CPython (a -p or -- COMMAND capture hears of
 * each): the child has its parent's interpreter at the same addresses.
 * The kernel gave it its parent's entry at the fork; here it gets a number
 * of the capture's and a code cache of its own, read from its own memory
 * (code objects made after the fork differ between the two) and begun with
 * what was read of the parent before the fork (ct_pycode_inherit).
 */
static void forked(struct ct_python *p, uint32_t parent, uint32_t child, uint64_t fork_ns)
{
	struct py_proc *pp = idmap_get(&p->procs, parent), *pr = idmap_get(&p->procs, child);
	struct ct_py_proc v;

	/* Found already: from its first stack (proc_of), before the fork's
	 * record came; an earlier process of that pid was forgotten at its exit. */
	if ((pr && pr->found) || !pp || !pp->found || bpf_map_lookup_elem(p->map_fd, &parent, &v))
		return;
	pr = get_proc(p, child);
	v.proc_id = ++p->procs_seen;
	v.forked_from = 0;
	v.forked_at = 0;
	if (!pr || bpf_map_update_elem(p->map_fd, &child, &v, BPF_ANY))
		return;
	ct_pycode_init(&pr->code, (pid_t)child, &pp->code.abi, &pp->code.types);
	ct_pycode_inherit(&pr->code, &pp->code, fork_ns);
	pr->found = true;
	p->st.procs++;
	/* Forked before its parent's count of code objects was found: its own
	 * search (the entry copied at the fork has none). */
	if (!v.code_counter && pp->counter.file &&
	    ct_pycounter_hunt_copy(&pr->counter, &pp->counter)) {
		p->st.counter_missed++;
		p->st.counter_miss_why = "out of memory";
	}
}

/*
 * The process of a stack: known, or a fork the kernel walked before the
 * capture heard of it (its entry copied from its parent's at the fork;
 * the prefetch thread can see the child's first stack before the main
 * loop sees the fork, and a short-lived child is gone by then).
 */
static struct py_proc *proc_of(struct ct_python *p, uint32_t pid)
{
	struct py_proc *pr = idmap_get(&p->procs, pid);
	struct ct_py_proc v;

	if ((pr && pr->found) || bpf_map_lookup_elem(p->map_fd, &pid, &v) || !v.forked_from)
		return pr;
	forked(p, v.forked_from, pid, v.forked_at);
	return idmap_get(&p->procs, pid);
}

/* --- naming frames ------------------------------------------------------- */

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* The string's offset in the record's table (added once), or CT_NOSTR when full. */
static uint32_t add_string(struct pyframes_builder *b, char *strings, const char *s)
{
	uint32_t h = str_hash(s), n = (uint32_t)strlen(s) + 1;

	for (uint32_t i = 0; i < STR_SLOTS; i++) {
		uint32_t *slot = &b->slots[(h + i) % STR_SLOTS];

		if (!*slot) {
			if (n > CT_STRINGS_MAX - b->strings_size)
				return CT_NOSTR;
			memcpy(strings + b->strings_size, s, n);
			*slot = b->strings_size + 1;
			b->strings_size += n;
			return *slot - 1;
		}
		if (strcmp(strings + *slot - 1, s) == 0)
			return *slot - 1;
	}
	return CT_NOSTR;
}

static void name_frame(struct ct_python *p, struct py_proc *pr, const struct ct_pyframe_raw *raw,
		       struct ct_pyframe *out, char *strings)
{
	struct ct_pyname nm;

	out->code = raw->code;
	out->marks = raw->marks & CT_PYF_ENTRY;
	out->file = out->qualname = CT_NOSTR;
	out->line = -1;
	if (!pr || !pr->found || ct_pycode_name(&pr->code, raw, &nm)) {
		out->marks |= CT_PYF_UNNAMED;
		p->st.unnamed++;
		return;
	}
	out->file = add_string(&p->b, strings, nm.file);
	out->qualname = add_string(&p->b, strings, nm.qualname);
	out->line = nm.line;
	if (out->file == CT_NOSTR || out->qualname == CT_NOSTR)
		out->marks |= CT_PYF_UNNAMED;
}

static void count_stack(struct ct_python *p, const struct ct_pystack *s, uint32_t n, bool lost)
{
	p->st.stacks++;
	p->st.frames += n;
	p->st.no_tstate += !!(s->flags & CT_PY_NO_TSTATE);
	p->st.raw_bytes += s->h.size;
	if (lost)
		p->st.outer_lost++;
	else
		p->st.frames_left_out += s->outer_kept;
}

/* A raw stack from the kernel (checked by ct_record_check) -> CT_REC_PYFRAMES. */
static void name_stack(struct ct_python *p, const struct ct_pystack *s)
{
	struct ct_pyframes *r = (struct ct_pyframes *)p->b.buf;
	struct ct_pyframe *fr = (struct ct_pyframe *)(r + 1);
	struct py_proc *pr = proc_of(p, s->h.pid);
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	bool lost;
	uint32_t n = ct_pylast_whole(&p->last, s, p->whole, &lost);
	uint32_t flags = s->flags | (lost ? CT_PY_OUTER_LOST : 0);
	char *strings = (char *)(fr + n);   /* the table follows the frames */
	struct ct_pyframes *same = ct_pylast_repeat(&p->last, s, p->whole, n, flags);

	search_counter(p, s->h.pid, pr, p->whole, n);
	count_stack(p, s, n, lost);
	if (same) {
		uint32_t size = same->h.size;

		same->h = s->h;
		same->h.type = CT_REC_PYFRAMES;
		same->h.size = size;
		p->sink(p->ctx, &same->h);
		p->st.busy_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
		return;
	}
	p->b.strings_size = 0;
	memset(p->b.slots, 0, sizeof(p->b.slots));
	for (uint32_t i = 0; i < n; i++)
		name_frame(p, pr, &p->whole[i], &fr[i], strings);
	r->h = s->h;
	r->h.type = CT_REC_PYFRAMES;
	r->h.size = (uint32_t)(sizeof(*r) + n * sizeof(*fr) + p->b.strings_size);
	r->nframes = n;
	r->flags = flags;
	r->strings_size = p->b.strings_size;
	r->py_minor = pr && pr->found ? pr->code.abi.minor : 0;
	p->sink(p->ctx, &r->h);
	ct_pylast_keep(&p->last, s, p->whole, n, !lost, r);
	p->st.busy_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
}

static bool take_locked(struct ct_python *p, const struct ct_rec *r)
{
	switch (r->type) {
	case CT_REC_PYSTACK:
		name_stack(p, (const struct ct_pystack *)r);
		return true;
	case CT_REC_CODE_MAP:
		code_mapped(p, (const struct ct_code_map *)r);
		return false;
	case CT_REC_PROC: {
		uint32_t source = ((const struct ct_proc *)r)->source;

		if (source == CT_PROC_EXEC)
			forget(p, r->pid);    /* a new program; its code maps follow */
		else
			ct_python_scan(p, r->pid);
		return false;
	}
	case CT_REC_FORK:
		forked(p, r->pid, ((const struct ct_fork *)r)->child_pid, r->ts_ns);
		return false;
	case CT_REC_PROC_EXIT:
		forget(p, r->pid);
		return false;
	}
	return false;
}

bool ct_python_take(struct ct_python *p, const struct ct_rec *r)
{
	bool taken;

	pthread_mutex_lock(&p->lock);
	taken = take_locked(p, r);
	pthread_mutex_unlock(&p->lock);
	return taken;
}

static int on_prefetch(void *ctx, void *data, size_t len)
{
	struct ct_python *p = ctx;
	const struct ct_pystack *s = data;
	const struct ct_pyframe_raw *raw = (const struct ct_pyframe_raw *)(s + 1);
	struct py_proc *pr;

	if (ct_record_check(data, len) || s->h.type != CT_REC_PYSTACK)
		return 0;
	pthread_mutex_lock(&p->lock);
	p->st.prefetched++;
	pr = proc_of(p, s->h.pid);
	/* sent whole (bpf/pyframes.bpf.h): the thread's own frames are all */
	search_counter(p, s->h.pid, pr, raw, s->nframes - s->outer_kept);
	for (uint32_t i = 0; pr && pr->found && i < s->nframes - s->outer_kept; i++)
		ct_pycode_prefetch(&pr->code, &raw[i]);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

/*
 * The prefetch thread runs before ordinary threads (SCHED_FIFO, lowest
 * priority) where the capture may (CAP_SYS_NICE, and real-time time in its
 * cgroup): a short script's last call is followed by its exit within
 * milliseconds, and on a loaded machine a woken thread of ordinary
 * priority can wait longer than that for a CPU; its code objects are then
 * gone before they are read, and the call's frames unnamed.  It reads a
 * few code objects per new stack and sleeps; the kernel's real-time
 * throttling bounds it anyway.  Where real time is refused (a container
 * whose cgroup has none), a nice value of its own (a Linux thread has one)
 * still puts it ahead of ordinary threads at wakeup.
 */
#define PREFETCH_NICE (-10)

static void run_before_ordinary_threads(struct ct_python *p)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		p->st.prefetch_priority = CT_PREFETCH_REALTIME;
	else if (setpriority(PRIO_PROCESS, (id_t)gettid(), PREFETCH_NICE) == 0)
		p->st.prefetch_priority = CT_PREFETCH_NICE;
	else
		p->st.prefetch_priority = CT_PREFETCH_ORDINARY;
}

/* Started before the capture drops its privileges (CAP_SYS_NICE is needed
 * above), it drops its own: a thread's capabilities are its own. */
static void *prefetch_main(void *arg)
{
	struct ct_python *p = arg;

	run_before_ordinary_threads(p);
	p->drop_err = ct_drop_privileges();
	sem_post(&p->started);
	while (!p->stop)
		ring_buffer__poll(p->prefetch_rb, 100);
	return NULL;
}

/* Priority inheritance: the main loop holding the lock runs at the
 * prefetch thread's priority while that one waits for it. */
static void init_lock(pthread_mutex_t *lock)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(lock, &a))
		pthread_mutex_init(lock, NULL);
	pthread_mutexattr_destroy(&a);
}

struct ct_python *ct_python_new(const char *proc_root, int procs_map_fd, int prefetch_rb_fd,
				ct_python_sink sink, void *ctx)
{
	struct ct_python *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->proc_root = proc_root;
	p->map_fd = procs_map_fd;
	p->sink = sink;
	p->ctx = ctx;
	init_lock(&p->lock);
	p->b.buf = malloc(PYFRAMES_BUF);
	p->prefetch_rb = ring_buffer__new(prefetch_rb_fd, on_prefetch, p, NULL);
	if (!p->b.buf || !p->prefetch_rb) {
		ct_python_free(p);
		return NULL;
	}
	return p;
}

int ct_python_start(struct ct_python *p)
{
	int err;

	if (sem_init(&p->started, 0, 0))
		return -errno;
	err = pthread_create(&p->thread, NULL, prefetch_main, p);
	p->thread_started = err == 0;
	if (err)
		return -err;
	while (sem_wait(&p->started) && errno == EINTR)
		;
	if (p->drop_err)
		ct_warn("the Python frames thread could not drop "
				"privileges: %s\n", strerror(-p->drop_err));
	return 0;
}

static void free_proc(uint64_t pid, void *val, void *ctx)
{
	struct py_proc *pr = val;

	(void)pid;
	(void)ctx;
	if (pr->found)
		ct_pycode_free(&pr->code);
	free(pr);
}

void ct_python_free(struct ct_python *p)
{
	if (!p)
		return;
	if (p->thread_started) {
		p->stop = true;
		pthread_join(p->thread, NULL);
		sem_destroy(&p->started);
	}
	ring_buffer__free(p->prefetch_rb);
	pthread_mutex_destroy(&p->lock);
	idmap_drain(&p->procs, free_proc, NULL);
	idmap_free(&p->procs);
	ct_pylast_free(&p->last);
	free(p->b.buf);
	free(p);
}

static void count_searching(uint64_t pid, void *val, void *ctx)
{
	const struct py_proc *pr = val;

	(void)pid;
	*(uint64_t *)ctx += pr && pr->counter.file;
}

const struct ct_python_stats *ct_python_stats(struct ct_python *p)
{
	pthread_mutex_lock(&p->lock);
	p->st.counter_searching = 0;
	idmap_each(&p->procs, count_searching, &p->st.counter_searching);
	p->st.threads_forgotten = p->last.forgotten;
	pthread_mutex_unlock(&p->lock);
	return &p->st;
}
