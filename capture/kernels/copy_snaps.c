// SPDX-License-Identifier: MIT
/* Copy engine uploads' sources as the reader thread saw them (copy_snaps.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "copy_snaps.h"
#include "fatbin_format.h"
#include "gpuwork.h"
#include "idmap.h"
#include "knamer.h"

struct snap {
	uint32_t pid;
	uint64_t src, dst, bytes;   /* the copy */
	uint32_t kept;         /* bytes of its source kept, from src */
	bool used;             /* a read was answered from it */
	uint8_t *data;         /* NULL: a free slot */
};

struct chan {
	uint32_t pid;
	struct gw_chan *dec;
	uint32_t copy_subch;   /* subchannels bound to a copy class (bit s) */
};

struct ct_copy_snaps {
	ct_snap_read_fn read;
	void *ctx;
	/* reader thread only */
	struct idmap chans;    /* client << 32 | channel -> struct chan */
	uint32_t seg_pid;      /* the segment being decoded */
	/* shared */
	pthread_mutex_t lock;
	struct snap snaps[CT_SNAPS_MAX];
	unsigned next;
	struct ct_copy_snaps_stats st;
};

struct ct_copy_snaps *ct_copy_snaps_new(ct_snap_read_fn read, void *ctx)
{
	struct ct_copy_snaps *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->read = read;
	s->ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
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
	idmap_drain(&s->chans, free_chan, NULL);
	for (unsigned i = 0; i < CT_SNAPS_MAX; i++)
		free(s->snaps[i].data);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* Keeps a copy's source (the slot's old one goes: counted if never read). */
static void keep(struct ct_copy_snaps *s, uint32_t pid, const struct gw_event *e,
		 uint8_t *data, uint32_t kept)
{
	struct snap *v;

	pthread_mutex_lock(&s->lock);
	v = &s->snaps[s->next];
	s->next = (s->next + 1) % CT_SNAPS_MAX;
	s->st.evicted += v->data && !v->used;
	free(v->data);
	*v = (struct snap){ pid, e->src, e->dst, e->bytes, kept, false, data };
	s->st.copies++;
	pthread_mutex_unlock(&s->lock);
}

/* A copy the namer may read as code (knamer.c's rule: whole instructions,
 * not over what it keeps): its source's first bytes, now. */
static void on_event(void *ctx, const struct gw_event *e)
{
	struct ct_copy_snaps *s = ctx;
	uint32_t n;
	uint8_t *data;

	if (e->kind != GW_COPY || e->fill || !e->bytes || e->bytes % CUBIN_INSN_BYTES ||
	    e->bytes > CT_KNAMER_UPLOAD_MAX)
		return;
	n = e->bytes < CT_SNAP_BYTES ? (uint32_t)e->bytes : CT_SNAP_BYTES;
	if (!(data = malloc(n)))
		return;
	if (!s->read(s->ctx, s->seg_pid, e->src, data, n)) {
		free(data);
		pthread_mutex_lock(&s->lock);
		s->st.unreadable++;
		pthread_mutex_unlock(&s->lock);
		return;
	}
	keep(s, s->seg_pid, e, data, n);
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

void ct_copy_snaps_seg(struct ct_copy_snaps *s, const struct ct_rec *r)
{
	const struct ct_gpu_seg *g = (const struct ct_gpu_seg *)r;
	struct chan *c;
	bool made;

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
	decode(s, c, (const uint32_t *)(g + 1), g->ndwords, g->flags & CT_GS_TRUNC);
}

struct exited {
	uint32_t pid;
	uint64_t *keys;
	size_t n;
};

static void note_exited(uint64_t key, void *val, void *ctx)
{
	struct exited *x = ctx;
	const struct chan *c = val;

	if (c->pid == x->pid)
		x->keys[x->n++] = key;
}

void ct_copy_snaps_exited(struct ct_copy_snaps *s, uint32_t pid)
{
	struct exited x = { pid, NULL, 0 };

	if (!s->chans.used || !(x.keys = malloc(s->chans.used * sizeof(*x.keys))))
		return;
	idmap_each(&s->chans, note_exited, &x);
	for (size_t i = 0; i < x.n; i++)
		free_chan(0, idmap_del(&s->chans, x.keys[i]), NULL);
	free(x.keys);
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
	v = find(s, pid, src, dst);
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
