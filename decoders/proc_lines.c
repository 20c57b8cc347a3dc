// SPDX-License-Identifier: MIT
/*
 * "+++ process" lines under filters: held until the process has a line
 * of its own in the output, printed just before that line, dropped if it
 * never gets one (-e, --failed, --tid, --comm choose the calls; a process
 * line says whose they are).  Without filters they are printed at once.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

/* The value of a process whose line is printed. */
static char shown_mark;
#define SHOWN ((void *)&shown_mark)

static void free_held(void *v)
{
	if (v != SHOWN)
		free(v);
}

void ct_proc_lines_add(struct ct_decoder *d, const struct ct_proc *p)
{
	struct ct_proc *copy;

	if (!d->o.procs_with_calls) {
		ct_print_proc(d, p);
		return;
	}
	copy = malloc(p->h.size);
	if (!copy)
		return;
	memcpy(copy, p, p->h.size);
	free_held(idmap_put(&d->held_procs, p->h.pid, copy));
}

void ct_proc_lines_before_call(struct ct_decoder *d, uint32_t pid)
{
	struct ct_proc *p;

	if (!d->o.procs_with_calls)
		return;
	p = idmap_put(&d->held_procs, pid, SHOWN);
	if (p && p != SHOWN) {
		ct_print_proc(d, p);
		free(p);
	}
}

bool ct_proc_lines_shown(const struct ct_decoder *d, uint32_t pid)
{
	return !d->o.procs_with_calls || idmap_get(&d->held_procs, pid) == SHOWN;
}

void ct_proc_lines_exit(struct ct_decoder *d, uint32_t pid)
{
	free_held(idmap_del(&d->held_procs, pid));
}

static void drop(uint64_t pid, void *v, void *ctx)
{
	(void)pid;
	(void)ctx;
	free_held(v);
}

void ct_proc_lines_free(struct ct_decoder *d)
{
	idmap_drain(&d->held_procs, drop, NULL);
	idmap_free(&d->held_procs);
}
