/* SPDX-License-Identifier: MIT */
/*
 * The summary view (-c, -C): strace -c for the NVIDIA driver.  Counts every
 * call the decoder hands it, per escape, per RM control command, per UVM
 * request, and mmap/munmap, with exact latency percentiles, and prints the
 * table (or JSON rows) when the decoder finishes.  docs/VIEWS.md describes
 * the output.
 */
#ifndef CT_SUMMARY_H
#define CT_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "call.h"

struct ct_summary;

struct ct_summary_opts {
	FILE *out;      /* the decoder's output stream */
	bool json;      /* one {"type":"summary",...} object per row */
	bool by_pid;    /* --summary-by=pid: one table per process */
	bool by_gpu;    /* --summary-by=gpu: one table per GPU (call->gpu) */
};

struct ct_summary *ct_summary_new(const struct ct_summary_opts *o);
/* The view to give ct_decoder_add_view(): its finish prints the table and
 * frees the summary, so the caller frees it only if the view was never
 * added (ct_summary_free). */
struct ct_view ct_summary_view(struct ct_summary *s);
/* For callers that drive it by hand (tests): count one call, print. */
void ct_summary_add(struct ct_summary *s, const struct ct_call *c);
void ct_summary_print(struct ct_summary *s);
void ct_summary_free(struct ct_summary *s);

/* Row figures, for tests: the row of (pid, kind, name); pid is ignored
 * unless by_pid.  Returns false if there is no such row. */
struct ct_summary_row_stats {
	uint64_t calls, errors, timed;   /* timed: calls with a latency */
	uint64_t total_ns, mean_ns, p50_ns, p99_ns, max_ns;
};
bool ct_summary_lookup(struct ct_summary *s, uint32_t pid, const char *kind,
		       const char *name, struct ct_summary_row_stats *out);

/* Exact nearest-rank percentile of n sorted values: the value at rank
 * ceil(p/100 * n) (1-based).  n > 0, 0 < p <= 100. */
uint64_t ct_percentile_sorted(const uint64_t *v, size_t n, unsigned p);

#endif
