// SPDX-License-Identifier: MIT
// cudaMemGetInfo N times (argv[1], default 20000): one RM_CONTROL ioctl per
// call, the driver's cheapest; what tracing adds per traced call on a GPU.
// Prints: memgetinfo_loop calls N ns_per_call X
#include <chrono>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	size_t free_b, total_b;

	if (n <= 0) {
		fprintf(stderr, "usage: memgetinfo_loop [CALLS]\n");
		return 2;
	}
	CHECK(cudaFree(0));   // create the context outside the timed loop
	for (int i = 0; i < 1000; i++)
		CHECK(cudaMemGetInfo(&free_b, &total_b));

	auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < n; i++)
		CHECK(cudaMemGetInfo(&free_b, &total_b));
	auto t1 = std::chrono::steady_clock::now();

	double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
	printf("memgetinfo_loop calls %ld ns_per_call %.1f\n", n, ns / n);
	return 0;
}
