// SPDX-License-Identifier: MIT
// cudaMalloc/cudaFree of 1 MiB, N times (argv[1], default 1000): a steady
// stream of RM allocation ioctls for measuring tracer overhead.
// Prints: malloc_loop iters N elapsed_ms X
#include <chrono>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	if (n <= 0) {
		fprintf(stderr, "usage: malloc_loop [ITERATIONS]\n");
		return 2;
	}
	CHECK(cudaFree(0));   // create the context outside the timed loop

	auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < n; i++) {
		void *p;
		CHECK(cudaMalloc(&p, 1 << 20));
		CHECK(cudaFree(p));
	}
	auto t1 = std::chrono::steady_clock::now();

	double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
	printf("malloc_loop iters %ld elapsed_ms %.3f\n", n, ms);
	return 0;
}
