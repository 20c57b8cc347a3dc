// SPDX-License-Identifier: MIT
/*
 * Copy engine uploads' sources as they were just after the reader thread
 * saw the copies (copy_snaps.h).  The reader only decodes and queues; the
 * reads (64 KiB of pinned memory that can be slow to read: write-combined)
 * are this file's own thread's, so that they never delay a poll.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "copy_snaps.h"
#include "fatbin_format.h"
#include "gpuwork.h"
#include "idmap.h"
#include "knamer.h"

/* A copy to keep the source of.  since_ns: the last look at its ring
 * that did not show it yet (0: not known), so it was put after. */
struct want {
	uint32_t pid;
	uint64_t src, dst, bytes, since_ns;
};

struct snap {
	uint32_t pid;
	uint64_t src, dst, bytes;   /* the copy */
	uint32_t kept;         /* bytes of its source kept, from src */
	uint64_t taken_ns;     /* when its read ended */
	bool used;             /* a read was answered from it */
	/* [over_from, over_to) from src: where a later copy from the same
	 * bytes may have been put before the read (what was read there, kept
	 * or live, may be that one's) */
	uint64_t over_from, over_to;
	uint8_t *data;         /* NULL: a free slot */
};

struct chan {
	uint32_t pid;
	struct gw_chan *dec;
	uint32_t copy_subch;   /* subchannels bound to a copy class (bit s) */
	uint64_t since_ns;     /* its GPU_PUT's: the segments that follow were put after */
};

struct ct_copy_snaps {
	ct_snap_read_fn read;
	void *ctx;
	/* under seg_lock: the GPU-work reader's threads (one per process at once) */
	pthread_mutex_t seg_lock;
	struct idmap chans;    /* client << 32 | channel -> struct chan */
	uint32_t seg_pid;      /* the segment being decoded */
	uint64_t seg_since_ns;
	/* shared, under lock */
	pthread_mutex_t lock;
	pthread_cond_t wake;   /* a copy queued, or stop */
	pthread_cond_t done;   /* the queue went down */
	struct want queue[CT_SNAPS_MAX];
	unsigned qhead, qlen;
	bool reading;          /* the thread is reading one it took off the queue */
	bool stop;
	struct snap snaps[CT_SNAPS_MAX];
	unsigned next;
	struct ct_copy_snaps_stats st;
	pthread_t thread;
	bool started;
};

static void *snap_thread(void *arg);

struct ct_copy_snaps *ct_copy_snaps_new(ct_snap_read_fn read, void *ctx)
{
	struct ct_copy_snaps *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->read = read;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->seg_lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->done, NULL);
	if (pthread_create(&s->thread, NULL, snap_thread, s)) {
		ct_copy_snaps_free(s);
		return NULL;
	}
	s->started = true;
	return s;
}

static void free_chan(uint64_t key, void *val, void *ctx)
{
	struct chan *c = val;

	(void)key;
	(void)ctx;
	gw_chan_free(c->dec);
	free(c);
}

void ct_copy_snaps_free(struct ct_copy_snaps *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stop = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	idmap_drain(&s->chans, free_chan, NULL);
	for (unsigned i = 0; i < CT_SNAPS_MAX; i++)
		free(s->snaps[i].data);
	pthread_cond_destroy(&s->done);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->seg_lock);
	free(s);
}

/* Copy w, seen after v, may have been put before v's source was read: the
 * driver fills a staging buffer before it puts the copy, so where their
 * sources overlap v's bytes may be w's (lock held). */
static void overtake(struct ct_copy_snaps *s, struct snap *v, const struct want *w)
{
	uint64_t from, to;

	if (!v->data || v->pid != w->pid || !w->since_ns || w->since_ns > v->taken_ns ||
	    w->src >= v->src + v->bytes || v->src >= w->src + w->bytes)
		return;
	from = w->src > v->src ? w->src - v->src : 0;
	to = (w->src + w->bytes < v->src + v->bytes ? w->src + w->bytes : v->src + v->bytes) - v->src;
	s->st.overtaken += v->over_to == v->over_from;
	if (v->over_to == v->over_from || from < v->over_from)
		v->over_from = from;
	v->over_to = to > v->over_to ? to : v->over_to;
}

/* Whether [off, off + n) of v's source may be a later copy's. */
static bool overtaken(const struct snap *v, uint64_t off, size_t n)
{
	return v->over_to > v->over_from && off < v->over_to && off + n > v->over_from;
}

/* Keeps w's source, read at taken_ns (the slot's old one goes: counted
 * if never read); copies still queued behind it may overtake it. */
static void keep(struct ct_copy_snaps *s, const struct want *w, uint8_t *data, uint32_t kept,
		 uint64_t taken_ns)
{
	struct snap *v;

	pthread_mutex_lock(&s->lock);
	v = &s->snaps[s->next];
	s->next = (s->next + 1) % CT_SNAPS_MAX;
	s->st.evicted += v->data && !v->used;
	free(v->data);
	*v = (struct snap){ w->pid, w->src, w->dst, w->bytes, kept, taken_ns, false, 0, 0, data };
	s->st.copies++;
	for (unsigned i = 0; i < s->qlen; i++)
		overtake(s, v, &s->queue[(s->qhead + i) % CT_SNAPS_MAX]);
	pthread_mutex_unlock(&s->lock);
}

/* Reads and keeps w's source's first bytes. */
static void take(struct ct_copy_snaps *s, const struct want *w)
{
	uint32_t n = w->bytes < CT_SNAP_BYTES ? (uint32_t)w->bytes : CT_SNAP_BYTES;
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC), t1;
	uint8_t *data = malloc(n);
	bool ok = data && s->read(s->ctx, w->pid, w->src, data, n);

	t1 = ct_now_ns(CLOCK_MONOTONIC);
	pthread_mutex_lock(&s->lock);
	s->st.read_ns += t1 - t0;
	s->st.read_max_ns = t1 - t0 > s->st.read_max_ns ? t1 - t0 : s->st.read_max_ns;
	s->st.read_bytes += ok ? n : 0;
	s->st.unreadable += data && !ok;
	pthread_mutex_unlock(&s->lock);
	if (ok)
		keep(s, w, data, n, t1);
	else
		free(data);
}

static void *snap_thread(void *arg)
{
	struct ct_copy_snaps *s = arg;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct want w;

		while (!s->qlen && !s->stop)
			pthread_cond_wait(&s->wake, &s->lock);
		if (s->stop)
			break;
		w = s->queue[s->qhead];
		s->qhead = (s->qhead + 1) % CT_SNAPS_MAX;
		s->qlen--;
		s->reading = true;
		pthread_mutex_unlock(&s->lock);
		take(s, &w);
		pthread_mutex_lock(&s->lock);
		s->reading = false;
		pthread_cond_broadcast(&s->done);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* A copy the namer may read as code (knamer.c's rule: whole instructions,
 * not over what it keeps): queued for the thread to read at once; the
 * sources kept that it may already have overwritten are marked. */
static void on_event(void *ctx, const struct gw_event *e)
{
	struct ct_copy_snaps *s = ctx;
	struct want w = { s->seg_pid, e->src, e->dst, e->bytes, s->seg_since_ns };

	if (e->kind != GW_COPY || e->fill || !e->bytes || e->bytes % CUBIN_INSN_BYTES ||
	    e->bytes > CT_KNAMER_UPLOAD_MAX)
		return;
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < CT_SNAPS_MAX; i++)
		overtake(s, &s->snaps[i], &w);
	if (s->qlen == CT_SNAPS_MAX) {
		s->st.dropped++;
	} else {
		s->queue[(s->qhead + s->qlen++) % CT_SNAPS_MAX] = w;
		pthread_cond_signal(&s->wake);
	}
	pthread_mutex_unlock(&s->lock);
}

void ct_copy_snaps_drain(struct ct_copy_snaps *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->qlen || s->reading)
		pthread_cond_wait(&s->done, &s->lock);
	pthread_mutex_unlock(&s->lock);
}

/* Only the segments that bind a class or reach a copy subchannel are
 * decoded (a launch's segment, a QMD inline, is not: the reader thread
 * must stay quick). */
static void decode(struct ct_copy_snaps *s, struct chan *c, const uint32_t *dw, uint32_t n,
		   bool cut)
{
	bool binds;
	uint32_t mask = gw_seg_subchannels(c->dec, dw, n, &binds);

	if (!binds && !(mask & c->copy_subch))
		return;
	gw_decode(c->dec, dw, n, cut, on_event, s);
	if (!binds)
		return;
	c->copy_subch = 0;
	for (uint32_t i = 0; i < 8; i++)
		if (gw_engine_of(gw_chan_subch_class(c->dec, i)) == GW_ENG_COPY)
			c->copy_subch |= 1u << i;
}

/* A channel's GPPut moved: its next segments were put after since_ns. */
static void put_seen(struct ct_copy_snaps *s, const struct ct_gpu_put *p)
{
	struct chan *c = idmap_get(&s->chans, (uint64_t)p->client << 32 | p->channel);

	if (c)
		c->since_ns = p->since_ns;
}

static void seg_locked(struct ct_copy_snaps *s, const struct ct_rec *r)
{
	const struct ct_gpu_seg *g = (const struct ct_gpu_seg *)r;
	struct chan *c;
	bool made;

	if (r->type == CT_REC_GPU_PUT && r->size >= sizeof(struct ct_gpu_put))
		put_seen(s, (const struct ct_gpu_put *)r);
	if (r->type != CT_REC_GPU_SEG || (g->flags & (CT_GS_LOST | CT_GS_FAULT)) || !g->ndwords)
		return;
	c = idmap_get_or_new(&s->chans, (uint64_t)g->client << 32 | g->channel, sizeof(*c), &made);
	if (!c)
		return;
	if (made) {
		c->pid = g->h.pid;
		c->dec = gw_chan_new(g->chan_class);
	}
	if (!c->dec)
		return;
	s->seg_pid = g->h.pid;
	s->seg_since_ns = c->since_ns;
	decode(s, c, (const uint32_t *)(g + 1), g->ndwords, g->flags & CT_GS_TRUNC);
}

void ct_copy_snaps_seg(struct ct_copy_snaps *s, const struct ct_rec *r)
{
	pthread_mutex_lock(&s->seg_lock);
	seg_locked(s, r);
	pthread_mutex_unlock(&s->seg_lock);
}

static bool of_pid(uint64_t key, const void *val, void *pid)
{
	const struct chan *c = val;

	(void)key;
	return c->pid == *(const uint32_t *)pid;
}

void ct_copy_snaps_exited(struct ct_copy_snaps *s, uint32_t pid)
{
	pthread_mutex_lock(&s->seg_lock);
	idmap_del_if(&s->chans, of_pid, free_chan, &pid);
	pthread_mutex_unlock(&s->seg_lock);
}

/* Whether a copy of pid src -> dst is queued or being read (lock held). */
static bool pending(const struct ct_copy_snaps *s, uint32_t pid, uint64_t src, uint64_t dst)
{
	if (s->reading)
		return true;   /* it may be the one */
	for (unsigned i = 0; i < s->qlen; i++) {
		const struct want *w = &s->queue[(s->qhead + i) % CT_SNAPS_MAX];

		if (w->pid == pid && w->src == src && w->dst == dst)
			return true;
	}
	return false;
}

/* The newest kept copy src -> dst of pid (lock held). */
static struct snap *find(struct ct_copy_snaps *s, uint32_t pid, uint64_t src, uint64_t dst)
{
	for (unsigned i = 1; i <= CT_SNAPS_MAX; i++) {
		struct snap *v = &s->snaps[(s->next + CT_SNAPS_MAX - i) % CT_SNAPS_MAX];

		if (v->data && v->pid == pid && v->src == src && v->dst == dst)
			return v;
	}
	return NULL;
}

bool ct_copy_snaps_read(struct ct_copy_snaps *s, uint32_t pid, uint64_t src, uint64_t dst,
			uint64_t off, void *buf, size_t n)
{
	struct snap *v;
	uint64_t have;
	bool ok;

	if (off > UINT64_MAX - src)
		return false;
	pthread_mutex_lock(&s->lock);
	while (pending(s, pid, src, dst))   /* the thread is at most one queue behind */
		pthread_cond_wait(&s->done, &s->lock);
	v = find(s, pid, src, dst);
	if (v && overtaken(v, off, n)) {   /* neither it nor the live bytes are this copy's */
		v->used = true;
		s->st.refused_overtaken++;
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	if (v && off <= v->kept && n <= v->kept - off) {   /* all of it kept */
		memcpy(buf, v->data + off, n);
		v->used = true;
		s->st.served++;
		pthread_mutex_unlock(&s->lock);
		return true;
	}
	pthread_mutex_unlock(&s->lock);
	if (!s->read(s->ctx, pid, src + off, buf, n))
		return false;
	/* Past what was kept: the live bytes must still be what the reader saw
	 * where the two overlap, or the buffer was reused since. */
	pthread_mutex_lock(&s->lock);
	v = find(s, pid, src, dst);   /* (the reader may have moved on meanwhile) */
	have = v && off < v->kept ? v->kept - off : 0;
	have = have < n ? have : n;
	ok = !have || !memcmp(buf, v->data + off, have);
	if (have)
		v->used = true;
	s->st.checked += have && ok;
	s->st.stale += !ok;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

void ct_copy_snaps_forget(struct ct_copy_snaps *s, uint32_t pid)
{
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < CT_SNAPS_MAX; i++)
		if (s->snaps[i].data && s->snaps[i].pid == pid) {
			free(s->snaps[i].data);
			s->snaps[i] = (struct snap){ 0 };
		}
	pthread_mutex_unlock(&s->lock);
}

struct ct_copy_snaps_stats ct_copy_snaps_stats(struct ct_copy_snaps *s)
{
	struct ct_copy_snaps_stats st;

	pthread_mutex_lock(&s->lock);
	st = s->st;
	pthread_mutex_unlock(&s->lock);
	return st;
}
