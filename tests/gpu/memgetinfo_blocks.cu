// SPDX-License-Identifier: MIT
// cudaMemGetInfo for SECONDS (argv[1], default 30) in blocks of BLOCK calls
// (argv[2], default 2000), one line per block:
//   block T_NS ns_per_call X
// T_NS: CLOCK_MONOTONIC at the block's end.  device-attach.sh attaches and
// detaches cudatrace while this runs, so traced and untraced blocks of one
// process compare (the driver's own per-process spread is then the same).
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuda_check.h"

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 30;
	long block = argc > 2 ? atol(argv[2]) : 2000;
	size_t free_b, total_b;

	if (seconds <= 0 || block <= 0) {
		fprintf(stderr, "usage: memgetinfo_blocks [SECONDS [BLOCK]]\n");
		return 2;
	}
	CHECK(cudaFree(0));   // the context, outside the timed blocks
	long long start = now_ns(), end = start + (long long)(seconds * 1e9);
	for (long long t0 = start; t0 < end;) {
		for (long i = 0; i < block; i++)
			CHECK(cudaMemGetInfo(&free_b, &total_b));
		long long t1 = now_ns();
		printf("block %lld ns_per_call %.1f\n", t1, (double)(t1 - t0) / block);
		fflush(stdout);
		t0 = t1;
	}
	return 0;
}
