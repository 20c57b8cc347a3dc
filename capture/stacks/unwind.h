/* SPDX-License-Identifier: MIT */
/*
 * -k on the capture machine: keeps the executable mappings of each traced
 * process, unwinds each CT_REC_STACK the kernel sends by CFI with elfutils
 * libdw (our own memory and register callbacks, over the copied stack;
 * most stacks from the rules libdw gave for each address before, which is
 * the same walk without libdw's work per frame: cfi_rules.h), and
 * hands the named frames (CT_REC_FRAMES) and the mappings (CT_REC_MAPPING)
 * to the sink.
 */
#ifndef CT_UNWIND_H
#define CT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include "cfi_rules.h"
#include "cudatrace.h"

/* Set in the environment, each stack walked from kept rules is walked by
 * libdw too, each stack the kernel walked is copied too and unwound here,
 * and any difference said (the tests set it). */
#define CT_UNWIND_CHECK_ENV "CT_UNWIND_CHECK"
/* Set, -k copies every stack for the capture to unwind (the design before
 * the kernel's walk), instead of walking it in the kernel. */
#define CT_STACK_COPY_ENV "CT_STACK_COPY"
bool ct_unwind_check_on(void);
bool ct_stack_walk_in_kernel(void);

struct ct_unwinder;

typedef void (*ct_unwind_sink)(void *ctx, const struct ct_rec *r);

struct ct_unwinder *ct_unwinder_new(const char *proc_root, ct_unwind_sink sink, void *ctx);
void ct_unwinder_free(struct ct_unwinder *u);
/* -k walked in the kernel: the tables' maps (bpf/unwind_tables.h) that u
 * fills as it learns processes and their files.  0, or -1 after saying why. */
struct ct_uw_fds;
int ct_unwinder_walk_in_kernel(struct ct_unwinder *u, const struct ct_uw_fds *fds);
/* pid's code changed (exec, a library mapped): read its mappings now. */
void ct_unwinder_refresh(struct ct_unwinder *u, uint32_t pid, uint64_t ts);
/* pid exited: its mappings go (after its last stacks, which come first). */
void ct_unwinder_forget(struct ct_unwinder *u, uint32_t pid);
/* Unwinds a checked CT_REC_STACK and sends its CT_REC_FRAMES, then its
 * CT_REC_STACK_END. */
void ct_unwinder_stack(struct ct_unwinder *u, const struct ct_stack *s);

/*
 * The capture's hook: stacks and code mappings are used here (true: not
 * for the sink); exec and exit records update the process (false: they go
 * on to the sink as usual).
 */
bool ct_unwinder_take(struct ct_unwinder *u, const struct ct_rec *r);

struct ct_unwind_stats {
	uint64_t stacks;        /* stacks unwound */
	uint64_t frames;
	uint64_t busy_ns;       /* time spent unwinding and naming (monotonic clock) */
	uint64_t cpu_ns;        /* of it, on the CPU: the thread's CPU clock (a system
	                         * call) around the work that may wait for a file's pages
	                         * (a copied stack; a walked one named the first time),
	                         * busy_ns around the rest (a walked stack named before) */
	uint64_t maps_reads;    /* /proc/PID/maps reads */
	uint64_t holes;         /* stacks with pages never touched (read as zeros) */
	uint64_t fast;          /* walked from the CFI rules kept (cfi_rules.h), not by libdw */
	uint64_t fast_named;    /* ... whose frames were named before (the cache of named walks) */
	/* The others, by why (enum ct_cfi_none; CT_CFI_USABLE: a read left the copy) */
	uint64_t left_to_libdw[CT_CFI_NONE_KINDS];
	uint64_t ring_records;  /* stack records from the kernel (copies and walks) */
	uint64_t ring_bytes;    /* ... their bytes through the ring (headers included) */
	uint64_t kstacks;       /* stacks the kernel walked (CT_REC_KSTACK) */
	uint64_t kstack_fp;     /* ... through code without a table, by frame pointer */
	uint64_t gaps;          /* ... past a frame without a table, its gap walked here */
	uint64_t gaps_lost;     /* ... whose gap could not be walked here: cut short */
	uint64_t kchecked;      /* CT_UNWIND_CHECK: kernel walks compared with the copy's */
	uint64_t kcheck_mismatches;
	uint64_t kcheck_past_copy;   /* ... compared up to the copy's end: the walk went on */
	uint64_t checked;       /* CT_UNWIND_CHECK: fast walks walked again by libdw */
	uint64_t check_mismatches;   /* ... that libdw walked otherwise */
};
const struct ct_unwind_stats *ct_unwinder_stats(const struct ct_unwinder *u);
/* How the frames were named (symbolize.h). */
struct ct_naming_stats;
const struct ct_naming_stats *ct_unwinder_naming(const struct ct_unwinder *u);
/* At the end: the source lines looked up kept for the next capture, and
 * the symbol cache under its bound (symbolize.h). */
void ct_unwinder_keep_cache(struct ct_unwinder *u);
/* The kernel tables' counts; false when the stacks are copied. */
struct ct_ktables_stats;
bool ct_unwinder_ktables_stats(const struct ct_unwinder *u, struct ct_ktables_stats *st);

#endif
