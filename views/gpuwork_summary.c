// SPDX-License-Identifier: MIT
/* The -c table of GPU work (gpuwork_summary.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "gpuwork.h"
#include "gpuwork_summary.h"
#include "outbuf.h"

#define GWSUM_ROWS 4096

struct gwrow {
	uint32_t pid;
	char what[64];        /* "COMPUTE LAUNCH", "HOST SEMAPHORE RELEASE", "LOST" */
	uint64_t n, bytes;
};

struct ct_gwsum {
	FILE *out;
	bool json;
	struct gwrow *rows;
	size_t nrows;
	uint64_t dropped;     /* rows that did not fit */
};

struct ct_gwsum *ct_gwsum_new(FILE *out, bool json)
{
	struct ct_gwsum *s = calloc(1, sizeof(*s));

	if (s && !(s->rows = calloc(GWSUM_ROWS, sizeof(*s->rows)))) {
		free(s);
		return NULL;
	}
	if (s) {
		s->out = out;
		s->json = json;
	}
	return s;
}

void ct_gwsum_free(struct ct_gwsum *s)
{
	if (s)
		free(s->rows);
	free(s);
}

static void add(struct ct_gwsum *s, uint32_t pid, const char *what, uint64_t n, uint64_t bytes)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].pid == pid && !strcmp(s->rows[i].what, what))
			break;
	if (i == s->nrows) {
		if (s->nrows == GWSUM_ROWS) {
			s->dropped += n;
			return;
		}
		s->rows[s->nrows].pid = pid;
		snprintf(s->rows[s->nrows].what, sizeof(s->rows[0].what), "%s", what);
		s->nrows++;
	}
	s->rows[i].n += n;
	s->rows[i].bytes += bytes;
}

struct ct_gw_unseen ct_gw_unseen_of(const struct ct_gpu_seg *g)
{
	if (!(g->flags & CT_GS_LOST))
		return (struct ct_gw_unseen){ "UNREADABLE", "unreadable", 1, false };
	if (g->flags & CT_GS_WRAP)
		return (struct ct_gw_unseen){ "LOST IN RING WRAPS (at least)", "ring_wrap", g->lost,
					      false };
	/* a channel learned too late for the look at its exit (gpuwork_exit.c) */
	if (g->flags & CT_GS_LATE)
		return (struct ct_gw_unseen){ "CHANNELS LEARNED ONLY AT EXIT (work not counted)",
					      "learned_at_exit", 1, true };
	/* the reader's word for a channel it gave up (gpuwork_ring.c) */
	if (!g->lost && g->gp_put >= g->ring_entries)
		return (struct ct_gw_unseen){ "CHANNELS NOT FOLLOWED (GPPut outside ring)",
					      "channel_not_followed", 1, true };
	return (struct ct_gw_unseen){ "LOST", "lost", g->lost, false };
}

static void view_gpu_work(void *ctx, const struct ct_gpu_seg *g, const struct gw_event *e)
{
	struct ct_gwsum *s = ctx;
	char what[64];

	if (!e) {
		struct ct_gw_unseen u = ct_gw_unseen_of(g);

		add(s, g->h.pid, u.row, u.n, 0);
		return;
	}
	if (e->kind == GW_GP && !e->gp->control)
		return;   /* a segment's own entry: its work is counted */
	if (e->kind == GW_GP && e->gp->opcode_name)
		snprintf(what, sizeof(what), "HOST GP-ENTRY %s", e->gp->opcode_name);
	else if (e->kind == GW_GP)
		snprintf(what, sizeof(what), "HOST GP-ENTRY (unknown opcode)");
	else if (e->kind == GW_SEMAPHORE)
		snprintf(what, sizeof(what), "%s SEMAPHORE %s", gw_engine_names[e->engine],
			 e->name ? e->name : "?");
	else if (e->kind == GW_COPY && e->fill)
		snprintf(what, sizeof(what), "COPY (fill)");
	else if (e->kind == GW_COPY)
		snprintf(what, sizeof(what), "COPY");
	else if (e->kind == GW_METHOD && !e->name)
		snprintf(what, sizeof(what), "%s METHOD (unknown)", gw_engine_names[e->engine]);
	else
		snprintf(what, sizeof(what), "%s %s", gw_engine_names[e->engine],
			 gw_kind_names[e->kind]);
	add(s, g->h.pid, what, 1, e->kind == GW_COPY ? e->bytes : 0);
}

static int by_pid_count(const void *a, const void *b)
{
	const struct gwrow *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->what, y->what);
}

static void print(struct ct_gwsum *s)
{
	struct ct_out o;
	struct emit e;
	size_t i;

	if (!s->nrows)
		return;
	qsort(s->rows, s->nrows, sizeof(*s->rows), by_pid_count);
	if (!s->json) {
		fprintf(s->out, "\ncudatrace GPU work (--gpu-work)\n%8s  %-44s %12s %16s\n", "pid",
			"work", "count", "bytes");
		for (i = 0; i < s->nrows; i++)
			fprintf(s->out, "%8u  %-44s %12" PRIu64 " %16" PRIu64 "\n", s->rows[i].pid,
				s->rows[i].what, s->rows[i].n, s->rows[i].bytes);
		if (s->dropped)
			fprintf(s->out, "(%" PRIu64 " events in rows that did not fit)\n", s->dropped);
		return;
	}
	out_init(&o, s->out);
	em_init(&e, &o, true);
	for (i = 0; i < s->nrows; i++) {
		em_open(&e, NULL);
		em_str(&e, "type", "gpu-work-summary");
		em_u64(&e, "pid", s->rows[i].pid);
		em_str(&e, "work", s->rows[i].what);
		em_u64(&e, "count", s->rows[i].n);
		em_u64(&e, "bytes", s->rows[i].bytes);
		em_close(&e);
		out_putc(&o, '\n');
	}
	out_flush(&o);
}

static int view_finish(void *ctx)
{
	print(ctx);
	ct_gwsum_free(ctx);
	return 0;
}

struct ct_view ct_gwsum_view(struct ct_gwsum *s)
{
	return (struct ct_view){ .gpu_work = view_gpu_work, .finish = view_finish, .ctx = s };
}
