// SPDX-License-Identifier: MIT
/* The rule of gpuwork_tie.h, on the few latest calls of each process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuwork_tie.h"

/* Calls kept per process: the last one before a window and those after
 * it; a window with more than this inside is uncertain anyway. */
#define GW_CALLS_KEPT 8
/* Processes followed; a trace that names more gets no ties for the rest. */
#define GW_CALL_PROCS 65536

struct gw_proc_calls {
	struct gw_call ring[GW_CALLS_KEPT];
	unsigned n, next;          /* calls kept; where the next one goes */
};

static struct gw_proc_calls *proc_of(struct gw_calls *c, uint32_t pid)
{
	struct gw_proc_calls *p = idmap_get(&c->procs, pid);

	if (p || !pid || c->nprocs >= GW_CALL_PROCS || !(p = calloc(1, sizeof(*p))))
		return p;
	idmap_put(&c->procs, pid, p);
	c->nprocs++;
	return p;
}

void gw_calls_note(struct gw_calls *c, uint32_t pid, uint32_t tid, uint64_t end_ns,
		   const char *name)
{
	struct gw_proc_calls *p = proc_of(c, pid);
	struct gw_call *k;

	if (!p)
		return;
	k = &p->ring[p->next];
	k->end_ns = end_ns;
	k->tid = tid;
	snprintf(k->name, sizeof(k->name), "%s", name);
	p->next = (p->next + 1) % GW_CALLS_KEPT;
	if (p->n < GW_CALLS_KEPT)
		p->n++;
}

void gw_calls_forget(struct gw_calls *c, uint32_t pid)
{
	struct gw_proc_calls *p = idmap_del(&c->procs, pid);

	if (p) {
		free(p);
		c->nprocs--;
	}
}

void gw_calls_free(struct gw_calls *c)
{
	idmap_free_all(&c->procs);
	c->nprocs = 0;
}

void gw_tie_find(const struct gw_calls *c, uint32_t pid, uint64_t since_ns, uint64_t until_ns,
		 struct gw_tie *t)
{
	const struct gw_proc_calls *p = idmap_get(&c->procs, pid);
	const struct gw_call *before = NULL;
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->since_ns = since_ns;
	t->until_ns = until_ns;
	if (!p || since_ns > until_ns)
		return;
	for (i = 0; i < p->n; i++) {
		const struct gw_call *k = &p->ring[i];

		if (k->end_ns <= since_ns && (!before || k->end_ns >= before->end_ns))
			before = k;
		else if (k->end_ns > since_ns && k->end_ns <= until_ns)
			t->in_window++;
	}
	/* Every call kept ended after the window opened: older ones are gone. */
	t->at_least = !before && p->n == GW_CALLS_KEPT;
	if (t->in_window || t->at_least) {
		t->kind = GW_TIE_UNKNOWN;
	} else if (before) {
		t->kind = GW_TIE_CERTAIN;
		t->call = *before;
	}
}
