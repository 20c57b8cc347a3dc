// SPDX-License-Identifier: MIT
// cudaMalloc 1, 2 and 4 GiB, pausing after each and after freeing them, so
// that a scraper can compare cudatrace's device memory gauge with
// nvidia-smi at each step.  Prints one line per step ("step NAME"), then
// sleeps PAUSE seconds (argv[1], default 4).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <cuda_runtime.h>
#include "cuda_check.h"

static void step(const char *name, double pause)
{
	printf("step %s pid %d\n", name, (int)getpid());
	fflush(stdout);
	usleep((useconds_t)(pause * 1e6));
}

int main(int argc, char **argv)
{
	double pause = argc > 1 ? atof(argv[1]) : 4;
	const size_t gib = 1ull << 30;
	const size_t sizes[] = { 1 * gib, 2 * gib, 4 * gib };
	void *p[3];

	CHECK(cudaFree(0));   /* the context, before anything is counted */
	step("context", pause);
	for (int i = 0; i < 3; i++) {
		char name[32];

		CHECK(cudaMalloc(&p[i], sizes[i]));
		snprintf(name, sizeof(name), "malloc_%zu_GiB", sizes[i] / gib);
		step(name, pause);
	}
	for (int i = 0; i < 3; i++)
		CHECK(cudaFree(p[i]));
	step("freed", pause);
	return 0;
}
