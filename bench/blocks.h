/* SPDX-License-Identifier: MIT */
/*
 * The loop of the block programs (bench/syscall_blocks.c,
 * tests/gpu/memgetinfo_blocks.cu): call() for `seconds`, in blocks of
 * `block` calls, one line per block on stdout:
 *   block T_NS ns_per_call X
 * T_NS: CLOCK_MONOTONIC at the block's end.  bench/attach_windows.py
 * attaches and detaches tracers while one runs and reads these lines, so
 * that traced and untraced stretches of one process compare.
 */
#ifndef CT_BENCH_BLOCKS_H
#define CT_BENCH_BLOCKS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline long long blocks_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* argv: [SECONDS [BLOCK]]; returns main's exit status. */
static inline int run_blocks(int argc, char **argv, const char *name, long default_block,
			     void (*call)(void))
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	long block = argc > 2 ? atol(argv[2]) : default_block;

	if (seconds <= 0 || block <= 0) {
		fprintf(stderr, "usage: %s [SECONDS [BLOCK]]\n", name);
		return 2;
	}
	long long start = blocks_now_ns(), end = start + (long long)(seconds * 1e9);
	for (long long t0 = start; t0 < end;) {
		for (long i = 0; i < block; i++)
			call();
		long long t1 = blocks_now_ns();
		printf("block %lld ns_per_call %.1f\n", t1, (double)(t1 - t0) / (double)block);
		fflush(stdout);
		t0 = t1;
	}
	return 0;
}

#endif
