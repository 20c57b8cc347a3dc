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

struct ct_gwsum;

struct ct_gwsum *ct_gwsum_new(FILE *out, bool json);
/* The view; its finish prints the table and frees it. */
struct ct_view ct_gwsum_view(struct ct_gwsum *s);
void ct_gwsum_free(struct ct_gwsum *s);

#endif
