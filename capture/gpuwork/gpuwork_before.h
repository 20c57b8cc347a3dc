/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work cannot follow a channel made before the capture began: its
 * ring's address and size, and which memory holds its USERD, are named
 * only by the calls that made it (RM_ALLOC, RM_MAP_MEMORY, mmap), and
 * nothing outside the process lists them (RM answers about a channel only
 * to the client that made it; /proc/PID/maps shows the driver's mappings,
 * not which of them are rings, and reading device memory blindly is not
 * safe).  So the capture says so, at its start and at its end, naming the
 * traced processes that already had the driver's memory mapped.
 */
#ifndef CT_GPUWORK_BEFORE_H
#define CT_GPUWORK_BEFORE_H

#include <stdint.h>

#include "devices.h"

#define GW_BEFORE_NAMED 8   /* pids named in the lines; the rest counted */

struct ct_gpuwork_before {
	unsigned nprocs;                  /* processes with driver mappings at the start */
	uint32_t pids[GW_BEFORE_NAMED];
	unsigned long long mappings;      /* their mappings of /dev/nvidia* or --device files */
};

/* Looks at pids (npids 0: every process but self) under proc_root. */
void ct_gpuwork_before_scan(struct ct_gpuwork_before *b, const char *proc_root,
			    const uint32_t *pids, int npids, uint32_t self,
			    const struct ct_devices *devs);
/* The line on stderr, at the start or at the end; none if no process had any. */
void ct_gpuwork_before_say(const struct ct_gpuwork_before *b, bool at_end);

#endif
