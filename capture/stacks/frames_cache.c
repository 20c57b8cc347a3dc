// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "frames_cache.h"

#define SLOTS 512   /* direct-mapped; at most SLOTS records of a few KiB kept */

struct slot {
	uint32_t pid, n, end, span;
	uint64_t gen;
	uint64_t *pcs;
	struct ct_frames *rec;
};

struct ct_frames_cache {
	struct slot s[SLOTS];
};

static uint64_t hash_of(const struct ct_frames_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ k->pid ^ ((uint64_t)k->n << 32) ^ k->gen;

	for (uint32_t i = 0; i < k->n; i++)
		h = (h ^ k->pcs[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static struct slot *slot_of(struct ct_frames_cache *c, const struct ct_frames_key *k)
{
	return &c->s[hash_of(k) % SLOTS];
}

const struct ct_frames *ct_frames_cache_get(struct ct_frames_cache *c, const struct ct_frames_key *k)
{
	struct slot *s = slot_of(c, k);

	if (!s->rec || s->pid != k->pid || s->gen != k->gen || s->n != k->n || s->end != k->end ||
	    s->span != k->span || memcmp(s->pcs, k->pcs, k->n * sizeof(*k->pcs)))
		return NULL;
	return s->rec;
}

void ct_frames_cache_put(struct ct_frames_cache *c, const struct ct_frames_key *k,
			 const struct ct_frames *f)
{
	struct slot *s = slot_of(c, k);
	uint64_t *pcs = malloc(k->n * sizeof(*pcs) + 1);
	struct ct_frames *rec = malloc(f->h.size);

	if (!pcs || !rec) {
		free(pcs);
		free(rec);
		return;
	}
	free(s->pcs);
	free(s->rec);
	memcpy(pcs, k->pcs, k->n * sizeof(*pcs));
	memcpy(rec, f, f->h.size);
	*s = (struct slot){ .pid = k->pid, .n = k->n, .end = k->end, .span = k->span,
			    .gen = k->gen, .pcs = pcs, .rec = rec };
}

struct ct_frames_cache *ct_frames_cache_new(void)
{
	return calloc(1, sizeof(struct ct_frames_cache));
}

void ct_frames_cache_free(struct ct_frames_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < SLOTS; i++) {
		free(c->s[i].pcs);
		free(c->s[i].rec);
	}
	free(c);
}
