// SPDX-License-Identifier: MIT
// --gpu-work under load (docs/GPUWORK.md): empty kernel launches at RATE
// per second for SECONDS, paced by the clock.  Prints "launched N in S s".
// usage: gpuwork_rate RATE SECONDS  (RATE 0: idle for SECONDS)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include "cuda_check.h"

__global__ void empty() {}

int main(int argc, char **argv)
{
	double rate = argc > 1 ? atof(argv[1]) : 1000, secs = argc > 2 ? atof(argv[2]) : 1;
	empty<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	usleep(100000);
	auto t0 = std::chrono::steady_clock::now();
	long n = 0, want = (long)(rate * secs);
	if (rate <= 0)   // idle: the process and its channels, no work
		usleep((useconds_t)(secs * 1e6));
	while (n < want) {
		double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
		if (n < el * rate) {
			empty<<<1, 1>>>();
			n++;
		}
	}
	CHECK(cudaDeviceSynchronize());
	double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	printf("launched %ld in %.3f s\n", n, el);
	fflush(stdout);
	usleep(300000);
	return 0;
}
