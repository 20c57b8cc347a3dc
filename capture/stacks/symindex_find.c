// SPDX-License-Identifier: MIT
/*
 * Lookups in a file's symbol index: libdw's choice (elfutils'
 * dwfl_module_addrsym.c, __libdwfl_addrsym with adjust_st_value false, as
 * dwfl_module_addrinfo calls it), restated over symbols bucketed by
 * address:
 *  - the globals (the table from its first global on) are searched first,
 *    the locals only where no global sized symbol holds the address and no
 *    global label lies exactly at it;
 *  - among the sized symbols of one table that hold the address, taken in
 *    table order, one replaces the best so far if it starts later or binds
 *    more strongly (global 3, weak 2, local 1, others 0), or starts at the
 *    same place, is smaller and binds no less strongly;
 *  - else a sizeless symbol (a label) is the answer if it lies at M, the
 *    furthest any symbol at or below the address reaches (its start, or its
 *    start plus size), and in the address's section (absolute ones only at
 *    the address itself); of several, the last in table order, the locals'
 *    after the globals'.
 * tests/stacks/symindex_check.c holds it to libdw on real files.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symindex_int.h"

/* --- a bucket, read the first time ------------------------------------ */

/* Bucket b's symbols, read the first time, in table order (symindex.c's
 * fill): lookups scan a bucket whole rather than sort it, as most buckets
 * are read for one lookup, and the table order is libdw's tie-break.  A
 * symbol read is a cache and TLB miss in a large table; sorting was most
 * of a first lookup's time where buckets hold hundreds (docs/PERFORMANCE.md).
 * False where memory is short or the bucket names a symbol the table does
 * not keep (a cache written for another table). */
static bool bucket(struct ct_symindex *x, struct ct_symtable *t, uint32_t b,
		   const struct ct_sym **syms, uint32_t *len)
{
	uint32_t from = t->first[b];
	struct ct_sym *s;

	*len = t->first[b + 1] - from;
	*syms = t->read[b];
	if (*syms || !*len)
		return true;
	s = malloc((size_t)*len * sizeof(*s));
	if (!s)
		return false;
	if (x->src.syms)   /* the misses in flight together, not one by one */
		for (uint32_t k = 0; k < *len; k++)
			__builtin_prefetch(&x->src.syms[t->order[from + k]]);
	for (uint32_t k = 0; k < *len; k++)
		if (!ct_symindex_read(x, t->order[from + k], &s[k])) {
			free(s);
			return false;
		}
	*syms = t->read[b] = s;
	return true;
}

/* The bucket addr falls in; -1 for a table with none. */
static int64_t top_bucket(const struct ct_symtable *t, uint64_t addr)
{
	uint64_t b;

	if (!t->n)
		return -1;
	b = addr < t->lo ? 0 : (addr - t->lo) >> t->shift;
	return b < t->nb ? (int64_t)b : (int64_t)t->nb - 1;
}

/* --- the choice --------------------------------------------------------- */

struct look {
	struct ct_symindex *x;
	uint64_t addr;
	bool failed;            /* a bucket could not be read: libdw answers */
};

/* The furthest end of t's symbols at or below the address (0: none). */
static uint64_t reach_at(struct look *l, struct ct_symtable *t)
{
	int64_t top = top_bucket(t, l->addr);
	const struct ct_sym *s;
	uint64_t far;
	uint32_t n;

	if (top < 0)
		return 0;
	far = top ? t->reach[top - 1] : 0;
	if (!bucket(l->x, t, (uint32_t)top, &s, &n)) {
		l->failed = true;
		return far;
	}
	for (uint32_t i = 0; i < n; i++)
		if (s[i].value <= l->addr && s[i].value + s[i].size > far)
			far = s[i].value + s[i].size;
	return far;
}

/* Of t's sized symbols holding the address, the one with the lowest
 * table index above after (any, if !taken), or NULL.  Buckets are walked
 * down while some symbol in or below them reaches past the address. */
static const struct ct_sym *next_holder(struct look *l, struct ct_symtable *t, bool taken,
					uint32_t after)
{
	const struct ct_sym *next = NULL, *s;
	uint64_t addr = l->addr;
	int64_t b = top_bucket(t, addr);
	uint32_t n;

	for (; b >= 0 && t->reach[b] > addr; b--) {
		if (t->own[b] <= addr)
			continue;
		if (!bucket(l->x, t, (uint32_t)b, &s, &n)) {
			l->failed = true;
			return NULL;
		}
		for (uint32_t i = 0; i < n; i++)
			if (s[i].value <= addr && addr - s[i].value < s[i].size &&
			    (!taken || s[i].idx > after) && (!next || s[i].idx < next->idx))
				next = &s[i];
	}
	return next;
}

/* libdw's preference between the best sized symbol so far and the next
 * in table order. */
static bool replaces(const struct ct_sym *best, const struct ct_sym *s)
{
	if (!best || best->value < s->value || best->bind < s->bind)
		return true;
	return best->value == s->value &&
	       ((best->size > s->size && best->bind <= s->bind) ||
		(best->size >= s->size && best->bind < s->bind));
}

/* The sized symbol of t that libdw picks for the address, or NULL:
 * the holders folded in table order. */
static const struct ct_sym *sized_pick(struct look *l, struct ct_symtable *t)
{
	const struct ct_sym *best = NULL, *next;
	bool taken = false;
	uint32_t last = 0;

	while ((next = next_holder(l, t, taken, last))) {
		if (replaces(best, next))
			best = next;
		last = next->idx;
		taken = true;
	}
	return best;
}

/* libdw's section index for addr: a section's end counts as in it unless
 * the next starts there; 0 (SHN_UNDEF) where none holds it. */
static size_t section_of(const struct ct_symindex *x, uint64_t addr)
{
	size_t lo = 0, hi = x->nsecs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < x->secs[mid].start)
			hi = mid;
		else if (addr > x->secs[mid].end)
			lo = mid + 1;
		else {
			if (addr == x->secs[mid].end && mid + 1 < x->nsecs &&
			    addr == x->secs[mid + 1].start)
				mid++;
			return x->secs[mid].ndx;
		}
	}
	return SHN_UNDEF;
}

/* The last label of t (by table order) at exactly m, in the address's
 * section, or NULL.  m is at or below the address: no symbol of t lies
 * between them (m is the furthest any reaches). */
static const struct ct_sym *label_at(struct look *l, struct ct_symtable *t, uint64_t m)
{
	const struct ct_sym *pick = NULL, *s;
	int64_t b = top_bucket(t, m);
	uint32_t n;

	if (b < 0 || m > l->addr)
		return NULL;
	if (!bucket(l->x, t, (uint32_t)b, &s, &n)) {
		l->failed = true;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (s[i].value != m || s[i].size || (pick && s[i].idx < pick->idx))
			continue;
		if (s[i].abs ? m == l->addr : section_of(l->x, m) == section_of(l->x, l->addr))
			pick = &s[i];
	}
	return pick;
}

static const struct ct_sym *pick(struct look *l)
{
	struct ct_symindex *x = l->x;
	const struct ct_sym *s = sized_pick(l, &x->global);
	uint64_t m, lm;
	bool locals;

	if (s)
		return s;
	m = reach_at(l, &x->global);
	locals = x->search_locals && !(m == l->addr && label_at(l, &x->global, l->addr));
	if (locals) {
		if ((s = sized_pick(l, &x->local)))
			return s;
		lm = reach_at(l, &x->local);
		if (lm > m)
			m = lm;
	}
	if (locals && (s = label_at(l, &x->local, m)))
		return s;
	return label_at(l, &x->global, m);
}

/* A symbol's name; CT_SYMINDEX_ASK_LIBDW where it is empty, or outside
 * the strings (a cache written for another table). */
static const char *name_of(const struct ct_symindex *x, const struct ct_sym *s)
{
	const char *name = NULL;

	if (x->strtab && s->name < x->strtab_size)
		name = x->strtab + s->name;
	else if (!x->strtab && x->names)
		name = x->names[s->name];
	return name && name[0] ? name : CT_SYMINDEX_ASK_LIBDW;
}

const char *ct_symindex_lookup(struct ct_symindex *x, uint64_t addr, uint64_t *off)
{
	struct look l = { .x = x, .addr = addr };
	const struct ct_sym *s = pick(&l);

	if (l.failed)
		return CT_SYMINDEX_ASK_LIBDW;
	if (!s)
		return NULL;
	*off = addr - s->value;
	return name_of(x, s);
}
