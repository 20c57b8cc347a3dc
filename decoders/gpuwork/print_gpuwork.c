// SPDX-License-Identifier: MIT
/*
 * --gpu-work records (CT_REC_GPU_SEG) -> lines and views.  Each channel
 * keeps its decoder state (gpuwork.h) across its segments; every event
 * goes to the views that asked for GPU work (ct_view.gpu_work), and the
 * launches, copies, semaphores, bindings, bad headers and unknown methods
 * (every method with -v) are printed:
 *
 *   0.512 gpu-work 683 chan 0x5c00001c COMPUTE LAUNCH grid=(23,1,1) block=(32,1,1) smem=0 qmd=0x204e13800
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_name.h"
#include "decoder.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "gpuwork_qmds.h"
#include "nvtables.h"
#include "print_kname.h"
#include "print_params.h"

struct ct_gwstate {
	struct idmap chans;   /* client << 32 | channel -> struct chan */
	struct idmap procs;   /* pid -> struct gw_qmds: the QMDs it uploaded */
	uint64_t graph_launches, unseen;   /* for the closing line */
};

/* A channel: its decoder, and what its latest work came after. */
struct chan {
	struct gw_chan *dec;          /* NULL until its first segment */
	struct gw_tie after;
	bool have_after;
};

struct seg_ctx {
	struct ct_decoder *d;
	const struct ct_gpu_seg *s;
	const struct chan *chan;
};

static struct chan *chan_of(struct ct_decoder *d, uint32_t client, uint32_t channel)
{
	uint64_t key = (uint64_t)client << 32 | channel;

	if (!d->gw && !(d->gw = calloc(1, sizeof(*d->gw))))
		return NULL;
	return idmap_get_or_new(&d->gw->chans, key, sizeof(struct chan), NULL);
}

/* The process's remembered QMDs, made on first use (NULL: out of memory). */
static struct gw_qmds *qmds_of(struct ct_gwstate *g, uint32_t pid)
{
	struct gw_qmds *q = idmap_get(&g->procs, (uint64_t)pid + 1);

	if (!q && (q = gw_qmds_new()))
		idmap_put(&g->procs, (uint64_t)pid + 1, q);
	return q;
}

static struct gw_chan *decoder_of(struct ct_decoder *d, struct chan *c, uint32_t chan_class,
				  uint32_t pid)
{
	if (c && !c->dec && (c->dec = gw_chan_new(chan_class)))
		gw_chan_set_qmds(c->dec, qmds_of(d->gw, pid));
	return c ? c->dec : NULL;
}

/* The name a call goes by in "after": its request (named or, like any
 * view's, by number), and what it did. */
static const char *call_label(const struct ct_call *c, char *buf, size_t n)
{
	char spec[GW_CALL_NAME];
	const char *what = ct_call_specific_name(c, spec, sizeof(spec));

	if (!what)
		what = "?";
	if (c->name && strcmp(what, c->name))
		snprintf(buf, n, "%s %s", c->name, what);
	else
		snprintf(buf, n, "%s", what);
	return buf;
}

void ct_gpuwork_note_call(struct ct_decoder *d, const struct ct_call *c)
{
	char buf[GW_CALL_NAME];

	if (c->finished)
		gw_calls_note(&d->calls, c->pid, c->tid, c->ts_ns + c->duration_ns,
			      call_label(c, buf, sizeof(buf)));
}

/* A channel's GPPut moved: what its next segments came after. */
void ct_gpuwork_on_put(struct ct_decoder *d, const struct ct_gpu_put *w)
{
	struct chan *c = chan_of(d, w->client, w->channel);

	if (!c)
		return;
	gw_tie_find(&d->calls, w->h.pid, w->since_ns, w->h.ts_ns, &c->after);
	c->have_after = true;
}

static void head(struct ct_decoder *d, const struct ct_gpu_seg *s, const char *engine,
		 const char *kind)
{
	struct emit *e = &d->em;

	if (d->o.json) {
		em_open(e, NULL);
		em_str(e, "type", "gpu-work");
		em_u64(e, "ts_ns", s->h.ts_ns);
		em_u64(e, "pid", s->h.pid);
		em_hex(e, "channel", s->channel);
		em_hex(e, "client", s->client);
		if (s->gpu >= 0)
			em_i64(e, "gpu", s->gpu);
		em_u64(e, "ring_index", s->ring_index);
		em_str(e, "engine", engine);
		em_str(e, "kind", kind);
		return;
	}
	ct_print_ts(d, s->h.ts_ns);
	/* "COPY COPY 4096 B" says it twice: a copy engine's copy is "COPY 4096 B" */
	if (strcmp(engine, kind))
		out_printf(&d->out, "gpu-work %u chan 0x%x %s %s", s->h.pid, s->channel, engine, kind);
	else
		out_printf(&d->out, "gpu-work %u chan 0x%x %s", s->h.pid, s->channel, kind);
}

static void json_xyz(struct emit *e, const char *key, const uint32_t v[3])
{
	em_open(e, key);
	em_u64(e, "x", v[0]); em_u64(e, "y", v[1]); em_u64(e, "z", v[2]);
	em_close(e);
}

/* JSON: the QMD's type, dependence counter and dependent QMDs. */
static void json_qmd_links(struct emit *e, const struct gw_event *ev)
{
	uint32_t i;

	if (ev->qmd_type)
		em_str(e, "qmd_type", ev->qmd_type);
	em_u64(e, "dependence_counter", ev->dep_counter);
	em_open(e, "dependents");
	for (i = 0; i < ev->ndeps; i++) {
		char key[12];

		snprintf(key, sizeof(key), "%u", i);
		em_open(e, key);
		em_hex(e, "qmd", ev->deps[i].qmd);
		em_hex_named(e, "action", ev->deps[i].action_v, ev->deps[i].action);
		em_close(e);
	}
	em_close(e);
}

/* Text, -v: " type=GRID_NULL waits=2 then QMD_SCHEDULE 0x204e0c800". */
static void text_qmd_links(struct ct_decoder *d, const struct gw_event *ev)
{
	uint32_t i;

	if (ev->qmd_type)
		out_printf(&d->out, " type=%s", ev->qmd_type);
	if (ev->dep_counter)
		out_printf(&d->out, " waits=%u", ev->dep_counter);
	for (i = 0; i < ev->ndeps; i++) {
		if (ev->deps[i].action)
			out_printf(&d->out, " then %s 0x%" PRIx64, ev->deps[i].action, ev->deps[i].qmd);
		else
			out_printf(&d->out, " then action 0x%x 0x%" PRIx64, ev->deps[i].action_v,
				   ev->deps[i].qmd);
	}
}

static void print_graph_mark(struct ct_decoder *d, const struct gw_event *ev)
{
	if (!ev->graph)
		return;
	if (d->o.json) {
		em_u64(&d->em, "graph_launch", ev->graph_launch);
		em_hex(&d->em, "graph", ev->graph);
	} else {
		out_printf(&d->out, " (graph launch %u of 0x%" PRIx64 ")", ev->graph_launch, ev->graph);
	}
}

static void print_launch(struct ct_decoder *d, const struct gw_event *ev)
{
	struct emit *e = &d->em;
	bool cluster = ev->cluster[0] != 0;

	if (d->o.json) {
		if (ev->have_qmd) {
			json_xyz(e, "grid", ev->grid);   /* in blocks */
			if (cluster)
				json_xyz(e, "cluster", ev->cluster);
			json_xyz(e, "block", ev->block);
			em_u64(e, "smem", ev->smem);
			em_u64(e, "registers", ev->regs);
			em_hex(e, "program", ev->program);
			ct_print_kernel_json(d, ev->kernel);
			em_str(e, "qmd_version", ev->qmd_version);
			ct_print_params(d, ev);
			ct_print_kernel_op(d, ev);
			if (d->o.verbose || ev->kind != GW_LAUNCH)
				json_qmd_links(e, ev);
		}
		em_hex(e, "qmd", ev->qmd);
		print_graph_mark(d, ev);
		return;
	}
	ct_print_kernel(d, ev->kernel);
	if (ev->have_qmd && cluster)
		out_printf(&d->out, " grid=(%u,%u,%u) cluster=(%u,%u,%u) block=(%u,%u,%u) smem=%u",
			   ev->grid[0], ev->grid[1], ev->grid[2], ev->cluster[0], ev->cluster[1],
			   ev->cluster[2], ev->block[0], ev->block[1], ev->block[2], ev->smem);
	else if (ev->have_qmd)
		out_printf(&d->out, " grid=(%u,%u,%u) block=(%u,%u,%u) smem=%u", ev->grid[0],
			   ev->grid[1], ev->grid[2], ev->block[0], ev->block[1], ev->block[2], ev->smem);
	else
		out_printf(&d->out, " grid=? (QMD not uploaded in a segment read)");
	ct_print_kernel_op(d, ev);
	out_printf(&d->out, " qmd=0x%" PRIx64, ev->qmd);
	ct_print_params(d, ev);
	if (ev->have_qmd && (d->o.verbose || ev->kind != GW_LAUNCH))
		text_qmd_links(d, ev);
	print_graph_mark(d, ev);
}

/* A graph's head: which launch, and what its chain gave. */
static void print_graph(struct ct_decoder *d, const struct gw_event *ev)
{
	struct emit *e = &d->em;

	if (d->o.json) {
		em_u64(e, "graph_launch", ev->graph_launch);
		em_hex(e, "qmd", ev->qmd);
		em_u64(e, "kernels", ev->graph_kernels);
		em_u64(e, "unseen", ev->graph_unseen);
		if (ev->name)
			em_str(e, "error", ev->name);
		if (d->o.verbose)
			json_qmd_links(e, ev);
		return;
	}
	out_printf(&d->out, " %u qmd=0x%" PRIx64 ": %u QMD%s started", ev->graph_launch, ev->qmd,
		   ev->graph_kernels, ev->graph_kernels == 1 ? "" : "s");
	if (ev->graph_unseen)
		out_printf(&d->out, ", %u that could not be followed (their work is unseen)",
			   ev->graph_unseen);
	if (ev->name)
		out_printf(&d->out, " (%s)", ev->name);
	if (d->o.verbose)
		text_qmd_links(d, ev);
}

/* A QMD of a chain that cannot be followed, and why. */
static void print_unseen(struct ct_decoder *d, const struct gw_event *ev)
{
	if (d->o.json) {
		em_hex(&d->em, "qmd", ev->qmd);
		em_str(&d->em, "error", ev->name ? ev->name : "?");
	} else {
		out_printf(&d->out, " qmd=0x%" PRIx64 ": %s: what it starts is unseen", ev->qmd,
			   ev->name ? ev->name : "?");
	}
	print_graph_mark(d, ev);
}

/* A ring entry's level, sync and fetch, by the names the class gives them. */
static void print_entry_flags(struct ct_decoder *d, const struct gw_gp *gp)
{
	static const char *const keys[3] = { "level", "sync", "fetch" };
	const char *names[3] = { gp->level, gp->sync, gp->fetch };
	uint32_t values[3] = { gp->level_v, gp->sync_v, gp->fetch_v };
	int i;

	for (i = gp->control ? 1 : 0; i < (gp->control ? 2 : 3); i++) {
		if (d->o.json)
			em_hex_named(&d->em, keys[i], values[i], names[i]);
		else if (names[i])
			out_printf(&d->out, " %s=%s", keys[i], names[i]);
		else
			out_printf(&d->out, " %s=0x%x", keys[i], values[i]);
	}
}

/* A GPFIFO entry: a control entry by its opcode's name, or a segment. */
static void print_entry(struct ct_decoder *d, const struct gw_event *ev)
{
	const struct gw_gp *gp = ev->gp;
	struct emit *e = &d->em;

	if (d->o.json) {
		em_str(e, "entry", gp->control ? "control" : "segment");
		if (gp->control) {
			em_hex_named(e, "opcode", gp->opcode, gp->opcode_name);
			em_hex(e, "operand", gp->operand);
			if (gp->sets_base)
				em_hex(e, "base", gp->base);
		} else {
			em_hex(e, "va", ev->va);
			em_u64(e, "dwords", gp->dwords);
		}
	} else if (gp->control) {
		if (gp->opcode_name)
			out_printf(&d->out, " %s", gp->opcode_name);
		else   /* the GPU raises GPENTRY for an opcode it does not have */
			out_printf(&d->out, " opcode=0x%x (no table names it)", gp->opcode);
		if (gp->sets_base)
			out_printf(&d->out, " base=0x%" PRIx64, gp->base);
		else
			out_printf(&d->out, " operand=0x%x", gp->operand);
	} else {
		out_printf(&d->out, " SEGMENT 0x%" PRIx64 " %u dwords", ev->va, gp->dwords);
	}
	print_entry_flags(d, gp);
}

static const char *class_name(uint32_t cls)
{
	const struct nv_class_info *k = nv_class_lookup(cls);

	return k ? k->name : NULL;
}

static void print_body(struct ct_decoder *d, const struct gw_event *ev)
{
	struct emit *e = &d->em;
	const char *name;

	switch (ev->kind) {
	case GW_LAUNCH:
	case GW_EMPTY_QMD:
	case GW_QMD_LOAD:
		print_launch(d, ev);
		break;
	case GW_GRAPH:
		print_graph(d, ev);
		break;
	case GW_UNSEEN:
		print_unseen(d, ev);
		break;
	case GW_COPY:
		if (d->o.json) {
			em_u64(e, "bytes", ev->bytes);
			em_hex(e, "src", ev->src);
			em_hex(e, "dst", ev->dst);
			em_bool(e, "fill", ev->fill);
		} else {
			out_printf(&d->out, " %" PRIu64 " B 0x%" PRIx64 " -> 0x%" PRIx64 "%s", ev->bytes,
				   ev->src, ev->dst, ev->fill ? " (fill)" : "");
		}
		break;
	case GW_SEMAPHORE:
		if (d->o.json) {
			em_str(e, "operation", ev->name ? ev->name : "?");
			em_hex(e, "address", ev->sem_addr);
			em_hex(e, "payload", ev->payload);
		} else {
			out_printf(&d->out, " %s 0x%" PRIx64 "=0x%" PRIx64, ev->name ? ev->name : "?",
				   ev->sem_addr, ev->payload);
		}
		break;
	case GW_BIND:
		name = class_name(ev->cls);
		if (d->o.json) {
			em_u64(e, "subchannel", ev->subch);
			em_hex_named(e, "class", ev->cls, name);
			em_hex(e, "set_object", ev->data);
		} else {
			out_printf(&d->out, " subch=%u class=0x%x<%s>", ev->subch, ev->cls,
				   name ? name : "?");
		}
		break;
	case GW_METHOD:
		if (d->o.json) {
			em_u64(e, "subchannel", ev->subch);
			em_hex_named(e, "method", ev->method, ev->name);
			em_hex(e, "data", ev->data);
		} else {
			out_printf(&d->out, " subch=%u 0x%x", ev->subch, ev->method);
			if (ev->name)
				out_printf(&d->out, "<%s>", ev->name);
			out_printf(&d->out, "=0x%x", ev->data);
		}
		break;
	case GW_GP:
		print_entry(d, ev);
		break;
	default:
		if (d->o.json) {
			em_hex(e, "header", ev->data);
			em_str(e, "error", ev->name);
		} else {
			out_printf(&d->out, " header=0x%x: %s", ev->data, ev->name);
		}
		break;
	}
}

/* " after NAME of tid N", or why it is not known; JSON "after". */
static void print_after(struct ct_decoder *d, const struct gw_tie *t)
{
	struct emit *e = &d->em;

	if (!t || t->kind == GW_TIE_NONE)
		return;
	if (d->o.json) {
		em_open(e, "after");
		em_bool(e, "certain", t->kind == GW_TIE_CERTAIN);
		em_u64(e, "put_since_ns", t->since_ns);   /* the window it was put in */
		em_u64(e, "put_by_ns", t->until_ns);
		if (t->kind == GW_TIE_CERTAIN) {
			em_str(e, "call", t->call.name);
			em_u64(e, "tid", t->call.tid);
			em_u64(e, "ts_ns", t->call.end_ns);
		} else {
			em_u64(e, "calls_while_put", t->in_window);
			em_bool(e, "at_least", t->at_least);
		}
		em_close(e);
	} else if (t->kind == GW_TIE_CERTAIN) {
		out_printf(&d->out, " after %s of tid %u", t->call.name, t->call.tid);
	} else {
		out_printf(&d->out, " after ? (%s%u driver call%s of the process ended while it "
			   "was put)", t->at_least ? "at least " : "", t->in_window,
			   t->in_window == 1 && !t->at_least ? "" : "s");
	}
}

/* Named methods, a segment's own entry, QMDs that start no kernel when
 * sent (stream order, a graph's nodes loaded): -v (control entries always). */
static bool verbose_only(const struct gw_event *ev)
{
	return (ev->kind == GW_METHOD && ev->name) || (ev->kind == GW_GP && !ev->gp->control) ||
	       ev->kind == GW_EMPTY_QMD || ev->kind == GW_QMD_LOAD;
}

static void on_event(void *arg, const struct gw_event *ev_in)
{
	struct seg_ctx *x = arg;
	struct ct_decoder *d = x->d;
	struct gw_event ev_copy = *ev_in;
	const struct gw_event *ev = &ev_copy;
	struct gw_kop op;
	int i;

	if ((ev->kind == GW_LAUNCH || ev->kind == GW_COPY) && x->chan && x->chan->have_after)
		ev_copy.after = &x->chan->after;
	if (ev->kind == GW_LAUNCH && ev->have_qmd)
		ev_copy.kernel = ct_kname_find(&d->knames, x->s->h.pid, ev->program);
	if (ev->kernel && gw_kernel_op(ev, ev->kernel, &op))   /* once, for every view */
		ev_copy.op = &op;
	for (i = 0; i < d->nviews; i++)
		if (d->views[i].gpu_filter && !d->views[i].gpu_filter(d->views[i].ctx, x->s, ev))
			return;
	for (i = 0; i < d->nviews; i++)
		if (d->views[i].gpu_work)
			d->views[i].gpu_work(d->views[i].ctx, x->s, ev);
	if (ev->kind == GW_GRAPH)
		d->gw->graph_launches++;
	d->gw->unseen += ev->kind == GW_UNSEEN;
	if (d->o.quiet || (!d->o.verbose && verbose_only(ev)))
		return;
	head(d, x->s, gw_engine_names[ev->engine], gw_kind_names[ev->kind]);
	print_body(d, ev);
	print_after(d, ev->after);
	ct_end_line(d);
}

/* A record that stands for entries not read: lost, or unreadable. */
static void on_gap(struct ct_decoder *d, const struct ct_gpu_seg *s)
{
	int i;

	for (i = 0; i < d->nviews; i++)
		if (d->views[i].gpu_work)
			d->views[i].gpu_work(d->views[i].ctx, s, NULL);
	if (d->o.quiet)
		return;
	head(d, s, "?", s->flags & CT_GS_LOST ? "LOST" : "UNREADABLE");
	if (d->o.json) {
		em_u64(&d->em, "entries", s->flags & CT_GS_LOST ? s->lost : 1);
		em_bool(&d->em, "wrapped", s->flags & CT_GS_WRAP);
		/* GPPut is an index into the ring: a wrap's count is a lower bound */
		em_bool(&d->em, "at_least", s->flags & CT_GS_WRAP);
		em_u64(&d->em, "gp_put", s->gp_put);
		em_hex(&d->em, "va", s->va);
		em_str(&d->em, "reason", !(s->flags & CT_GS_LOST) ? "unreadable" : s->flags & CT_GS_WRAP ?
			"ring_wrap" : s->flags & CT_GS_LATE ? "learned_at_exit" :
			s->gp_put >= s->ring_entries ? "gpput_outside_ring" : "lost");
	} else if (s->flags & CT_GS_LATE) {
		out_printf(&d->out, " the channel was learned only as its process exited, too late "
			   "for the last look: what it put after its last poll is not counted");
	} else if (s->flags & CT_GS_WRAP) {
		out_printf(&d->out, " the ring of %u entries went round between two polls: at least "
			   "%u entries before index %u were overwritten unread (whole rings more "
			   "cannot be ruled out: GPPut is an index into the ring; poll faster: "
			   "--gpu-work=HZ)", s->ring_entries, s->lost, s->ring_index);
	} else if ((s->flags & CT_GS_LOST) && s->gp_put >= s->ring_entries) {
		out_printf(&d->out, " GPPut %u is outside the ring of %u entries: the channel is no "
			   "longer followed", s->gp_put, s->ring_entries);
	} else if (s->flags & CT_GS_LOST) {
		out_printf(&d->out, " %u ring entries from index %u (unreadable, or overwritten by "
			   "newer work while they were read)", s->lost, s->ring_index);
	} else {
		out_printf(&d->out, " segment 0x%" PRIx64 " (%u dwords) at ring index %u", (uint64_t)s->va,
			   s->want_dwords, s->ring_index);
	}
	ct_end_line(d);
}

/* The ring entry itself, as an event; true if it is a control entry (no
 * segment: dwords that came with it, from a hostile trace, are not methods). */
static bool on_entry(struct seg_ctx *x)
{
	const struct ct_gpu_seg *s = x->s;
	struct gw_gp gp;
	struct gw_event ev = { .kind = GW_GP, .engine = gw_engine_of(s->chan_class),
			       .cls = s->chan_class, .gp = &gp, .va = s->va };

	if (!gw_gp_decode(s->chan_class, s->entry, &gp))
		return false;   /* a class whose entries the tables do not know */
	on_event(x, &ev);
	return gp.control;
}

void ct_gpuwork_on_seg(struct ct_decoder *d, const struct ct_gpu_seg *s)
{
	struct chan *c = chan_of(d, s->client, s->channel);
	struct seg_ctx x = { d, s, c };
	struct gw_chan *dec;

	if (s->flags & (CT_GS_LOST | CT_GS_FAULT)) {
		on_gap(d, s);
		return;
	}
	if (on_entry(&x))
		return;
	dec = decoder_of(d, c, s->chan_class, s->h.pid);
	if (dec)
		gw_decode(dec, (const uint32_t *)(s + 1), s->ndwords, s->flags & CT_GS_TRUNC,
			  on_event, &x);
}

static void sum_not_kept(uint64_t key, void *val, void *ctx)
{
	(void)key;
	*(uint64_t *)ctx += gw_qmds_not_kept(val);
}

void ct_gpuwork_finish(struct ct_decoder *d)
{
	struct ct_decode_stats *st = &d->st;

	if (!d->gw)
		return;
	st->gw_graph_launches = d->gw->graph_launches;
	st->gw_unseen_qmds = d->gw->unseen;
	st->gw_qmds_not_kept = 0;
	idmap_each(&d->gw->procs, sum_not_kept, &st->gw_qmds_not_kept);
}

bool ct_gpuwork_summary(const struct ct_decode_stats *st, char *buf, size_t n)
{
	int k;

	if (!st->gw_graph_launches && !st->gw_unseen_qmds && !st->gw_qmds_not_kept)
		return false;
	k = snprintf(buf, n, "gpu-work decoding: %" PRIu64 " graph launches followed, %" PRIu64
		     " QMDs a chain led to could not be followed (not seen uploaded, or a join "
		     "waiting for a branch not seen: the kernels they start are unseen)", st->gw_graph_launches, st->gw_unseen_qmds);
	if (st->gw_qmds_not_kept && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, ", %" PRIu64 " QMD uploads not remembered (a "
			 "process's memory of %u QMDs was full)", st->gw_qmds_not_kept, GW_QMDS_MAX);
	return true;
}

static void free_qmds(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	gw_qmds_free(val);
}

static void free_chan(uint64_t key, void *val, void *ctx)
{
	struct chan *c = val;

	(void)key;
	(void)ctx;
	gw_chan_free(c->dec);
	free(c);
}

void ct_gpuwork_decoder_free(struct ct_decoder *d)
{
	if (!d->gw)
		return;
	idmap_drain(&d->gw->chans, free_chan, NULL);
	idmap_free(&d->gw->chans);
	idmap_drain(&d->gw->procs, free_qmds, NULL);
	idmap_free(&d->gw->procs);
	free(d->gw);
	d->gw = NULL;
}
