// SPDX-License-Identifier: MIT
// cudaMemGetInfo in a loop (one RM control per call): the per-call cost of
// tracing.  Prints: meminfo_loop n N ns_per_call X
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

static double now_ns()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	size_t free_b, total_b;

	if (cudaFree(0) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
		fprintf(stderr, "meminfo_loop: CUDA init failed\n");
		return 1;
	}
	double t0 = now_ns();
	for (int i = 0; i < n; i++)
		cudaMemGetInfo(&free_b, &total_b);
	double t1 = now_ns();
	printf("meminfo_loop n %d ns_per_call %.1f\n", n, (t1 - t0) / n);
	return 0;
}
