// SPDX-License-Identifier: MIT
/*
 * A lazy table (capture/stacks/uw_lazy.c) against the whole one
 * (uw_rows.c) of the same file: FDEs added in batches (every STEPth FDE,
 * at an address inside it), and after each batch, at every row address of
 * the whole table (and one past it), the lazy run must give the same rule
 * where the FDE is built and CT_UW_NOT_BUILT where it is not; the run
 * sorted.  Prints
 *   ok FDES BUILT RUNS CHECKED whole_ms first_ms
 * (whole_ms: the whole table's build; first_ms: opening the file and
 * building its first FDE, the wait of a lazy table's first stack), or the
 * first difference, exit 1.  Usage: uw_lazy_check FILE [STEP]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "uw_lazy.h"

static const struct ct_uw_row *row_at(const struct ct_uw_row *v, size_t n, uint64_t addr)
{
	size_t lo = 0;

	if (!n || v[0].addr > addr)
		return NULL;
	while (n > 1) {
		size_t half = n / 2;

		if (v[lo + half].addr <= addr)
			lo += half;
		n -= half;
	}
	return &v[lo];
}

static bool same(const struct ct_uw_row *a, const struct ct_uw_row *b)
{
	if (!a || !b)
		return !a == !b || (a ? a : b)->kind == CT_UW_NO_FDE;
	return a->kind == b->kind && a->cfa_off == b->cfa_off && a->rbp == b->rbp;
}

/* Every whole-table address against the run; built[]: the FDEs added. */
static long check(const struct ct_uw_rows *whole, const struct ct_uw_rows *run,
		  const struct ct_uw_fdes *fdes, const uint8_t *built)
{
	long n = 0;

	for (size_t i = 1; i < run->n; i++)
		if (run->v[i].addr <= run->v[i - 1].addr) {
			printf("run not sorted at row %zu (%#x)\n", i, run->v[i].addr);
			return -1;
		}
	for (size_t i = 0; i < whole->n; i++)
		for (uint64_t a = whole->v[i].addr; a <= (uint64_t)whole->v[i].addr + 1; a++) {
			size_t f = ct_uw_fdes_find(fdes, a);
			const struct ct_uw_row *w = row_at(whole->v, whole->n, a);
			const struct ct_uw_row *l = row_at(run->v, run->n, a);
			bool ok = f == SIZE_MAX ? !l
				  : built[f] ? same(w, l) : l && l->kind == CT_UW_NOT_BUILT;

			if (!ok) {
				printf("at %#lx (FDE %zu, %s): whole kind %d off %d, lazy kind %d off %d\n",
				       (unsigned long)a, f, f != SIZE_MAX && built[f] ? "built" : "not built",
				       w ? w->kind : -1, w ? w->cfa_off : -1, l ? l->kind : -1,
				       l ? l->cfa_off : -1);
				return -1;
			}
			n++;
		}
	return n;
}

int main(int argc, char **argv)
{
	struct ct_uw_rows whole;
	enum ct_uw_rows_fail why;
	struct ct_uw_fdes *fdes;
	struct ct_uw_lazy *lz;
	const struct ct_uw_rows *run;
	size_t count, step = argc > 2 ? strtoul(argv[2], NULL, 10) : 97, runs = 0;
	bool stop = false;
	uint8_t *built;
	uint64_t t0, whole_ns, first_ns = 0;
	long checked = 0, c;
	int fd;

	if (argc < 2 || !step || (fd = open(argv[1], O_RDONLY)) < 0) {
		fprintf(stderr, "usage: uw_lazy_check FILE [STEP]\n");
		return 2;
	}
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	why = ct_uw_rows_build(fd, CT_UW_ROWS_MAX, &stop, NULL, &whole);
	whole_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
	fdes = ct_uw_fdes_open(fd, &why);
	if (why != CT_UW_ROWS_OK || !fdes) {
		printf("%s: no table (%d)\n", argv[1], why);
		return 1;
	}
	count = ct_uw_fdes_count(fdes);
	built = calloc(count, 1);
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	lz = ct_uw_lazy_open(fd, &why);
	/* Batches: FDEs k, k + step, ... for k = step / 2, then 0, then the last. */
	for (size_t pass = 0; lz && pass < 3; pass++) {
		size_t from = pass == 0 ? step / 2 : pass == 1 ? 0 : count - 1;
		size_t by = pass == 2 ? 1 : step;

		for (size_t i = from; i < count; i += by) {
			uint64_t a = ct_uw_fdes_start(fdes, i) + (pass ? 0 : 1);

			if (ct_uw_fdes_find(fdes, a) != i)
				a = ct_uw_fdes_start(fdes, i);
			if (ct_uw_lazy_add(lz, &a, 1))
				built[i] = 1;
			if (!first_ns)
				first_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
			if ((i / by) % 8 == 0 || pass == 2) {
				if (!(run = ct_uw_lazy_run(lz)) || (c = check(&whole, run, fdes, built)) < 0)
					return 1;
				checked += c;
				runs++;
			}
		}
	}
	if (!lz) {
		printf("lazy open failed (%d)\n", why);
		return 1;
	}
	printf("ok %zu %zu %zu %ld %.1f %.3f\n", count, ct_uw_lazy_built(lz), runs, checked,
	       whole_ns / 1e6, first_ns / 1e6);
	return 0;
}
