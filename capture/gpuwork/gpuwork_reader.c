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
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_chans.h"
#include "gpuwork_reader.h"
#include "gwtables.h"
#include "gpuwork_ring.h"
#include "msg.h"

struct ct_gpuwork *ct_gpuwork_new(const char *proc_root, uint32_t max_dwords,
				  ct_gpuwork_sink_fn sink, void *ctx)
{
	const struct gw_field *put = gw_field_find("userd", "GPPut");
	const struct gw_field *get = gw_field_find("userd", "GPGet");
	struct ct_gpuwork *g;

	if (!put || !get || max_dwords > CT_GPU_SEG_MAX) {
		ct_err("--gpu-work: the tables lack the USERD layout "
				"(rebuild from decoders/gputables/fields.tsv)\n");
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g || !gw_lane_init(&g->lane0, g, &g->st, max_dwords)) {
		if (g)
			gw_lane_free(&g->lane0);
		free(g);
		ct_err("out of memory\n");
		return NULL;
	}
	snprintf(g->proc_root, sizeof(g->proc_root), "%s", proc_root);
	g->max_dwords = max_dwords;
	g->sink = sink;
	g->ctx = ctx;
	g->gpput_off = put->lo / 8;
	g->gpget_off = get->lo / 8;
	g->probe = getenv("CUDATRACE_GPUWORK_PROBE") != NULL;
	g->costs = getenv("CUDATRACE_GPUWORK_COSTS") != NULL;
	g->idle_ns = 1000000000ull / 200;
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
	gw_lanes_free(g->lanes);
	gw_chans_free(&g->chans);
	gw_lane_free(&g->lane0);
	free(g);
}

const struct ct_gpuwork_stats *ct_gpuwork_stats(const struct ct_gpuwork *g)
{
	return &g->st;
}

struct gw_proc *gw_proc_of(struct ct_gpuwork *g, uint32_t pid)
{
	char path[300];
	int i;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid)
			return &g->procs[i];
	if (g->nprocs == GW_MAX_PROCS)
		return NULL;
	snprintf(path, sizeof(path), "%s/%u/mem", g->proc_root, pid);
	g->procs[g->nprocs] = (struct gw_proc){ pid, open(path, O_RDONLY | O_CLOEXEC), 0 };
	return &g->procs[g->nprocs++];
}

/* /proc/PID/mem, opened once per process; -1 if it cannot be. */
int gw_mem_fd(struct ct_gpuwork *g, uint32_t pid)
{
	struct gw_proc *p = gw_proc_of(g, pid);

	return p ? p->fd : -1;
}

static void forget_proc(struct ct_gpuwork *g, uint32_t pid)
{
	for (int i = 0; i < g->nprocs; i++)
		if (g->procs[i].pid == pid) {
			close_proc(g, i);
			return;
		}
}

/*
 * A channel goes into the kernel's exit map as soon as its USERD is
 * known, not at its first poll: a process that put its work and died
 * between the channel's mapping and that poll (a reader busy, SIGKILL)
 * had its ring in no map, and its work went unseen without a word.
 */
static void publish_new(struct ct_gpuwork *g, uint32_t pid)
{
	for (size_t i = 0; i < g->chans.nrings; i++) {
		struct gw_ring *r = &g->chans.rings[i];

		if (r->pid == pid && !r->f.published && !r->dead &&
		    gw_chans_resolve(&g->chans, r))
			gw_exit_publish(&g->lane0, r);
	}
}

void ct_gpuwork_learn(struct ct_gpuwork *g, const struct ct_rec *r)
{
	if (r->type == CT_REC_GPU_EXIT) {   /* the kernel's last look (gpuwork_exit.c) */
		gw_exit_take(g, (const struct ct_gpu_exit *)r);
		return;
	}
	if (r->type == CT_REC_PROC_EXIT)
		gw_exit_finish(g, r->pid);
	if (gw_chans_learn(&g->chans, r)) {   /* a channel: its USERD may be mapped */
		g->st.channels++;
		publish_new(g, r->pid);
	} else if (r->type == CT_REC_MMAP) {   /* a mapping: a USERD, maybe */
		publish_new(g, r->pid);
	}
	if (r->type == CT_REC_PROC_EXIT ||
	    (r->type == CT_REC_PROC && ((const struct ct_proc *)r)->source == CT_PROC_EXEC))
		forget_proc(g, r->pid);
}

void ct_gpuwork_set_drain(struct ct_gpuwork *g, void (*drain)(void *ctx), void *ctx)
{
	g->drain = drain;
	g->drain_ctx = ctx;
}

void ct_gpuwork_set_rate(struct ct_gpuwork *g, uint32_t hz)
{
	g->idle_ns = 1000000000ull / (hz ? hz : 200);
	if (g->idle_ns < GW_MIN_INTERVAL_NS)
		g->idle_ns = GW_MIN_INTERVAL_NS;
}

void ct_gpuwork_set_exit_map(struct ct_gpuwork *g, const struct ct_gpuwork_exit_map *m)
{
	g->exit_map = *m;
}

/*
 * When ring r is polled next, from how far GPPut moved (n entries) since
 * the poll before: at the rate it moves, a quarter of the ring is used in
 * entries / (4 * rate); poll by then, but at most every
 * GW_BUSY_MIN_INTERVAL_NS and at least HZ times a second.  A ring that
 * moved at all is polled at least every GW_ACTIVE_INTERVAL_NS: its rate
 * says little of its next burst (NCCL put 1,200 entries in 3.6 ms on a
 * ring that had put 30 a millisecond: H200, 2026-11-27).  A ring that went
 * round is polled as fast as can be.  Work comes in trains with gaps (a
 * training step, a producer that lost its CPU for a few ms): the
 * shortest interval a ring needed is kept for GW_BUSY_HOLD_NS after.
 * A poll of a ring costs a few reads of its USERD and entries (7 us each
 * through BAR1, measured): 1,000 polls a second of an active ring cost
 * under 1% of a core.
 */
#define GW_BUSY_HOLD_NS 100000000ull
#define GW_ACTIVE_INTERVAL_NS 1000000ull

static void gw_schedule(struct gw_lane *l, struct gw_ring *r, uint32_t n, bool wrapped)
{
	const struct ct_gpuwork *g = l->g;
	struct gw_follow *f = &r->f;
	uint64_t dt = f->last_snap_ns && r->snap_ns > f->last_snap_ns ?
		r->snap_ns - f->last_snap_ns : g->idle_ns;
	uint64_t iv = g->idle_ns;

	if (wrapped)
		iv = GW_BUSY_MIN_INTERVAL_NS;
	else if (n) {   /* dt * entries / (4 n), without overflow */
		iv = dt / 4 / n * r->entries < iv ? dt / 4 / n * r->entries : iv;
		iv = iv < GW_ACTIVE_INTERVAL_NS ? iv : GW_ACTIVE_INTERVAL_NS;
	}
	if (iv < GW_BUSY_MIN_INTERVAL_NS)
		iv = GW_BUSY_MIN_INTERVAL_NS;
	if (iv < g->idle_ns && (iv <= f->hold_ns || r->snap_ns >= f->hold_until_ns)) {
		f->hold_ns = iv;
		f->hold_until_ns = r->snap_ns + GW_BUSY_HOLD_NS;
	}
	if (r->snap_ns < f->hold_until_ns && f->hold_ns < iv)
		iv = f->hold_ns;
	if (iv < g->idle_ns)
		l->st->fast_polls++;
	f->interval_ns = iv;
	f->last_snap_ns = r->snap_ns;
	f->due_ns = r->snap_ns + iv;
}

static bool due(const struct gw_ring *r, uint64_t now)
{
	return !r->dead && r->f.due_ns <= now && !r->f.exit_seen;
}

/* Reads ring r after its snapshot and the drain, and plans its next poll
 * (on the reader's thread or a worker's: lane l). */
static void poll_one(struct gw_lane *l, struct gw_ring *r)
{
	uint32_t before = r->next;
	uint64_t lost = l->st->wraps;

	r->snap = false;
	if (r->dead) {
		gw_ring_ended(l, r);
		return;
	}
	gw_poll_ring(l, r);
	l->st->ring_polls++;
	gw_schedule(l, r, r->snap_put < r->entries ?
			  (r->snap_put + r->entries - before) % r->entries : 0,
		    l->st->wraps != lost);
	gw_exit_publish(l, r);
}

/* The dead rings go, and out of the kernel's map with them. */
static void sweep(struct ct_gpuwork *g)
{
	for (size_t i = 0; i < g->chans.nrings; i++)
		if (g->chans.rings[i].dead)
			gw_exit_unpublish(g, &g->chans.rings[i]);
	gw_chans_sweep(&g->chans);
}

/* How late a poll came after its ring was due: a reader held up
 * elsewhere shows here. */
static void note_lateness(struct ct_gpuwork *g, const struct gw_ring *r, uint64_t now)
{
	uint64_t late;

	if (!r->f.due_ns || now <= r->f.due_ns)
		return;
	late = now - r->f.due_ns;
	if (late > g->st.late_max_ns)
		g->st.late_max_ns = late;
	g->st.late_polls += late > 1000000ull;
}

/* CUDATRACE_GPUWORK_COSTS: a poll's start, to weigh it at its end. */
struct poll_mark { uint64_t wall, cpu, reads, read_ns, sink_ns, seg_bytes; long nvcsw, nivcsw; };

static void poll_mark(const struct ct_gpuwork *g, struct poll_mark *m, uint64_t cpu)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	*m = (struct poll_mark){ .wall = ct_now_ns(CLOCK_MONOTONIC), .cpu = cpu,
				 .sink_ns = g->st.sink_ns,
				 .seg_bytes = g->st.read[GW_READ_SEGMENTS].bytes,
				 .nvcsw = ru.ru_nvcsw, .nivcsw = ru.ru_nivcsw };
	for (int k = 0; k < GW_READ_KINDS; k++) {
		m->reads += g->st.read[k].reads;
		m->read_ns += g->st.read[k].ns;
	}
}

/* Processes among the rings this poll read: a poll's reads wait on each
 * process's own mmap lock. */
static uint64_t polled_procs(const struct ct_gpuwork *g)
{
	uint64_t n = 0;

	for (size_t i = 0; i < g->chans.nrings; i++) {
		size_t j;

		if (!g->chans.rings[i].snap)
			continue;
		for (j = 0; j < i; j++)
			if (g->chans.rings[j].snap && g->chans.rings[j].pid == g->chans.rings[i].pid)
				break;
		n += j == i;
	}
	return n;
}

static void poll_weigh(struct ct_gpuwork *g, const struct poll_mark *m, uint64_t rings,
		       uint64_t procs, uint64_t drain_ns)
{
	struct poll_mark e;

	poll_mark(g, &e, ct_now_ns(CLOCK_THREAD_CPUTIME_ID));
	if (e.wall - m->wall <= g->st.worst.wall_ns)
		return;
	g->st.worst = (struct gw_poll_cost){
		.wall_ns = e.wall - m->wall, .cpu_ns = e.cpu - m->cpu, .rings = rings,
		.reads = e.reads - m->reads, .procs = procs,
		.waits = (uint64_t)(e.nvcsw - m->nvcsw), .preempts = (uint64_t)(e.nivcsw - m->nivcsw),
		.read_ns = e.read_ns - m->read_ns, .sink_ns = e.sink_ns - m->sink_ns,
		.drain_ns = drain_ns, .seg_bytes = e.seg_bytes - m->seg_bytes };
}

/* Every due GPPut first, then the kernel's records, then the entries: what
 * a driver call that ended before GPPut moved says reaches the sink first.
 * The drain may learn channels (rings[] may move) or end them. */
static void poll_rings(struct ct_gpuwork *g, uint64_t now, bool all)
{
	uint64_t t0 = ct_now_ns(CLOCK_THREAD_CPUTIME_ID), procs = 0, drain_ns = 0;
	size_t i, nsnap = 0;
	struct poll_mark mark = { 0 };

	if (g->costs)
		poll_mark(g, &mark, t0);

	for (i = 0; i < g->chans.nrings; i++) {
		struct gw_ring *r = &g->chans.rings[i];

		if (!r->dead && !r->f.exit_seen && (all || due(r, now))) {
			note_lateness(g, r, now);
			gw_snapshot_ring(g, r);
			nsnap++;
			if (!r->snap)   /* its USERD not mapped yet, or unreadable */
				r->f.due_ns = now + g->idle_ns;
		}
	}
	if (g->drain) {
		uint64_t d0 = ct_now_ns(CLOCK_MONOTONIC);

		g->drain(g->drain_ctx);
		drain_ns = ct_now_ns(CLOCK_MONOTONIC) - d0;
		g->st.drain_max_ns = drain_ns > g->st.drain_max_ns ? drain_ns : g->st.drain_max_ns;
	}
	if (g->costs)
		procs = polled_procs(g);
	gw_lanes_poll(g, poll_one);
	sweep(g);
	if (nsnap)
		g->st.polls++;
	g->st.cpu_ns += ct_now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	if (g->costs)
		poll_weigh(g, &mark, nsnap, procs, drain_ns);
}

void ct_gpuwork_poll(struct ct_gpuwork *g, uint64_t now)
{
	poll_rings(g, now, true);
}

void ct_gpuwork_poll_due(struct ct_gpuwork *g, uint64_t now)
{
	poll_rings(g, now, false);
}

bool ct_gpuwork_costs(const struct ct_gpuwork *g)
{
	return g->costs;
}

uint64_t ct_gpuwork_next_due(const struct ct_gpuwork *g)
{
	/* at least HZ times a second: the kernel's records (new channels) are
	 * taken at each poll, whether or not a ring is due */
	uint64_t next = ct_now_ns(CLOCK_MONOTONIC) + g->idle_ns;

	for (size_t i = 0; i < g->chans.nrings; i++) {
		const struct gw_ring *r = &g->chans.rings[i];

		if (!r->dead && !r->f.exit_seen && r->f.due_ns < next)
			next = r->f.due_ns;
	}
	return next;
}

/* The second line: what the last look before exit did, and channels given up. */
static void report_exit(const struct ct_gpuwork_stats *s)
{
	if (s->exit_looks || s->exit_no_put || s->exit_unseen)
		ct_err("gpu-work: at exit: %llu rings had work put after their "
				"last poll, read by the kernel as the process exited (%llu entries; %llu "
				"could not be copied, counted lost); %llu rings whose GPPut could not be "
				"read at exit (what they put after the last poll is not counted); the "
				"longest a process ran after a ring's last poll: %.1f ms\n",
			(unsigned long long)s->exit_looks, (unsigned long long)s->exit_entries,
			(unsigned long long)s->exit_unseen, (unsigned long long)s->exit_no_put,
			(double)s->exit_gap_ns / 1e6);
	if (s->not_followed)
		ct_err("gpu-work: %llu channels no longer followed: GPPut read "
				"outside the ring (not the USERD the allocation named, or a corrupt one); "
				"what they put after is not in this capture, and not counted\n",
			(unsigned long long)s->not_followed);
	if (s->exit_too_late)
		ct_err("gpu-work: at exit: %llu rings were learned by the reader only as or "
				"after their process exited (the reader held up: run it with real-time "
				"priority, or load the machine less); what they put after their last "
				"poll, or at all if never polled, is not read and not counted\n",
			(unsigned long long)s->exit_too_late);
	if (s->unpublished)
		ct_err("gpu-work: %llu rings could not be given to the kernel's "
				"last look (more than %d channels in a process, or the map full): work "
				"they put after their last poll before exit is not read\n",
			(unsigned long long)s->unpublished, CT_GX_SLOTS);
}

/* CUDATRACE_GPUWORK_COSTS: where the poller's time went. */
static void report_reads(const struct ct_gpuwork_stats *s)
{
	static const char *const what[GW_READ_KINDS] = {
		[GW_READ_PUT] = "GPPut/GPGet", [GW_READ_ENTRIES] = "ring entries",
		[GW_READ_FRESH] = "entries put while reading", [GW_READ_SEGMENTS] = "segments",
	};

	for (int k = 0; k < GW_READ_KINDS; k++)
		ct_err("gpu-work costs: %s: %llu reads, %llu bytes, %.1f ms (the longest %.3f ms)\n",
		       what[k], (unsigned long long)s->read[k].reads,
		       (unsigned long long)s->read[k].bytes, (double)s->read[k].ns / 1e6,
		       (double)s->read[k].max_ns / 1e6);
	ct_err("gpu-work costs: polls later than due by 1 ms or more: %llu; the latest: %.1f ms; "
	       "the longest hand-over of the kernel's records: %.1f ms\n",
	       (unsigned long long)s->late_polls, (double)s->late_max_ns / 1e6,
	       (double)s->drain_max_ns / 1e6);
	ct_err("gpu-work costs: the longest poll: %.1f ms, %.1f ms of it on the CPU; %llu rings "
	       "of %llu processes, %llu reads (%.1f ms, %llu bytes of segments), the kernel's "
	       "records %.1f ms, the sink %.1f ms (the namer's decoding, the queue); the reader "
	       "blocked %llu times (a lock, such as a process's mmap lock) and was preempted %llu "
	       "times in it\n",
	       (double)s->worst.wall_ns / 1e6, (double)s->worst.cpu_ns / 1e6,
	       (unsigned long long)s->worst.rings, (unsigned long long)s->worst.procs,
	       (unsigned long long)s->worst.reads, (double)s->worst.read_ns / 1e6,
	       (unsigned long long)s->worst.seg_bytes, (double)s->worst.drain_ns / 1e6,
	       (double)s->worst.sink_ns / 1e6, (unsigned long long)s->worst.waits,
	       (unsigned long long)s->worst.preempts);
	ct_err("gpu-work costs: the sink: %.1f ms in all; %llu polls read by several threads "
	       "(one a process)\n", (double)s->sink_ns / 1e6,
	       (unsigned long long)s->parallel_polls);
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
	ct_err("gpu-work: %llu channels, %llu segments read (%llu bytes, "
			"%llu cut at the bound), %llu control entries, %llu unreadable, "
			"%s%llu ring entries lost "
			"(%llu overwritten while read), %llu ring wraps between polls%s; "
			"%llu polls in %.1f ms of CPU (%llu ring reads, %llu sooner than 1/HZ: busy rings)\n",
		(unsigned long long)s->channels, (unsigned long long)s->segments,
		(unsigned long long)s->bytes, (unsigned long long)s->truncated,
		(unsigned long long)s->control, (unsigned long long)s->unreadable,
		s->wraps ? "at least " : "",
		(unsigned long long)s->lost, (unsigned long long)s->overwritten,
		(unsigned long long)s->wraps, wraps, (unsigned long long)s->polls,
		(double)s->cpu_ns / 1e6, (unsigned long long)s->ring_polls,
		(unsigned long long)s->fast_polls);
	report_exit(s);
	if (g->costs)
		report_reads(s);
	gw_chans_report(&g->chans);   /* channel allocations not followed (gpuwork_chans.c) */
}
