/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work's kernel names (docs/KERNELS.md): fed the pushbuffer segments
 * the capture reads, it follows each channel's methods (the GPU-work
 * decoder, decoders/gpuwork/), keeps the code uploads it sees (inline on
 * the compute engine, and copy engine transfers), and for each launch of a
 * program address not named yet finds the function whose code was
 * uploaded there in the index of the files the process maps
 * (kindex.h), sending one CT_REC_KERNEL_NAME.  Files, process memory and
 * the sink come through struct ct_knamer_io, so that a trace file and the
 * files it ran can be named offline too (tests).  Not thread-safe: one
 * caller at a time.
 */
#ifndef CT_KNAMER_H
#define CT_KNAMER_H

#include <stdbool.h>
#include <stdint.h>

#include "cudatrace.h"
#include "kindex.h"

#define CT_KNAMER_UPLOAD_MAX   (16u << 20)  /* an inline upload larger is not kept */
#define CT_KNAMER_KEEP_BYTES   (16u << 20)  /* inline uploads kept per process, bytes */
#define CT_KNAMER_KEEP         512          /* ... and how many */
#define CT_KNAMER_COPIES       256          /* copy engine transfers kept per process */
#define CT_KNAMER_READ_MAX     (64u << 20)  /* staging buffer bytes read, at most */

struct ct_knamer_io {
	/* Adds to x the files pid maps that it lacks; false if they cannot be
	 * read (the process is gone). */
	bool (*index_files)(void *ctx, uint32_t pid, struct ct_kindex *x);
	/* Reads n bytes at off into the source of pid's copy engine copy
	 * src -> dst (the bytes it copied, where they can still be had);
	 * false if it cannot. */
	bool (*read_copy)(void *ctx, uint32_t pid, uint64_t src, uint64_t dst, uint64_t off,
			  void *buf, size_t n);
	/* Takes each CT_REC_KERNEL_NAME. */
	void (*emit)(void *ctx, const struct ct_rec *r);
	void *ctx;
};

struct ct_knamer_stats {
	uint64_t programs;        /* program addresses launched */
	uint64_t named[CT_KN_HOWS];   /* ... named, by how */
	uint64_t ambiguous;       /* ... of which several names matched */
	uint64_t not_seen;        /* ... whose code upload was not seen */
	uint64_t copy_unmatched;  /* ... uploaded by copy, neither read nor sized to a function */
	uint64_t refused_regs;    /* lookups whose code matched only functions needing more
				   * registers than the launch's QMD gives, or far fewer (not
				   * its code: a reused staging buffer) */
	uint64_t by_params;       /* ... of which one name's parameters end where the
				   * launch's do: named by it */
	uint64_t fewer_by_params; /* ambiguous, but fewer names by them */
	uint64_t stale_reads;     /* copies read back as a shorter function than the copy: named by size */
	uint64_t no_files;        /* ... not in the index, and the process's files could not
				   * be read: neither named nor called JIT */
	uint64_t uploads;         /* inline uploads kept */
	uint64_t copies_read;     /* copies that looked like code, read when seen (kept as the
				   * inline uploads are, a module's chunks joined) */
	uint64_t uploads_too_big; /* ... not kept: over CT_KNAMER_UPLOAD_MAX */
	uint64_t uploads_cut;     /* ... of which only the start came (a segment cut at the
				   * reader's bound, or lost): that start is kept */
	uint64_t capped;          /* program addresses whose code had more candidates than
				   * CT_KINDEX_VERIFY, none of those checked matching: unnamed */
	uint64_t index_runs;      /* times the files of a process were looked at */
	uint64_t index_ns;        /* time spent indexing */
};

struct ct_knamer;

struct ct_knamer *ct_knamer_new(const struct ct_knamer_io *io);
void ct_knamer_free(struct ct_knamer *k);
/* One segment record, before it goes to the sink. */
void ct_knamer_seg(struct ct_knamer *k, const struct ct_gpu_seg *s);
/* The process is gone (its uploads and channels are dropped). */
void ct_knamer_forget(struct ct_knamer *k, uint32_t pid);
/* Launches whose upload was not seen yet, since the last stop_waiting: a
 * copy-engine upload is often read just after the launch that waits for
 * it (another channel, later in the same poll). */
unsigned ct_knamer_waiting(const struct ct_knamer *k);
void ct_knamer_stop_waiting(struct ct_knamer *k);
const struct ct_knamer_stats *ct_knamer_stats(const struct ct_knamer *k);
const struct ct_kindex *ct_knamer_index(const struct ct_knamer *k);
/* The closing line on stderr. */
void ct_knamer_report(const struct ct_knamer *k);

#endif
