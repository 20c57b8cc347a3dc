// SPDX-License-Identifier: MIT
/*
 * Prometheus series for --metrics (metrics.h).  Families and their labels:
 *   cudatrace_calls_total{request,gpu,comm,container,pod}
 *   cudatrace_call_errors_total{request,gpu,comm,container,pod,status}
 *   cudatrace_call_duration_seconds{request}      histogram, per escape / UVM request
 *   cudatrace_device_memory_bytes{gpu,pid,comm,container,pod,kind}
 *   cudatrace_gpu_launches_total{gpu,comm,container,pod,pid}     --gpu-work
 *   cudatrace_gpu_copied_bytes_total{gpu,comm,container,pod,pid} --gpu-work
 *   cudatrace_gpu_kernel_op_bytes_total{gpu,comm,container,pod,pid,op} --gpu-work
 *   cudatrace_gpu_unseen_entries_total{gpu,comm,container,pod,pid,reason} --gpu-work
 *   cudatrace_gpu_channels_not_followed_total{gpu,comm,container,pod,pid} --gpu-work
 *   cudatrace_gpu_kernel_launches_total{gpu,comm,container,pod,pid,kernel}
 *                                                  --gpu-work --metrics-kernels N
 *   cudatrace_events_lost_total, cudatrace_metrics_series_dropped_total,
 *   cudatrace_metrics_http_errors_total, cudatrace_metrics_http_slow_requests_total
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "call_name.h"
#include "devmem.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "gpuwork_summary.h"
#include "idmap.h"
#include "kname.h"
#include "metrics.h"
#include "labels.h"
#include "utf8.h"
#include "grow.h"

enum fam { F_CALLS, F_ERRORS, F_DURATION, F_MEMORY, F_LAUNCHES, F_COPIED, F_KOP, F_UNSEEN,
	   F_UNFOLLOWED, F_UNSEEN_QMDS, F_KLAUNCHES, F_FAMS };

static const struct {
	const char *name, *type, *help;
} fams[F_FAMS] = {
	[F_CALLS] = { "cudatrace_calls_total", "counter",
		      "Calls to the NVIDIA driver (ioctl, mmap, munmap) by the most specific "
		      "request name: RM control, RM class, UVM request or escape." },
	[F_ERRORS] = { "cudatrace_call_errors_total", "counter",
		       "Calls that failed: a non-zero return or an NV_STATUS other than NV_OK." },
	[F_DURATION] = { "cudatrace_call_duration_seconds", "histogram",
			 "Time spent in the call, per escape and per UVM request." },
	[F_MEMORY] = { "cudatrace_device_memory_bytes", "gauge",
		       "Memory the driver allocated for the process and has not freed, from RM "
		       "allocations of memory classes, counted since the capture began "
		       "(memory held before it is not seen)." },
	[F_LAUNCHES] = { "cudatrace_gpu_launches_total", "counter",
			 "Kernel launches read from the process's channels (--gpu-work): QMDs "
			 "scheduled with a grid of at least one block, by their own send or by "
			 "the QMD before them in a CUDA graph." },
	[F_COPIED] = { "cudatrace_gpu_copied_bytes_total", "counter",
		       "Bytes of the copy engine transfers (copies and fills) read from the "
		       "process's channels (--gpu-work)." },
	[F_KOP] = { "cudatrace_gpu_kernel_op_bytes_total", "counter",
		    "Bytes CUDA's own kernels copied (op=\"copy\") or set (op=\"set\"), "
		    "read from their parameters (--gpu-work): on Hopper a device-to-device "
		    "cudaMemcpy and a cudaMemset run as kernels, not on the copy engine." },
	[F_UNSEEN] = { "cudatrace_gpu_unseen_entries_total", "counter",
		       "Ring entries of the process's channels whose work was not read "
		       "(--gpu-work), by reason: ring_wrap (a lower bound: whole rings more may "
		       "have gone by), lost (overwritten while read, or not copied at exit), "
		       "unreadable (the segment could not be read)." },
	[F_UNFOLLOWED] = { "cudatrace_gpu_channels_not_followed_total", "counter",
			   "Channels the reader gave up (--gpu-work): GPPut read outside the "
			   "ring; their later work is not counted anywhere." },
	[F_UNSEEN_QMDS] = { "cudatrace_gpu_unseen_qmds_total", "counter",
			    "QMDs a chain of QMDs (a CUDA graph) led to that could not be followed "
			    "(--gpu-work): not seen uploaded; the kernels they start are unseen." },
	[F_KLAUNCHES] = { "cudatrace_gpu_kernel_launches_total", "counter",
			  "Kernel launches by kernel name (--metrics-kernels N): the first N "
			  "kernels a process launches have their own series, the others are "
			  "summed in kernel=\"(other)\"; kernel=\"(unnamed)\": launches no "
			  "name was found for." },
};

/* Upper bounds of the duration buckets, in seconds. */
static const double bounds[] = {
	1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3,
	1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
#define NB (sizeof(bounds) / sizeof(bounds[0]))

struct series {
	enum fam fam;
	char *labels;                 /* name="value",... : fixed once published */
	_Atomic uint64_t value;       /* counter, or gauge (two's complement) */
	_Atomic uint64_t *buckets;    /* histogram: NB + 1 (the last: above all), then sum ns */
};

struct pinfo {
	struct ct_container ct;
	char comm[CT_COMM_LEN + 1];   /* from its calls; GPU work records have none */
};

struct ct_metrics {
	struct ct_metrics_opts o;
	struct series **slots;
	_Atomic size_t n;             /* published series */
	size_t cap;
	size_t *index;                /* writer only: open addressing, slot + 1 */
	size_t nindex;
	_Atomic uint64_t lost, dropped;
	_Atomic uint64_t http_events[CT_HTTP_SLOW_HEAD + 1];
	struct idmap procs;           /* pid -> struct pinfo */
	struct idmap klabels;         /* --metrics-kernels: pid -> struct klabels */
	struct ct_devmem *mem;
	uint64_t *mem_seen;           /* per devmem total: the held last added */
	size_t nmem_seen;
};

/* --metrics-kernels N: the kernel names of a process that have a series. */
struct klabels {
	uint32_t n;
	char *names[];
};

static void klabels_free(uint64_t key, void *val, void *ctx)
{
	struct klabels *k = val;

	(void)key;
	(void)ctx;
	for (uint32_t i = 0; k && i < k->n; i++)
		free(k->names[i]);
	free(k);
}

/* --- the store ----------------------------------------------------------- */

static uint64_t hash_str(enum fam f, const char *s)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)f;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static struct series *get_series(struct ct_metrics *m, enum fam f, const char *labels)
{
	size_t n = atomic_load_explicit(&m->n, memory_order_relaxed);
	size_t j = hash_str(f, labels) & (m->nindex - 1);
	struct series *s;

	for (; m->index[j]; j = (j + 1) & (m->nindex - 1)) {
		s = m->slots[m->index[j] - 1];
		if (s->fam == f && strcmp(s->labels, labels) == 0)
			return s;
	}
	if (n == m->cap) {
		atomic_fetch_add_explicit(&m->dropped, 1, memory_order_relaxed);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->labels = strdup(labels)) ||
	    (f == F_DURATION && !(s->buckets = calloc(NB + 2, sizeof(*s->buckets))))) {
		if (s)
			free(s->labels);
		free(s);
		atomic_fetch_add_explicit(&m->dropped, 1, memory_order_relaxed);
		return NULL;
	}
	s->fam = f;
	m->slots[n] = s;
	m->index[j] = n + 1;
	/* Readers see the series only once it is whole. */
	atomic_store_explicit(&m->n, n + 1, memory_order_release);
	return s;
}

bool ct_metrics_escape(char *buf, size_t n, size_t *pos, const char *v)
{
	size_t p = *pos, left = strlen(v);   /* measured once: one pass */

	while (left) {
		const char *rep = *v == '\\' ? "\\\\" : *v == '"' ? "\\\"" :
				  *v == '\n' ? "\\n" : NULL;
		size_t take = ct_utf8_char_len(v, left), k;

		/* A comm cut mid-character, or any bytes a process names itself:
		 * Prometheus refuses a whole page over one invalid label. */
		if (!rep && !take)
			rep = CT_UTF8_REPLACEMENT;
		if (rep) {
			k = strlen(rep);
			take = 1;
		} else {
			k = take;
		}
		if (p + k >= n)
			return false;
		memcpy(buf + p, rep ? rep : v, k);
		p += k;
		v += take;
		left -= take;
	}
	buf[p] = 0;
	*pos = p;
	return true;
}

/* Appends name="value" (value escaped) with a comma before it if needed. */
static bool label(char *buf, size_t n, size_t *pos, const char *name, const char *v)
{
	int k = snprintf(buf + *pos, n - *pos, "%s%s=\"", *pos ? "," : "", name);

	if (k < 0 || (size_t)k >= n - *pos)
		return false;
	*pos += (size_t)k;
	if (!ct_metrics_escape(buf, n, pos, v) || *pos + 2 > n)
		return false;
	buf[(*pos)++] = '"';
	buf[*pos] = 0;
	return true;
}

static void mem_changed(void *ctx, const struct ct_devmem_total *t, uint64_t ts_ns);

struct ct_metrics *ct_metrics_new(const struct ct_metrics_opts *o)
{
	struct ct_metrics *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->o = *o;
	m->cap = o->max_series ? o->max_series : 10000;
	for (m->nindex = 16; m->nindex < 2 * m->cap; m->nindex *= 2)
		;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	m->index = calloc(m->nindex, sizeof(*m->index));
	m->mem = ct_devmem_new(mem_changed, m);
	if (!m->slots || !m->index || !m->mem) {
		ct_metrics_free(m);
		return NULL;
	}
	return m;
}

void ct_metrics_free(struct ct_metrics *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < atomic_load(&m->n); i++) {
		free(m->slots[i]->labels);
		free(m->slots[i]->buckets);
		free(m->slots[i]);
	}
	free(m->slots);
	free(m->index);
	idmap_free_all(&m->procs);
	idmap_drain(&m->klabels, klabels_free, NULL);
	ct_devmem_free(m->mem);
	free(m->mem_seen);
	free(m);
}

void ct_metrics_http_event(struct ct_metrics *m, enum ct_http_event e)
{
	atomic_fetch_add_explicit(&m->http_events[e], 1, memory_order_relaxed);
}

void ct_metrics_set_lost(struct ct_metrics *m, uint64_t lost)
{
	atomic_store_explicit(&m->lost, lost, memory_order_relaxed);
}

/* --- the view ------------------------------------------------------------ */

static const struct pinfo *proc_info(struct ct_metrics *m, uint32_t pid)
{
	bool made;
	struct pinfo *p = idmap_get_or_new(&m->procs, pid, sizeof(*p), &made);

	/* Read once, at the process's first call (it stays in its cgroup). */
	if (made)
		ct_container_of_pid(m->o.proc_root, pid, &p->ct);
	return p;
}

/* gpu, comm, container, pod: the labels every per-process series has. */
static bool proc_labels(struct ct_metrics *m, char *buf, size_t n, size_t *pos, int gpu,
			uint32_t pid, const char *comm)
{
	const struct pinfo *p = proc_info(m, pid);
	char g[16];

	if (gpu >= 0)
		snprintf(g, sizeof(g), "%d", gpu);
	else
		snprintf(g, sizeof(g), "unknown");
	return label(buf, n, pos, "gpu", g) && label(buf, n, pos, "comm", comm) &&
	       label(buf, n, pos, "container", p ? p->ct.id : "") &&
	       label(buf, n, pos, "pod", p ? p->ct.pod : "");
}

static const char *status_label(const struct ct_call *c, char *buf, size_t n)
{
	if (c->has_status && c->status)
		return c->status_name ? c->status_name : (snprintf(buf, n, "0x%x", c->status), buf);
	if (c->ret < 0 && c->ret > -4096 && strerrorname_np((int)-c->ret))
		return strerrorname_np((int)-c->ret);
	snprintf(buf, n, "ret=%" PRId64, c->ret);
	return buf;
}

static void count_duration(struct ct_metrics *m, const struct ct_call *c)
{
	char name[96], lb[160];
	size_t pos = 0, i;
	struct series *s;
	double secs = (double)c->duration_ns / 1e9;

	if (!c->finished || c->kind == CT_CALL_MUNMAP)
		return;   /* no latency */
	if (!label(lb, sizeof(lb), &pos, "request", c->kind == CT_CALL_IOCTL ?
		   ct_request_label(c->request, c->name, name, sizeof(name)) : c->name))
		return;
	s = get_series(m, F_DURATION, lb);
	if (!s)
		return;
	for (i = 0; i < NB && secs > bounds[i]; i++)
		;
	atomic_fetch_add_explicit(&s->buckets[i], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->buckets[NB + 1], c->duration_ns, memory_order_relaxed);
}

static void keep_comm(struct ct_metrics *m, uint32_t pid, const char *comm)
{
	struct pinfo *p = (struct pinfo *)proc_info(m, pid);

	if (p && strcmp(p->comm, comm))
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

static void view_call(void *ctx, const struct ct_call *c)
{
	struct ct_metrics *m = ctx;
	char name[96], st[48], lb[1024];
	size_t pos = 0;
	struct series *s;

	ct_devmem_call(m->mem, c);
	keep_comm(m, c->pid, c->comm);
	if (!label(lb, sizeof(lb), &pos, "request",
		   ct_call_specific_name(c, name, sizeof(name))) ||
	    !proc_labels(m, lb, sizeof(lb), &pos, c->gpu, c->pid, c->comm))
		return;
	s = get_series(m, F_CALLS, lb);
	if (s)
		atomic_fetch_add_explicit(&s->value, 1, memory_order_relaxed);
	if (c->failed && label(lb, sizeof(lb), &pos, "status", status_label(c, st, sizeof(st)))) {
		s = get_series(m, F_ERRORS, lb);
		if (s)
			atomic_fetch_add_explicit(&s->value, 1, memory_order_relaxed);
	}
	count_duration(m, c);
}

/* A total of devmem changed: add the difference to its series (with
 * --metrics-no-pid several processes add into one). */
static void mem_changed(void *ctx, const struct ct_devmem_total *t, uint64_t ts_ns)
{
	struct ct_metrics *m = ctx;
	size_t n, k, pos = 0;
	const struct ct_devmem_total *all = ct_devmem_totals(m->mem, &n);
	char lb[1024], pid[16];
	struct series *s;

	(void)ts_ns;
	k = (size_t)(t - all);
	if (k >= m->nmem_seen) {
		size_t had = m->nmem_seen;
		uint64_t *ns = ct_grow(m->mem_seen, &m->nmem_seen, n, sizeof(*ns), n);

		if (!ns)
			return;
		memset(ns + had, 0, (m->nmem_seen - had) * sizeof(*ns));
		m->mem_seen = ns;
	}
	snprintf(pid, sizeof(pid), "%u", t->pid);
	if (!proc_labels(m, lb, sizeof(lb), &pos, t->gpu, t->pid, t->comm) ||
	    (!m->o.no_pid && !label(lb, sizeof(lb), &pos, "pid", pid)) ||
	    !label(lb, sizeof(lb), &pos, "kind", ct_mem_kind_names[t->kind]))
		return;
	s = get_series(m, F_MEMORY, lb);
	if (!s)
		return;
	atomic_fetch_add_explicit(&s->value, t->held - m->mem_seen[k], memory_order_relaxed);
	m->mem_seen[k] = t->held;
}

static void view_record(void *ctx, const struct ct_rec *r)
{
	struct ct_metrics *m = ctx;

	ct_devmem_record(m->mem, r);
	if (r->type == CT_REC_PROC_EXIT)   /* the pid may come back as another process */
		free(idmap_del(&m->procs, r->pid));
	if (r->type == CT_REC_PROC_EXIT)
		klabels_free(0, idmap_del(&m->klabels, r->pid), NULL);
}

/* The kernel label of a launch: its name while the process has fewer than
 * N, else "(other)" ("(unnamed)" and "(ambiguous)" count toward none).  A
 * series once published stays: the first N kernels keep theirs. */
static const char *kernel_label(struct ct_metrics *m, uint32_t pid, const struct gw_event *e)
{
	struct klabels *k = idmap_get(&m->klabels, pid);
	const char *label = e->kernel ? ct_kname_label(e->kernel) : NULL;
	const char *name = !e->kernel ? "(unnamed)" : label ? label : "(ambiguous)";
	uint32_t i;

	if (!label)
		return name;
	if (!k) {
		if (!(k = calloc(1, sizeof(*k) + m->o.kernels * sizeof(char *))))
			return "(other)";
		idmap_put(&m->klabels, pid, k);
	}
	for (i = 0; i < k->n; i++)
		if (!strcmp(k->names[i], name))
			return name;
	if (k->n == m->o.kernels || !(k->names[k->n] = strdup(name)))
		return "(other)";
	k->n++;
	return name;
}

static void count_kernel(struct ct_metrics *m, const struct ct_gpu_seg *g, const struct gw_event *e,
			 char *lb, size_t size, size_t pos)
{
	struct series *s;

	if (!label(lb, size, &pos, "kernel", kernel_label(m, g->h.pid, e)))
		return;
	s = get_series(m, F_KLAUNCHES, lb);
	if (s)
		atomic_fetch_add_explicit(&s->value, 1, memory_order_relaxed);
}

/* What one of CUDA's own copy or memset kernels did (lb: the launch's
 * labels up to pos). */
static void count_kernel_op(struct ct_metrics *m, const struct gw_event *e, char *lb, size_t n,
			    size_t pos)
{
	struct series *s;

	if (!e->op || !label(lb, n, &pos, "op", e->op->what) || !(s = get_series(m, F_KOP, lb)))
		return;
	atomic_fetch_add_explicit(&s->value, e->op->bytes, memory_order_relaxed);
}

/* --gpu-work: launches, copied bytes and unseen QMDs, per process and GPU. */
static void view_gpu_work(void *ctx, const struct ct_gpu_seg *g, const struct gw_event *e)
{
	struct ct_metrics *m = ctx;
	const struct pinfo *p;
	char lb[1024], pid[16];
	size_t pos = 0;
	struct series *s;
	struct ct_gw_unseen u = { 0 };
	enum fam f;

	if (e && e->kind != GW_LAUNCH && e->kind != GW_COPY && e->kind != GW_UNSEEN)
		return;
	if (!e)
		u = ct_gw_unseen_of(g);
	if (!e && !u.n)
		return;
	p = proc_info(m, g->h.pid);
	snprintf(pid, sizeof(pid), "%u", g->h.pid);
	if (!proc_labels(m, lb, sizeof(lb), &pos, g->gpu, g->h.pid, p ? p->comm : "") ||
	    (!m->o.no_pid && !label(lb, sizeof(lb), &pos, "pid", pid)) ||
	    (!e && !u.channel && !label(lb, sizeof(lb), &pos, "reason", u.reason)))
		return;
	f = e ? (e->kind == GW_LAUNCH ? F_LAUNCHES : e->kind == GW_COPY ? F_COPIED : F_UNSEEN_QMDS)
	      : u.channel ? F_UNFOLLOWED : F_UNSEEN;
	s = get_series(m, f, lb);
	if (s)
		atomic_fetch_add_explicit(&s->value, !e ? u.n : e->kind == GW_COPY ? e->bytes : 1,
					  memory_order_relaxed);
	if (e && e->kind == GW_LAUNCH && m->o.kernels)
		count_kernel(m, g, e, lb, sizeof(lb), pos);
	if (e && e->kind == GW_LAUNCH)
		count_kernel_op(m, e, lb, sizeof(lb), pos);
}

struct ct_view ct_metrics_view(struct ct_metrics *m)
{
	return (struct ct_view){ .call = view_call, .record = view_record,
				 .gpu_work = view_gpu_work, .ctx = m };
}

/* --- rendering ----------------------------------------------------------- */

struct out {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char *nb;
	int k;

	for (;;) {
		if (o->oom)
			return;
		va_start(ap, fmt);
		k = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
		if (k >= 0 && (size_t)k < o->cap - o->len) {
			o->len += (size_t)k;
			return;
		}
		if (k < 0 || !(nb = ct_grow(o->buf, &o->cap, o->len + (size_t)k + 1, 1, 4096))) {
			o->oom = true;
			return;
		}
		o->buf = nb;
	}
}

static void put_histogram(struct out *o, const struct series *s)
{
	uint64_t cum = 0;
	size_t i;

	for (i = 0; i < NB; i++) {
		cum += atomic_load_explicit(&s->buckets[i], memory_order_relaxed);
		put(o, "%s_bucket{%s,le=\"%g\"} %" PRIu64 "\n", "cudatrace_call_duration_seconds",
		    s->labels, bounds[i], cum);
	}
	cum += atomic_load_explicit(&s->buckets[NB], memory_order_relaxed);
	put(o, "cudatrace_call_duration_seconds_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n",
	    s->labels, cum);
	put(o, "cudatrace_call_duration_seconds_sum{%s} %.9f\n", s->labels,
	    (double)atomic_load_explicit(&s->buckets[NB + 1], memory_order_relaxed) / 1e9);
	put(o, "cudatrace_call_duration_seconds_count{%s} %" PRIu64 "\n", s->labels, cum);
}

char *ct_metrics_render(struct ct_metrics *m, size_t *len)
{
	size_t n = atomic_load_explicit(&m->n, memory_order_acquire), i;
	struct out o = { 0 };
	int f;

	put(&o, "# HELP cudatrace_events_lost_total Events the kernel could not put in the "
		"ring buffer (a larger -b helps).\n# TYPE cudatrace_events_lost_total counter\n"
		"cudatrace_events_lost_total %" PRIu64 "\n", atomic_load(&m->lost));
	put(&o, "# HELP cudatrace_metrics_series_dropped_total Updates not counted because "
		"the number of series reached --metrics-max-series.\n"
		"# TYPE cudatrace_metrics_series_dropped_total counter\n"
		"cudatrace_metrics_series_dropped_total %" PRIu64 "\n", atomic_load(&m->dropped));
	put(&o, "# HELP cudatrace_metrics_http_errors_total Problems with clients of this "
		"endpoint: resets, malformed or oversized requests, connections over a limit.\n"
		"# TYPE cudatrace_metrics_http_errors_total counter\n"
		"cudatrace_metrics_http_errors_total %" PRIu64 "\n",
		atomic_load(&m->http_events[CT_HTTP_ERROR]));
	put(&o, "# HELP cudatrace_metrics_http_slow_requests_total Connections closed because "
		"a request head was not complete within %u seconds.\n"
		"# TYPE cudatrace_metrics_http_slow_requests_total counter\n"
		"cudatrace_metrics_http_slow_requests_total %" PRIu64 "\n",
		CT_METRICS_HEAD_DEADLINE_S, atomic_load(&m->http_events[CT_HTTP_SLOW_HEAD]));
	for (f = 0; f < F_FAMS; f++) {
		put(&o, "# HELP %s %s\n# TYPE %s %s\n", fams[f].name, fams[f].help, fams[f].name,
		    fams[f].type);
		for (i = 0; i < n; i++) {
			const struct series *s = m->slots[i];
			uint64_t v;

			if (s->fam != (enum fam)f)
				continue;
			if (f == F_DURATION) {
				put_histogram(&o, s);
				continue;
			}
			v = atomic_load_explicit(&s->value, memory_order_relaxed);
			if (f == F_MEMORY)
				put(&o, "%s{%s} %" PRId64 "\n", fams[f].name, s->labels, (int64_t)v);
			else
				put(&o, "%s{%s} %" PRIu64 "\n", fams[f].name, s->labels, v);
		}
	}
	if (o.oom) {
		free(o.buf);
		return NULL;
	}
	*len = o.len;
	return o.buf;
}
