// SPDX-License-Identifier: MIT
/*
 * The -c table of kernels (kernel_summary.h).  Launches are counted by
 * process and program address as they come; the name is the one the
 * address has by then, or, for launches read before their name (a copy
 * engine upload read after the launch), the one it gets later.  Rows of
 * the same name in a process are merged at the end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "idmap.h"
#include "kernel_summary.h"
#include "kname.h"
#include "outbuf.h"

#define KSUM_ROWS   65536   /* program addresses kept */
#define KSUM_GRIDS  4096    /* distinct grids counted per row, at most */

struct krow {
	uint32_t pid;
	uint64_t program;
	char *name;           /* NULL: unnamed */
	char *mangled;
	uint64_t launches, blocks, threads, first_ns, last_ns;
	const char *op;       /* CUDA's own copy or memset kernel: "copy", "set" */
	uint64_t op_bytes;    /* ... the bytes it moved, from its parameters */
	struct idmap grids;   /* grid hash -> 1 */
	uint64_t ngrids;
	bool grids_capped;
};

struct ct_ksum {
	FILE *out;
	bool json, always, any_named;
	struct krow *rows;
	size_t nrows;
	struct idmap at;      /* pid << 48 ^ program -> row + 1 */
	uint64_t dropped;
};

struct ct_ksum *ct_ksum_new(FILE *out, bool json, bool always)
{
	struct ct_ksum *s = calloc(1, sizeof(*s));

	if (s && !(s->rows = calloc(KSUM_ROWS, sizeof(*s->rows)))) {
		free(s);
		return NULL;
	}
	if (s) {
		s->out = out;
		s->json = json;
		s->always = always;
	}
	return s;
}

void ct_ksum_free(struct ct_ksum *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nrows; i++) {
		free(s->rows[i].name);
		free(s->rows[i].mangled);
		idmap_free(&s->rows[i].grids);
	}
	idmap_free(&s->at);
	free(s->rows);
	free(s);
}

/* A new row for (pid, program), found from now on: an older one of the
 * same key keeps what it counted (rows of one name are merged at the end). */
static struct krow *new_row(struct ct_ksum *s, uint32_t pid, uint64_t program)
{
	struct krow *r;

	if (s->nrows == KSUM_ROWS)
		return NULL;
	r = &s->rows[s->nrows++];
	r->pid = pid;
	r->program = program;
	idmap_put(&s->at, (uint64_t)pid << 48 ^ program, (void *)(uintptr_t)s->nrows);
	return r;
}

static struct krow *row_of(struct ct_ksum *s, uint32_t pid, uint64_t program)
{
	size_t i = (size_t)(uintptr_t)idmap_get(&s->at, (uint64_t)pid << 48 ^ program);

	if (i && s->rows[i - 1].pid == pid && s->rows[i - 1].program == program)
		return &s->rows[i - 1];
	return new_row(s, pid, program);   /* new, or a key two (pid, program) share */
}

static const char *shown_name(const struct ct_kname *k)
{
	const char *label = ct_kname_label(k);

	return label ? label : "? (ambiguous)";
}

/* The address named anew (code loaded again there): the launches it had
 * were another kernel's. */
static bool renamed(const struct krow *r, const struct ct_kname *k)
{
	return r->name && r->launches && strcmp(r->name, shown_name(k));
}

static void name_row(struct ct_ksum *s, struct krow *r, const struct ct_kname *k)
{
	const char *name = shown_name(k);

	if (r->name && !strcmp(r->name, name))
		return;
	free(r->name);
	free(r->mangled);
	r->name = strdup(name);
	r->mangled = strdup(k->mangled);
	s->any_named = true;
}

static void view_gpu_work(void *ctx, const struct ct_gpu_seg *g, const struct gw_event *e)
{
	struct ct_ksum *s = ctx;
	struct krow *r;
	uint64_t blocks, grid_key;

	if (!e || e->kind != GW_LAUNCH || !e->have_qmd)
		return;
	r = row_of(s, g->h.pid, e->program);
	if (r && e->kernel && renamed(r, e->kernel))
		r = new_row(s, g->h.pid, e->program);
	if (!r) {
		s->dropped++;
		return;
	}
	if (e->kernel)
		name_row(s, r, e->kernel);
	blocks = (uint64_t)e->grid[0] * e->grid[1] * e->grid[2];
	if (e->op) {
		r->op = e->op->what;
		r->op_bytes += e->op->bytes;
	}
	r->launches++;
	r->blocks += blocks;
	r->threads += blocks * e->block[0] * e->block[1] * e->block[2];
	if (!r->first_ns)
		r->first_ns = g->h.ts_ns;
	r->last_ns = g->h.ts_ns;
	grid_key = (uint64_t)e->grid[0] << 40 ^ (uint64_t)e->grid[1] << 20 ^ e->grid[2];
	if (!idmap_get(&r->grids, grid_key + 1)) {
		if (r->grids.used < KSUM_GRIDS)
			idmap_put(&r->grids, grid_key + 1, (void *)1);
		else
			r->grids_capped = true;
	}
}

/* Rows of the same process and name merged into the first of them. */
static void merge(struct ct_ksum *s)
{
	size_t i, j;

	for (i = 0; i < s->nrows; i++) {
		struct krow *a = &s->rows[i];

		a->ngrids = a->grids.used;
		for (j = i + 1; a->name && j < s->nrows; j++) {
			struct krow *b = &s->rows[j];

			if (!b->launches || b->pid != a->pid || !b->name || strcmp(a->name, b->name))
				continue;
			a->launches += b->launches;
			a->blocks += b->blocks;
			a->threads += b->threads;
			a->op_bytes += b->op_bytes;
			a->op = a->op ? a->op : b->op;
			a->ngrids += b->grids.used;   /* an upper bound across addresses */
			a->first_ns = b->first_ns < a->first_ns ? b->first_ns : a->first_ns;
			a->last_ns = b->last_ns > a->last_ns ? b->last_ns : a->last_ns;
			b->launches = 0;
		}
	}
}

static int by_pid_launches(const void *x, const void *y)
{
	const struct krow *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->launches != b->launches)
		return a->launches > b->launches ? -1 : 1;
	return a->program < b->program ? -1 : a->program > b->program;
}

static const char *label(const struct krow *r, char *buf, size_t n)
{
	if (r->name)
		return r->name;
	snprintf(buf, n, "unnamed 0x%" PRIx64, r->program);
	return buf;
}

/* Names come from the trace: escaped, so that they cannot forge lines. */
static void print_text(struct ct_ksum *s)
{
	struct ct_out o;
	char buf[64];
	size_t i;

	out_init(&o, s->out);
	out_printf(&o, "\ncudatrace kernels (--gpu-work)\n%8s %10s %7s %14s %16s %12s %12s  %s\n",
		   "pid", "launches", "grids", "blocks", "threads", "first_s", "last_s", "kernel");
	for (i = 0; i < s->nrows; i++) {
		const struct krow *r = &s->rows[i];
		const char *name;

		if (!r->launches)
			continue;
		out_printf(&o, "%8u %10" PRIu64 " %6" PRIu64 "%s %14" PRIu64 " %16" PRIu64
			   " %12.6f %12.6f  ", r->pid, r->launches, r->ngrids,
			   r->grids_capped ? "+" : " ", r->blocks, r->threads, r->first_ns / 1e9,
			   r->last_ns / 1e9);
		name = label(r, buf, sizeof(buf));
		em_text(&o, name, strlen(name));
		if (r->op)
			out_printf(&o, " (%" PRIu64 " B %s)", r->op_bytes,
				   strcmp(r->op, "copy") ? "set" : "copied");
		out_putc(&o, '\n');
	}
	if (s->dropped)
		out_printf(&o, "(%" PRIu64 " launches of program addresses past the %u kept)\n",
			   s->dropped, KSUM_ROWS);
	out_flush(&o);
}

static void print_json(struct ct_ksum *s)
{
	struct ct_out o;
	struct emit e;
	char buf[64];
	size_t i;

	out_init(&o, s->out);
	em_init(&e, &o, true);
	for (i = 0; i < s->nrows; i++) {
		const struct krow *r = &s->rows[i];

		if (!r->launches)
			continue;
		em_open(&e, NULL);
		em_str(&e, "type", "kernel-summary");
		em_u64(&e, "pid", r->pid);
		em_str(&e, "kernel", label(r, buf, sizeof(buf)));
		if (r->mangled)
			em_str(&e, "kernel_mangled", r->mangled);
		else
			em_hex(&e, "program", r->program);
		em_u64(&e, "launches", r->launches);
		em_u64(&e, "grids", r->ngrids);
		em_bool(&e, "grids_at_least", r->grids_capped);
		em_u64(&e, "blocks", r->blocks);
		em_u64(&e, "threads", r->threads);
		if (r->op) {
			em_str(&e, "op", r->op);
			em_u64(&e, "op_bytes", r->op_bytes);
		}
		em_u64(&e, "first_ns", r->first_ns);
		em_u64(&e, "last_ns", r->last_ns);
		em_close(&e);
		out_putc(&o, '\n');
	}
	out_flush(&o);
}

static int view_finish(void *ctx)
{
	struct ct_ksum *s = ctx;

	if (s->nrows && (s->any_named || s->always)) {
		merge(s);
		qsort(s->rows, s->nrows, sizeof(*s->rows), by_pid_launches);
		if (s->json)
			print_json(s);
		else
			print_text(s);
	}
	ct_ksum_free(s);
	return 0;
}

struct ct_view ct_ksum_view(struct ct_ksum *s)
{
	return (struct ct_view){ .gpu_work = view_gpu_work, .finish = view_finish, .ctx = s };
}
