// SPDX-License-Identifier: MIT
/*
 * QMDs (gpuwork_qmd.h).  What H200 + driver 580.159.04 showed
 * (docs/GPUWORK.md, "Graphs and clusters"): a cluster launch's QMD is
 * GRID_GPC_CGA with GRID_* counting clusters and GPC_CGA_* the cluster's
 * shape; a graph's first launch sends its nodes' QMDs with
 * REQUIRE_SCHEDULING_PCAS (their send does not start them), and every
 * launch sends one head QMD of grid 0 whose DEPENDENT_QMD0 SCHEDULEs the
 * first node, which SCHEDULEs the next, and so on.  A fork-join graph's
 * head is its first node (a kernel of its own) SCHEDULEing the branches;
 * each branch DECREMENT_DEPENDENCEs the join node, which waits for as many
 * (its DEPENDENCE_COUNTER) and was loaded like every node.
 */
#include <string.h>

#include "gpuwork_qmd.h"

static uint32_t get(const uint32_t *dw, uint32_t n, const struct gw_field *f)
{
	uint64_t v = 0;

	return f && gw_get_mw(dw, n, f, &v) ? (uint32_t)v : 0;
}

/* The layout of k whose version fields match the dwords. */
static const struct gw_qmd_layout *layout(const struct gw_class *k, const uint32_t *dw, uint32_t n)
{
	uint64_t v;
	int i;

	for (i = 0; i < k->nqmd; i++) {
		const struct gw_qmd_layout *q = &k->qmd[i];

		if (!gw_get_mw(dw, n, q->major, &v) || v != q->want_major)
			continue;
		if (q->minor && (!gw_get_mw(dw, n, q->minor, &v) || v != q->want_minor))
			continue;
		return q;
	}
	return NULL;
}

/* Grid in blocks: GRID_* counts clusters where a cluster shape is set. */
static void read_shape(struct gw_event *e, const struct gw_qmd_layout *q, const uint32_t *dw,
		       uint32_t n)
{
	bool clusters = true;
	int i;

	for (i = 0; i < 3; i++) {
		e->grid[i] = get(dw, n, q->grid[i]);
		e->block[i] = get(dw, n, q->block[i]);
		e->cluster[i] = get(dw, n, q->cga[i]);
		clusters &= e->cluster[i] != 0;
	}
	for (i = 0; i < 3; i++) {
		if (!clusters)
			e->cluster[i] = 0;
		else if ((uint64_t)e->grid[i] * e->cluster[i] > UINT32_MAX)
			e->grid[i] = UINT32_MAX;   /* a hostile QMD: saturate */
		else
			e->grid[i] *= e->cluster[i];
	}
}

static void read_deps(struct gw_event *e, const struct gw_qmd_layout *q, const uint32_t *dw,
		      uint32_t n, struct gw_qmd_facts *f)
{
	int i;

	e->ndeps = 0;
	for (i = 0; i < GW_QMD_DEPS && i < GW_EVENT_DEPS; i++) {
		struct gw_dep *d = &e->deps[e->ndeps];

		if (!q->dep_enable[i] || !q->dep_pointer[i] || !get(dw, n, q->dep_enable[i]))
			continue;
		d->qmd = (uint64_t)get(dw, n, q->dep_pointer[i]) << GW_QMD_ADDR_SHIFT;
		d->action_v = get(dw, n, q->dep_action[i]);
		d->action = q->dep_action[i] ? gw_value_name(q->scope, q->action_prefix[i],
							     d->action_v) : NULL;
		d->schedules = (q->have_schedule[i][0] && d->action_v == q->act_schedule[i][0]) ||
			       (q->have_schedule[i][1] && d->action_v == q->act_schedule[i][1]);
		f->schedules |= d->schedules;
		e->ndeps++;
	}
}

/* Constant bank 0: where the launch's parameters are read from. */
static void read_cbank0(struct gw_event *e, const struct gw_qmd_layout *q, const uint32_t *dw,
			uint32_t n)
{
	uint64_t lo = 0, hi = 0, size = 0;

	e->cbank0 = 0;
	if (!get(dw, n, q->cb_valid) || !gw_get_mw(dw, n, q->cb_lo, &lo))
		return;
	gw_get_mw(dw, n, q->cb_hi, &hi);
	gw_get_mw(dw, n, q->cb_size, &size);
	e->cbank0 = (hi << 32 | lo) << q->cb_shift;
	e->cbank0_size = (uint32_t)(size << 4);
}

void gw_qmd_read(struct gw_event *e, const struct gw_class *k, const uint32_t *dw, uint32_t n,
		 struct gw_qmd_facts *f)
{
	const struct gw_qmd_layout *q = layout(k, dw, n);
	uint64_t lo = 0, hi = 0;

	memset(f, 0, sizeof(*f));
	f->q = q;
	if (!q)
		return;
	e->have_qmd = true;
	e->qmd_version = q->version;
	read_shape(e, q, dw, n);
	e->smem = get(dw, n, q->smem);
	e->regs = get(dw, n, q->regs);
	if (gw_get_mw(dw, n, q->prog_lo, &lo)) {
		gw_get_mw(dw, n, q->prog_hi, &hi);
		e->program = hi << 32 | lo;
	}
	read_cbank0(e, q, dw, n);
	e->qmd_type = q->type ? gw_value_name(q->scope, "QMD_TYPE", get(dw, n, q->type)) : NULL;
	e->dep_counter = get(dw, n, q->dep_counter);
	f->require_pcas = q->require_pcas && q->have_require_true &&
			  get(dw, n, q->require_pcas) == q->require_true;
	read_deps(e, q, dw, n, f);
}

static bool empty_grid(const struct gw_event *e)
{
	return (uint64_t)e->grid[0] * e->grid[1] * e->grid[2] == 0;
}

enum gw_kind gw_qmd_send_kind(const struct gw_event *e, const struct gw_qmd_facts *f)
{
	if (!e->have_qmd)
		return GW_LAUNCH;   /* a launch whose QMD was not seen: said so */
	if (f->require_pcas)
		return GW_QMD_LOAD;
	/* It runs when sent (nothing to wait for) and starts others: a head.
	 * One that waits (CUDA's stream-order GRID_NULL QMDs) SCHEDULEs the
	 * stream's next QMD slot, which that QMD's own send starts. */
	if (f->schedules && e->dep_counter == 0)
		return GW_GRAPH;
	return empty_grid(e) ? GW_EMPTY_QMD : GW_LAUNCH;
}

/* --- the chain ----------------------------------------------------------- */

/* Flags in a found entry's low bits (QMD addresses are << 8): */
#define UNSEEN  1ull   /* not kept: not seen uploaded */
#define NOTQMD  2ull   /* kept, but no QMD layout of the head's class */
#define WAITING 4ull   /* a join node decremented in this walk: started or not? */
#define FLAGS (UNSEEN | NOTQMD | WAITING)

struct walk {
	struct gw_qmds *m;
	const struct gw_class *k;
	uint64_t *stack, *found;
	uint32_t nstack, nfound, mark;
	bool cut;                 /* more than GW_QMDS_MAX: the rest not followed */
};

static void push(struct walk *w, uint64_t addr)
{
	if (w->nstack == GW_QMDS_MAX)
		w->cut = true;
	else
		w->stack[w->nstack++] = addr;
}

static bool note(struct walk *w, uint64_t entry)
{
	if (w->nfound == GW_QMDS_MAX) {
		w->cut = true;
		return false;
	}
	w->found[w->nfound++] = entry;
	return true;
}

/* How many decrements the QMD at s waits for before it starts, if it is a
 * graph's node (loaded with REQUIRE_SCHEDULING_PCAS); -1 if it is not (a
 * stream's GRID_NULL QMD: stream order, not a graph's work). */
static int64_t join_waits(const struct walk *w, const struct gw_qmd_slot *s)
{
	struct gw_event e = { 0 };
	struct gw_qmd_facts f;

	gw_qmd_read(&e, w->k, s->dw, s->n, &f);
	return f.q && f.require_pcas ? (int64_t)e.dep_counter : -1;
}

/* A DECREMENT_DEPENDENCE of the QMD at addr: a join node starts on the
 * decrement that brings its count to 0.  One not seen uploaded may be a
 * graph's node: said, as a SCHEDULEd one is. */
static void decrement(struct walk *w, uint64_t addr)
{
	struct gw_qmd_slot *s = gw_qmds_get(w->m, addr);
	int64_t waits;

	if (!s) {
		note(w, addr | UNSEEN);
		return;
	}
	if (s->walk == w->mark || (waits = join_waits(w, s)) < 0)
		return;   /* started already in this walk, or stream order */
	if (s->dec_walk != w->mark) {
		s->dec_walk = w->mark;
		s->decs = 0;
		if (!note(w, addr | WAITING))
			return;
	}
	if (++s->decs >= waits)
		push(w, addr);
}

/* The QMDs e starts when it ends: those it SCHEDULEs (first dependent on
 * top of the stack) and the join nodes its decrements release. */
static void push_deps(struct walk *w, const struct gw_event *e)
{
	int i;

	for (i = 0; i < (int)e->ndeps; i++)
		if (!e->deps[i].schedules && e->deps[i].qmd)
			decrement(w, e->deps[i].qmd);
	for (i = (int)e->ndeps - 1; i >= 0; i--)
		if (e->deps[i].schedules)
			push(w, e->deps[i].qmd);
}

static void visit(struct walk *w, uint64_t addr)
{
	struct gw_qmd_slot *s = gw_qmds_get(w->m, addr);
	struct gw_event e = { 0 };
	struct gw_qmd_facts f;

	if (s && s->walk == w->mark)
		return;   /* started once per walk, however many lead to it */
	if (!s) {
		note(w, addr | UNSEEN);
		return;
	}
	gw_qmd_read(&e, w->k, s->dw, s->n, &f);
	if (!note(w, addr | (f.q ? 0 : NOTQMD)))
		return;
	s->walk = w->mark;
	push_deps(w, &e);
}

/* A WAITING entry that its decrements started is given where it started;
 * one still waiting at the walk's end is unseen work. */
static bool still_waiting(const struct walk *w, uint64_t entry)
{
	const struct gw_qmd_slot *s = gw_qmds_get(w->m, entry & ~FLAGS);

	return s && s->walk != w->mark;
}

/* A found entry: 1 a kernel started, 0 nothing to give, -1 unseen. */
static int entry_state(const struct walk *w, uint64_t entry)
{
	if (entry & WAITING)
		return still_waiting(w, entry) ? -1 : 0;
	return entry & FLAGS ? -1 : 1;
}

static void give(struct walk *w, const struct gw_event *head, uint64_t entry, gw_qmd_out_fn out,
		 void *arg)
{
	struct gw_event e = { .kind = GW_UNSEEN, .qmd = entry & ~FLAGS, .graph = head->qmd,
			      .graph_launch = head->graph_launch };
	struct gw_qmd_slot *s = gw_qmds_get(w->m, entry & ~FLAGS);
	struct gw_qmd_facts f;

	if (!entry_state(w, entry))
		return;
	if (s && !(entry & FLAGS)) {
		gw_qmd_read(&e, w->k, s->dw, s->n, &f);
		e.kind = empty_grid(&e) ? GW_EMPTY_QMD : GW_LAUNCH;
		if (s->pn) {   /* uploaded with the QMD, at the graph's first launch */
			e.params = s->pdw;
			e.params_ndw = s->pn;
			e.params_at = s->p_at;
			e.params_cut = s->p_cut;
		}
	} else if (entry & WAITING) {
		e.name = "a join node waiting for more branches than were seen to end: "
			 "not started as far as the trace shows";
	} else if (entry & NOTQMD) {
		e.name = "the bytes uploaded there are no QMD layout of the class";
	} else {
		e.name = e.qmd ? "not seen uploaded" : "a null pointer";
	}
	out(arg, &e);
}

void gw_qmd_walk(struct gw_qmds *m, const struct gw_class *k, struct gw_event *head,
		 gw_qmd_out_fn out, void *arg)
{
	struct walk w = { m, k, NULL, NULL, 0, 0, 0, false };
	struct gw_qmd_slot *h = gw_qmds_get(m, head->qmd);
	uint32_t i;

	head->graph = head->qmd;
	head->graph_launch = h ? ++h->launches : 1;
	if (!gw_qmds_scratch(m, &w.stack, &w.found)) {
		head->name = "out of memory: its chain was not followed";
		out(arg, head);
		return;
	}
	w.mark = gw_qmds_new_walk(m);
	if (h)
		h->walk = w.mark;
	push_deps(&w, head);
	while (w.nstack && !w.cut)
		visit(&w, w.stack[--w.nstack]);
	for (i = 0; i < w.nfound; i++) {
		int st = entry_state(&w, w.found[i]);

		head->graph_kernels += st > 0;
		head->graph_unseen += st < 0;
	}
	head->graph_unseen += w.cut;
	out(arg, head);
	if (!empty_grid(head)) {   /* a head with a kernel of its own */
		struct gw_event self = *head;

		self.kind = GW_LAUNCH;
		out(arg, &self);
	}
	for (i = 0; i < w.nfound; i++)
		give(&w, head, w.found[i], out, arg);
	if (w.cut) {
		struct gw_event e = { .kind = GW_UNSEEN, .graph = head->qmd,
				      .graph_launch = head->graph_launch,
				      .name = "the chain is longer than the decoder follows" };
		out(arg, &e);
	}
}
