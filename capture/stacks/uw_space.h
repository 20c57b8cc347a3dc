/* SPDX-License-Identifier: MIT */
/*
 * Where rows go in uw_rows (ktables.c's thread only): after every row in
 * use, or in an old run of a lazy file given back.  An old run is never
 * written while the kernel may still read it: it is reused only after a
 * grace period that began after it was given back (membarrier's global
 * barrier waits for every RCU read-side section, and each BPF program
 * runs inside one, so every walk that could have read the old entry has
 * ended), taken only when the rows after the last in use are short.
 */
#ifndef CT_UW_SPACE_H
#define CT_UW_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uw_span {
	uint32_t first, n;
};

struct ct_uw_space {
	uint32_t max, end;          /* the rows; those from end on never used */
	struct uw_span *old, *free; /* given back: waiting for a grace; reusable */
	size_t nold, capold, nfree, capfree;
	uint64_t spare;             /* rows in old and free */
	uint64_t graces;            /* grace periods waited for */
	int (*grace)(void);         /* 0 once one has passed (a test may stub it) */
};

void ct_uw_space_init(struct ct_uw_space *s, uint32_t max);
/* The rows after the last in use: a whole table's bound. */
uint32_t ct_uw_space_tail(const struct ct_uw_space *s);
/* n rows together: *first; false where none are free (after a grace). */
bool ct_uw_space_take(struct ct_uw_space *s, uint32_t n, uint32_t *first);
/* A run the kernel may still be reading, given back. */
void ct_uw_space_give(struct ct_uw_space *s, uint32_t first, uint32_t n);
void ct_uw_space_free(struct ct_uw_space *s);

#endif
