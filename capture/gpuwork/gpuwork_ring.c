// SPDX-License-Identifier: MIT
/*
 * One poll of one ring (gpuwork_ring.h).  GPPut says how far the producer
 * got; the entries from our last index up to it are read in one go, and
 * their segments, which a producer writes one after another, in batches
 * of contiguous ones.  Two ways to lose work are looked for and said:
 *
 *  - the ring went round between two polls: the entry we read last
 *    is no longer there (a wrap by exactly the ring's size looks like
 *    nothing happened otherwise).  GPPut is an index into the ring, not
 *    a count: the entries it moved past our last index are known lost,
 *    whole rings more cannot be ruled out, so that count is a lower bound;
 *  - ring entries reused while we read them: a ring read whole (after a
 *    wrap) has the producer's next slot in it; after reading, GPPut is
 *    read again and the slots it moved into are not trusted;
 *  - a segment was overwritten while we read it: the pushbuffer is a ring
 *    too, and once the GPU has fetched a segment its memory is reused.
 *    After each batch GPPut is read again; the segments put meanwhile,
 *    and GW_DANGER_BYTES past the last of them (what is being written),
 *    must not overlap what we read, or those entries count as lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_ring.h"
#include "msg.h"

/* n bytes of process memory at addr, counted by purpose; timed only when
 * CUDATRACE_GPUWORK_COSTS asks (two clock reads a read, on the poll's path). */
static bool gw_read(struct gw_lane *l, enum gw_read_kind k, int fd, uint64_t addr, void *buf,
		    size_t n)
{
	struct gw_read_cost *c = &l->st->read[k];
	uint64_t t0 = l->g->costs ? ct_now_ns(CLOCK_MONOTONIC) : 0;
	bool ok = addr <= (uint64_t)INT64_MAX - n && pread(fd, buf, n, (off_t)addr) == (ssize_t)n;

	c->reads++;
	c->bytes += n;
	if (l->g->costs) {
		t0 = ct_now_ns(CLOCK_MONOTONIC) - t0;
		c->ns += t0;
		c->max_ns = t0 > c->max_ns ? t0 : c->max_ns;
	}
	return ok;
}

struct poll_ctx {
	struct gw_lane *l;
	const struct ct_gpuwork *g;
	const struct gw_ring *r;
	int fd;
	uint32_t get, put;
	/* The overwrite check's ranges (l->fresh): of the entries from put to
	 * fresh_put (fresh_n of them), read once per poll, not per batch. */
	uint32_t fresh_put, fresh_n;
	size_t nfresh;
	uint64_t fresh_base;
};

static struct ct_gpu_seg *start_record(const struct poll_ctx *p, uint32_t index)
{
	struct ct_gpu_seg *s = p->l->rec;

	memset(s, 0, sizeof(*s));
	s->h.type = CT_REC_GPU_SEG;
	s->h.ts_ns = ct_now_ns(CLOCK_MONOTONIC);
	s->h.pid = p->r->pid;
	s->client = p->r->client;
	s->channel = p->r->handle;
	s->chan_class = p->r->cls;
	s->gpu = p->r->gpu;
	s->ring_index = index;
	s->ring_entries = p->r->entries;
	s->gp_get = p->get;
	s->gp_put = p->put;
	return s;
}

static void send(struct gw_lane *l)
{
	l->rec->h.size = (uint32_t)(sizeof(*l->rec) + (size_t)l->rec->ndwords * 4);
	gw_sink(l, &l->rec->h);
}

/* n entries from index could not be read (with CT_GS_WRAP: at least n). */
static void lost(const struct poll_ctx *p, uint32_t index, uint32_t n, uint32_t flags)
{
	struct ct_gpu_seg *s = start_record(p, index);

	s->flags = CT_GS_LOST | flags;
	s->lost = n;
	p->l->st->lost += n;
	if (flags & CT_GS_WRAP) {
		p->l->st->wraps++;
		p->l->st->wrap_lost += n;
	}
	send(p->l);
}

/* CUDATRACE_GPUWORK_PROBE (docs/GPUWORK.md): which mapping holds an
 * address, and whether process_vm_readv reads it as /proc/PID/mem does. */
static void probe(const struct ct_gpuwork *g, uint32_t pid, const char *what, uint64_t addr)
{
	char path[300], line[512];
	uint32_t v;
	struct iovec local = { &v, 4 }, remote = { (void *)(uintptr_t)addr, 4 };
	ssize_t n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
	FILE *f;

	ct_err("gpu-work probe: pid %u %s 0x%llx: process_vm_readv %s\n", pid,
		what, (unsigned long long)addr, n == 4 ? "read it" : strerror(errno));
	snprintf(path, sizeof(path), "%s/%u/maps", g->proc_root, pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && addr >= lo && addr < hi)
			ct_err("gpu-work probe:   in %s", line);
	}
	fclose(f);
}

/* Entries [from, from + n) of the ring into e (n <= entries). */
static bool read_entries(const struct poll_ctx *p, enum gw_read_kind k, uint32_t from, uint32_t n,
			 uint64_t *e)
{
	const struct gw_ring *r = p->r;
	uint32_t first = n < r->entries - from ? n : r->entries - from;

	return gw_read(p->l, k, p->fd, r->ring_va + (uint64_t)from * 8, e, (size_t)first * 8) &&
	       (first == n ||
		gw_read(p->l, k, p->fd, r->ring_va, e + first, (size_t)(n - first) * 8));
}

/* What entry asks to read, its segment cut to the bound; base: the
 * ring's address bits above the entry's, which a
 * SET_PB_SEGMENT_EXTENDED_BASE control entry changes for those after it. */
static struct gw_seg seg_of(const struct ct_gpuwork *g, uint32_t cls, uint64_t entry,
			    uint64_t *base)
{
	struct gw_seg s = { 0 };
	struct gw_gp gp;

	s.ok = gw_gp_decode(cls, entry, &gp);
	if (!s.ok)
		return s;
	if (gp.control) {
		s.control = true;
		if (gp.sets_base)
			*base = gp.base;
		return s;
	}
	s.va = gw_gp_address(&gp, *base);
	s.want = gp.dwords;
	s.n = s.want < g->max_dwords ? s.want : g->max_dwords;
	return s;
}

/* The segments of entries e[0, n), in ring order, from the base at *base. */
static void plan(const struct ct_gpuwork *g, uint32_t cls, const uint64_t *e, uint32_t n,
		 uint64_t *base, struct gw_seg *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = seg_of(g, cls, e[i], base);
}

/* [lo, hi) after the fresh ranges f[0, nf): joined to the last where it
 * touches it (a producer writes its segments one after another, so a
 * burst of them is one range, and each segment read is checked against a
 * few ranges, not hundreds); returns the new count. */
static size_t add_fresh(struct gw_range *f, size_t nf, uint64_t lo, uint64_t hi)
{
	if (nf && lo <= f[nf - 1].hi && f[nf - 1].lo <= hi) {
		f[nf - 1].lo = lo < f[nf - 1].lo ? lo : f[nf - 1].lo;
		f[nf - 1].hi = hi > f[nf - 1].hi ? hi : f[nf - 1].hi;
		return nf;
	}
	f[nf] = (struct gw_range){ lo, hi };
	return nf + 1;
}

/* The segments put since p->put (up to new_put), and what is being
 * written past the last one: ranges a batch read meanwhile must miss.
 * The entries already read for an earlier batch of this poll are not read
 * again (a ring in video memory is read through BAR1, microseconds a read):
 * a poll reads each entry put meanwhile once. */
static size_t fresh_ranges(struct poll_ctx *p, uint32_t new_put)
{
	const struct ct_gpuwork *g = p->g;
	struct gw_range *fresh = p->l->fresh;
	uint32_t n = (new_put + p->r->entries - p->fresh_put) % p->r->entries, i;
	uint64_t e[64];
	size_t nf = p->nfresh;

	if (n > GW_FRESH_MAX - 1 - p->fresh_n)
		n = GW_FRESH_MAX - 1 - p->fresh_n;
	for (i = 0; i < n; i += 64) {
		uint32_t k = n - i < 64 ? n - i : 64, j;

		if (!read_entries(p, GW_READ_FRESH, (p->fresh_put + i) % p->r->entries, k, e))
			break;
		for (j = 0; j < k; j++) {
			struct gw_seg s = seg_of(g, p->r->cls, e[j], &p->fresh_base);

			if (s.ok && s.want)
				nf = add_fresh(fresh, nf, s.va, s.va + (uint64_t)s.want * 4);
		}
	}
	i = i < n ? i : n;   /* entries read: all, or up to the read that failed */
	p->fresh_put = (p->fresh_put + i) % p->r->entries;
	p->fresh_n += i;
	p->nfresh = nf;
	if (nf)   /* the producer writes on past the last segment it put */
		fresh[nf] = (struct gw_range){ fresh[nf - 1].hi,
					       fresh[nf - 1].hi + GW_DANGER_BYTES }, nf++;
	return nf;
}

static bool overlaps(const struct gw_range *f, size_t nf, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < nf; i++)
		if (lo < f[i].hi && f[i].lo < hi)
			return true;
	return false;
}

/* A control entry: its record, no segment to read. */
static void send_control(struct poll_ctx *p, uint32_t index, uint64_t entry)
{
	struct ct_gpu_seg *s = start_record(p, index);

	s->entry = entry;
	p->l->st->control++;
	send(p->l);
}

/* Entries [from, from + n) whose segments are contiguous and fit the
 * batch buffer: one read, one check, one record each. */
static void read_batch(struct poll_ctx *p, uint32_t from, const uint64_t *e,
		       const struct gw_seg *sg, uint32_t n)
{
	struct gw_lane *l = p->l;
	uint64_t lo = sg[0].va, hi = sg[n - 1].va + (uint64_t)sg[n - 1].n * 4;
	bool readable = hi == lo || gw_read(l, GW_READ_SEGMENTS, p->fd, lo, l->batch, hi - lo);
	uint32_t new_put = p->put, i;
	size_t nf = 0;

	if (hi != lo && readable &&
	    gw_read(l, GW_READ_PUT, p->fd, p->r->userd_cpu + p->g->gpput_off, &new_put, 4) &&
	    new_put != p->put && new_put < p->r->entries)
		nf = fresh_ranges(p, new_put);
	for (i = 0; i < n; i++) {
		uint32_t index = (from + i) % p->r->entries;
		struct ct_gpu_seg *s;

		if (sg[i].control) {
			send_control(p, index, e[i]);
			continue;
		}
		if (readable && overlaps(l->fresh, nf, sg[i].va, sg[i].va + (uint64_t)sg[i].n * 4)) {
			l->st->overwritten++;
			lost(p, index, 1, 0);
			continue;
		}
		s = start_record(p, index);
		s->entry = e[i];
		s->va = sg[i].va;
		s->want_dwords = sg[i].want;
		if (!readable || !sg[i].ok) {
			s->flags = CT_GS_FAULT;
			l->st->unreadable++;
			send(l);
			continue;
		}
		s->ndwords = sg[i].n;
		memcpy(s + 1, l->batch + (sg[i].va - lo), (size_t)sg[i].n * 4);
		gw_take_segment(l, s);
	}
}

void gw_take_segment(struct gw_lane *l, struct ct_gpu_seg *s)
{
	if (s->ndwords < s->want_dwords) {
		s->flags |= CT_GS_TRUNC;
		l->st->truncated++;
	}
	l->st->segments++;
	l->st->bytes += (uint64_t)s->ndwords * 4;
	s->h.size = (uint32_t)(sizeof(*s) + (size_t)s->ndwords * 4);
	gw_sink(l, &s->h);
}

/* Whether segment b can join a batch ending with a: readable, right after
 * it, a not cut, and the batch still under its bound. */
static bool joins(const struct gw_seg *a, const struct gw_seg *b, uint64_t bytes)
{
	return a->ok && b->ok && !a->control && !b->control &&
	       b->va == a->va + (uint64_t)a->want * 4 && a->n == a->want &&
	       bytes + (uint64_t)b->n * 4 <= GW_BATCH_BYTES;
}

/* Entries [from, from + n): batches of contiguous segments; the stale
 * ones (see mark_stale) are counted lost, not read; a control entry is a
 * batch of its own, read from nowhere. */
static void read_segments(struct poll_ctx *p, uint32_t from, const uint64_t *e,
			  const struct gw_seg *sg, const bool *stale, uint32_t n)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t k = 1;
		uint64_t bytes = (uint64_t)sg[i].n * 4;

		if (stale[i]) {
			p->l->st->overwritten++;
			lost(p, (from + i) % p->r->entries, 1, 0);
			i++;
			continue;
		}
		while (i + k < n && k < 64 && !stale[i + k] && joins(&sg[i + k - 1], &sg[i + k], bytes))
			bytes += (uint64_t)sg[i + k++].n * 4;
		read_batch(p, from + i, e + i, sg + i, k);
		i += k;
	}
}

/* Adds [lo, hi) to the merged ranges f (at most GW_STALE_RANGES); returns
 * the new count.  Segments are written one after another, so the ranges
 * of newer segments merge into one or two. */
static size_t add_range(struct gw_range *f, size_t nf, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < nf; i++)
		if (lo <= f[i].hi && f[i].lo <= hi) {
			f[i].lo = lo < f[i].lo ? lo : f[i].lo;
			f[i].hi = hi > f[i].hi ? hi : f[i].hi;
			return nf;
		}
	if (nf < GW_STALE_RANGES)
		f[nf++] = (struct gw_range){ lo, hi };
	return nf;
}

/*
 * Entries not yet read whose segment a newer one has overwritten: the
 * pushbuffer is a ring, and a poller that fell behind finds its oldest
 * unread segments written over by the newest.  From the newest entry back,
 * an entry is stale if its segment overlaps any newer one, or the bytes
 * the producer may be writing after the newest.
 */
static void mark_stale(const struct gw_seg *sg, uint32_t n, bool *stale)
{
	struct gw_range f[GW_STALE_RANGES];
	size_t nf = 0;
	uint32_t i;
	bool newest = true;

	for (i = n; i-- > 0;) {
		uint64_t hi = sg[i].va + (uint64_t)sg[i].want * 4;

		stale[i] = false;
		if (!sg[i].ok || !sg[i].want)
			continue;
		if (newest)
			nf = add_range(f, nf, hi, hi + GW_DANGER_BYTES);
		else
			stale[i] = overlaps(f, nf, sg[i].va, hi);
		newest = false;
		nf = add_range(f, nf, sg[i].va, hi);
	}
}

/*
 * Entries [0, n) were read from the n slots before p->put.  Meanwhile the
 * producer went on into the slots from p->put; where those reach the
 * slots we read (only when n plus its progress reaches the ring's size),
 * our copy may be the new entry (read again next poll) or half of one:
 * those, and the slot it writes next, are marked stale.  Returns how many.
 */
static uint32_t mark_reused(const struct poll_ctx *p, uint32_t n, bool *stale)
{
	uint32_t size = p->r->entries, now, moved, k, i;

	if (!n || !gw_read(p->l, GW_READ_PUT, p->fd, p->r->userd_cpu + p->g->gpput_off, &now, 4) ||
	    now >= size)
		return 0;
	moved = (now + size - p->put) % size;
	if ((uint64_t)n + moved < size)
		return 0;
	k = n + moved - size + 1;
	k = k < n ? k : n;
	for (i = 0; i < k; i++)
		stale[i] = true;
	return k;
}

static void probe_once(struct poll_ctx *p, struct gw_ring *r)
{
	uint64_t entry, base = r->pb_base;

	r->probed = true;
	probe(p->g, r->pid, "USERD", r->userd_cpu);
	probe(p->g, r->pid, "ring", r->ring_va);
	if (read_entries(p, GW_READ_ENTRIES, r->next, 1, &entry))
		probe(p->g, r->pid, "segment", seg_of(p->g, r->cls, entry, &base).va);
}

/* GPPut and GPGet, in one read where they sit side by side (a read of
 * video memory through BAR1 costs microseconds). */
static bool read_put_get(struct gw_lane *l, int fd, const struct gw_ring *r,
			 uint32_t *put, uint32_t *get)
{
	const struct ct_gpuwork *g = l->g;
	uint32_t lo = g->gpget_off < g->gpput_off ? g->gpget_off : g->gpput_off;
	uint32_t both[2];

	if (g->gpget_off + 4 == g->gpput_off || g->gpput_off + 4 == g->gpget_off) {
		if (!gw_read(l, GW_READ_PUT, fd, r->userd_cpu + lo, both, 8))
			return false;
		*put = both[(g->gpput_off - lo) / 4];
		*get = both[(g->gpget_off - lo) / 4];
		return true;
	}
	return gw_read(l, GW_READ_PUT, fd, r->userd_cpu + g->gpput_off, put, 4) &&
	       gw_read(l, GW_READ_PUT, fd, r->userd_cpu + g->gpget_off, get, 4);
}

void gw_snapshot_ring(struct ct_gpuwork *g, struct gw_ring *r)
{
	r->snap_fd = -1;
	r->snap = gw_chans_resolve(&g->chans, r) && (r->snap_fd = gw_mem_fd(g, r->pid)) >= 0 &&
		  read_put_get(&g->lane0, r->snap_fd, r, &r->snap_put, &r->snap_get);
	r->snap_ns = ct_now_ns(CLOCK_MONOTONIC);
}

void gw_ring_ended(struct gw_lane *l, struct gw_ring *r)
{
	struct poll_ctx p = { .l = l, .g = l->g, .r = r, .fd = -1, .get = r->snap_get,
			      .put = r->snap_put };

	if (r->f.exit_seen)   /* read at exit by the kernel (gpuwork_exit.c) */
		return;
	if (r->snap_put < r->entries && r->snap_put != r->next)
		lost(&p, r->next, (r->snap_put + r->entries - r->next) % r->entries, 0);
}

/* The window the entries from r->next to GPPut were put in: the record
 * a decoder ties them to the driver calls by (docs/GPUWORK.md). */
static void send_window(const struct poll_ctx *p)
{
	struct ct_gpu_put w = { .h = { .type = CT_REC_GPU_PUT, .size = sizeof(w),
				       .ts_ns = p->r->snap_ns, .pid = p->r->pid },
				.client = p->r->client, .channel = p->r->handle,
				.from = p->r->next, .put = p->put, .since_ns = p->r->put_seen_ns };

	gw_sink(p->l, &w.h);
}

void gw_poll_ring(struct gw_lane *l, struct gw_ring *r)
{
	const struct ct_gpuwork *g = l->g;
	struct poll_ctx p = { .l = l, .g = g, .r = r, .fd = r->snap_fd, .get = r->snap_get,
			      .put = r->snap_put, .fresh_put = r->snap_put };
	uint64_t last;
	uint32_t from, n;
	bool wrapped;

	if (p.fd < 0 || r->f.exit_seen)
		return;
	if (p.put >= r->entries) {   /* not a ring index: not the USERD we think */
		lost(&p, r->next, 0, 0);
		l->st->not_followed++;
		r->dead = true;
		return;
	}
	from = r->next;
	n = (p.put + r->entries - r->next) % r->entries;
	/* Went round since the last poll?  Then every entry is new: read them
	 * all.  The n GPPut moved past our index are gone (at least). */
	wrapped = r->have_last &&
		  read_entries(&p, GW_READ_ENTRIES, (r->next + r->entries - 1) % r->entries, 1, &last) &&
		  last != r->last_entry;
	if (n || wrapped)
		send_window(&p);
	r->put_seen_ns = r->snap_ns;
	if (wrapped) {
		lost(&p, p.put, n, CT_GS_WRAP);
		from = p.put;
		n = r->entries;
	}
	if (g->probe && n && !r->probed)
		probe_once(&p, r);
	if (n && !read_entries(&p, GW_READ_ENTRIES, from, n, l->ents)) {
		lost(&p, from, n, 0);
		r->next = p.put;
		return;
	}
	plan(g, r->cls, l->ents, n, &r->pb_base, l->segs);
	p.fresh_base = r->pb_base;   /* the entries put meanwhile follow these */
	mark_stale(l->segs, n, l->stale);
	mark_reused(&p, n, l->stale);
	read_segments(&p, from, l->ents, l->segs, l->stale, n);
	if (n) {
		r->last_entry = l->ents[n - 1];
		r->have_last = true;
	}
	r->next = p.put;
}
