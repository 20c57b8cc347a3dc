/* SPDX-License-Identifier: MIT */
/*
 * The FRAMES records named for the stacks walked (the kernel's walks, and
 * the capture's fast walks of copies), kept by their frame addresses: a
 * loop's calls send the same stack again and again,
 * and naming it (a lookup and four strings a frame) was most of what the
 * capture spent on it.  An entry holds for one process in one state of
 * its mappings (gen: the unwinder moves it on when they change).
 */
#ifndef CT_FRAMES_CACHE_H
#define CT_FRAMES_CACHE_H

#include <stdint.h>
#include "cudatrace.h"

struct ct_frames_cache;

struct ct_frames_key {
	uint32_t pid;
	uint64_t gen;
	const uint64_t *pcs;
	uint32_t n, end, span;
};

struct ct_frames_cache *ct_frames_cache_new(void);
void ct_frames_cache_free(struct ct_frames_cache *c);
/* The record named before for k, or NULL. */
const struct ct_frames *ct_frames_cache_get(struct ct_frames_cache *c, const struct ct_frames_key *k);
/* Keeps f (copied) for k: in place of what k had, else of the record of
 * k's set used longest ago. */
void ct_frames_cache_put(struct ct_frames_cache *c, const struct ct_frames_key *k,
			 const struct ct_frames *f);
/* The set k falls in (for the checks). */
uint32_t ct_frames_cache_set(const struct ct_frames_key *k);

#endif
