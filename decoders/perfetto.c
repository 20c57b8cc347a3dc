// SPDX-License-Identifier: MIT
/*
 * The Perfetto view: Chrome trace-event JSON, streamed.
 *
 * Each event is written when the decoder hands over its call: a complete
 * slice ("ph":"X") per ioctl, an instant ("ph":"i") per mmap and munmap,
 * name metadata ("ph":"M") the first time a process or thread shows up (and
 * again if its comm changes), and a counter ("ph":"C") of calls per second
 * per process, written as each one-second window closes.  Only a call whose
 * exit never came is held back: it becomes a slice when its thread's next
 * call begins (a thread makes one system call at a time) or, at the end,
 * when the trace ends.  Times are microseconds (with the nanoseconds as
 * decimals) since the first call handed over.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "idmap.h"
#include "labels.h"
#include "perfetto.h"
#include "summary.h"

#define NS_PER_S 1000000000ull

/* What a slice needs of a call, kept for a call whose end is not known yet.
 * The names point into the static name tables. */
struct slice {
	uint32_t pid, tid;
	uint64_t ts;                  /* absolute entry time */
	uint64_t dur;
	bool finished, failed, enter_lost;
	uint32_t request;
	const char *name;
	bool has_ctrl, has_class, has_status, has_fd;
	uint32_t ctrl, hclass, status;
	const char *ctrl_name, *class_name, *status_name;
	int64_t ret;
	int32_t fd;
	char *path;                   /* owned */
};

struct thr {
	char comm[CT_COMM_LEN + 1];   /* thread_name written, "" none yet */
	struct slice *open;           /* unfinished call waiting for an end */
};

struct proc {
	uint32_t pid;
	char comm[CT_COMM_LEN + 1];   /* process_name written */
	bool main_named;              /* from the main thread */
	bool have_window;
	uint64_t window, count;       /* the current one-second window */
};

struct ct_perfetto {
	FILE *f;
	char *path;
	uint64_t nevents;
	bool have_base;
	uint64_t base;                /* absolute time of the first call */
	uint64_t last;                /* latest absolute time seen */
	struct idmap threads;         /* pid << 32 | tid -> struct thr */
	struct idmap procs;           /* 1 << 32 | pid -> struct proc */
	bool oom;
};

struct ct_perfetto *ct_perfetto_open(const char *path)
{
	struct ct_perfetto *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->path = strdup(path);
	p->f = p->path ? fopen(path, "we") : NULL;
	if (!p->f) {
		err = errno;
		free(p->path);
		free(p);
		errno = err;
		return NULL;
	}
	fputs("{\"traceEvents\":[\n", p->f);
	return p;
}

/* --- event writing -------------------------------------------------------- */

static void str(FILE *f, const char *s)
{
	em_json_string(f, s, strlen(s));
}

static void begin_event(struct ct_perfetto *p)
{
	if (p->nevents++)
		fputs(",\n", p->f);
}

/* Relative microseconds, nanoseconds as three decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static uint64_t rel(const struct ct_perfetto *p, uint64_t abs)
{
	return abs > p->base ? abs - p->base : 0;
}

static void meta_event(struct ct_perfetto *p, const char *what, uint32_t pid, uint32_t tid,
		       const char *name)
{
	begin_event(p);
	fprintf(p->f, "{\"name\":\"%s\",\"ph\":\"M\",\"ts\":0,\"pid\":%u,\"tid\":%u,"
		"\"args\":{\"name\":", what, pid, tid);
	str(p->f, name);
	fputs("}}", p->f);
}

static void counter_event(struct ct_perfetto *p, uint32_t pid, uint64_t rel_ns, uint64_t n)
{
	begin_event(p);
	fputs("{\"name\":\"calls/s\",\"cat\":\"rate\",\"ph\":\"C\",\"ts\":", p->f);
	put_us(p->f, rel_ns);
	fprintf(p->f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"calls\":%" PRIu64 "}}", pid, pid, n);
}

static void slice_name(const struct slice *s, char *buf, size_t n, const char **out)
{
	if (s->has_ctrl)
		*out = ct_ctrl_label(s->ctrl, s->ctrl_name, buf, n);
	else
		*out = ct_request_label(s->request, s->name, buf, n);
}

static void write_slice(struct ct_perfetto *p, const struct slice *s, uint64_t end,
			bool open_at_end)
{
	FILE *f = p->f;
	char buf[96], ebuf[96];
	const char *name;
	uint64_t start = rel(p, s->ts), stop = rel(p, end);

	if (stop < start)
		stop = start;
	slice_name(s, buf, sizeof(buf), &name);
	begin_event(p);
	fputs("{\"name\":", f);
	str(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":",
		s->finished ? "ioctl" : "ioctl,unfinished");
	put_us(f, start);
	fputs(",\"dur\":", f);
	put_us(f, stop - start);
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"request\":\"0x%08x\",\"escape\":",
		s->pid, s->tid, s->request);
	str(f, ct_request_label(s->request, s->name, ebuf, sizeof(ebuf)));
	if (s->has_ctrl) {
		fprintf(f, ",\"cmd\":\"0x%x\"", s->ctrl);
		if (s->ctrl_name) {
			fputs(",\"cmd_name\":", f);
			str(f, s->ctrl_name);
		}
	}
	if (s->has_class) {
		fprintf(f, ",\"hClass\":\"0x%x\"", s->hclass);
		if (s->class_name) {
			fputs(",\"hClass_name\":", f);
			str(f, s->class_name);
		}
	}
	if (s->has_status) {
		fprintf(f, ",\"status\":\"0x%x\"", s->status);
		if (s->status_name) {
			fputs(",\"status_name\":", f);
			str(f, s->status_name);
		}
	}
	if (s->finished)
		fprintf(f, ",\"ret\":%" PRId64 ",\"duration_ns\":%" PRIu64, s->ret, s->dur);
	if (s->has_fd)
		fprintf(f, ",\"fd\":%d", s->fd);
	if (s->path) {
		fputs(",\"path\":", f);
		str(f, s->path);
	}
	if (s->failed)
		fputs(",\"failed\":true", f);
	if (s->enter_lost)
		fputs(",\"enter_lost\":true", f);
	if (!s->finished)
		fprintf(f, ",\"unfinished\":true,\"ended_by\":\"%s\"",
			open_at_end ? "trace end" : "next call on the thread");
	if (s->ts < p->base)
		fputs(",\"started_before_first_call\":true", f);
	fputs("}}", f);
}

static void instant(struct ct_perfetto *p, const struct ct_call *c)
{
	FILE *f = p->f;

	begin_event(p);
	fprintf(f, "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":",
		c->name, c->name);
	put_us(f, rel(p, c->ts_ns));
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{", c->pid, c->tid);
	if (c->kind == CT_CALL_MMAP && c->mmap) {
		const struct ct_mmap *m = c->mmap;

		fprintf(f, "\"fd\":%d", m->fd);
		if (c->path) {
			fputs(",\"path\":", f);
			str(f, c->path);
		}
		fprintf(f, ",\"addr\":\"0x%" PRIx64 "\",\"len\":%" PRIu64 ",\"prot\":\"0x%x\","
			"\"flags\":\"0x%x\",\"offset\":\"0x%" PRIx64 "\"",
			(uint64_t)m->addr, (uint64_t)m->len, m->prot, m->mflags, (uint64_t)m->off);
		if (c->failed)
			fprintf(f, ",\"ret\":%" PRId64 ",\"failed\":true", (int64_t)m->ret);
		else
			fprintf(f, ",\"ret\":\"0x%" PRIx64 "\"", (uint64_t)m->ret);
		fprintf(f, ",\"duration_ns\":%" PRIu64, c->duration_ns);
	} else if (c->kind == CT_CALL_MUNMAP && c->munmap) {
		fprintf(f, "\"addr\":\"0x%" PRIx64 "\",\"len\":%" PRIu64 ",\"mapping_len\":%" PRIu64,
			(uint64_t)c->munmap->addr, (uint64_t)c->munmap->len,
			(uint64_t)c->munmap->map_len);
	}
	fputs("}}", f);
}

/* --- state ---------------------------------------------------------------- */

static struct proc *get_proc(struct ct_perfetto *p, uint32_t pid)
{
	uint64_t key = 1ull << 32 | pid;
	struct proc *pr = idmap_get(&p->procs, key);

	if (pr)
		return pr;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return NULL;
	pr->pid = pid;
	idmap_put(&p->procs, key, pr);
	return pr;
}

static struct thr *get_thr(struct ct_perfetto *p, uint32_t pid, uint32_t tid)
{
	uint64_t key = ((uint64_t)pid << 32 | tid) ?: ~0ull;   /* idmap cannot hold 0 */
	struct thr *t = idmap_get(&p->threads, key);

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	idmap_put(&p->threads, key, t);
	return t;
}

/* Process and thread names, written when first known or changed. */
static void name_tracks(struct ct_perfetto *p, const struct ct_call *c, struct proc *pr,
			struct thr *t)
{
	bool main_thread = c->tid == c->pid;

	if (!c->comm[0])   /* munmap records carry no comm */
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

/* Calls per second: the call counts in the window its end falls in (a
 * call ending in a window already written counts in the current one). */
static void count_call(struct ct_perfetto *p, struct proc *pr, uint64_t end)
{
	uint64_t w = rel(p, end) / NS_PER_S;

	if (!pr->have_window) {
		pr->have_window = true;
		pr->window = w;
		pr->count = 1;
		return;
	}
	if (w <= pr->window) {
		pr->count++;
		return;
	}
	counter_event(p, pr->pid, pr->window * NS_PER_S, pr->count);
	if (w > pr->window + 1)
		counter_event(p, pr->pid, (pr->window + 1) * NS_PER_S, 0);
	pr->window = w;
	pr->count = 1;
}

static void free_slice(struct slice *s)
{
	if (s) {
		free(s->path);
		free(s);
	}
}

static void fill_slice(struct slice *s, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->ex ? c->ex : c->en;

	memset(s, 0, sizeof(*s));
	s->pid = c->pid;
	s->tid = c->tid;
	s->ts = c->ts_ns;
	s->dur = c->duration_ns;
	s->finished = c->finished;
	s->failed = c->failed;
	s->enter_lost = !c->en;
	s->request = c->request;
	s->name = c->name;
	s->has_ctrl = c->has_ctrl;
	s->ctrl = c->ctrl;
	s->ctrl_name = c->ctrl_name;
	s->has_class = c->has_class;
	s->hclass = c->hclass;
	s->class_name = c->class_name;
	s->has_status = c->has_status;
	s->status = c->status;
	s->status_name = c->status_name;
	s->ret = c->ret;
	if (r) {
		s->has_fd = true;
		s->fd = r->fd;
	}
}

void ct_perfetto_add(struct ct_perfetto *p, const struct ct_call *c)
{
	uint64_t end = c->finished ? c->ts_ns + c->duration_ns : c->ts_ns;
	struct proc *pr;
	struct thr *t;
	struct slice s;

	if (!p->have_base) {
		p->have_base = true;
		p->base = c->ts_ns;
	}
	if (end > p->last)
		p->last = end;
	pr = get_proc(p, c->pid);
	t = get_thr(p, c->pid, c->tid);
	if (!pr || !t) {
		p->oom = true;
		return;
	}
	name_tracks(p, c, pr, t);
	if (t->open) {   /* the thread's previous call ended before this one */
		write_slice(p, t->open, c->ts_ns, false);
		free_slice(t->open);
		t->open = NULL;
	}
	count_call(p, pr, end);
	if (c->kind != CT_CALL_IOCTL) {
		instant(p, c);
		return;
	}
	if (c->finished) {
		fill_slice(&s, c);
		s.path = (char *)c->path;
		write_slice(p, &s, end, false);
		return;
	}
	t->open = malloc(sizeof(*t->open));
	if (!t->open) {
		p->oom = true;
		return;
	}
	fill_slice(t->open, c);
	t->open->path = c->path ? strdup(c->path) : NULL;
}

static void end_thread(uint64_t key, void *val, void *ctx)
{
	struct ct_perfetto *p = ctx;
	struct thr *t = val;

	(void)key;
	if (t->open) {
		write_slice(p, t->open, p->last, true);
		free_slice(t->open);
	}
	free(t);
}

static void end_proc(uint64_t key, void *val, void *ctx)
{
	struct ct_perfetto *p = ctx;
	struct proc *pr = val;
	uint64_t start, stop;

	(void)key;
	if (pr->have_window) {
		/* The last window: its count, then zero from the trace's end
		 * (or the window's end, whichever is first). */
		start = pr->window * NS_PER_S;
		stop = start + NS_PER_S;
		if (rel(p, p->last) < stop)
			stop = rel(p, p->last);
		if (stop <= start)
			stop = start + 1000;
		counter_event(p, pr->pid, start, pr->count);
		counter_event(p, pr->pid, stop, 0);
	}
	free(pr);
}

int ct_perfetto_close(struct ct_perfetto *p)
{
	int rc = 0, err;

	if (!p)
		return 0;
	idmap_drain(&p->threads, end_thread, p);
	idmap_drain(&p->procs, end_proc, p);
	idmap_free(&p->threads);
	idmap_free(&p->procs);
	fprintf(p->f, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"cudatrace\","
		"\"clock\":\"CLOCK_MONOTONIC\",\"zero_ns\":%" PRIu64 ",\"events\":%" PRIu64 "}}\n",
		p->base, p->nevents);
	err = ferror(p->f) ? EIO : 0;
	if (fclose(p->f) && !err)
		err = errno;
	if (err) {
		fprintf(stderr, "cudatrace: writing %s failed: %s\n", p->path, strerror(err));
		rc = -1;
	} else if (p->oom) {
		fprintf(stderr, "cudatrace: %s: out of memory; some calls are missing\n", p->path);
		rc = -1;
	}
	free(p->path);
	free(p);
	return rc;
}

/* --- the view ------------------------------------------------------------- */

static void view_call(void *ctx, const struct ct_call *c)
{
	ct_perfetto_add(ctx, c);
}

static void view_finish(void *ctx)
{
	ct_perfetto_close(ctx);
}

struct ct_view ct_perfetto_view(struct ct_perfetto *p)
{
	return (struct ct_view){ .call = view_call, .finish = view_finish, .ctx = p };
}
