// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "frames_cache.h"

/* SETS x WAYS records of a few KiB kept at most.  Two ways a set: stacks
 * a loop takes in turn do not evict each other where they hash alike
 * (direct-mapped, two of three chains in turn did in a run in some
 * hundreds, by where the run's addresses fell, and each was named afresh
 * at every call). */
#define SETS 256
#define WAYS 2

struct slot {
	uint32_t pid, n, end, span;
	uint64_t gen;
	uint64_t used;          /* the cache's tick when last put or found */
	uint64_t *pcs;
	struct ct_frames *rec;
};

struct ct_frames_cache {
	struct slot s[SETS][WAYS];
	uint64_t tick;
};

static uint64_t hash_of(const struct ct_frames_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ k->pid ^ ((uint64_t)k->n << 32) ^ k->gen;

	for (uint32_t i = 0; i < k->n; i++)
		h = (h ^ k->pcs[i]) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

uint32_t ct_frames_cache_set(const struct ct_frames_key *k)
{
	return (uint32_t)(hash_of(k) % SETS);
}

static bool holds(const struct slot *s, const struct ct_frames_key *k)
{
	return s->rec && s->pid == k->pid && s->gen == k->gen && s->n == k->n &&
	       s->end == k->end && s->span == k->span &&
	       !memcmp(s->pcs, k->pcs, k->n * sizeof(*k->pcs));
}

const struct ct_frames *ct_frames_cache_get(struct ct_frames_cache *c, const struct ct_frames_key *k)
{
	struct slot *set = c->s[ct_frames_cache_set(k)];

	for (int w = 0; w < WAYS; w++)
		if (holds(&set[w], k)) {
			set[w].used = ++c->tick;
			return set[w].rec;
		}
	return NULL;
}

/* Where k goes in its set: its own slot, else an empty one, else the one
 * used longest ago. */
static struct slot *slot_for(struct ct_frames_cache *c, const struct ct_frames_key *k)
{
	struct slot *set = c->s[ct_frames_cache_set(k)], *pick = &set[0];

	for (int w = 0; w < WAYS; w++) {
		if (holds(&set[w], k) || !set[w].rec)
			return &set[w];
		if (set[w].used < pick->used)
			pick = &set[w];
	}
	return pick;
}

void ct_frames_cache_put(struct ct_frames_cache *c, const struct ct_frames_key *k,
			 const struct ct_frames *f)
{
	struct slot *s = slot_for(c, k);
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
			    .gen = k->gen, .used = ++c->tick, .pcs = pcs, .rec = rec };
}

struct ct_frames_cache *ct_frames_cache_new(void)
{
	return calloc(1, sizeof(struct ct_frames_cache));
}

void ct_frames_cache_free(struct ct_frames_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < SETS; i++)
		for (int w = 0; w < WAYS; w++) {
			free(c->s[i][w].pcs);
			free(c->s[i][w].rec);
		}
	free(c);
}
