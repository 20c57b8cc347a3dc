// SPDX-License-Identifier: MIT
/*
 * graph_probe: CUDA graphs and clusters of shapes the H200 probe did not
 * have, for --gpu-work's chain following (docs/GPUWORK.md, "Graphs and
 * clusters"; tests/gpu/device-graph.sh).  Prints its launches, one JSON
 * object a line, in program order: {"part":..,"grid":[..],"block":[..],
 * "cluster":[..],"graph":NAME,"graph_launch":N}; a graph's kernels may run
 * in any order the graph allows (fork-join: B and C).
 *
 *   A  a stream launch, then a linear graph (3 kernels) launched R times on
 *      the same stream, a stream launch between launches: a head behind
 *      stream work
 *   B  a fork-join graph (A; B and C on two streams; D) launched R times
 *   C  a graph of a memset node and a kernel, launched twice
 *   D  cudaLaunchKernelEx with a cluster (2,2,1), grid (8,6,1) blocks
 *
 * usage: graph_probe SEED   (R = 2 + SEED % 7)
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void k_add(float *p, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) p[i] = p[i] + a;
}

__global__ void k_cl(float *p, int n)
{
	int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n) p[i] *= 2.0f;
}

static void say(const char *part, int gx, int bx, const char *graph, int n)
{
	printf("{\"part\":\"%s\",\"grid\":[%d,1,1],\"block\":[%d,1,1],\"cluster\":[0,0,0],"
	       "\"graph\":\"%s\",\"graph_launch\":%d}\n", part, gx, bx, graph, n);
}

int main(int argc, char **argv)
{
	int seed = argc > 1 ? atoi(argv[1]) : 1, r = 2 + seed % 7, n = 1 << 22, i, j;
	float *d;
	cudaStream_t s1, s2, s3;
	cudaEvent_t fork, join;
	cudaGraph_t g;
	cudaGraphExec_t ga, gb, gc;

	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaStreamCreate(&s1));
	CK(cudaStreamCreate(&s2));
	CK(cudaStreamCreate(&s3));
	CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

	/* A: linear, behind stream work */
	CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	k_add<<<301, 256, 0, s1>>>(d, n, 1.0f);
	k_add<<<302, 128, 0, s1>>>(d, n, 2.0f);
	k_add<<<303, 64, 0, s1>>>(d, n, 3.0f);
	CK(cudaStreamEndCapture(s1, &g));
	CK(cudaGraphInstantiate(&ga, g, 0));
	for (j = 1; j <= r; j++) {
		k_add<<<300 + 10 * j, 32, 0, s1>>>(d, n, 0.5f);
		say("A", 300 + 10 * j, 32, "", 0);
		CK(cudaGraphLaunch(ga, s1));
		say("A", 301, 256, "A", j);
		say("A", 302, 128, "A", j);
		say("A", 303, 64, "A", j);
	}
	CK(cudaStreamSynchronize(s1));

	/* B: fork-join */
	CK(cudaStreamBeginCapture(s2, cudaStreamCaptureModeGlobal));
	k_add<<<401, 256, 0, s2>>>(d, n, 1.0f);
	CK(cudaEventRecord(fork, s2));
	CK(cudaStreamWaitEvent(s3, fork, 0));
	k_add<<<402, 256, 0, s2>>>(d, n / 2, 1.0f);
	k_add<<<403, 128, 0, s3>>>(d + n / 2, n / 2, 1.0f);
	CK(cudaEventRecord(join, s3));
	CK(cudaStreamWaitEvent(s2, join, 0));
	k_add<<<404, 64, 0, s2>>>(d, n, 1.0f);
	CK(cudaStreamEndCapture(s2, &g));
	CK(cudaGraphInstantiate(&gb, g, 0));
	for (j = 1; j <= r; j++) {
		CK(cudaGraphLaunch(gb, s2));
		say("B", 401, 256, "B", j);
		say("B", 402, 256, "B", j);
		say("B", 403, 128, "B", j);
		say("B", 404, 64, "B", j);
	}
	CK(cudaStreamSynchronize(s2));

	/* C: a memset node and a kernel */
	CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	CK(cudaMemsetAsync(d, 0, 123456, s1));
	k_add<<<501, 256, 0, s1>>>(d, n, 1.0f);
	CK(cudaStreamEndCapture(s1, &g));
	CK(cudaGraphInstantiate(&gc, g, 0));
	for (j = 1; j <= 2; j++) {
		CK(cudaGraphLaunch(gc, s1));
		say("C", 501, 256, "C", j);
	}
	CK(cudaStreamSynchronize(s1));

	/* D: a cluster of (2,2,1) over (8,6,1) blocks */
	{
		cudaLaunchConfig_t cfg = {};
		cudaLaunchAttribute at[1];

		cfg.gridDim = dim3(8, 6, 1);
		cfg.blockDim = dim3(32, 1, 1);
		at[0].id = cudaLaunchAttributeClusterDimension;
		at[0].val.clusterDim.x = 2;
		at[0].val.clusterDim.y = 2;
		at[0].val.clusterDim.z = 1;
		cfg.attrs = at;
		cfg.numAttrs = 1;
		for (i = 0; i < 1; i++)
			CK(cudaLaunchKernelEx(&cfg, k_cl, d, n));
		printf("{\"part\":\"D\",\"grid\":[8,6,1],\"block\":[32,1,1],\"cluster\":[2,2,1],"
		       "\"graph\":\"\",\"graph_launch\":0}\n");
	}
	CK(cudaDeviceSynchronize());
	fflush(stdout);
	return 0;
}
