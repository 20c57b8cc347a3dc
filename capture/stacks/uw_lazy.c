// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "uw_lazy.h"

/* A built FDE: its rows in the pool. */
struct built {
	uint32_t fde;
	uint32_t off, n;
};

struct ct_uw_lazy {
	struct ct_uw_fdes *fdes;
	uint8_t *done;           /* per FDE: built (or tried) */
	struct built *b;         /* the built FDEs, sorted by fde after each add */
	size_t nb, capb;
	struct ct_uw_rows pool;  /* every built FDE's rows, in build order */
	struct ct_uw_rows run;
};

struct ct_uw_lazy *ct_uw_lazy_open(int fd, enum ct_uw_rows_fail *why)
{
	struct ct_uw_lazy *l = calloc(1, sizeof(*l));

	*why = CT_UW_ROWS_NO_MEM;
	if (!l || !(l->fdes = ct_uw_fdes_open(fd, why)) ||
	    !(l->done = calloc(ct_uw_fdes_count(l->fdes) + 1, 1))) {
		if (l && l->fdes)
			*why = CT_UW_ROWS_NO_MEM;
		ct_uw_lazy_close(l);
		return NULL;
	}
	return l;
}

static bool grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *p;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return true;
	if (!(p = realloc(*v, c * size)))
		return false;
	*v = p;
	*cap = c;
	return true;
}

static bool keep(struct ct_uw_lazy *l, size_t fde, const struct ct_uw_row *rows, size_t n)
{
	if (!grow((void **)&l->b, &l->capb, l->nb + 1, sizeof(*l->b)) ||
	    !grow((void **)&l->pool.v, &l->pool.cap, l->pool.n + n, sizeof(*rows)) ||
	    l->pool.n + n > UINT32_MAX)
		return false;
	memcpy(l->pool.v + l->pool.n, rows, n * sizeof(*rows));
	l->b[l->nb++] = (struct built){ .fde = (uint32_t)fde, .off = (uint32_t)l->pool.n,
				       .n = (uint32_t)n };
	l->pool.n += n;
	return true;
}

static int by_fde(const void *a, const void *b)
{
	const struct built *x = a, *y = b;

	return x->fde < y->fde ? -1 : x->fde > y->fde;
}

size_t ct_uw_lazy_add(struct ct_uw_lazy *l, const uint64_t *addrs, size_t n)
{
	size_t added = 0, nb0 = l->nb;

	for (size_t k = 0; k < n; k++) {
		size_t i = ct_uw_fdes_find(l->fdes, addrs[k]), rn;
		const struct ct_uw_row *rows;
		struct ct_uw_row other;

		if (i == SIZE_MAX || l->done[i])
			continue;
		if (ct_uw_fdes_rows(l->fdes, i, CT_UW_ROWS_MAX, &rows, &rn) != CT_UW_ROWS_OK ||
		    !rn) {
			other = (struct ct_uw_row){ .addr = ct_uw_fdes_start(l->fdes, i),
						    .kind = CT_UW_OTHER };
			rows = &other;
			rn = 1;
		}
		if (!keep(l, i, rows, rn))
			break;
		l->done[i] = 1;
		added++;
	}
	if (l->nb != nb0)
		qsort(l->b, l->nb, sizeof(*l->b), by_fde);
	return added;
}

/* A row after the last: one at the same address replaces it (an FDE's
 * first row replaces the CT_UW_NOT_BUILT put where it starts); the same
 * rule goes on without a row. */
static bool put(struct ct_uw_rows *r, struct ct_uw_row row)
{
	struct ct_uw_row *last = r->n ? &r->v[r->n - 1] : NULL;

	if (last && last->addr == row.addr) {
		*last = row;
		return true;
	}
	if (last && last->kind == row.kind && last->cfa_off == row.cfa_off && last->rbp == row.rbp)
		return true;
	if (!grow((void **)&r->v, &r->cap, r->n + 1, sizeof(row)))
		return false;
	r->v[r->n++] = row;
	return true;
}

static struct ct_uw_row not_built(const struct ct_uw_lazy *l, size_t fde)
{
	return (struct ct_uw_row){ .addr = ct_uw_fdes_start(l->fdes, fde),
				   .kind = CT_UW_NOT_BUILT };
}

const struct ct_uw_rows *ct_uw_lazy_run(struct ct_uw_lazy *l)
{
	size_t count = ct_uw_fdes_count(l->fdes);
	bool ok = true;

	l->run.n = 0;
	if (count)
		ok = put(&l->run, not_built(l, 0));
	for (size_t k = 0; k < l->nb && ok; k++) {
		const struct built *b = &l->b[k];

		for (uint32_t j = 0; j < b->n && ok; j++)
			ok = put(&l->run, l->pool.v[b->off + j]);
		if (b->fde + 1 < count && ok)
			ok = put(&l->run, not_built(l, b->fde + 1));
	}
	return ok ? &l->run : NULL;
}

size_t ct_uw_lazy_built(const struct ct_uw_lazy *l)
{
	return l->nb;
}

void ct_uw_lazy_close(struct ct_uw_lazy *l)
{
	if (!l)
		return;
	ct_uw_fdes_close(l->fdes);
	free(l->done);
	free(l->b);
	ct_uw_rows_free(&l->pool);
	ct_uw_rows_free(&l->run);
	free(l);
}
