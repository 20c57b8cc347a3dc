// SPDX-License-Identifier: MIT
/*
 * --gpu-work's last look before exit, the reader's side (the kernel's is
 * bpf/gpuwork_exit.bpf.h; docs/GPUWORK.md says why it is done there).
 *
 * The reader publishes each ring it follows in the BPF map gw_exit, with
 * the index it reads next.  When the process exits, the kernel copies
 * the entries from that index up to GPPut, and their segments, into the
 * ring buffer, before the PROC_EXIT record; the reader (on the reader
 * thread, as the records come) sends them on as a poll would have: the
 * window (GPU_PUT, since the ring's last poll, up to the exit), then one
 * GPU_SEG per entry through gw_take_segment.  Entries the reader read
 * itself after it published the index (a poll that ran as the process
 * exited) are skipped; entries the kernel could not copy are counted.
 */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_class.h"
#include "gpuwork_ring.h"

/* The entry's fields for the kernel, from the tables. */
static bool entry_fields(uint32_t cls, struct ct_gx_chan *v)
{
	const struct gw_class *k = gw_class_get(cls);

	if (!k || !k->gp_get || !k->gp_get_hi || !k->gp_length)
		return false;
	v->get_lo = (uint8_t)k->gp_get->lo;
	v->get_bits = (uint8_t)(k->gp_get->hi - k->gp_get->lo + 1);
	v->get_hi_lo = (uint8_t)k->gp_get_hi->lo;
	v->get_hi_bits = (uint8_t)(k->gp_get_hi->hi - k->gp_get_hi->lo + 1);
	v->len_lo = (uint8_t)k->gp_length->lo;
	v->len_bits = (uint8_t)(k->gp_length->hi - k->gp_length->lo + 1);
	return true;
}

void gw_exit_publish(struct gw_lane *l, struct gw_ring *r)
{
	struct ct_gpuwork *g = l->g;
	struct ct_gx_chan v = { 0 };
	struct ct_gx_key key = { r->pid, 0 };
	struct gw_proc *p;

	if (!g->exit_map.publish || !r->userd_cpu || r->dead || r->f.exit_seen ||
	    (r->f.published && r->f.published_next == r->next))
		return;
	if (!r->f.published) {
		p = gw_proc_of(g, r->pid);
		if (!p || p->slots >= CT_GX_SLOTS || !entry_fields(r->cls, &v)) {
			l->st->unpublished++;
			r->f.published = true;   /* tried: not again */
			r->f.slot = UINT32_MAX;
			return;
		}
		r->f.slot = p->slots++;
	}
	if (r->f.slot == UINT32_MAX || !entry_fields(r->cls, &v))
		return;
	key.slot = r->f.slot;
	v.ring_va = r->ring_va;
	v.gpput_addr = r->userd_cpu + g->gpput_off;
	v.pb_base = r->pb_base;
	v.entries = r->entries;
	v.next = r->next;
	v.max_dwords = g->max_dwords < CT_GPU_SEG_DEFAULT ? g->max_dwords : CT_GPU_SEG_DEFAULT;
	if (g->exit_map.publish(g->exit_map.ctx, &key, &v)) {
		if (!r->f.published)
			l->st->unpublished++;
		r->f.published = true;
		r->f.slot = UINT32_MAX;
		return;
	}
	if (!r->f.published)
		r->f.published_ns = ct_now_ns(CLOCK_MONOTONIC);
	r->f.published = true;
	r->f.published_next = r->next;
}

void gw_exit_unpublish(struct ct_gpuwork *g, struct gw_ring *r)
{
	struct ct_gx_key key = { r->pid, r->f.slot };

	if (g->exit_map.unpublish && r->f.published && r->f.slot != UINT32_MAX)
		g->exit_map.unpublish(g->exit_map.ctx, &key);
	r->f.published = false;
}

static struct gw_ring *ring_of(struct ct_gpuwork *g, const struct ct_gpu_exit *x)
{
	for (size_t i = 0; i < g->chans.nrings; i++) {
		struct gw_ring *r = &g->chans.rings[i];

		if (r->pid == x->h.pid && r->f.published && r->f.slot == x->slot && !r->dead)
			return r;
	}
	return NULL;
}

/* A GPU_SEG record of ring r for the kernel's entry x (no dwords yet). */
static struct ct_gpu_seg *seg_record(struct ct_gpuwork *g, const struct gw_ring *r,
				     const struct ct_gpu_exit *x, uint32_t index)
{
	struct ct_gpu_seg *s = g->lane0.rec;

	memset(s, 0, sizeof(*s));
	s->h.type = CT_REC_GPU_SEG;
	s->h.size = sizeof(*s);
	s->h.ts_ns = x->h.ts_ns;
	s->h.pid = r->pid;
	s->client = r->client;
	s->channel = r->handle;
	s->chan_class = r->cls;
	s->gpu = r->gpu;
	s->ring_index = index;
	s->ring_entries = r->entries;
	s->gp_get = r->snap_get;
	s->gp_put = x->put;
	return s;
}

/* n entries from index that the kernel could not copy at exit; with
 * CT_GS_LATE, n 0: a ring it could not look at (missed_by_look). */
static void exit_lost(struct ct_gpuwork *g, struct gw_ring *r, const struct ct_gpu_exit *x,
		      uint32_t index, uint32_t n, uint32_t flags)
{
	struct ct_gpu_seg *s = seg_record(g, r, x, index);

	s->flags = CT_GS_LOST | flags;
	s->lost = n;
	g->st.lost += n;
	g->st.exit_unseen += n;
	gw_sink(&g->lane0, &s->h);
}

/* The channel's first record: where the kernel began, and GPPut at exit. */
static void take_head(struct ct_gpuwork *g, struct gw_ring *r, const struct ct_gpu_exit *x)
{
	uint64_t gap = x->h.ts_ns > r->put_seen_ns ? x->h.ts_ns - r->put_seen_ns : 0;
	struct ct_gpu_put w = { .h = { .type = CT_REC_GPU_PUT, .size = sizeof(w),
				       .ts_ns = x->h.ts_ns, .pid = r->pid },
				.client = r->client, .channel = r->handle,
				.from = r->next, .put = x->put, .since_ns = r->put_seen_ns };

	r->f.exit_seen = true;
	r->f.exit_ns = x->h.ts_ns;
	if (gap > g->st.exit_gap_ns)
		g->st.exit_gap_ns = gap;
	if (x->flags & CT_GX_NO_PUT || x->from >= r->entries || x->put >= r->entries) {
		r->f.exit_no_put = true;
		g->st.exit_no_put++;
		return;
	}
	r->f.exit_from = x->from;
	r->f.exit_expect = (x->put + r->entries - x->from) % r->entries;
	r->f.exit_skip = (r->next + r->entries - x->from) % r->entries;
	if (r->f.exit_skip > r->f.exit_expect)   /* the reader is past GPPut: nothing new */
		r->f.exit_skip = r->f.exit_expect;
	r->f.exit_got = 0;
	if (r->f.exit_expect > r->f.exit_skip) {
		g->st.exit_looks++;
		gw_sink(&g->lane0, &w.h);   /* the window: after every call of the process */
	}
}

/* One entry the kernel copied: on as a poll would have sent it. */
static void take_entry(struct ct_gpuwork *g, struct gw_ring *r, const struct ct_gpu_exit *x)
{
	uint32_t off = (x->index + r->entries - r->f.exit_from) % r->entries;
	struct ct_gpu_seg *s;
	struct gw_gp gp;

	if (r->f.exit_no_put || x->index >= r->entries || off < r->f.exit_skip ||
	    off >= r->f.exit_expect)
		return;   /* read by the reader already, or not in the window */
	r->f.exit_got++;
	r->next = (x->index + 1) % r->entries;
	if (x->flags & CT_GX_NO_ENTRY) {
		exit_lost(g, r, x, x->index, 1, 0);
		return;
	}
	g->st.exit_entries++;
	r->last_entry = x->entry;
	r->have_last = true;
	s = seg_record(g, r, x, x->index);
	s->entry = x->entry;
	if (!gw_gp_decode(r->cls, x->entry, &gp) || gp.control) {
		if (gp.control && gp.sets_base)
			r->pb_base = gp.base;
		g->st.control++;
		gw_sink(&g->lane0, &s->h);
		return;
	}
	s->va = gw_gp_address(&gp, r->pb_base);
	s->want_dwords = gp.dwords;
	/* the kernel read under the published base: a base set since is not its */
	if (x->flags & CT_GX_NO_SEG || s->va != x->va || x->want_dwords != gp.dwords ||
	    x->ndwords > g->max_dwords || x->ndwords > gp.dwords) {
		s->flags = CT_GS_FAULT;
		g->st.unreadable++;
		gw_sink(&g->lane0, &s->h);
		return;
	}
	s->ndwords = x->ndwords;
	memcpy(s + 1, x + 1, (size_t)x->ndwords * 4);
	gw_take_segment(&g->lane0, s);
}

/* The look at x's process begins: every ring of it learns when. */
static void take_look(struct ct_gpuwork *g, const struct ct_gpu_exit *x)
{
	for (size_t i = 0; i < g->chans.nrings; i++)
		if (g->chans.rings[i].pid == x->h.pid)
			g->chans.rings[i].f.looked_ns = x->h.ts_ns;
}

void gw_exit_take(struct ct_gpuwork *g, const struct ct_gpu_exit *x)
{
	struct gw_ring *r;

	if (x->flags & CT_GX_LOOK) {
		take_look(g, x);
		return;
	}
	r = ring_of(g, x);
	if (!r)
		return;
	if (x->flags & CT_GX_HEAD)
		take_head(g, r, x);
	else if (r->f.exit_seen)
		take_entry(g, r, x);
}

/*
 * A ring the look could not have read: the reader learned it (its USERD
 * mapped) but published it only after the look began, or not at all (a
 * reader held up for the process's whole life).  What it put after its
 * last poll, or ever, is gone with the process, uncountable.  A publish
 * whose update was under way as the look began may have been in time;
 * with no record from the look it is counted all the same ("at most").
 */
static bool missed_by_look(const struct gw_ring *r)
{
	if (r->dead || r->f.exit_seen || !r->f.looked_ns || !r->userd_cpu)
		return false;
	if (r->f.published && r->f.slot == UINT32_MAX)
		return false;   /* could not be published: counted as unpublished */
	return !r->f.published || r->f.published_ns >= r->f.looked_ns;
}

void gw_exit_finish(struct ct_gpuwork *g, uint32_t pid)
{
	for (size_t i = 0; i < g->chans.nrings; i++) {
		struct gw_ring *r = &g->chans.rings[i];
		struct ct_gpu_exit x = { .h = { .ts_ns = r->f.exit_ns }, .put = r->snap_put };
		uint32_t missing;

		if (r->pid == pid && missed_by_look(r)) {
			x.h.ts_ns = r->f.looked_ns;
			g->st.exit_too_late++;
			exit_lost(g, r, &x, r->next, 0, CT_GS_LATE);
			continue;
		}
		if (r->pid != pid || !r->f.exit_seen || r->f.exit_no_put)
			continue;
		missing = r->f.exit_expect - r->f.exit_skip - r->f.exit_got;
		if (missing)   /* past CT_GX_ENTRIES_MAX, or records the ring buffer lost */
			exit_lost(g, r, &x, (r->f.exit_from + r->f.exit_skip + r->f.exit_got) %
					    r->entries, missing, 0);
		r->f.exit_expect = r->f.exit_skip + r->f.exit_got;
	}
}
