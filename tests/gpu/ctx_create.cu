// SPDX-License-Identifier: MIT
// Create and destroy the primary context (cudaFree(0) + cudaDeviceReset):
// the densest burst of ioctls and mmaps a CUDA program makes.
// argv[1] repeats it (default 1).  Prints: ctx_create iters N elapsed_ms X
#include <chrono>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	if (n <= 0) {
		fprintf(stderr, "usage: ctx_create [ITERATIONS]\n");
		return 2;
	}
	auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < n; i++) {
		CHECK(cudaFree(0));          // initialises the driver and the context
		CHECK(cudaDeviceReset());    // tears the primary context down
	}
	auto t1 = std::chrono::steady_clock::now();

	double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
	printf("ctx_create iters %ld elapsed_ms %.3f\n", n, ms);
	return 0;
}
