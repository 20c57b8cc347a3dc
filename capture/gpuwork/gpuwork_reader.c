// SPDX-License-Identifier: MIT
/*
 * --gpu-work's poller (gpuwork_reader.h): GPPut from each channel's USERD,
 * then the new ring entries and their segments, all by pread() on
 * /proc/PID/mem, which reaches the driver's mappings of video memory
 * through their vm_ops->access.  Every length read from there is checked
 * against the ring's size and the bound before it is used.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_chans.h"
#include "gpuwork_reader.h"
#include "gwtables.h"
#include "gpuwork_ring.h"

struct ct_gpuwork *ct_gpuwork_new(const char *proc_root, uint32_t max_dwords,
				  ct_gpuwork_sink_fn sink, void *ctx)
{
	const struct gw_field *put = gw_field_find("userd", "GPPut");
	const struct gw_field *get = gw_field_find("userd", "GPGet");
	struct ct_gpuwork *g;

	if (!put || !get || max_dwords > CT_GPU_SEG_MAX) {
		fprintf(stderr, "cudatrace: --gpu-work: the tables lack the USERD layout "
				"(rebuild from decoders/gputables/fields.tsv)\n");
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g || !(g->rec = malloc(sizeof(*g->rec) + (size_t)max_dwords * 4)) ||
	    !(g->batch = malloc(GW_BATCH_BYTES)) ||
	    !(g->fresh = malloc(sizeof(*g->fresh) * GW_FRESH_MAX)) ||
	    !(g->ents = malloc(sizeof(*g->ents) * GW_RING_MAX)) ||
	    !(g->segs = malloc(sizeof(*g->segs) * GW_RING_MAX)) ||
	    !(g->stale = malloc(sizeof(*g->stale) * GW_RING_MAX))) {
		if (g) {
			free(g->rec);
			free(g->batch);
			free(g->fresh);
			free(g->ents);
			free(g->segs);
		}
		free(g);
		fprintf(stderr, "cudatrace: out of memory\n");
		return NULL;
	}
	snprintf(g->proc_root, sizeof(g->proc_root), "%s", proc_root);
	g->max_dwords = max_dwords;
	g->sink = sink;
	g->ctx = ctx;
	g->gpput_off = put->lo / 8;
	g->gpget_off = get->lo / 8;
	g->probe = getenv("CUDATRACE_GPUWORK_PROBE") != NULL;
	return g;
}

static void close_proc(struct ct_gpuwork *g, int i)
{
	if (g->procs[i].fd >= 0)
		close(g->procs[i].fd);
	g->procs[i] = g->procs[--g->nprocs];
}

void ct_gpuwork_free(struct ct_gpuwork *g)
{
	if (!g)
		return;
	while (g->nprocs)
		close_proc(g, 0);
	gw_chans_free(&g->chans);
	free(g->rec);
	free(g->batch);
	free(g->fresh);
	free(g->ents);
	free(g->segs);
	free(g->stale);
	free(g);
}

const struct ct_gpuwork_stats *ct_gpuwork_stats(const struct ct_gpuwork *g)
{
	return &g->st;
}

/* /proc/PID/mem, opened once per process; -1 if it cannot be. */
int gw_mem_fd(struct ct_gpuwork *g, uint32_t pid)
{
	char path[300];
	int i;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid)
			return g->procs[i].fd;
	if (g->nprocs == GW_MAX_PROCS)
		return -1;
	snprintf(path, sizeof(path), "%s/%u/mem", g->proc_root, pid);
	g->procs[g->nprocs] = (struct gw_proc){ pid, open(path, O_RDONLY | O_CLOEXEC) };
	return g->procs[g->nprocs++].fd;
}

static void forget_proc(struct ct_gpuwork *g, uint32_t pid)
{
	for (int i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid) {
			close_proc(g, i);
			return;
		}
}

void ct_gpuwork_learn(struct ct_gpuwork *g, const struct ct_rec *r)
{
	if (gw_chans_learn(&g->chans, r))
		g->st.channels++;
	if (r->type == CT_REC_PROC_EXIT ||
	    (r->type == CT_REC_PROC && ((const struct ct_proc *)r)->source == CT_PROC_EXEC))
		forget_proc(g, r->pid);
}

void ct_gpuwork_set_drain(struct ct_gpuwork *g, void (*drain)(void *ctx), void *ctx)
{
	g->drain = drain;
	g->drain_ctx = ctx;
}

/* Every GPPut first, then the kernel's records, then the entries: what a
 * driver call that ended before GPPut moved says reaches the sink first.
 * The drain may learn channels (rings[] may move) or end them. */
void ct_gpuwork_poll(struct ct_gpuwork *g, uint64_t now)
{
	uint64_t t0 = ct_now_ns(CLOCK_THREAD_CPUTIME_ID);
	size_t i;

	(void)now;
	for (i = 0; i < g->chans.nrings; i++)
		if (!g->chans.rings[i].dead)
			gw_snapshot_ring(g, &g->chans.rings[i]);
	if (g->drain)
		g->drain(g->drain_ctx);
	for (i = 0; i < g->chans.nrings; i++) {
		struct gw_ring *r = &g->chans.rings[i];

		if (!r->snap)
			continue;
		r->snap = false;
		if (r->dead)
			gw_ring_ended(g, r);
		else
			gw_poll_ring(g, r);
	}
	gw_chans_sweep(&g->chans);
	g->st.polls++;
	g->st.cpu_ns += ct_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
}

void ct_gpuwork_report(const struct ct_gpuwork *g)
{
	const struct ct_gpuwork_stats *s = &g->st;
	char wraps[256] = "";

	/* GPPut is an index into the ring: a wrap's loss is only known at least */
	if (s->wraps)
		snprintf(wraps, sizeof(wraps), " (%llu entries lost in them at least: GPPut is an "
			 "index into the ring, so whole rings more may have gone by unseen)",
			 (unsigned long long)s->wrap_lost);
	fprintf(stderr, "cudatrace: gpu-work: %llu channels, %llu segments read (%llu bytes, "
			"%llu cut at the bound), %llu control entries, %llu unreadable, "
			"%s%llu ring entries lost "
			"(%llu overwritten while read), %llu ring wraps between polls%s; "
			"%llu polls in %.1f ms of CPU\n",
		(unsigned long long)s->channels, (unsigned long long)s->segments,
		(unsigned long long)s->bytes, (unsigned long long)s->truncated,
		(unsigned long long)s->control, (unsigned long long)s->unreadable,
		s->wraps ? "at least " : "",
		(unsigned long long)s->lost, (unsigned long long)s->overwritten,
		(unsigned long long)s->wraps, wraps, (unsigned long long)s->polls,
		(double)s->cpu_ns / 1e6);
	gw_chans_report(&g->chans);   /* channel allocations not followed (gpuwork_chans.c) */
}
