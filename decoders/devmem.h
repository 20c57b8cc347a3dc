/* SPDX-License-Identifier: MIT */
/*
 * Device memory by process: what the driver allocated and has not freed,
 * per (process, GPU, kind), from the calls a capture saw.  Allocations are
 * RM objects of memory classes (NV_ESC_RM_ALLOC, NV_ESC_RM_ALLOC_MEMORY)
 * with the size their params give (read by field name through the
 * layouts of the trace's driver); they end with RM_FREE of the object, of
 * an object above it (its device, its client) or with the process.
 * Counts start at zero when the capture starts: memory a process held
 * before is not seen (ct_devmem_total.seen_start says whether its start
 * was).  A tracker is fed like a view: ct_devmem_record() for every
 * record, ct_devmem_call() for every call.
 */
#ifndef CT_DEVMEM_H
#define CT_DEVMEM_H

#include <stdbool.h>
#include <stdint.h>
#include "call.h"

enum ct_mem_kind { CT_MEM_VIDEO, CT_MEM_SYSTEM, CT_MEM_VIRTUAL, CT_MEM_KINDS };
/* "video", "system", "virtual" */
extern const char *const ct_mem_kind_names[CT_MEM_KINDS];

#define CT_DEVMEM_TOP 5   /* largest allocations kept per process, GPU and kind */

struct ct_devmem_alloc {
	uint32_t client, handle, parent, hclass;
	const char *class_name, *parent_class;   /* NULL if unknown */
	uint64_t size;
	uint64_t ts_ns, freed_ns;                  /* freed_ns 0: still held */
};

struct ct_devmem_total {
	uint32_t pid;
	char comm[CT_COMM_LEN + 1];
	int gpu;                  /* -1 unknown */
	enum ct_mem_kind kind;
	uint64_t held, peak, peak_ns;   /* bytes; when the peak was reached */
	uint64_t allocs, frees, unsized;   /* unsized: allocations of unknown size */
	bool seen_start;          /* the capture saw the process start (exec, fork)
				   * or its first call open its driver session */
	struct ct_devmem_alloc top[CT_DEVMEM_TOP];   /* largest first */
	int ntop;
};

struct ct_devmem;

/* changed (may be NULL) is called after each change of a total's held. */
typedef void (*ct_devmem_changed_fn)(void *ctx, const struct ct_devmem_total *t,
				      uint64_t ts_ns);
struct ct_devmem *ct_devmem_new(ct_devmem_changed_fn changed, void *ctx);
void ct_devmem_free(struct ct_devmem *m);

void ct_devmem_record(struct ct_devmem *m, const struct ct_rec *r);
void ct_devmem_call(struct ct_devmem *m, const struct ct_call *c);

/* Every total, in the order first seen. */
const struct ct_devmem_total *ct_devmem_totals(const struct ct_devmem *m, size_t *n);
/* The capture's start (META start_monotonic_ns), 0 if unknown. */
uint64_t ct_devmem_start_ns(const struct ct_devmem *m);
/* The size an allocation call's params give (NV_MEMORY_ALLOCATION_PARAMS
 * size, or NVOS02 limit + 1), read by field name through the layouts the
 * decoder chose for the call (the trace's driver); false if unknown. */
bool ct_mem_alloc_size(const struct ct_call *c, uint64_t *size);
/* Memory class -> kind; false if hclass is not a memory class. */
bool ct_mem_kind_of(uint32_t hclass, enum ct_mem_kind *kind);

#endif
