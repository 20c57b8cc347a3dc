/* SPDX-License-Identifier: MIT */
/*
 * -c with --gpu-work records: one row per process, channel engine and kind
 * of work (COMPUTE LAUNCH, COPY, HOST SEMAPHORE RELEASE, ..., and LOST /
 * UNREADABLE entries), with counts and copied bytes, printed after the
 * call summary; nothing when the trace has no GPU work.
 */
#ifndef CT_GPUWORK_SUMMARY_H
#define CT_GPUWORK_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>
#include "call.h"
#include "cudatrace.h"

struct ct_gwsum;

/* What a record standing for unseen work (CT_GS_LOST or CT_GS_FAULT) is:
 * its -c row, its --metrics reason, and what it counts (entries, or one
 * channel no longer followed). */
struct ct_gw_unseen {
	const char *row, *reason;
	uint64_t n;
	bool channel;
};
struct ct_gw_unseen ct_gw_unseen_of(const struct ct_gpu_seg *g);

struct ct_gwsum *ct_gwsum_new(FILE *out, bool json);
/* The view; its finish prints the table and frees it. */
struct ct_view ct_gwsum_view(struct ct_gwsum *s);
void ct_gwsum_free(struct ct_gwsum *s);

#endif
