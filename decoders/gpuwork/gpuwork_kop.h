/* SPDX-License-Identifier: MIT */
/*
 * What a launch of one of CUDA's own kernels does, from its parameters:
 * on Hopper a device-to-device cudaMemcpy and a cudaMemset run as
 * kernels of libcuda's (memcpy32_post, memset32, ...), not on the copy
 * engine, so their sizes are in their parameters.  The layouts are in
 * decoders/gputables/kparams.tsv (measured, with their provenance).
 */
#ifndef CT_GPUWORK_KOP_H
#define CT_GPUWORK_KOP_H

#include <stdbool.h>
#include <stdint.h>

struct gw_event;
struct ct_kname;

struct gw_kop {
	const char *what;      /* "copy" or "set" */
	uint64_t dst, src, bytes;
	uint32_t fill;         /* "set": the byte written */
};

/* The operation a launch of kernel k with e's parameters does; false if
 * k is not one of libcuda's own kernels the table knows (named by its
 * code, not by size or ambiguously), or its parameters were not seen. */
bool gw_kernel_op(const struct gw_event *e, const struct ct_kname *k, struct gw_kop *op);

#endif
