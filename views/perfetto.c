// SPDX-License-Identifier: MIT
/*
 * The Perfetto view: Chrome trace-event JSON, streamed.
 *
 * Each event is written when the decoder hands over its call: a complete
 * slice ("ph":"X") per ioctl, an instant ("ph":"i") per mmap and munmap,
 * name metadata ("ph":"M") the first time a process or thread shows up (and
 * again if its comm changes), and a counter ("ph":"C") of calls per second
 * per process, written as each one-second window closes: the calls that
 * ended in the window over the time they took in it, so a burst shows its
 * own rate, not its count (the counter drops to 0 where the window's calls
 * end, when the next window does not start there).  Only a call whose
 * exit never came is held back: it becomes a slice when its thread's next
 * call begins (a thread makes one system call at a time) or, at the end,
 * when the trace ends.  Times are microseconds (with the nanoseconds as
 * decimals) since the first call handed over.  A second counter per
 * process, "device memory", follows what it holds (devmem.h), one series
 * per GPU and kind, written at each allocation and free.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "emit.h"
#include "idmap.h"
#include "labels.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "kname.h"
#include "gpuwork_tie.h"
#include "perfetto.h"
#include "pystack.h"
#include "stack.h"
#include "summary.h"
#include "whole_file.h"
#include "msg.h"

#define NS_PER_S 1000000000ull

struct thr {
	char comm[CT_COMM_LEN + 1];   /* thread_name written, "" none yet */
	/* An unfinished call waiting for its end: the call's own fields; its
	 * record pointers are cleared (the records are gone) and the path is
	 * a copy. */
	struct ct_call *open;
	/* -k: the API call the thread's latest calls came through: its
	 * consecutive calls with the same api and caller frame. */
	char *api, *caller;
	uint64_t api_caller_pc, api_start, api_end, api_calls;
	/* Python frames: the user's line its latest calls came from, around
	 * the API slices ("file:line func"). */
	char *py;
	uint64_t py_start, py_end, py_calls;
};

struct proc {
	uint32_t pid;
	char comm[CT_COMM_LEN + 1];   /* process_name written */
	bool main_named;              /* from the main thread */
	bool have_window;
	uint64_t window, count;       /* the current one-second window */
	uint64_t from, to;            /* the span its calls took in it (relative ns) */
};

struct ct_perfetto {
	struct ct_whole_file file;
	struct ct_out out;            /* on its way to file.f */
	struct emit em;               /* JSON on out */
	uint64_t nevents;
	bool have_base;
	uint64_t base;                /* absolute time of the first call */
	uint64_t last;                /* latest absolute time seen */
	struct idmap threads;         /* pid << 32 | tid -> struct thr */
	struct idmap procs;           /* 1 << 32 | pid -> struct proc */
	struct idmap channels;        /* --gpu-work: pid << 32 | channel, named already */
	struct ct_devmem *mem;        /* device memory held, per process */
	bool oom;
};

static void memory_counter(void *ctx, const struct ct_devmem_total *t, uint64_t ts_ns);

struct ct_perfetto *ct_perfetto_open(const char *path)
{
	struct ct_perfetto *p = calloc(1, sizeof(*p));
	int err = ENOMEM;

	if (p && (p->mem = ct_devmem_new(memory_counter, p)))
		err = ct_whole_file_open(&p->file, path);
	if (err) {
		if (p)
			ct_devmem_free(p->mem);
		free(p);
		errno = err;
		return NULL;
	}
	out_init(&p->out, p->file.f);
	em_init(&p->em, &p->out, true);
	out_puts(&p->out, "{\"traceEvents\":[\n");
	return p;
}

/* --- event writing -------------------------------------------------------- */

/* Events are separated here; each is one emit.c object. */
static struct emit *begin_event(struct ct_perfetto *p)
{
	if (p->nevents++)
		out_puts(&p->out, ",\n");
	em_open(&p->em, NULL);
	return &p->em;
}

static uint64_t rel(const struct ct_perfetto *p, uint64_t abs)
{
	return abs > p->base ? abs - p->base : 0;
}

static void meta_event(struct ct_perfetto *p, const char *what, uint32_t pid, uint32_t tid,
		       const char *name)
{
	struct emit *e = begin_event(p);

	em_str(e, "name", what);
	em_str(e, "ph", "M");
	em_u64(e, "ts", 0);
	em_u64(e, "pid", pid);
	em_u64(e, "tid", tid);
	em_open(e, "args");
	em_str(e, "name", name);
	em_close(e);
	em_close(e);
}

/* The process's memory now: every (GPU, kind) it has, as one counter. */
static void memory_counter(void *ctx, const struct ct_devmem_total *t, uint64_t ts_ns)
{
	struct ct_perfetto *p = ctx;
	size_t i, n;
	const struct ct_devmem_total *all = ct_devmem_totals(p->mem, &n);
	struct emit *e = begin_event(p);
	char key[48];

	em_str(e, "name", "device memory");
	em_str(e, "cat", "memory");
	em_str(e, "ph", "C");
	em_us(e, "ts", rel(p, ts_ns));
	em_u64(e, "pid", t->pid);
	em_u64(e, "tid", t->pid);
	em_open(e, "args");
	for (i = 0; i < n; i++) {
		if (all[i].pid != t->pid)
			continue;
		snprintf(key, sizeof(key), "gpu%d %s bytes", all[i].gpu,
			 ct_mem_kind_names[all[i].kind]);
		em_u64(e, key, all[i].held);
	}
	em_close(e);
	em_close(e);
}

static void counter_event(struct ct_perfetto *p, uint32_t pid, uint64_t rel_ns, uint64_t rate)
{
	struct emit *e = begin_event(p);

	em_str(e, "name", "calls/s");
	em_str(e, "cat", "rate");
	em_str(e, "ph", "C");
	em_us(e, "ts", rel_ns);
	em_u64(e, "pid", pid);
	em_u64(e, "tid", pid);
	em_open(e, "args");
	em_u64(e, "rate", rate);
	em_close(e);
	em_close(e);
}

/* A slice is named after its RM control, else its request. */
static const char *slice_name(const struct ct_call *c, char *buf, size_t n)
{
	if (c->has_ctrl)
		return ct_ctrl_label(c->ctrl, c->ctrl_name, buf, n);
	return ct_request_label(c->request, c->name, buf, n);
}

static void slice_args(struct ct_perfetto *p, const struct ct_call *c, bool open_at_end)
{
	struct emit *e = &p->em;
	char buf[96];

	snprintf(buf, sizeof(buf), "0x%08x", c->request);
	em_str(e, "request", buf);
	em_str(e, "escape", ct_request_label(c->request, c->name, buf, sizeof(buf)));
	if (c->has_ctrl)
		em_hex_named(e, "cmd", c->ctrl, c->ctrl_name);
	if (c->has_class)
		em_hex_named(e, "hClass", c->hclass, c->class_name);
	if (c->has_status)
		em_hex_named(e, "status", c->status, c->status_name);
	if (c->finished) {
		em_i64(e, "ret", c->ret);
		em_u64(e, "duration_ns", c->duration_ns);
	}
	if (c->fd >= 0)
		em_i64(e, "fd", c->fd);
	if (c->path)
		em_str(e, "path", c->path);
	if (c->failed)
		em_bool(e, "failed", true);
	if (c->finished && !c->en)
		em_bool(e, "enter_lost", true);
	if (!c->finished) {
		em_bool(e, "unfinished", true);
		em_str(e, "ended_by", open_at_end ? "trace end" : "next call on the thread");
	}
	if (c->ts_ns < p->base)
		em_bool(e, "started_before_first_call", true);
}

static void write_slice(struct ct_perfetto *p, const struct ct_call *c, uint64_t end,
			bool open_at_end)
{
	uint64_t start = rel(p, c->ts_ns), stop = rel(p, end);
	struct emit *e;
	char buf[96];

	if (stop < start)
		stop = start;
	e = begin_event(p);
	em_str(e, "name", slice_name(c, buf, sizeof(buf)));
	em_str(e, "cat", c->finished ? "ioctl" : "ioctl,unfinished");
	em_str(e, "ph", "X");
	em_us(e, "ts", start);
	em_us(e, "dur", stop - start);
	em_u64(e, "pid", c->pid);
	em_u64(e, "tid", c->tid);
	em_open(e, "args");
	slice_args(p, c, open_at_end);
	em_close(e);
	em_close(e);
}

static void mmap_args(struct emit *e, const struct ct_call *c)
{
	const struct ct_mmap *m = c->mmap;

	em_i64(e, "fd", m->fd);
	if (c->path)
		em_str(e, "path", c->path);
	em_hex(e, "addr", m->addr);
	em_u64(e, "len", m->len);
	em_hex(e, "prot", m->prot);
	em_hex(e, "flags", m->mflags);
	em_hex(e, "offset", m->off);
	if (c->failed) {
		em_i64(e, "ret", m->ret);
		em_bool(e, "failed", true);
	} else {
		em_hex(e, "ret", (uint64_t)m->ret);
	}
	em_u64(e, "duration_ns", c->duration_ns);
}

static void instant(struct ct_perfetto *p, const struct ct_call *c)
{
	struct emit *e = begin_event(p);

	em_str(e, "name", c->name);
	em_str(e, "cat", c->name);
	em_str(e, "ph", "i");
	em_str(e, "s", "t");
	em_us(e, "ts", rel(p, c->ts_ns));
	em_u64(e, "pid", c->pid);
	em_u64(e, "tid", c->tid);
	em_open(e, "args");
	if (c->kind == CT_CALL_MMAP && c->mmap) {
		mmap_args(e, c);
	} else if (c->kind == CT_CALL_MUNMAP && c->munmap) {
		em_hex(e, "addr", c->munmap->addr);
		em_u64(e, "len", c->munmap->len);
		em_u64(e, "mapping_len", c->munmap->map_len);
	}
	em_close(e);
	em_close(e);
}

/*
 * One slice per API call (-k), around the slices of the ioctls it made.
 * It starts 1 ns before its first call and ends 1 ns after its last, so
 * that the viewers nest the calls inside it even where times are equal.
 */
/*
 * A slice around a run of calls, widened by `widen` ns at each end so that
 * viewers nest the slices inside it even where times are equal; returns
 * the event with its "args" object open.
 */
static struct emit *group_slice(struct ct_perfetto *p, const char *name, const char *cat,
				uint64_t first_ns, uint64_t last_ns, uint64_t widen, uint32_t pid,
				uint32_t tid)
{
	uint64_t start = rel(p, first_ns), stop = rel(p, last_ns) + widen;
	struct emit *e;

	start = start > widen ? start - widen : 0;
	e = begin_event(p);
	em_str(e, "name", name);
	em_str(e, "cat", cat);
	em_str(e, "ph", "X");
	em_us(e, "ts", start);
	em_us(e, "dur", stop > start ? stop - start : 0);
	em_u64(e, "pid", pid);
	em_u64(e, "tid", tid);
	em_open(e, "args");
	return e;
}

static void write_api_slice(struct ct_perfetto *p, uint32_t pid, uint32_t tid, struct thr *t)
{
	struct emit *e;

	if (!t->api)
		return;
	e = group_slice(p, t->api, "api", t->api_start, t->api_end, 1, pid, tid);
	em_str(e, "caller", t->caller ? t->caller : "?");
	em_u64(e, "calls", t->api_calls);
	em_close(e);
	em_close(e);
	free(t->api);
	free(t->caller);
	t->api = t->caller = NULL;
}

/* One slice per run of calls from one line of the user's Python code,
 * around its API slices (2 ns wider at each end). */
static void write_py_slice(struct ct_perfetto *p, uint32_t pid, uint32_t tid, struct thr *t)
{
	struct emit *e;

	if (!t->py)
		return;
	e = group_slice(p, t->py, "python", t->py_start, t->py_end, 2, pid, tid);
	em_u64(e, "calls", t->py_calls);
	em_close(e);
	em_close(e);
	free(t->py);
	t->py = NULL;
}

/* The call joins its thread's Python slice, or closes it (and the API
 * slice inside, so that slices nest) and opens its own. */
static void track_py(struct ct_perfetto *p, struct thr *t, const struct ct_call *c, uint64_t end)
{
	char key[4400] = "";

	if (c->py && c->py_file)
		snprintf(key, sizeof(key), "%s:%d %s", ct_base_name(c->py_file), c->py->line,
			 c->py_func ? c->py_func : "?");
	if (t->py && strcmp(t->py, key) != 0) {
		write_api_slice(p, c->pid, c->tid, t);
		write_py_slice(p, c->pid, c->tid, t);
	}
	if (!key[0])
		return;
	if (!t->py) {
		if (!(t->py = strdup(key))) {
			p->oom = true;
			return;
		}
		t->py_start = c->ts_ns;
		t->py_calls = 0;
	}
	t->py_calls++;
	if (end > t->py_end || t->py_calls == 1)
		t->py_end = end;
}

/* The call joins its thread's API slice, or closes it and opens its own. */
static void track_api(struct ct_perfetto *p, struct thr *t, const struct ct_call *c,
		      uint64_t end)
{
	if (t->api && (!c->api || strcmp(t->api, c->api) || c->caller_pc != t->api_caller_pc))
		write_api_slice(p, c->pid, c->tid, t);
	if (!c->api)
		return;
	if (!t->api) {
		t->api = strdup(c->api);
		t->caller = c->caller ? strdup(c->caller) : NULL;
		if (!t->api) {
			p->oom = true;
			return;
		}
		t->api_caller_pc = c->caller_pc;
		t->api_start = c->ts_ns;
		t->api_calls = 0;
	}
	t->api_calls++;
	if (end > t->api_end || t->api_calls == 1)
		t->api_end = end;
}

/* --- state ---------------------------------------------------------------- */

static struct proc *get_proc(struct ct_perfetto *p, uint32_t pid)
{
	bool made;
	struct proc *pr = idmap_get_or_new(&p->procs, 1ull << 32 | pid, sizeof(*pr), &made);

	if (made)
		pr->pid = pid;
	return pr;
}

static struct thr *get_thr(struct ct_perfetto *p, uint32_t pid, uint32_t tid)
{
	uint64_t key = ((uint64_t)pid << 32 | tid) ?: ~0ull;   /* idmap cannot hold 0 */

	return idmap_get_or_new(&p->threads, key, sizeof(struct thr), NULL);
}

/* Process and thread names, written when first known or changed. */
static void name_tracks(struct ct_perfetto *p, const struct ct_call *c, struct proc *pr,
			struct thr *t)
{
	bool main_thread = c->tid == c->pid;

	/* A munmap's comm is the decoder's guess (its record has none), maybe
	 * its process's name: it names no track. */
	if (!c->comm[0] || c->kind == CT_CALL_MUNMAP)
		return;
	if (strcmp(t->comm, c->comm)) {
		memcpy(t->comm, c->comm, sizeof(t->comm));
		meta_event(p, "thread_name", c->pid, c->tid, c->comm);
	}
	/* The process is named after its main thread once that is seen. */
	if ((main_thread || !pr->main_named) && strcmp(pr->comm, c->comm)) {
		memcpy(pr->comm, c->comm, sizeof(pr->comm));
		meta_event(p, "process_name", c->pid, c->pid, c->comm);
	}
	if (main_thread)
		pr->main_named = true;
}

#define MIN_SPAN_NS 1000   /* a window of one instant call: a microsecond */

/* The window's rate from where its calls began to where they ended, then
 * 0 there unless the next window (at next_from) begins at that point. */
static void write_window(struct ct_perfetto *p, struct proc *pr, uint64_t next_from)
{
	/* Subtracted, never added: a hostile trace's times reach UINT64_MAX. */
	uint64_t span = pr->to > pr->from && pr->to - pr->from > MIN_SPAN_NS ?
			pr->to - pr->from : MIN_SPAN_NS;

	counter_event(p, pr->pid, pr->from, (uint64_t)((double)pr->count * NS_PER_S / span + 0.5));
	if (next_from != pr->from + span)
		counter_event(p, pr->pid, pr->from + span, 0);
}

static void start_window(struct proc *pr, uint64_t w, uint64_t start, uint64_t end)
{
	pr->have_window = true;
	pr->window = w;
	pr->count = 1;
	pr->from = start > w * NS_PER_S ? start : w * NS_PER_S;
	pr->to = end;
}

/* Calls per second: the call counts in the window its end falls in (a
 * call ending in a window already written counts in the current one);
 * start and end are relative. */
static void count_call(struct ct_perfetto *p, struct proc *pr, uint64_t start, uint64_t end)
{
	uint64_t w = end / NS_PER_S, w_start;

	if (!pr->have_window) {
		start_window(pr, w, start, end);
		return;
	}
	if (w <= pr->window) {
		w_start = pr->window * NS_PER_S;
		pr->count++;
		if ((start > w_start ? start : w_start) < pr->from)
			pr->from = start > w_start ? start : w_start;
		if (end > pr->to)
			pr->to = end;
		return;
	}
	write_window(p, pr, start > w * NS_PER_S ? start : w * NS_PER_S);
	start_window(pr, w, start, end);
}

static void free_held(struct ct_call *c)
{
	if (c) {
		free((char *)c->path);
		free(c);
	}
}

/* Keeps an unfinished call until its thread's next call (or the end). */
static struct ct_call *hold(const struct ct_call *c)
{
	struct ct_call *h = malloc(sizeof(*h));

	if (!h)
		return NULL;
	*h = *c;
	h->en = h->ex = h->rec = NULL;
	h->mmap = NULL;
	h->munmap = NULL;
	h->layout = h->nested_layout = NULL;
	h->special = NULL;
	h->stack = NULL;
	h->api = h->caller = NULL;   /* the decoder's buffers: gone by then */
	h->path = c->path ? strdup(c->path) : NULL;
	return h;
}

void ct_perfetto_add(struct ct_perfetto *p, const struct ct_call *c)
{
	uint64_t end = c->finished ? c->ts_ns + c->duration_ns : c->ts_ns;
	struct proc *pr;
	struct thr *t;

	if (!p->have_base) {
		p->have_base = true;
		p->base = c->ts_ns;
	}
	if (end > p->last)
		p->last = end;
	ct_devmem_call(p->mem, c);   /* may write a memory counter */
	pr = get_proc(p, c->pid);
	t = get_thr(p, c->pid, c->tid);
	if (!pr || !t) {
		p->oom = true;
		return;
	}
	name_tracks(p, c, pr, t);
	if (t->open) {   /* the thread's previous call ended before this one */
		write_slice(p, t->open, c->ts_ns, false);
		free_held(t->open);
		t->open = NULL;
	}
	count_call(p, pr, rel(p, c->ts_ns), rel(p, end));
	track_py(p, t, c, end);
	track_api(p, t, c, end);
	if (c->kind != CT_CALL_IOCTL) {
		instant(p, c);
		return;
	}
	if (c->finished) {
		write_slice(p, c, end, false);
		return;
	}
	t->open = hold(c);
	if (!t->open)
		p->oom = true;
}

static void end_thread(uint64_t key, void *val, void *ctx)
{
	struct ct_perfetto *p = ctx;
	struct thr *t = val;

	if (t->open) {
		write_slice(p, t->open, p->last, true);
		free_held(t->open);
	}
	write_api_slice(p, (uint32_t)(key >> 32), (uint32_t)key, t);
	write_py_slice(p, (uint32_t)(key >> 32), (uint32_t)key, t);
	free(t);
}

static void end_proc(uint64_t key, void *val, void *ctx)
{
	struct ct_perfetto *p = ctx;
	struct proc *pr = val;

	(void)key;
	if (pr->have_window)
		write_window(p, pr, UINT64_MAX);   /* the last: 0 after it */
	free(pr);
}

static void free_state(struct ct_perfetto *p)
{
	idmap_free(&p->threads);
	idmap_free(&p->procs);
	idmap_free(&p->channels);
	ct_devmem_free(p->mem);
	free(p);
}

int ct_perfetto_close(struct ct_perfetto *p)
{
	char *name;
	int rc = 0, err;

	if (!p)
		return 0;
	idmap_drain(&p->threads, end_thread, p);
	idmap_drain(&p->procs, end_proc, p);
	out_printf(&p->out, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":"
		   "\"cudatrace\",\"clock\":\"CLOCK_MONOTONIC\",\"zero_ns\":%" PRIu64
		   ",\"events\":%" PRIu64 "}}\n", p->base, p->nevents);
	out_flush(&p->out);
	name = strdup(strcmp(p->file.path, "-") ? p->file.path : "standard output");
	err = ct_whole_file_close(&p->file, true, p->out.err);
	if (err) {
		ct_err("writing --perfetto %s failed: %s; nothing was "
				"left there\n", name ? name : "", strerror(err));
		rc = -1;
	} else if (p->oom) {
		ct_err("--perfetto %s: out of memory; some calls are "
				"missing\n", name ? name : "");
		rc = -1;
	}
	free(name);
	free_state(p);
	return rc;
}

static void drop_thread(uint64_t key, void *val, void *ctx)
{
	struct thr *t = val;

	(void)key;
	(void)ctx;
	free_held(t->open);
	free(t->api);
	free(t->caller);
	free(t->py);
	free(t);
}

void ct_perfetto_discard(struct ct_perfetto *p)
{
	if (!p)
		return;
	idmap_drain(&p->threads, drop_thread, p);
	idmap_drain(&p->procs, idmap_free_value, p);
	ct_whole_file_close(&p->file, false, 0);
	free_state(p);
}

/* --- the view ------------------------------------------------------------- */

static void view_call(void *ctx, const struct ct_call *c)
{
	ct_perfetto_add(ctx, c);
}

static int view_finish(void *ctx)
{
	return ct_perfetto_close(ctx);
}

static void view_record(void *ctx, const struct ct_rec *r)
{
	struct ct_perfetto *p = ctx;

	ct_devmem_record(p->mem, r);   /* a process's exit frees: the counter drops */
}

/* CUDA's own copy and memset kernels: what they did (docs/GPUWORK.md). */
static void launch_op(struct emit *e, const struct gw_event *ev)
{
	const struct gw_kop *op = ev->op;

	if (!op)
		return;
	em_str(e, "op", op->what);
	em_u64(e, "bytes", op->bytes);
	if (!strcmp(op->what, "copy"))
		em_hex(e, "src", op->src);
	em_hex(e, "dst", op->dst);
}

/* --gpu-work: a track per channel (its tid the channel's handle), an
 * instant per launch and copy at the time the capture read it (when the
 * GPU ran it is not known). */
static void view_gpu_work(void *ctx, const struct ct_gpu_seg *g, const struct gw_event *ev)
{
	struct ct_perfetto *p = ctx;
	uint64_t key = (uint64_t)g->h.pid << 32 | g->channel;
	char name[64];
	struct emit *e;

	if (!ev || (ev->kind != GW_LAUNCH && ev->kind != GW_COPY))
		return;
	if (!p->have_base) {
		p->have_base = true;
		p->base = g->h.ts_ns;
	}
	if (key && !idmap_get(&p->channels, key)) {
		idmap_put(&p->channels, key, p);
		snprintf(name, sizeof(name), "GPU channel 0x%x (%s)", g->channel,
			 gw_engine_names[ev->engine]);
		meta_event(p, "thread_name", g->h.pid, g->channel, name);
	}
	e = begin_event(p);
	/* a named launch goes by its kernel (docs/KERNELS.md) */
	em_str(e, "name", ev->kind != GW_LAUNCH ? "COPY" : !ev->kernel ? "LAUNCH" :
			  ct_kname_label(ev->kernel) ? ct_kname_label(ev->kernel) : "? (ambiguous)");
	em_str(e, "cat", "gpu-work");
	em_str(e, "ph", "i");
	em_str(e, "s", "t");
	em_us(e, "ts", rel(p, g->h.ts_ns));
	em_u64(e, "pid", g->h.pid);
	em_u64(e, "tid", g->channel);
	em_open(e, "args");
	if (ev->kind == GW_LAUNCH && ev->have_qmd) {
		snprintf(name, sizeof(name), "(%u,%u,%u)", ev->grid[0], ev->grid[1], ev->grid[2]);
		em_str(e, "grid", name);
		snprintf(name, sizeof(name), "(%u,%u,%u)", ev->block[0], ev->block[1], ev->block[2]);
		em_str(e, "block", name);
		em_u64(e, "smem", ev->smem);
	}
	if (ev->kind == GW_LAUNCH) {
		em_hex(e, "qmd", ev->qmd);
		if (ev->kernel)
			em_str(e, "kernel_mangled", ev->kernel->mangled);
		launch_op(e, ev);
	} else {
		em_u64(e, "bytes", ev->bytes);
		em_hex(e, "src", ev->src);
		em_hex(e, "dst", ev->dst);
	}
	if (ev->after && ev->after->kind == GW_TIE_CERTAIN) {
		snprintf(name, sizeof(name), "%.40s of tid %u", ev->after->call.name,
			 ev->after->call.tid);
		em_str(e, "after", name);
	}
	em_close(e);
	em_close(e);
}

struct ct_view ct_perfetto_view(struct ct_perfetto *p)
{
	return (struct ct_view){ .call = view_call, .record = view_record,
				 .gpu_work = view_gpu_work, .finish = view_finish, .ctx = p };
}
