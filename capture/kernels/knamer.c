// SPDX-License-Identifier: MIT
/*
 * Kernel names from code uploads (knamer.h).  Each channel of each process
 * has its own method decoder; its inline uploads are gathered dword by
 * dword, kept (bounded), and looked up when a launch names an address in
 * one.  A launch whose code came by copy engine is named from the copy's
 * source read back from the process, or, when that memory holds other
 * bytes by now, by the copy's size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fatbin_format.h"
#include "gpuwork.h"
#include "gpuwork_qmds.h"
#include "kname_record.h"
#include "knamer.h"
#include "msg.h"

#define REINDEX_NS  (100 * 1000 * 1000ull)   /* files looked at again after a miss, at most so often */
#define PENDING     64    /* launches whose upload was not seen yet, per process */
#define COPY_PAD    256   /* a copy carries a function and up to this much after it (an
			   * H200 copied a 992,000-byte function as 992,128 bytes) */

struct upload {
	uint64_t dst;
	uint32_t size;       /* bytes */
	uint8_t *bytes;      /* NULL: slot empty (or upload not kept) */
	bool by_copy;        /* a copy's source, read when the copy was seen */
};

struct copy {
	uint64_t src, dst, bytes;
};

/* What a launch's QMD says of its code: it cannot need more registers
 * than the launch gives, and its constant bank 0 ends where the
 * parameters the launch uploaded end (0: either not known). */
struct kwant {
	uint32_t regs;
	uint32_t params_end;
};

struct kproc;

struct kchan {
	struct ct_knamer *k;
	struct kproc *p;
	uint32_t client, channel;
	struct gw_chan *gw;
	struct upload cur;   /* the inline upload being received */
	uint64_t cur_at;     /* dwords of it received */
};

struct kproc {
	uint32_t pid;
	struct kchan **chans;
	size_t nchans;
	struct upload keep[CT_KNAMER_KEEP];
	unsigned next;       /* the oldest kept, the next slot to fill */
	uint64_t kept_bytes;
	struct copy copies[CT_KNAMER_COPIES];
	unsigned next_copy;
	struct ct_karches arches; /* of the code found by its bytes: a size-only match's too */
	struct idmap named;  /* program address -> 1 */
	struct idmap kept_at; /* an upload's destination -> its slot in keep + 1 */
	/* launched before its upload was read: a copy channel read after the
	 * compute channel in the same poll */
	uint64_t pending[PENDING];
	struct kwant pending_want[PENDING];   /* what each launch's QMD says of its code */
	bool fresh[PENDING];  /* since ct_knamer_stop_waiting: the capture holds its segments */
	unsigned npending;
	uint64_t indexed_ns; /* last look at its files, 0 never */
	bool files_read;     /* its files were read once at least */
	struct gw_qmds *qmds; /* its QMDs: a graph launch's kernels are launches too */
};

struct ct_knamer {
	unsigned waiting;    /* fresh pending launches, all processes */
	struct ct_knamer_io io;
	struct ct_kindex x;
	struct idmap procs;  /* pid -> struct kproc */
	struct ct_knamer_stats st;
	bool print_candidates;   /* CT_KN_CANDIDATES set */
};

struct ct_knamer *ct_knamer_new(const struct ct_knamer_io *io)
{
	struct ct_knamer *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->io = *io;
	ct_kindex_init(&k->x);
	k->print_candidates = getenv("CT_KN_CANDIDATES") != NULL;
	return k;
}

static void proc_free(uint64_t key, void *val, void *ctx)
{
	struct kproc *p = val;
	size_t i;

	(void)key;
	(void)ctx;
	for (i = 0; i < p->nchans; i++) {
		gw_chan_free(p->chans[i]->gw);
		free(p->chans[i]->cur.bytes);
		free(p->chans[i]);
	}
	for (i = 0; i < CT_KNAMER_KEEP; i++)
		free(p->keep[i].bytes);
	free(p->chans);
	idmap_free(&p->named);
	idmap_free(&p->kept_at);
	gw_qmds_free(p->qmds);
	free(p);
}

void ct_knamer_free(struct ct_knamer *k)
{
	if (!k)
		return;
	idmap_drain(&k->procs, proc_free, NULL);
	ct_kindex_free(&k->x);
	free(k);
}

void ct_knamer_forget(struct ct_knamer *k, uint32_t pid)
{
	struct kproc *p = idmap_del(&k->procs, pid);

	if (p) {
		k->st.not_seen += p->npending;
		for (unsigned i = 0; i < p->npending; i++)
			k->waiting -= p->fresh[i];
		proc_free(pid, p, NULL);
	}
}

unsigned ct_knamer_waiting(const struct ct_knamer *k)
{
	return k->waiting;
}

static void not_fresh(uint64_t key, void *val, void *ctx)
{
	struct kproc *p = val;

	(void)key;
	(void)ctx;
	memset(p->fresh, 0, sizeof(p->fresh));
}

void ct_knamer_stop_waiting(struct ct_knamer *k)
{
	if (k->waiting)
		idmap_each(&k->procs, not_fresh, NULL);
	k->waiting = 0;
}

const struct ct_knamer_stats *ct_knamer_stats(const struct ct_knamer *k)
{
	return &k->st;
}

const struct ct_kindex *ct_knamer_index(const struct ct_knamer *k)
{
	return &k->x;
}

/* --- the record ------------------------------------------------------------ */

static void send_name(struct ct_knamer *k, uint32_t pid, uint64_t program, uint32_t how,
		      const struct ct_kfound *r, const char *name, uint32_t size)
{
	struct ct_kernel_name *rec = ct_kname_record(&k->x, pid, program, how, r, name, size);

	if (!rec)
		return;
	k->st.named[how]++;
	if (r->how == CT_KM_AMBIGUOUS)
		k->st.ambiguous++;
	k->io.emit(k->io.ctx, &rec->h);
	free(rec);
}

/* --- finding the function ------------------------------------------------- */

static void index_files(struct ct_knamer *k, struct kproc *p, bool force)
{
	uint64_t now = ct_now_ns(CLOCK_MONOTONIC);

	if (!force && p->indexed_ns && now - p->indexed_ns < REINDEX_NS)
		return;
	p->indexed_ns = now;
	k->st.index_runs++;
	if (k->io.index_files(k->io.ctx, p->pid, &k->x))
		p->files_read = true;
	k->st.index_ns += ct_now_ns(CLOCK_MONOTONIC) - now;
}

static void print_candidates(const struct ct_knamer *k, uint32_t pid, const struct ct_kfound *r,
			     const struct kwant *w)
{
	fprintf(stderr, "kernel names: pid %u: %u names match (launch: %u registers, parameters "
		"end at %u):\n", pid, r->candidates, w->regs, w->params_end);
	for (uint32_t i = 0; i < r->ncand; i++) {
		const struct ct_kfunc *f = r->cand[i];

		fprintf(stderr, "  %s (%s, sm_%u, %u bytes, %u registers, bank 0 %u bytes)\n",
			ct_kindex_name(&k->x, f), ct_kindex_path(&k->x, f), f->arch, f->size, f->regs,
			f->cbank0);
	}
}

/* Functions of several names have this code: those whose parameters end
 * where the launch's do (one: its name).  CT_KN_CANDIDATES=1 in the
 * environment prints each lookup left ambiguous (docs/KERNELS.md). */
static struct ct_kfound narrowed(struct ct_knamer *k, const struct kproc *p, struct ct_kfound r,
				 const struct kwant *w)
{
	if (r.how != CT_KM_AMBIGUOUS)
		return r;
	if (ct_kindex_narrow_params(&r, w->params_end)) {
		k->st.by_params += r.how == CT_KM_ONE;
		k->st.fewer_by_params += r.how == CT_KM_AMBIGUOUS;
		if (r.how == CT_KM_ONE)
			return r;
	}
	if (k->print_candidates)
		print_candidates(k, p->pid, &r, w);
	return r;
}

/* Looks the code up; on a miss, once the files the process maps now are
 * in the index, again. */
static struct ct_kfound lookup(struct ct_knamer *k, struct kproc *p, const uint8_t *code,
			       size_t avail, const struct kwant *w)
{
	struct ct_kfound r;

	index_files(k, p, !p->indexed_ns);
	r = ct_kindex_lookup_for(&k->x, code, avail, w->regs);
	if (r.how == CT_KM_NONE) {
		index_files(k, p, false);
		r = ct_kindex_lookup_for(&k->x, code, avail, w->regs);
	}
	k->st.refused_regs += r.how == CT_KM_NONE && (r.too_few_regs || r.too_many_regs);
	if (r.f)
		ct_karches_add(&p->arches, r.f->arch);
	return narrowed(k, p, r, w);
}

static const struct upload *find_upload(const struct kproc *p, uint64_t addr)
{
	unsigned i;

	for (i = 0; i < CT_KNAMER_KEEP; i++) {   /* newest first */
		const struct upload *u = &p->keep[(p->next + CT_KNAMER_KEEP - 1 - i) % CT_KNAMER_KEEP];

		if (u->bytes && addr >= u->dst && addr - u->dst < u->size)
			return u;
	}
	return NULL;
}

static const struct copy *find_copy(const struct kproc *p, uint64_t addr)
{
	unsigned i;

	for (i = 0; i < CT_KNAMER_COPIES; i++) {
		const struct copy *c = &p->copies[(p->next_copy + CT_KNAMER_COPIES - 1 - i) %
						  CT_KNAMER_COPIES];

		if (c->bytes && addr >= c->dst && addr - c->dst < c->bytes)
			return c;
	}
	return NULL;
}

static void name_inline(struct ct_knamer *k, struct kproc *p, uint64_t prog, const struct kwant *w,
			const struct upload *u)
{
	uint64_t off = prog - u->dst;
	struct ct_kfound r = lookup(k, p, u->bytes + off, u->size - off, w);
	char jit[32];

	if (r.how != CT_KM_NONE) {
		send_name(k, p->pid, prog, off ? CT_KN_MODULE : CT_KN_INLINE, &r,
			  ct_kindex_name(&k->x, r.f), 0);
		return;
	}
	if (!p->files_read) {   /* in no file read, but its files were not read */
		k->st.no_files++;
		return;
	}
	if (r.capped) {   /* not every candidate was checked: it may be in a file */
		k->st.capped++;
		return;
	}
	if (r.too_few_regs || r.too_many_regs)   /* a file's code, not what this launch runs */
		return;
	/* In no file: the rest of the upload is its code (lazy loading
	 * uploads one function at its address). */
	snprintf(jit, sizeof(jit), "jit:%016" PRIx64, r.hash);
	send_name(k, p->pid, prog, CT_KN_JIT, &r, jit, (uint32_t)(u->size - off));
}

/* The one function a copy of `bytes` is, by its size alone (a copy of a
 * single function and up to COPY_PAD after it), of an architecture the
 * process's other code was found to be (a library carries each function
 * for several: H200, PyTorch, 68 names of sm_80, sm_90 and sm_100 fitted
 * one copy's size before). */
static struct ct_kfound copy_by_size(struct ct_knamer *k, struct kproc *p, uint64_t bytes,
				     const struct kwant *w)
{
	index_files(k, p, !p->indexed_ns);
	return narrowed(k, p, ct_kindex_by_size(&k->x, bytes > COPY_PAD ? bytes - COPY_PAD : 0, bytes,
						  w->regs, &p->arches), w);
}

/*
 * The staging buffer is read back when the namer gets to the copy: by then
 * the driver may have reused it for another upload, whose code is a
 * function too.  A read-back that finds a function much shorter than a
 * copy that one function fits by size alone is that stale case (H200,
 * eager loading: the 992,000-byte kernel's copy read back as a small one):
 * the size wins.
 */
static bool stale_read(struct ct_knamer *k, struct kproc *p, const struct copy *c, uint64_t off,
		       const struct kwant *w, const struct ct_kfound *r, struct ct_kfound *by_size)
{
	if (off || r->how == CT_KM_NONE || !r->f || (uint64_t)r->f->size + COPY_PAD >= c->bytes)
		return false;
	*by_size = copy_by_size(k, p, c->bytes, w);
	return by_size->how == CT_KM_ONE;
}

static void name_copied(struct ct_knamer *k, struct kproc *p, uint64_t prog, const struct kwant *w,
			const struct copy *c)
{
	uint64_t off = prog - c->dst, n = c->bytes - off;
	struct ct_kfound r = { 0 }, sized = { 0 };
	uint8_t *buf;

	if (n > CT_KNAMER_READ_MAX)
		n = CT_KNAMER_READ_MAX;
	buf = malloc(n);
	if (buf && k->io.read_copy(k->io.ctx, p->pid, c->src, c->dst, off, buf, n))
		r = lookup(k, p, buf, n, w);
	free(buf);
	if (stale_read(k, p, c, off, w, &r, &sized)) {
		k->st.stale_reads++;
		r = sized;
		send_name(k, p->pid, prog, CT_KN_COPY_SIZE, &r, ct_kindex_name(&k->x, r.f), 0);
		return;
	}
	if (r.how != CT_KM_NONE) {
		send_name(k, p->pid, prog, CT_KN_COPY_READ, &r, ct_kindex_name(&k->x, r.f), 0);
		return;
	}
	if (!off) {   /* the staging buffer holds other bytes by now: by size */
		r = copy_by_size(k, p, c->bytes, w);
		if (r.how != CT_KM_NONE) {
			send_name(k, p->pid, prog, CT_KN_COPY_SIZE, &r, ct_kindex_name(&k->x, r.f), 0);
			return;
		}
	}
	k->st.copy_unmatched++;
}

/* A copy whose source was read when it was seen: named from those bytes,
 * else as a copy read back now. */
static void name_snapshot(struct ct_knamer *k, struct kproc *p, uint64_t prog, const struct kwant *w,
			  const struct upload *u)
{
	uint64_t off = prog - u->dst;
	struct ct_kfound r = lookup(k, p, u->bytes + off, u->size - off, w);
	const struct copy *c;

	if (r.how != CT_KM_NONE)
		send_name(k, p->pid, prog, CT_KN_COPY_READ, &r, ct_kindex_name(&k->x, r.f), 0);
	else if ((c = find_copy(p, prog)))
		name_copied(k, p, prog, w, c);
	else
		k->st.copy_unmatched++;
}

/* Names prog from what was uploaded; false if nothing seen covers it. */
static bool name_program(struct ct_knamer *k, struct kproc *p, uint64_t prog,
			 const struct kwant *w)
{
	const struct upload *u;
	const struct copy *c;

	if ((u = find_upload(p, prog)) && u->by_copy)
		name_snapshot(k, p, prog, w, u);
	else if (u)
		name_inline(k, p, prog, w, u);
	else if ((c = find_copy(p, prog)))
		name_copied(k, p, prog, w, c);
	else
		return false;
	return true;
}

static uint32_t launch_params_end(const struct gw_event *e)
{
	return e->params && !e->params_cut ? e->params_at + e->params_ndw * 4 : 0;
}

static void launched(struct ct_knamer *k, struct kproc *p, uint64_t prog,
		     const struct kwant *w)
{
	if (idmap_get(&p->named, prog))
		return;
	idmap_put(&p->named, prog, (void *)1);
	k->st.programs++;
	if (name_program(k, p, prog, w))
		return;
	if (p->npending < PENDING) {
		p->fresh[p->npending] = true;
		p->pending_want[p->npending] = *w;
		p->pending[p->npending++] = prog;
		k->waiting++;
	} else {
		k->st.not_seen++;
	}
}

/* An upload to [dst, dst + size) was seen: the launches waiting for it. */
static void uploaded(struct ct_knamer *k, struct kproc *p, uint64_t dst, uint64_t size)
{
	unsigned i = 0;

	while (i < p->npending) {
		uint64_t prog = p->pending[i];

		if (prog >= dst && prog - dst < size && name_program(k, p, prog, &p->pending_want[i])) {
			k->waiting -= p->fresh[i];
			p->npending--;
			p->pending[i] = p->pending[p->npending];
			p->pending_want[i] = p->pending_want[p->npending];
			p->fresh[i] = p->fresh[p->npending];
		} else {
			i++;
		}
	}
}

/* --- what the channel's decoder says --------------------------------------- */

/* The kept upload to dst, NULL none. */
static struct upload *kept_at(struct kproc *p, uint64_t dst)
{
	size_t slot = (size_t)(uintptr_t)idmap_get(&p->kept_at, dst);
	struct upload *u = slot ? &p->keep[slot - 1] : NULL;

	return u && u->bytes && u->dst == dst ? u : NULL;
}

/* The oldest kept uploads go until u fits at p->next. */
static void make_room(struct kproc *p, const struct upload *u)
{
	for (unsigned i = 0; i < CT_KNAMER_KEEP && (p->keep[p->next].bytes ||
						    p->kept_bytes + u->size > CT_KNAMER_KEEP_BYTES); i++) {
		struct upload *old = &p->keep[p->next];

		if (old->bytes) {
			if (kept_at(p, old->dst) == old)
				idmap_del(&p->kept_at, old->dst);
			p->kept_bytes -= old->size;
			free(old->bytes);
			old->bytes = NULL;
		}
		if (p->kept_bytes + u->size <= CT_KNAMER_KEEP_BYTES)
			break;
		p->next = (p->next + 1) % CT_KNAMER_KEEP;
	}
}

/*
 * Keeps u.  An inline upload to where one was kept inline takes its slot:
 * CUDA writes each launch's QMD, constant bank and parameters to the same
 * few places over and over, and those must not push out code uploaded
 * once, long before its first launch (libcuda's own kernels, at context
 * creation: the K=300 program's memcpy128 went unnamed after 3,406
 * uploads).
 */
static void keep_upload(struct ct_knamer *k, struct kproc *p, struct upload *u)
{
	struct upload *same = kept_at(p, u->dst);

	if (same && (same->by_copy || u->by_copy))
		same = NULL;   /* code copies keep their own slots, as before (an H200 run of
				* PyTorch named 93 copied launches only by size when they did not) */
	if (same && p->kept_bytes - same->size + u->size <= CT_KNAMER_KEEP_BYTES) {
		p->kept_bytes -= same->size;
		free(same->bytes);
		*same = *u;
	} else {
		if (same) {   /* larger than the room: the slot goes, u goes last */
			idmap_del(&p->kept_at, same->dst);
			p->kept_bytes -= same->size;
			free(same->bytes);
			same->bytes = NULL;
		}
		make_room(p, u);
		p->keep[p->next] = *u;
		idmap_put(&p->kept_at, u->dst, (void *)(uintptr_t)(p->next + 1));
		p->next = (p->next + 1) % CT_KNAMER_KEEP;
	}
	p->kept_bytes += u->size;
	idmap_del(&p->named, u->dst);   /* new code there: named again at its next launch */
	k->st.uploads += !u->by_copy;
	uploaded(k, p, u->dst, u->size);
	memset(u, 0, sizeof(*u));
}

/*
 * A copy engine upload's source is a staging buffer the driver reuses for
 * the next upload as soon as this one is done (H200, eager loading: a
 * module copied in 1 MiB chunks through one buffer; read back at the
 * launch, it held another module's code).  So a copy that looks like code
 * is read when it is seen: one that starts with a function's first bytes,
 * or that goes on where the last one read ended (the next chunk of a
 * module, joined to it so a function across chunks is whole).  Other
 * copies (data) cost one read of CT_KINDEX_KEY bytes.
 */
static struct upload *joins_last(struct kproc *p, uint64_t dst, uint64_t bytes)
{
	struct upload *u = &p->keep[(p->next + CT_KNAMER_KEEP - 1) % CT_KNAMER_KEEP];
	uint8_t *v;

	if (!u->bytes || !u->by_copy || u->dst + u->size != dst ||
	    u->size + bytes > CT_KNAMER_UPLOAD_MAX || p->kept_bytes + bytes > CT_KNAMER_KEEP_BYTES ||
	    !(v = realloc(u->bytes, u->size + bytes)))
		return NULL;
	u->bytes = v;
	return u;
}

static void read_code_copy(struct ct_knamer *k, struct kproc *p, uint64_t src, uint64_t dst,
			   uint64_t bytes)
{
	uint8_t head[CT_KINDEX_KEY];
	struct upload u = { .dst = dst, .size = (uint32_t)bytes, .by_copy = true }, *last;

	if (bytes % CUBIN_INSN_BYTES || bytes > CT_KNAMER_UPLOAD_MAX)
		return;
	if ((last = joins_last(p, dst, bytes))) {
		if (!k->io.read_copy(k->io.ctx, p->pid, src, dst, 0, last->bytes + last->size, bytes))
			return;   /* (the room stays unused: the size is not moved on) */
		last->size += (uint32_t)bytes;
		p->kept_bytes += bytes;
		k->st.copies_read++;
		idmap_del(&p->named, dst);
		return;
	}
	if (bytes < sizeof(head) || !k->io.read_copy(k->io.ctx, p->pid, src, dst, 0, head, sizeof(head)))
		return;
	index_files(k, p, !p->indexed_ns);
	if (!ct_kindex_starts_function(&k->x, head, sizeof(head)) || !(u.bytes = malloc(bytes)))
		return;
	if (!k->io.read_copy(k->io.ctx, p->pid, src, dst, 0, u.bytes, bytes)) {
		free(u.bytes);
		return;
	}
	k->st.copies_read++;
	keep_upload(k, p, &u);
}

static void on_inline(void *ctx, uint64_t dst, uint64_t ndwords, uint64_t at, uint32_t dword)
{
	struct kchan *ch = ctx;
	struct upload *u = &ch->cur;

	if (at == 0) {
		if (u->bytes && ch->cur_at) {   /* the last one never got all its dwords */
			ch->k->st.uploads_cut++;
			u->size = (uint32_t)ch->cur_at * 4;   /* what came is its start */
			keep_upload(ch->k, ch->p, u);
		}
		free(u->bytes);
		memset(u, 0, sizeof(*u));
		ch->cur_at = 0;
		if (ndwords * 4 > CT_KNAMER_UPLOAD_MAX) {
			ch->k->st.uploads_too_big++;
			return;
		}
		u->bytes = malloc(ndwords * 4);
		u->dst = dst;
		u->size = (uint32_t)(ndwords * 4);
	}
	if (!u->bytes || at != ch->cur_at || at >= u->size / 4)
		return;   /* a dword missed: this upload is no use */
	memcpy(u->bytes + at * 4, &dword, 4);
	ch->cur_at++;
	if (ch->cur_at == ndwords)
		keep_upload(ch->k, ch->p, u);
}

static void on_event(void *ctx, const struct gw_event *e)
{
	struct kchan *ch = ctx;
	struct kproc *p = ch->p;

	if (e->kind == GW_LAUNCH && e->have_qmd && e->program) {
		struct kwant w = { e->regs, launch_params_end(e) };

		launched(ch->k, p, e->program, &w);
	} else if (e->kind == GW_COPY && !e->fill && e->bytes) {
		struct copy *c = &p->copies[p->next_copy];

		read_code_copy(ch->k, p, e->src, e->dst, e->bytes);

		c->src = e->src;
		c->dst = e->dst;
		c->bytes = e->bytes;
		p->next_copy = (p->next_copy + 1) % CT_KNAMER_COPIES;
		idmap_del(&p->named, e->dst);
		uploaded(ch->k, p, e->dst, e->bytes);
	}
}

static struct kchan *chan_of(struct ct_knamer *k, const struct ct_gpu_seg *s)
{
	struct kproc *p = idmap_get(&k->procs, s->h.pid);
	struct kchan *ch, **v;
	size_t i;

	if (!p) {
		if (!(p = calloc(1, sizeof(*p))))
			return NULL;
		p->pid = s->h.pid;
		p->qmds = gw_qmds_new();   /* NULL: graph kernels unnamed, nothing worse */
		idmap_put(&k->procs, p->pid, p);
	}
	for (i = 0; i < p->nchans; i++)
		if (p->chans[i]->client == s->client && p->chans[i]->channel == s->channel)
			return p->chans[i];
	v = realloc(p->chans, (p->nchans + 1) * sizeof(*v));
	ch = calloc(1, sizeof(*ch));
	if (v)
		p->chans = v;
	if (!v || !ch || !(ch->gw = gw_chan_new(s->chan_class))) {
		free(ch);
		return NULL;
	}
	ch->k = k;
	ch->p = p;
	ch->client = s->client;
	ch->channel = s->channel;
	gw_chan_on_inline(ch->gw, on_inline, ch);
	gw_chan_set_qmds(ch->gw, p->qmds);
	p->chans[p->nchans++] = ch;
	return ch;
}

void ct_knamer_seg(struct ct_knamer *k, const struct ct_gpu_seg *s)
{
	struct kchan *ch;

	if (!s->ndwords || (s->flags & (CT_GS_FAULT | CT_GS_LOST)) || !(ch = chan_of(k, s)))
		return;
	gw_decode(ch->gw, (const uint32_t *)(s + 1), s->ndwords, s->flags & CT_GS_TRUNC,
		  on_event, ch);
}

static void add_pending(uint64_t key, void *val, void *ctx)
{
	(void)key;
	*(uint64_t *)ctx += ((const struct kproc *)val)->npending;
}

void ct_knamer_report(const struct ct_knamer *k)
{
	const struct ct_knamer_stats *st = &k->st;
	uint64_t named = 0, pending = 0;
	int i;

	idmap_each(&k->procs, add_pending, &pending);
	for (i = 0; i < CT_KN_HOWS; i++)
		named += st->named[i];
	ct_err(
		"kernel names: %" PRIu64 " of %" PRIu64 " program addresses named "
		"(%" PRIu64 " from files, %" PRIu64 " jit, %" PRIu64 " ambiguous; %" PRIu64
		" told from same-code functions by their parameters, %" PRIu64
		" left fewer names by them); %" PRIu64 " uploads not seen, %" PRIu64 " copies unmatched, %" PRIu64
		" whose files could not be read, %" PRIu64 " with too many candidates; %" PRIu64
		" inline uploads cut (their start kept); %" PRIu64 " code copies read when seen, %" PRIu64
		" read back stale (named by size); %" PRIu64 " matches refused (the code needs more "
		"registers than the launch gives, or far fewer); index: %zu functions of %zu files, %zu KiB, %.2f s\n",
		named, st->programs, named - st->named[CT_KN_JIT], st->named[CT_KN_JIT], st->ambiguous,
		st->by_params, st->fewer_by_params,
		st->not_seen + pending, st->copy_unmatched, st->no_files, st->capped, st->uploads_cut,
		st->copies_read, st->stale_reads, st->refused_regs,
		k->x.nf, k->x.nfiles, ct_kindex_bytes(&k->x) / 1024,
		st->index_ns / 1e9);
}
