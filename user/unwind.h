/* SPDX-License-Identifier: MIT */
/*
 * -k on the capture machine: keeps the executable mappings of each traced
 * process, unwinds each CT_REC_STACK the kernel sends by CFI with elfutils
 * libdw (our own memory and register callbacks, over the copied stack), and
 * hands the named frames (CT_REC_FRAMES) and the mappings (CT_REC_MAPPING)
 * to the sink.
 */
#ifndef CT_UNWIND_H
#define CT_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"

struct ct_unwinder;

typedef void (*ct_unwind_sink)(void *ctx, const struct ct_rec *r);

struct ct_unwinder *ct_unwinder_new(const char *proc_root, ct_unwind_sink sink, void *ctx);
void ct_unwinder_free(struct ct_unwinder *u);
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
	uint64_t busy_ns;       /* time spent unwinding and naming (monotonic clock: a thread
	                         * CPU clock is a system call, twice a stack) */
	uint64_t maps_reads;    /* /proc/PID/maps reads */
	uint64_t holes;         /* stacks with pages never touched (read as zeros) */
};
const struct ct_unwind_stats *ct_unwinder_stats(const struct ct_unwinder *u);

#endif
