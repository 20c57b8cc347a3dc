// SPDX-License-Identifier: MIT
// --gpu-work's "after" on a GPU (docs/GPUWORK.md): N launches of distinct
// grids, each 20 ms after a driver call (cudaMemGetInfo: an RM control;
// every third made by another thread) and 20 ms before the next, so that
// no call ends in the poll window of a launch.  Prints "call I TID" and
// "launch GRID" in program order, then "done".
// usage: gpuwork_tie [N]
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sys/syscall.h>
#include <unistd.h>
#include "cuda_check.h"

__global__ void touch(int *p)
{
	if (threadIdx.x == 0 && blockIdx.x == 0)
		p[0]++;
}

static void driver_call(int i)
{
	size_t free_b, total_b;

	CHECK(cudaMemGetInfo(&free_b, &total_b));
	printf("call %d %ld\n", i, (long)syscall(SYS_gettid));
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	int *p;

	CHECK(cudaMalloc(&p, 4096));
	CHECK(cudaDeviceSynchronize());
	usleep(100000);
	for (int i = 0; i < n; i++) {
		if (i % 3 == 2) {   // the calling thread must have the context current
			std::thread t([i] { CHECK(cudaSetDevice(0)); driver_call(i); });
			t.join();
		} else {
			driver_call(i);
		}
		usleep(20000);
		touch<<<100 + i, 32>>>(p);
		CHECK(cudaGetLastError());
		printf("launch %d\n", 100 + i);
		usleep(20000);
	}
	CHECK(cudaDeviceSynchronize());
	printf("done\n");
	fflush(stdout);
	usleep(300000);
	return 0;
}
