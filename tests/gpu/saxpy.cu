// SPDX-License-Identifier: MIT
// The classic saxpy from the NVIDIA blog ("An Easy Introduction to CUDA C
// and C++"): a small, well-known workload to trace.  Prints the max error
// and exits 1 if it is not zero or any CUDA call fails.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

__global__ void saxpy(int n, float a, float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(void)
{
	int N = 1 << 20;
	float *x = (float *)malloc(N * sizeof(float));
	float *y = (float *)malloc(N * sizeof(float));
	float *d_x, *d_y;
	if (!x || !y)
		return 1;
	CHECK(cudaMalloc(&d_x, N * sizeof(float)));
	CHECK(cudaMalloc(&d_y, N * sizeof(float)));

	for (int i = 0; i < N; i++) {
		x[i] = 1.0f;
		y[i] = 2.0f;
	}
	CHECK(cudaMemcpy(d_x, x, N * sizeof(float), cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d_y, y, N * sizeof(float), cudaMemcpyHostToDevice));

	saxpy<<<(N + 255) / 256, 256>>>(N, 2.0f, d_x, d_y);
	CHECK(cudaGetLastError());   // launch errors are not returned by <<<>>>

	CHECK(cudaMemcpy(y, d_y, N * sizeof(float), cudaMemcpyDeviceToHost));

	float maxError = 0.0f;
	for (int i = 0; i < N; i++)
		maxError = fmaxf(maxError, fabsf(y[i] - 4.0f));
	printf("Max error: %f\n", maxError);

	CHECK(cudaFree(d_x));
	CHECK(cudaFree(d_y));
	free(x);
	free(y);
	return maxError == 0.0f ? 0 : 1;
}
