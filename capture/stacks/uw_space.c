// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uw_space.h"

static int global_barrier(void)
{
	return (int)syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
}

void ct_uw_space_init(struct ct_uw_space *s, uint32_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max;
	s->grace = global_barrier;
}

uint32_t ct_uw_space_tail(const struct ct_uw_space *s)
{
	return s->max - s->end;
}

static bool add(struct uw_span **v, size_t *n, size_t *cap, struct uw_span sp)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct uw_span *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return false;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = sp;
	return true;
}

static int by_first(const void *a, const void *b)
{
	const struct uw_span *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* After a grace: every old span free, neighbours joined (a lazy file's
 * runs follow each other), and free rows at the end given to the tail. */
static void reuse_old(struct ct_uw_space *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nold; i++)
		if (!add(&s->free, &s->nfree, &s->capfree, s->old[i]))
			s->old[k++] = s->old[i];   /* kept for the next grace */
	s->nold = k;
	qsort(s->free, s->nfree, sizeof(*s->free), by_first);
	k = 0;
	for (size_t i = 0; i < s->nfree; i++) {
		if (k && s->free[k - 1].first + s->free[k - 1].n == s->free[i].first)
			s->free[k - 1].n += s->free[i].n;
		else
			s->free[k++] = s->free[i];
	}
	s->nfree = k;
	if (k && s->free[k - 1].first + s->free[k - 1].n == s->end) {
		s->end = s->free[k - 1].first;
		s->spare -= s->free[k - 1].n;
		s->nfree--;
	}
}

static bool from_free(struct ct_uw_space *s, uint32_t n, uint32_t *first)
{
	for (size_t i = 0; i < s->nfree; i++) {
		if (s->free[i].n < n)
			continue;
		*first = s->free[i].first;
		s->free[i].first += n;
		s->free[i].n -= n;
		s->spare -= n;
		if (!s->free[i].n)
			s->free[i] = s->free[--s->nfree];
		return true;
	}
	return false;
}

bool ct_uw_space_take(struct ct_uw_space *s, uint32_t n, uint32_t *first)
{
	if (from_free(s, n, first))
		return true;
	if (n > ct_uw_space_tail(s) && s->nold && s->grace() == 0) {
		s->graces++;
		reuse_old(s);
		if (from_free(s, n, first))
			return true;
	}
	if (n > ct_uw_space_tail(s))
		return false;
	*first = s->end;
	s->end += n;
	return true;
}

void ct_uw_space_give(struct ct_uw_space *s, uint32_t first, uint32_t n)
{
	if (n && add(&s->old, &s->nold, &s->capold, (struct uw_span){ first, n }))
		s->spare += n;
}

void ct_uw_space_free(struct ct_uw_space *s)
{
	free(s->old);
	free(s->free);
	memset(s, 0, sizeof(*s));
}
