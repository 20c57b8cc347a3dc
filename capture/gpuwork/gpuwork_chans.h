/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work, inside the reader: the channels and memory mappings learned
 * from a capture's records (gpuwork_chans.c), read by gpuwork_reader.c.
 */
#ifndef CT_GPUWORK_CHANS_H
#define CT_GPUWORK_CHANS_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"
#include "gpuwork_follow.h"

#define GW_RING_MAX 65536   /* larger rings (gpFifoEntries) are not followed */

struct gw_ring {
	uint32_t pid, client, handle, cls;
	int32_t gpu;
	uint64_t ring_va;           /* gpFifoOffset: a GPU address, the same in the process */
	uint32_t entries;           /* gpFifoEntries */
	uint32_t userd_mem;         /* hUserdMemory[0] */
	uint64_t userd_off;         /* userdOffset[0] */
	uint64_t userd_cpu;         /* its CPU address, 0 until the mapping is known */
	uint32_t next;              /* next ring index to read */
	uint64_t last_entry;        /* the entry at next - 1 when it was read */
	uint64_t pb_base;           /* address bits above an entry's, from the last
				     * SET_PB_SEGMENT_EXTENDED_BASE read (0 before) */
	bool have_last;
	uint64_t put_seen_ns;       /* when GPPut last read as `next` (or the allocation) */
	/* this poll's read of GPPut and GPGet, before the kernel's records are taken */
	bool snap;
	int snap_fd;                /* its process's /proc/PID/mem, as the snapshot found it */
	uint32_t snap_put, snap_get;
	uint64_t snap_ns;
	bool dead;                  /* freed, or its process gone: drop at the next poll */
	bool probed;                /* CUDATRACE_GPUWORK_PROBE done */
	struct gw_follow f;         /* the reader's own (gpuwork_follow.h) */
};

struct gw_chans {
	struct gw_ring *rings;
	size_t nrings, cap;
	struct gw_map *maps;        /* CPU mappings of memory objects */
	size_t nmaps, mapcap;
	struct gw_pending *pending; /* RM_MAP_MEMORY awaiting its mmap, by (pid, fd) */
	size_t npending, pendcap;
	uint32_t driver;
	struct ct_objects *objs;    /* the RM object tree: which GPU a channel is on */
	uint64_t learned;           /* channels learned so far */
	uint64_t unfollowed;        /* channel allocations that could not be followed */
	char unfollowed_why[320];   /* ... the last one's reason */
};

/* Learns from one checked record; returns true if a channel was added. */
bool gw_chans_learn(struct gw_chans *c, const struct ct_rec *r);
/* Finds the USERD CPU address of ring r if its mapping is known. */
bool gw_chans_resolve(struct gw_chans *c, struct gw_ring *r);
/* Removes the dead rings. */
void gw_chans_sweep(struct gw_chans *c);
void gw_chans_free(struct gw_chans *c);
/* A line on stderr if channel allocations could not be followed. */
void gw_chans_report(const struct gw_chans *c);

#endif
