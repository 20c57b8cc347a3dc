// SPDX-License-Identifier: MIT
// CHECK(call): exit with the file, line and CUDA's message when a runtime
// call fails.  Shared by the GPU workloads in this folder.
#ifndef CUDA_CHECK_H
#define CUDA_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                        \
	do {                                                               \
		cudaError_t e_ = (call);                                   \
		if (e_ != cudaSuccess) {                                   \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, \
				#call, cudaGetErrorString(e_));            \
			exit(1);                                           \
		}                                                          \
	} while (0)
#endif
