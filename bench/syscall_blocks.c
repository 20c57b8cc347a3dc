// SPDX-License-Identifier: MIT
/*
 * syscall_blocks [SECONDS [BLOCK]]: getppid, a system call cudatrace does
 * not trace, for SECONDS (default 30) in blocks of BLOCK calls (default
 * 5000), one line per block:
 *   block T_NS ns_per_call X
 * T_NS: CLOCK_MONOTONIC at the block's end.  bench/tax_windows.py attaches
 * and detaches tracers while this runs, so that their tax is read inside
 * one process, on one CPU, against the untraced stretches around it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	long block = argc > 2 ? atol(argv[2]) : 5000;

	if (seconds <= 0 || block <= 0) {
		fprintf(stderr, "usage: syscall_blocks [SECONDS [BLOCK]]\n");
		return 2;
	}
	long long start = now_ns(), end = start + (long long)(seconds * 1e9);
	for (long long t0 = start; t0 < end;) {
		for (long i = 0; i < block; i++)
			syscall(SYS_getppid);
		long long t1 = now_ns();
		printf("block %lld ns_per_call %.1f\n", t1, (double)(t1 - t0) / (double)block);
		fflush(stdout);
		t0 = t1;
	}
	return 0;
}
