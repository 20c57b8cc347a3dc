// SPDX-License-Identifier: MIT
/* The named stacks kept by frame addresses (capture/stacks/frames_cache.c). */
#include <stdlib.h>
#include <string.h>

#include "frames_cache.h"
#include "tap.h"

static struct ct_frames *rec(uint32_t nframes, uint64_t ts)
{
	struct ct_frames *f = calloc(1, sizeof(*f));

	f->h = (struct ct_rec){ CT_REC_FRAMES, sizeof(*f), ts, 7, 8 };
	f->nframes = nframes;
	return f;
}

/* Three stacks of one set, as a loop takes them in turn: the two ways keep
 * two, the one used longest ago gives way. */
static void in_turn(void)
{
	struct ct_frames_cache *c = ct_frames_cache_new();
	uint64_t pcs[3][2] = { { 0x401000, 0 } }, cand[2] = { 0x401000, 0 };
	struct ct_frames_key k[3], probe = { .pid = 7, .gen = 1, .n = 2, .span = 64 };
	struct ct_frames *f = rec(2, 1);
	int found = 1;

	probe.pcs = pcs[0];
	pcs[0][1] = 1;
	for (uint64_t v = 2; found < 3 && v < 1000000; v++) {   /* two more in pcs[0]'s set */
		cand[1] = v;
		probe.pcs = cand;
		if (ct_frames_cache_set(&probe) != ct_frames_cache_set(&(struct ct_frames_key){
			    .pid = 7, .gen = 1, .n = 2, .span = 64, .pcs = pcs[0] }))
			continue;
		memcpy(pcs[found++], cand, sizeof(cand));
	}
	for (int i = 0; i < 3; i++)
		k[i] = (struct ct_frames_key){ .pid = 7, .gen = 1, .n = 2, .span = 64, .pcs = pcs[i] };
	ct_frames_cache_put(c, &k[0], f);
	ct_frames_cache_put(c, &k[1], f);
	ok(found == 3 && ct_frames_cache_get(c, &k[1]) && ct_frames_cache_get(c, &k[0]),
	   "two stacks of one set: both kept");
	ct_frames_cache_put(c, &k[2], f);   /* k[0] found after k[1]: k[1] gives way */
	ok(ct_frames_cache_get(c, &k[2]) && ct_frames_cache_get(c, &k[0]) &&
	   !ct_frames_cache_get(c, &k[1]), "a third: the one used longest ago gives way");
	ct_frames_cache_put(c, &k[2], f);
	ok(ct_frames_cache_get(c, &k[0]) && ct_frames_cache_get(c, &k[2]),
	   "one put again takes its own slot, not the other's");
	free(f);
	ct_frames_cache_free(c);
}

int main(void)
{
	struct ct_frames_cache *c = ct_frames_cache_new();
	uint64_t pcs[3] = { 0x401000, 0x402000, 0x403000 }, other[3] = { 0x401000, 0x402000, 0x9 };
	struct ct_frames_key k = { .pid = 7, .gen = 1, .pcs = pcs, .n = 3, .end = 0, .span = 96 };
	struct ct_frames_key k2 = k;
	struct ct_frames *f = rec(3, 100);
	const struct ct_frames *got;

	ok(ct_frames_cache_get(c, &k) == NULL, "empty: nothing");
	ct_frames_cache_put(c, &k, f);
	got = ct_frames_cache_get(c, &k);
	ok(got && got != f && got->h.ts_ns == 100 && got->nframes == 3, "kept, as a copy");
	k2.pcs = other;
	ok(ct_frames_cache_get(c, &k2) == NULL, "other frame addresses: not it");
	k2 = k;
	k2.gen = 2;
	ok(ct_frames_cache_get(c, &k2) == NULL, "the process's mappings changed since: not it");
	k2 = k;
	k2.pid = 9;
	ok(ct_frames_cache_get(c, &k2) == NULL, "another process: not it");
	k2 = k;
	k2.end = CT_STACK_END_COPY_SHORT;
	ok(ct_frames_cache_get(c, &k2) == NULL, "another end: not it");
	k2 = k;
	k2.n = 2;
	ok(ct_frames_cache_get(c, &k2) == NULL, "fewer frames: not it");
	free(f);
	ct_frames_cache_free(c);
	in_turn();
	return tap_done();
}
