/* SPDX-License-Identifier: MIT */
/*
 * The decoder: takes checked records (live from the ring buffer or from a
 * trace file: the same records, the same code) and prints them.
 */
#ifndef CT_DECODE_H
#define CT_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "call.h"
#include "cudatrace.h"

struct ct_decode_opts {
	FILE *out;
	bool json;
	int verbose;      /* 1: nested params in text; 2: hex dumps of every buffer */
	bool quiet;       /* print no events (views only, e.g. -c) */
	int timestamps;   /* text: 0 seconds since start, 1 -t, 2 -tt, 3 -ttt (strace's) */
	bool durations;   /* text: -T, time spent in the call */
	bool color;       /* text: ANSI colours (--color) */
	const char *api_lib; /* --api-lib: the driver library's file name pattern (NULL: default) */
	const char *py_user; /* --py-user: the user's Python files (NULL: the default rule) */
	/* Filters: a process line only for a process with a call shown (proc_lines.c). */
	bool procs_with_calls;
	/* Output handed to out in large blocks rather than after each record
	 * (-r into a file or a pipe: nobody watches it line by line). */
	bool batch_output;
};

struct ct_decode_stats {
	uint64_t records;
	uint64_t ioctls;          /* calls completed (entry or exit seen) */
	uint64_t shown;           /* calls that passed the filters */
	uint64_t unfinished;      /* entries with no exit */
	uint64_t exits_no_enter;  /* exits whose entry was lost */
	uint64_t stacks;          /* -k: frames records (0: a trace taken without -k) */
	uint64_t pystacks;        /* Python frames records (0: none, or no Python) */
	bool have_trailer;
	uint64_t trailer_events, trailer_lost, trailer_lost_inflight;
	uint32_t views_failed;    /* views whose finish failed (and said why) */
	/* --gpu-work: graph launches followed, QMDs a chain led to that could
	 * not be followed (their work unseen), QMD uploads not remembered
	 * (a process's memory of QMDs was full) */
	uint64_t gw_graph_launches, gw_unseen_qmds, gw_qmds_not_kept;
};

struct ct_decoder;

/* NULL when out of memory. */
struct ct_decoder *ct_decoder_new(const struct ct_decode_opts *opts);
/* rec must have passed ct_record_check(). */
void ct_decoder_feed(struct ct_decoder *d, const struct ct_rec *rec);
/* Adds a view; views see calls in the order added.  0, or -1 when out of
 * memory (the view is not added). */
int ct_decoder_add_view(struct ct_decoder *d, const struct ct_view *v);
/* Prints calls still waiting for their exit, then finishes the views. */
void ct_decoder_finish(struct ct_decoder *d);
const struct ct_decode_stats *ct_decoder_stats(const struct ct_decoder *d);
/* The errno of the first write to the output that failed (ENOSPC, EPIPE
 * ...), 0 while none has: a live capture stops on it. */
int ct_decoder_out_error(const struct ct_decoder *d);
/* What the GPU-work decoding has to say at the end ("gpu-work decoding: 4
 * graph launches followed, ..."), for the caller's closing line; false if
 * nothing (no graph followed, nothing unseen). */
bool ct_gpuwork_summary(const struct ct_decode_stats *st, char *buf, size_t n);
void ct_decoder_free(struct ct_decoder *d);


#endif
