/* SPDX-License-Identifier: MIT */
/*
 * -k walked in the kernel: the unwind tables the capture keeps in the BPF
 * maps of bpf/unwind_tables.h.  Each traced process's executable file
 * mappings go into its mapping table at once (each file named by an id);
 * a file's rows (uw_rows.h) are built when a stack the kernel had to copy
 * passes through it, by a thread of their own (a large library takes
 * seconds, which the ring's reader must not wait), the smallest file
 * waiting first (a build gives way when a smaller file is wanted, and is
 * taken up again after: one GiB library must not hold back the small ones
 * every stack passes through), and written straight
 * into the row array's memory (mmap).  Until then stacks through that
 * file are copied and unwound here, as before.  Rows are never freed:
 * the array's size bounds them, and a file that does not fit has no table
 * (its stacks are copied, counted).  A large file's table is lazy
 * (uw_lazy.h): only the FDEs the copies' frames passed through, built
 * before the next whole file's, each batch a new run, after the last in
 * rows kept for the file, doubled when full (rows left are reused only
 * after a grace period, when the rows run short: uw_space.h).
 */
#ifndef CT_KTABLES_H
#define CT_KTABLES_H

#include <stdint.h>
#include "codemaps.h"
#include "uw_rows.h"

struct ct_ktables;

/* The tables' BPF maps (procs -1: -k copies the stacks). */
struct ct_uw_fds {
	int procs, files, rows, gen;
};

#define CT_KT_NAME 64   /* a file's name kept, cut */

struct ct_ktables_stats {
	uint64_t files;              /* files given an id */
	uint64_t loaded;             /* ... whose table is loaded */
	uint64_t none[CT_UW_ROWS_FAIL_KINDS];   /* ... that have none, by why */
	uint64_t rows, rows_max;     /* rows in use, of the array's */
	uint64_t build_ns;           /* the table thread's time building and loading */
	uint64_t procs;              /* process tables written */
	uint64_t maps_cut;           /* mappings left out of a full process table */
	uint64_t gave_way;           /* builds left for a smaller file, taken up again */
	uint64_t queued;             /* files waiting for the thread, now */
	uint64_t lazy;               /* files with lazy tables (only the FDEs asked for) */
	uint64_t lazy_fdes;          /* ... FDEs built on demand */
	uint64_t lazy_runs;          /* ... runs written (one a file a batch of asks) */
	uint64_t rows_old;           /* rows of lazy files' runs replaced, in all */
	uint64_t rows_spare;         /* ... not reused yet (uw_space.h) */
	uint64_t graces;             /* grace periods waited for, to reuse them */
	uint64_t lazy_full;          /* FDEs built but left out: the rows were full */
	uint64_t kept_files;         /* files asked for as the last capture did (uw_asks.h) */
	uint64_t kept_fdes;          /* ... their lazy FDEs */
	uint64_t tables_read;        /* whole tables read as the last capture kept them (uw_kept.h) */
	uint64_t tables_read_rows;   /* ... their rows */
	uint64_t tables_refused;     /* kept tables not of this build's rows, or damaged: built again */
	uint64_t tables_kept;        /* tables built and kept for the next capture */
	uint64_t tables_keep_failed; /* ... that could not be kept */
	char building[CT_KT_NAME];   /* the file the thread builds now ("" none) */
};

/* On the maps' fds (rows_max: uw_rows's size); NULL if the row array
 * cannot be mapped or the thread started. */
struct ct_ktables *ct_ktables_new(struct ct_uw_fds fds, uint32_t rows_max);
/* Keeps what this capture's stacks wanted of each file for the next
 * one (uw_asks.h), says on stderr where that failed, and frees. */
void ct_ktables_free(struct ct_ktables *kt);
/* pid's executable mappings, now: its table in the kernel. */
void ct_ktables_proc(struct ct_ktables *kt, uint32_t pid, const struct ct_codemaps *maps);
void ct_ktables_forget(struct ct_ktables *kt, uint32_t pid);
/* A stack passed through m's file at pc (a run-time address: a frame's pc,
 * or its return address - 1): build its table, unless done or under way;
 * a large file's (lazy) gets the FDE that holds pc. */
void ct_ktables_want(struct ct_ktables *kt, const struct ct_codemap *m, uint64_t pc);
/* A copy of the counts (the thread updates them). */
struct ct_ktables_stats ct_ktables_stats(struct ct_ktables *kt);

#endif
