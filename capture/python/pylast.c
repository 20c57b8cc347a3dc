// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "pylast.h"

struct pylast_entry {
	uint32_t pid, seq;               /* whose, and the kernel's number of the record */
	uint32_t n;                      /* frames in raw */
	struct ct_pyframe_raw *raw;      /* innermost first */
	struct ct_pyframes *named;       /* h.size bytes */
};

static void free_entry(uint64_t tid, void *val, void *ctx)
{
	struct pylast_entry *e = val;

	(void)tid;
	(void)ctx;
	if (!e)
		return;
	free(e->raw);
	free(e->named);
	free(e);
}

static const struct ct_pyframe_raw *own_frames(const struct ct_pystack *s)
{
	return (const struct ct_pyframe_raw *)(s + 1);
}

uint32_t ct_pylast_whole(const struct ct_pylast *l, const struct ct_pystack *s,
			 struct ct_pyframe_raw *out, bool *lost)
{
	uint32_t own = s->nframes - s->outer_kept, kept = s->outer_kept;
	const struct pylast_entry *e;

	*lost = false;
	memcpy(out, own_frames(s), own * sizeof(*out));
	if (!kept)
		return own;
	e = idmap_get(&l->by_tid, s->h.tid);
	if (!e || e->pid != s->h.pid || e->seq + 1 != s->seq || e->n < kept) {
		*lost = true;
		return own;
	}
	memcpy(out + own, e->raw + (e->n - kept), kept * sizeof(*out));
	return s->nframes;
}

struct ct_pyframes *ct_pylast_repeat(struct ct_pylast *l, const struct ct_pystack *s,
				     const struct ct_pyframe_raw *whole, uint32_t n, uint32_t flags)
{
	struct pylast_entry *e = idmap_get(&l->by_tid, s->h.tid);

	if (!s->seq || !e || e->pid != s->h.pid || e->n != n || e->named->flags != flags ||
	    memcmp(e->raw, whole, n * sizeof(*whole)) != 0)
		return NULL;
	e->seq = s->seq;
	return e->named;
}

static struct pylast_entry *new_entry(const struct ct_pystack *s,
				      const struct ct_pyframe_raw *whole, uint32_t n,
				      const struct ct_pyframes *named)
{
	struct pylast_entry *e = calloc(1, sizeof(*e));

	if (!e || !(e->raw = malloc(n ? n * sizeof(*whole) : 1)) ||
	    !(e->named = malloc(named->h.size))) {
		free_entry(0, e, NULL);
		return NULL;
	}
	memcpy(e->raw, whole, n * sizeof(*whole));
	memcpy(e->named, named, named->h.size);
	e->pid = s->h.pid;
	e->seq = s->seq;
	e->n = n;
	return e;
}

void ct_pylast_keep(struct ct_pylast *l, const struct ct_pystack *s,
		    const struct ct_pyframe_raw *whole, uint32_t n, bool is_whole,
		    const struct ct_pyframes *named)
{
	struct pylast_entry *e;

	if (!s->seq)
		return;
	e = is_whole ? new_entry(s, whole, n, named) : NULL;
	if (!e) {
		free_entry(0, idmap_del(&l->by_tid, s->h.tid), NULL);
		return;
	}
	if (l->by_tid.used >= CT_PYLAST_MAX && !idmap_get(&l->by_tid, s->h.tid)) {
		l->forgotten += l->by_tid.used;
		idmap_drain(&l->by_tid, free_entry, NULL);
	}
	free_entry(0, idmap_put(&l->by_tid, s->h.tid, e), NULL);
}

static bool of_process(uint64_t tid, const void *val, void *pid)
{
	const struct pylast_entry *e = val;

	(void)tid;
	return e->pid == *(const uint32_t *)pid;
}

void ct_pylast_forget_process(struct ct_pylast *l, uint32_t pid)
{
	idmap_del_if(&l->by_tid, of_process, free_entry, &pid);
}

void ct_pylast_free(struct ct_pylast *l)
{
	idmap_drain(&l->by_tid, free_entry, NULL);
}
