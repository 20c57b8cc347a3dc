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
	return tap_done();
}
