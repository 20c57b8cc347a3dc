/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work: what the reader keeps per ring besides what the channel's
 * allocation said (struct gw_ring holds one of these): when to poll it
 * next, and its last look before exit (gpuwork_exit.c).
 */
#ifndef CT_GPUWORK_FOLLOW_H
#define CT_GPUWORK_FOLLOW_H

#include <stdbool.h>
#include <stdint.h>

struct gw_follow {
	/* adaptive polling (gpuwork_reader.c, gw_schedule) */
	uint64_t due_ns;            /* next poll; 0: at the next one */
	uint64_t interval_ns;       /* 1/HZ when idle, down to GW_BUSY_MIN_INTERVAL_NS when busy */
	uint64_t last_snap_ns;      /* the previous poll's read of GPPut */
	uint64_t hold_ns, hold_until_ns;   /* the shortest interval needed lately, kept until */
	/* the kernel's last look (gpuwork_exit.c) */
	bool published;             /* in the BPF map gw_exit, at `slot` */
	uint32_t slot, published_next;
	uint64_t published_ns;      /* when the map first held it (its update returned) */
	uint64_t looked_ns;         /* when the kernel's look at its process began */
	bool exit_seen;             /* its exit records came: the reader reads it no more */
	bool exit_no_put;           /* ... GPPut could not be read at exit */
	uint32_t exit_from, exit_skip, exit_expect, exit_got;
	uint64_t exit_ns;
};

#endif
