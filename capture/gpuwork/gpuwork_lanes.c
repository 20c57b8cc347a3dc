// SPDX-License-Identifier: MIT
/*
 * A poll's rings read by several threads, one process each (gpuwork_ring.h).
 *
 * A poll reads every due ring after its GPPut and the kernel's records:
 * one ring after another, on the reader's thread.  Where several
 * processes put work at once (the ranks of an NCCL job starting up: 40
 * rings, 1.9 MB of segments in one poll, 7 ms of CPU on an H200), the
 * last ring of the poll waited for all the others' segments and its
 * producer lapped it.  So when two processes or more have entries to read
 * in a poll, each process's rings are read by one thread (the reader's
 * own, and up to GW_WORKERS more, started the first time they are
 * needed), all at once, and the reader waits for them before the next
 * poll; processes with nothing new are the reader's.  What "after which driver call" needs is kept: every
 * record of the kernel's the poll drained is queued before any ring is
 * read, and a process's rings are read in order by one thread, so its
 * records reach the queue in the order one thread would send them; two
 * processes' records interleave, as they would on any machine.  Each
 * worker counts into stats of its own, added to the reader's after the
 * poll.  The records go through the capture's sink from several threads
 * at once: the capture turns workers on only where its sink may be
 * (ct_gpuwork_set_workers).
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_ring.h"
#include "grow.h"
#include "msg.h"

#define GW_WORKERS 7   /* with the reader: 8 processes read at once */

struct gw_worker {
	struct gw_lanes *ls;
	struct gw_lane lane;
	struct ct_gpuwork_stats st;
	struct gw_ring **todo;
	size_t ntodo, cap;
	pthread_t thread;
	bool started;
};

struct gw_lanes {
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	uint64_t round;          /* moved on for each poll the workers take part in */
	unsigned busy;           /* workers still reading this round */
	bool stop;
	void (*poll)(struct gw_lane *l, struct gw_ring *r);
	unsigned nworkers;       /* started */
	struct gw_worker w[GW_WORKERS];
	struct gw_ring **mine;   /* the reader's own share */
	size_t nmine, capmine;
	/* a poll's snapped rings and the share of each, kept from poll to poll */
	struct gw_ring **snapped;
	unsigned *share;
	size_t capsnapped, capshare;
};

bool gw_lane_init(struct gw_lane *l, struct ct_gpuwork *g, struct ct_gpuwork_stats *st,
		  uint32_t max_dwords)
{
	*l = (struct gw_lane){ .g = g, .st = st };
	l->rec = malloc(sizeof(*l->rec) + (size_t)max_dwords * 4);
	l->batch = malloc(GW_BATCH_BYTES);
	l->fresh = malloc(sizeof(*l->fresh) * GW_FRESH_MAX);
	l->ents = malloc(sizeof(*l->ents) * GW_RING_MAX);
	l->segs = malloc(sizeof(*l->segs) * GW_RING_MAX);
	l->stale = malloc(sizeof(*l->stale) * GW_RING_MAX);
	return l->rec && l->batch && l->fresh && l->ents && l->segs && l->stale;
}

void gw_lane_free(struct gw_lane *l)
{
	free(l->rec);
	free(l->batch);
	free(l->fresh);
	free(l->ents);
	free(l->segs);
	free(l->stale);
	memset(l, 0, sizeof(*l));
}

void gw_sink(struct gw_lane *l, const struct ct_rec *r)
{
	const struct ct_gpuwork *g = l->g;
	uint64_t t0;

	if (!g->costs) {
		g->sink(g->ctx, r);
		return;
	}
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	g->sink(g->ctx, r);
	l->st->sink_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
}

void ct_gpuwork_set_workers(struct ct_gpuwork *g, bool on)
{
	if (on && !g->lanes && (g->lanes = calloc(1, sizeof(*g->lanes)))) {
		pthread_mutex_init(&g->lanes->lock, NULL);
		pthread_cond_init(&g->lanes->go, NULL);
		pthread_cond_init(&g->lanes->done, NULL);
	}
}

/* What a worker counted this poll, into the reader's stats, and zeroed. */
static void add_stats(struct ct_gpuwork_stats *to, struct ct_gpuwork_stats *from)
{
	to->segments += from->segments;
	to->bytes += from->bytes;
	to->truncated += from->truncated;
	to->control += from->control;
	to->unreadable += from->unreadable;
	to->lost += from->lost;
	to->wraps += from->wraps;
	to->wrap_lost += from->wrap_lost;
	to->overwritten += from->overwritten;
	to->not_followed += from->not_followed;
	to->ring_polls += from->ring_polls;
	to->fast_polls += from->fast_polls;
	to->unpublished += from->unpublished;
	to->sink_ns += from->sink_ns;
	for (int k = 0; k < GW_READ_KINDS; k++) {
		to->read[k].reads += from->read[k].reads;
		to->read[k].bytes += from->read[k].bytes;
		to->read[k].ns += from->read[k].ns;
		if (from->read[k].max_ns > to->read[k].max_ns)
			to->read[k].max_ns = from->read[k].max_ns;
	}
	memset(from, 0, sizeof(*from));
}

static void read_share(struct gw_lanes *ls, struct gw_lane *l, struct gw_ring **rings, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ls->poll(l, rings[i]);
}

static void *worker_main(void *arg)
{
	struct gw_worker *w = arg;
	struct gw_lanes *ls = w->ls;
	uint64_t seen = 0;

	pthread_mutex_lock(&ls->lock);
	for (;;) {
		while (!ls->stop && ls->round == seen)
			pthread_cond_wait(&ls->go, &ls->lock);
		if (ls->stop)
			break;
		seen = ls->round;
		if (!w->ntodo)   /* none of this poll's processes: not counted busy */
			continue;
		pthread_mutex_unlock(&ls->lock);
		read_share(ls, &w->lane, w->todo, w->ntodo);
		pthread_mutex_lock(&ls->lock);
		w->ntodo = 0;
		if (!--ls->busy)
			pthread_cond_signal(&ls->done);
	}
	pthread_mutex_unlock(&ls->lock);
	return NULL;
}

/* Worker i, started if it is not yet; false if it cannot be. */
static bool worker(struct ct_gpuwork *g, unsigned i)
{
	struct gw_lanes *ls = g->lanes;
	struct gw_worker *w = &ls->w[i];

	if (w->started)
		return true;
	w->ls = ls;
	if (!gw_lane_init(&w->lane, g, &w->st, g->max_dwords) ||
	    pthread_create(&w->thread, NULL, worker_main, w)) {
		gw_lane_free(&w->lane);
		return false;
	}
	w->started = true;
	ls->nworkers++;
	return true;
}

static bool push(struct gw_ring ***v, size_t *n, size_t *cap, struct gw_ring *r)
{
	struct gw_ring **nv = ct_grow(*v, cap, *n + 1, sizeof(**v), 64);

	if (!nv)
		return false;
	*v = nv;
	(*v)[(*n)++] = r;
	return true;
}

static bool has_work(const struct gw_ring *r)
{
	return !r->dead && r->snap_put != r->next;
}

/*
 * Hands the snapped rings out: a process's rings all to one share (its
 * counters, such as its slots in the exit map, are one thread's), the
 * processes with entries to read in turn over the shares, those without
 * (a GPPut read, nothing more) to the reader's, share 0.  false (nothing
 * handed out) where fewer than two processes have work, or memory or a
 * thread ran out: the reader reads them all.
 */
static bool hand_out(struct ct_gpuwork *g, struct gw_ring **snapped, unsigned *share, size_t n)
{
	struct gw_lanes *ls = g->lanes;
	unsigned next = 0, nshares = 1 + GW_WORKERS;
	size_t i, j;

	for (i = 0; i < n; i++)
		share[i] = UINT_MAX;
	for (i = 0; i < n; i++) {
		if (share[i] != UINT_MAX || !has_work(snapped[i]))
			continue;
		for (j = i; j < n; j++)
			if (snapped[j]->pid == snapped[i]->pid)
				share[j] = next % nshares;
		next++;
	}
	if (next < 2)
		return false;
	for (i = 0; i < n; i++)
		share[i] = share[i] == UINT_MAX ? 0 : share[i];
	nshares = next < nshares ? next : nshares;
	for (unsigned k = 1; k < nshares; k++)
		if (!worker(g, k - 1))
			return false;
	for (i = 0; i < n; i++) {
		bool ok = share[i] ? push(&ls->w[share[i] - 1].todo, &ls->w[share[i] - 1].ntodo,
					  &ls->w[share[i] - 1].cap, snapped[i])
				   : push(&ls->mine, &ls->nmine, &ls->capmine, snapped[i]);

		if (!ok) {
			for (unsigned k = 0; k < GW_WORKERS; k++)
				ls->w[k].ntodo = 0;
			ls->nmine = 0;
			return false;
		}
	}
	return true;
}

static void poll_inline(struct ct_gpuwork *g, void (*poll)(struct gw_lane *l, struct gw_ring *r))
{
	for (size_t i = 0; i < g->chans.nrings; i++)
		if (g->chans.rings[i].snap)
			poll(&g->lane0, &g->chans.rings[i]);
}

void gw_lanes_poll(struct ct_gpuwork *g, void (*poll)(struct gw_lane *l, struct gw_ring *r))
{
	struct gw_lanes *ls = g->lanes;
	struct gw_ring **snapped;
	unsigned *share, busy = 0;
	size_t n = 0, i;

	if (!ls) {
		poll_inline(g, poll);
		return;
	}
	if ((snapped = ct_grow(ls->snapped, &ls->capsnapped, g->chans.nrings, sizeof(*snapped), 64)))
		ls->snapped = snapped;
	if ((share = ct_grow(ls->share, &ls->capshare, g->chans.nrings, sizeof(*share), 64)))
		ls->share = share;
	for (i = 0; snapped && share && i < g->chans.nrings; i++)
		if (g->chans.rings[i].snap)
			snapped[n++] = &g->chans.rings[i];
	if (!snapped || !share || !hand_out(g, snapped, share, n)) {
		poll_inline(g, poll);
		return;
	}
	pthread_mutex_lock(&ls->lock);
	ls->poll = poll;
	for (unsigned k = 0; k < GW_WORKERS; k++)
		busy += ls->w[k].ntodo > 0;
	ls->busy = busy;
	ls->round++;
	pthread_cond_broadcast(&ls->go);
	pthread_mutex_unlock(&ls->lock);
	read_share(ls, &g->lane0, ls->mine, ls->nmine);
	ls->nmine = 0;
	pthread_mutex_lock(&ls->lock);
	while (ls->busy)
		pthread_cond_wait(&ls->done, &ls->lock);
	pthread_mutex_unlock(&ls->lock);
	for (unsigned k = 0; k < ls->nworkers; k++)
		add_stats(&g->st, &ls->w[k].st);
	g->st.parallel_polls++;
}

void gw_lanes_free(struct gw_lanes *ls)
{
	if (!ls)
		return;
	pthread_mutex_lock(&ls->lock);
	ls->stop = true;
	pthread_cond_broadcast(&ls->go);
	pthread_mutex_unlock(&ls->lock);
	for (unsigned k = 0; k < GW_WORKERS; k++) {
		if (!ls->w[k].started)
			continue;
		pthread_join(ls->w[k].thread, NULL);
		gw_lane_free(&ls->w[k].lane);
		free(ls->w[k].todo);
	}
	free(ls->mine);
	free(ls->snapped);
	free(ls->share);
	pthread_mutex_destroy(&ls->lock);
	pthread_cond_destroy(&ls->go);
	pthread_cond_destroy(&ls->done);
	free(ls);
}
