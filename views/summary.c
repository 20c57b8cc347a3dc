// SPDX-License-Identifier: MIT
/*
 * The summary view: strace -c for NVIDIA driver calls.
 *
 * Rows are (process group, kind, key): kind is an ioctl escape (keyed by
 * _IOC_NR), an RM control command (NVOS54 cmd), a UVM request, or "other"
 * (mmap, munmap, ioctls on a --device file that are none of those).  Every
 * row keeps every latency (8 bytes per finished call) so that p50 and p99
 * are exact: sorted once when the table is printed, nearest-rank.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "labels.h"
#include "summary.h"
#include "msg.h"
#include "grow.h"


enum kind { K_ESCAPE, K_CTRL, K_UVM, K_OTHER, K_MAX };

static const char *const kind_names[K_MAX] = { "escape", "ctrl", "uvm", "other" };

/* Keys of the "other" rows that are not ioctl requests. */
#define KEY_MMAP   (1ull << 32)
#define KEY_MUNMAP ((1ull << 32) | 1)

struct row {
	uint32_t pid;            /* 0 unless by_pid */
	enum kind kind;
	uint64_t key;
	bool has_value;
	uint32_t value;          /* escape number, control cmd, request */
	char name[96];
	uint64_t calls, errors, unfinished;
	uint64_t total_ns, max_ns;
	uint64_t *lat;           /* every latency, in arrival order until sorted */
	size_t nlat, caplat;
};

struct group {
	uint32_t pid;
	char comm[CT_COMM_LEN + 1];
	uint64_t total_ns;
};

struct ct_summary {
	struct ct_summary_opts o;
	struct row *rows;
	size_t nrows, caprows;
	size_t *slots;           /* open addressing: row index + 1, 0 empty */
	size_t nslots;
	struct group *groups;
	size_t ngroups, capgroups;
	bool oom;
	bool sorted;
};

struct ct_summary *ct_summary_new(const struct ct_summary_opts *o)
{
	struct ct_summary *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	return s;
}

void ct_summary_free(struct ct_summary *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nrows; i++)
		free(s->rows[i].lat);
	free(s->rows);
	free(s->slots);
	free(s->groups);
	free(s);
}

/* --- rows ----------------------------------------------------------------- */

static uint64_t hash3(uint32_t pid, enum kind k, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)pid << 3 | (uint64_t)k) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return h * 0xbf58476d1ce4e5b9ull;
}

static bool rehash(struct ct_summary *s, size_t nslots)
{
	size_t *slots = calloc(nslots, sizeof(*slots));
	size_t i, j;

	if (!slots)
		return false;
	for (i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		j = hash3(r->pid, r->kind, r->key) & (nslots - 1);
		while (slots[j])
			j = (j + 1) & (nslots - 1);
		slots[j] = i + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = nslots;
	return true;
}

static struct row *find_row(struct ct_summary *s, uint32_t pid, enum kind k, uint64_t key,
			    bool create)
{
	struct row *r, *nr;
	size_t j;

	if (s->nslots) {
		j = hash3(pid, k, key) & (s->nslots - 1);
		while (s->slots[j]) {
			r = &s->rows[s->slots[j] - 1];
			if (r->pid == pid && r->kind == k && r->key == key)
				return r;
			j = (j + 1) & (s->nslots - 1);
		}
	}
	if (!create)
		return NULL;
	if ((s->nrows + 1) * 2 > s->nslots && !rehash(s, s->nslots ? s->nslots * 2 : 64))
		return NULL;
	if (!(nr = ct_grow(s->rows, &s->caprows, s->nrows + 1, sizeof(*nr), 32)))
		return NULL;
	s->rows = nr;
	r = &s->rows[s->nrows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->kind = k;
	r->key = key;
	j = hash3(pid, k, key) & (s->nslots - 1);
	while (s->slots[j])
		j = (j + 1) & (s->nslots - 1);
	s->slots[j] = ++s->nrows;
	return r;
}

static struct group *find_group(struct ct_summary *s, uint32_t pid)
{
	struct group *ng;
	size_t i;

	/* Few processes, and usually the last one again. */
	for (i = s->ngroups; i-- > 0;)
		if (s->groups[i].pid == pid)
			return &s->groups[i];
	if (!(ng = ct_grow(s->groups, &s->capgroups, s->ngroups + 1, sizeof(*ng), 8)))
		return NULL;
	s->groups = ng;
	memset(&s->groups[s->ngroups], 0, sizeof(s->groups[0]));
	s->groups[s->ngroups].pid = pid;
	return &s->groups[s->ngroups++];
}

static void count(struct ct_summary *s, struct row *r, const struct ct_call *c, bool timed)
{
	uint64_t *nl;

	r->calls++;
	if (c->failed)
		r->errors++;
	if (!c->finished) {
		r->unfinished++;
		return;
	}
	if (!timed)
		return;
	if (!(nl = ct_grow(r->lat, &r->caplat, r->nlat + 1, sizeof(*nl), 16))) {
		s->oom = true;
		return;
	}
	r->lat = nl;
	r->lat[r->nlat++] = c->duration_ns;
	r->total_ns += c->duration_ns;
	if (c->duration_ns > r->max_ns)
		r->max_ns = c->duration_ns;
	s->sorted = false;
}

static struct row *row_for(struct ct_summary *s, uint32_t pid, enum kind k, uint64_t key,
			   bool has_value, uint32_t value, const char *name)
{
	struct row *r = find_row(s, pid, k, key, true);

	if (!r) {
		s->oom = true;
		return NULL;
	}
	if (!r->name[0]) {
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->has_value = has_value;
		r->value = value;
	}
	return r;
}

void ct_summary_add(struct ct_summary *s, const struct ct_call *c)
{
	/* The group key: the pid, or GPU + 1 (0: no GPU known), or 0 for all. */
	uint32_t pid = s->o.by_pid ? c->pid : s->o.by_gpu ? (uint32_t)(c->gpu + 1) : 0;
	char buf[96];
	struct group *g;
	struct row *r;
	bool main_thread = c->tid == c->pid;

	if (s->o.by_pid || s->o.by_gpu) {
		g = find_group(s, pid);
		if (!g) {
			s->oom = true;
			return;
		}
		/* The process's name: its main thread's latest comm (after an
		 * exec it is the new program's), else the first one seen. */
		if (s->o.by_pid && c->comm[0] && (main_thread || !g->comm[0])) {
			memcpy(g->comm, c->comm, sizeof(g->comm));
		}
	}
	switch (c->kind) {
	case CT_CALL_MMAP:
		r = row_for(s, pid, K_OTHER, KEY_MMAP, false, 0, "mmap");
		if (r)
			count(s, r, c, true);
		return;
	case CT_CALL_MUNMAP:
		/* A munmap record has no entry time: counted, not timed. */
		r = row_for(s, pid, K_OTHER, KEY_MUNMAP, false, 0, "munmap");
		if (r)
			count(s, r, c, false);
		return;
	case CT_CALL_IOCTL:
		break;
	}
	if (IOC_TYPE(c->request) == NV_IOCTL_MAGIC) {
		/* Named escapes by number (one row whatever size the request
		 * carries); an unnamed one by its whole request. */
		if (c->name)
			r = row_for(s, pid, K_ESCAPE, IOC_NR(c->request), true,
				    IOC_NR(c->request), c->name);
		else
			r = row_for(s, pid, K_ESCAPE, (1ull << 32) | c->request, true,
				    c->request,
				    ct_request_label(c->request, NULL, buf, sizeof(buf)));
		if (r)
			count(s, r, c, true);
		if (c->has_ctrl) {
			r = row_for(s, pid, K_CTRL, c->ctrl, true, c->ctrl,
				    ct_ctrl_label(c->ctrl, c->ctrl_name, buf, sizeof(buf)));
			if (r)
				count(s, r, c, true);
		}
		return;
	}
	if (ct_call_is_uvm(c))
		r = row_for(s, pid, K_UVM, c->request, true, c->request,
			    ct_request_label(c->request, c->name, buf, sizeof(buf)));
	else
		r = row_for(s, pid, K_OTHER, c->request, true, c->request,
			    ct_request_label(c->request, NULL, buf, sizeof(buf)));
	if (r)
		count(s, r, c, true);
}

/* --- figures -------------------------------------------------------------- */

uint64_t ct_percentile_sorted(const uint64_t *v, size_t n, unsigned p)
{
	/* rank = ceil(p * n / 100), 1-based */
	size_t rank = (size_t)(((unsigned __int128)p * n + 99) / 100);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sort_all(struct ct_summary *s)
{
	size_t i;

	if (s->sorted)
		return;
	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].nlat > 1)
			qsort(s->rows[i].lat, s->rows[i].nlat, sizeof(uint64_t), cmp_u64);
	s->sorted = true;
}

struct figures {
	uint64_t calls, errors, unfinished, timed;
	uint64_t total_ns, mean_ns, p50_ns, p99_ns, max_ns;
};

static void row_figures(const struct row *r, struct figures *f)
{
	memset(f, 0, sizeof(*f));
	f->calls = r->calls;
	f->errors = r->errors;
	f->unfinished = r->unfinished;
	f->timed = r->nlat;
	f->total_ns = r->total_ns;
	f->max_ns = r->max_ns;
	if (r->nlat) {
		f->mean_ns = r->total_ns / r->nlat;
		f->p50_ns = ct_percentile_sorted(r->lat, r->nlat, 50);
		f->p99_ns = ct_percentile_sorted(r->lat, r->nlat, 99);
	}
}

bool ct_summary_lookup(struct ct_summary *s, uint32_t pid, const char *kind,
		       const char *name, struct ct_summary_row_stats *out)
{
	struct figures f;
	size_t i;

	sort_all(s);
	for (i = 0; i < s->nrows; i++) {
		const struct row *r = &s->rows[i];

		if (((s->o.by_pid || s->o.by_gpu) && r->pid != pid) || strcmp(kind_names[r->kind], kind) ||
		    strcmp(r->name, name))
			continue;
		row_figures(r, &f);
		*out = (struct ct_summary_row_stats){
			.calls = f.calls, .errors = f.errors, .timed = f.timed,
			.total_ns = f.total_ns, .mean_ns = f.mean_ns, .p50_ns = f.p50_ns,
			.p99_ns = f.p99_ns, .max_ns = f.max_ns,
		};
		return true;
	}
	return false;
}

/* --- output --------------------------------------------------------------- */

/* The three sections of a table; "other" rows go with the escapes, so the
 * first and the last section count every call once. */
enum section { SEC_ESCAPES, SEC_CTRL, SEC_UVM, SEC_MAX };

static bool in_section(const struct row *r, enum section sec)
{
	switch (sec) {
	case SEC_ESCAPES:
		return r->kind == K_ESCAPE || r->kind == K_OTHER;
	case SEC_CTRL:
		return r->kind == K_CTRL;
	default:
		return r->kind == K_UVM;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = *(const struct row *const *)a, *y = *(const struct row *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows of one group and section, sorted by total time. */
static size_t select_rows(struct ct_summary *s, uint32_t pid, enum section sec,
			  const struct row **sel)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].pid == pid && in_section(&s->rows[i], sec))
			sel[n++] = &s->rows[i];
	if (n > 1)
		qsort(sel, n, sizeof(*sel), cmp_rows);
	return n;
}

static void print_us(FILE *out, uint64_t ns, bool have)
{
	if (have)
		fprintf(out, " %10" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
	else
		fprintf(out, " %14s", "-");
}

static void print_line(FILE *out, const struct figures *f, uint64_t sec_total,
		       const char *name)
{
	double pct = sec_total ? 100.0 * (double)f->total_ns / (double)sec_total : 0.0;

	fprintf(out, "%6.2f %11.6f %9" PRIu64 " %7" PRIu64, pct, (double)f->total_ns / 1e9,
		f->calls, f->errors);
	print_us(out, f->mean_ns, f->timed);
	print_us(out, f->p50_ns, f->timed);
	print_us(out, f->p99_ns, f->timed);
	print_us(out, f->max_ns, f->timed);
	fprintf(out, "  %s", name);
	if (f->unfinished)
		fprintf(out, " (%" PRIu64 " unfinished)", f->unfinished);
	fputc('\n', out);
}

static const char *const sec_titles[SEC_MAX] = {
	"ioctl escapes, mmap, munmap", "RM controls (NV_ESC_RM_CONTROL by command)",
	"UVM requests (/dev/nvidia-uvm)",
};
static const char *const sec_col[SEC_MAX] = { "escape", "command", "request" };

static const char rule[] =
	"------ ----------- --------- ------- -------------- -------------- "
	"-------------- --------------  ----------------\n";

/* Figures over several rows: the latencies merged, sorted, exact. */
static bool merge_figures(const struct row *const *sel, size_t n, struct figures *f)
{
	size_t i, k = 0, total = 0;
	uint64_t *all;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < n; i++) {
		f->calls += sel[i]->calls;
		f->errors += sel[i]->errors;
		f->unfinished += sel[i]->unfinished;
		f->total_ns += sel[i]->total_ns;
		if (sel[i]->max_ns > f->max_ns)
			f->max_ns = sel[i]->max_ns;
		total += sel[i]->nlat;
	}
	f->timed = total;
	if (!total)
		return true;
	all = malloc(total * sizeof(*all));
	if (!all)
		return false;
	for (i = 0; i < n; i++) {
		if (sel[i]->nlat)
			memcpy(all + k, sel[i]->lat, sel[i]->nlat * sizeof(*all));
		k += sel[i]->nlat;
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	f->mean_ns = f->total_ns / total;
	f->p50_ns = ct_percentile_sorted(all, total, 50);
	f->p99_ns = ct_percentile_sorted(all, total, 99);
	free(all);
	return true;
}

static void print_section(struct ct_summary *s, uint32_t pid, enum section sec,
			  const struct row **sel, struct figures *sum)
{
	FILE *out = s->o.out;
	struct figures f;
	size_t i, n = select_rows(s, pid, sec, sel);

	fprintf(out, "\n%s:\n", sec_titles[sec]);
	if (!merge_figures(sel, n, sum))
		s->oom = true;
	if (!n) {
		fputs("  (none)\n", out);
		return;
	}
	fprintf(out, "%% time     seconds     calls  errors        mean us         p50 us"
		"         p99 us         max us  %s\n", sec_col[sec]);
	fputs(rule, out);
	for (i = 0; i < n; i++) {
		row_figures(sel[i], &f);
		print_line(out, &f, sum->total_ns, sel[i]->name);
	}
	fputs(rule, out);
	print_line(out, sum, sum->total_ns, "total");
}

static void group_label(const struct ct_summary *s, const struct group *g, char *buf,
			size_t n)
{
	if (s->o.by_gpu && g->pid)
		snprintf(buf, n, "gpu %u", g->pid - 1);
	else if (s->o.by_gpu)
		snprintf(buf, n, "gpu unknown");
	else if (!s->o.by_pid)
		snprintf(buf, n, "all");
	else
		snprintf(buf, n, "pid %u (%s)", g->pid, g->comm[0] ? g->comm : "?");
}

static void em_u64_or_null(struct emit *e, const char *key, uint64_t v, bool have)
{
	if (have)
		em_u64(e, key, v);
	else
		em_null(e, key);
}

static void json_row(struct ct_summary *s, const struct group *g, const struct row *r)
{
	struct figures f;
	struct ct_out out;
	struct emit e;
	char label[64];

	row_figures(r, &f);
	group_label(s, g, label, sizeof(label));
	out_init(&out, s->o.out);
	em_init(&e, &out, true);
	em_open(&e, NULL);
	em_str(&e, "type", "summary");
	em_str(&e, "group", label);
	if (s->o.by_gpu && g->pid)
		em_u64(&e, "gpu", g->pid - 1);
	if (s->o.by_pid) {
		em_u64(&e, "pid", g->pid);
		em_str(&e, "comm", g->comm);
	}
	em_str(&e, "kind", kind_names[r->kind]);
	em_str(&e, "name", r->name);
	if (r->has_value)
		em_hex(&e, "value", r->value);
	else
		em_null(&e, "value");
	em_u64(&e, "calls", f.calls);
	em_u64(&e, "errors", f.errors);
	em_u64(&e, "unfinished", f.unfinished);
	em_u64(&e, "timed", f.timed);
	em_u64(&e, "total_ns", f.total_ns);
	em_u64_or_null(&e, "mean_ns", f.mean_ns, f.timed);
	em_u64_or_null(&e, "p50_ns", f.p50_ns, f.timed);
	em_u64_or_null(&e, "p99_ns", f.p99_ns, f.timed);
	em_u64_or_null(&e, "max_ns", f.max_ns, f.timed);
	em_close(&e);
	out_putc(&out, '\n');
	out_flush(&out);
}

static int cmp_groups(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void print_group(struct ct_summary *s, const struct group *g, const struct row **sel)
{
	struct figures sum[SEC_MAX];
	FILE *out = s->o.out;
	int sec;
	size_t i, n;

	if (s->o.json) {
		for (sec = 0; sec < SEC_MAX; sec++) {
			n = select_rows(s, g->pid, sec, sel);
			for (i = 0; i < n; i++)
				json_row(s, g, sel[i]);
		}
		return;
	}
	if (s->o.by_gpu) {
		char label[32];

		group_label(s, g, label, sizeof(label));
		fprintf(out, "\n=== %s\n", label);
	}
	if (s->o.by_pid) {
		struct ct_out comm;

		fprintf(out, "\n=== pid %u (", g->pid);
		out_init(&comm, out);
		em_text(&comm, g->comm[0] ? g->comm : "?", g->comm[0] ? strlen(g->comm) : 1);
		out_flush(&comm);
		fputs(")\n", out);
	}
	for (sec = 0; sec < SEC_MAX; sec++)
		print_section(s, g->pid, sec, sel, &sum[sec]);
	fprintf(out, "\nall calls: %" PRIu64 " (%" PRIu64 " errors), %.6f seconds in calls\n",
		sum[SEC_ESCAPES].calls + sum[SEC_UVM].calls,
		sum[SEC_ESCAPES].errors + sum[SEC_UVM].errors,
		(double)(sum[SEC_ESCAPES].total_ns + sum[SEC_UVM].total_ns) / 1e9);
}

void ct_summary_print(struct ct_summary *s)
{
	const struct row **sel = calloc(s->nrows ? s->nrows : 1, sizeof(*sel));
	struct group all = { .pid = 0 };
	size_t i;

	if (!sel) {
		ct_err("summary: out of memory\n");
		return;
	}
	sort_all(s);
	if (!s->o.json)
		fprintf(s->o.out, "cudatrace summary%s\n", s->o.by_pid ? " by process" :
			s->o.by_gpu ? " by GPU" : "");
	if (s->o.by_pid || s->o.by_gpu) {
		for (i = 0; i < s->nrows; i++) {
			struct group *g = find_group(s, s->rows[i].pid);

			/* ioctls and mmaps: counted once per call (escape rows and
			 * other rows, or UVM), never the RM control breakdown. */
			if (g && s->rows[i].kind != K_CTRL)
				g->total_ns += s->rows[i].total_ns;
		}
		if (s->ngroups > 1)
			qsort(s->groups, s->ngroups, sizeof(*s->groups), cmp_groups);
		for (i = 0; i < s->ngroups; i++)
			print_group(s, &s->groups[i], sel);
		if (!s->o.json && !s->ngroups)
			fputs("\n(no calls)\n", s->o.out);
	} else {
		print_group(s, &all, sel);
	}
	if (s->oom)
		ct_err("summary: out of memory; some calls were not counted\n");
	free(sel);
}

/* --- the view ------------------------------------------------------------- */

static void view_call(void *ctx, const struct ct_call *c)
{
	ct_summary_add(ctx, c);
}

static int view_finish(void *ctx)
{
	ct_summary_print(ctx);
	ct_summary_free(ctx);
	return 0;
}

struct ct_view ct_summary_view(struct ct_summary *s)
{
	return (struct ct_view){ .call = view_call, .finish = view_finish, .ctx = s };
}
