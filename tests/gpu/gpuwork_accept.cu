// SPDX-License-Identifier: MIT
// --gpu-work acceptance (issue 21): N kernel launches of distinct random
// grid sizes and M host-to-device copies (pinned memory, cudaMemcpyAsync)
// of distinct random sizes, N, M and the sizes drawn from SEED (default:
// the clock).  Prints "seed S n N m M", then "launch GRID BLOCK" and
// "copy BYTES" in issue order, then "done".  Stays alive HOLD_MS (default
// 300) after the last one so a poller can read the ring.
// usage: gpuwork_accept [SEED [HOLD_MS]]
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>
#include "cuda_check.h"

__global__ void touch(int *p)
{
	if (threadIdx.x == 0 && blockIdx.x == 0)
		p[0]++;
}

static bool seen(const unsigned *v, int n, unsigned x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], 0, 10) : (unsigned)time(0) ^ (unsigned)getpid();
	int hold = argc > 2 ? atoi(argv[2]) : 300;
	srand(seed);
	int n = 20 + rand() % 181, m = 5 + rand() % 46;
	static unsigned grid[256], bytes[64];
	for (int i = 0; i < n; i++)
		do grid[i] = 1 + rand() % 65535; while (seen(grid, i, grid[i]));
	for (int i = 0; i < m; i++)
		do bytes[i] = 4 * (1 + rand() % (1 << 20)); while (seen(bytes, i, bytes[i]));
	printf("seed %u n %d m %d\n", seed, n, m);
	int *d;
	char *host, *dev;
	CHECK(cudaMalloc(&d, 4));
	CHECK(cudaMalloc(&dev, 4 << 20));
	CHECK(cudaMallocHost(&host, 4 << 20));
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaDeviceSynchronize());
	usleep(100000);   // everything before this is set-up
	for (int i = 0; i < n || i < m; i++) {
		if (i < n) {
			unsigned block = 32 * (1 + (unsigned)i % 8);
			touch<<<grid[i], block, 0, s>>>(d);
			printf("launch %u %u\n", grid[i], block);
		}
		if (i < m) {
			CHECK(cudaMemcpyAsync(dev, host, bytes[i], cudaMemcpyHostToDevice, s));
			printf("copy %u\n", bytes[i]);
		}
	}
	CHECK(cudaStreamSynchronize(s));
	printf("done\n");
	fflush(stdout);
	usleep(hold * 1000);
	return 0;
}
