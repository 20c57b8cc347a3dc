/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work, inside the reader: the reader's state (gpuwork_reader.c) and
 * the reading of one ring (gpuwork_ring.c).
 */
#ifndef CT_GPUWORK_RING_H
#define CT_GPUWORK_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "gpuwork_chans.h"
#include "gpuwork_reader.h"

#define GW_MAX_PROCS   1024
#define GW_BATCH_BYTES (256 * 1024)   /* contiguous segments read in one pread */
#define GW_FRESH_MAX   1024           /* segments put while a batch was read, checked */
/* What a producer may be writing past its last submitted segment. */
#define GW_DANGER_BYTES (64 * 1024)
#define GW_STALE_RANGES 16            /* merged ranges of newer segments kept */

/* A process's /proc/PID/mem, and the slots its channels have in gw_exit. */
struct gw_proc { uint32_t pid; int fd; uint32_t slots; };
struct gw_range { uint64_t lo, hi; };
/* What one ring entry asks to read: its segment's address and length (cut
 * to the bound: n), or nothing (a control entry); ok false if the tables
 * lack the class's entry fields. */
struct gw_seg { uint64_t va; uint32_t want, n; bool ok, control; };

/*
 * What one thread reading rings has of its own: a poll's buffers and the
 * counters it adds to.  The reader's own (lane0) counts straight into
 * its stats; a worker's (gpuwork_lanes.c) are added to them after each
 * poll it took part in.
 */
struct gw_lane {
	struct ct_gpuwork *g;
	struct ct_gpuwork_stats *st;
	struct ct_gpu_seg *rec;           /* one record, max_dwords long */
	unsigned char *batch;             /* GW_BATCH_BYTES */
	struct gw_range *fresh;           /* GW_FRESH_MAX */
	uint64_t *ents;                   /* GW_RING_MAX ring entries of one poll */
	struct gw_seg *segs;              /* ... what each asks to read */
	bool *stale;                      /* ... and whether each was overwritten */
};

/* lane's buffers for segments of up to max_dwords; false: out of memory. */
bool gw_lane_init(struct gw_lane *l, struct ct_gpuwork *g, struct ct_gpuwork_stats *st,
		  uint32_t max_dwords);
void gw_lane_free(struct gw_lane *l);

struct gw_lanes;

struct ct_gpuwork {
	char proc_root[256];
	uint32_t max_dwords;
	ct_gpuwork_sink_fn sink;
	void *ctx;
	struct gw_chans chans;
	struct gw_proc procs[GW_MAX_PROCS];
	int nprocs;
	uint32_t gpput_off, gpget_off;    /* byte offsets in the USERD (tables) */
	bool probe;                       /* CUDATRACE_GPUWORK_PROBE: say how memory reads */
	bool costs;                       /* CUDATRACE_GPUWORK_COSTS: say where the time went */
	struct gw_lane lane0;             /* the reader thread's own */
	struct gw_lanes *lanes;           /* workers for polls of several processes */
	struct ct_gpuwork_stats st;
	void (*drain)(void *ctx);         /* hands over the kernel's records (capture.c) */
	void *drain_ctx;
	uint64_t idle_ns;                 /* 1/HZ: how often an idle ring is polled */
	struct ct_gpuwork_exit_map exit_map;   /* publish NULL: no last look */
};

/* An idle ring is polled at most this often (1000 Hz, --gpu-work's ceiling). */
#define GW_MIN_INTERVAL_NS 1000000ull
/* A busy ring (one whose GPPut moves fast enough to lap it, or that went
 * round) is polled down to this interval: NCCL's start-up and lazy module
 * loading fill a ring in less than 1 ms (H200, 2026-11-27). */
#define GW_BUSY_MIN_INTERVAL_NS 100000ull

/* /proc/PID/mem of pid, opened once; -1 if it cannot be (gpuwork_reader.c). */
int gw_mem_fd(struct ct_gpuwork *g, uint32_t pid);
/* Reads ring r's GPPut and GPGet now, into r->snap* (the reader's thread). */
void gw_snapshot_ring(struct ct_gpuwork *g, struct gw_ring *r);
/* Reads what ring r's producer put up to its snapshot. */
void gw_poll_ring(struct gw_lane *l, struct gw_ring *r);
/* Ring r ended (freed, exit, exec) after its snapshot: what it showed put
 * since the last poll is counted lost, never read. */
void gw_ring_ended(struct gw_lane *l, struct gw_ring *r);
/* Every segment the reader read, from a poll or from the kernel's last
 * look, passes here on its way to the sink (s: a record with its dwords
 * after it). */
void gw_take_segment(struct gw_lane *l, struct ct_gpu_seg *s);
/* Every record the reader makes goes to the sink through here (timed
 * under CUDATRACE_GPUWORK_COSTS: the sink decodes copies for the kernel
 * namer and queues the record). */
void gw_sink(struct gw_lane *l, const struct ct_rec *r);
/* The process of pid, made if new (NULL: too many). */
struct gw_proc *gw_proc_of(struct ct_gpuwork *g, uint32_t pid);

/* Reads the snapped rings, spread over threads by process where there
 * are several (gpuwork_lanes.c): each ring through poll(lane, ring). */
void gw_lanes_poll(struct ct_gpuwork *g, void (*poll)(struct gw_lane *l, struct gw_ring *r));
void gw_lanes_free(struct gw_lanes *ls);

/* gpuwork_exit.c: the kernel's last look before a process exits. */
/* Publishes ring r (its next index) for the kernel to read at exit. */
void gw_exit_publish(struct gw_lane *l, struct gw_ring *r);
/* Takes it out of the map (the ring ended). */
void gw_exit_unpublish(struct ct_gpuwork *g, struct gw_ring *r);
/* A CT_REC_GPU_EXIT: the entries and segments the kernel copied. */
void gw_exit_take(struct ct_gpuwork *g, const struct ct_gpu_exit *x);
/* The process exits (its PROC_EXIT): what its rings' exit looks lacked is counted. */
void gw_exit_finish(struct ct_gpuwork *g, uint32_t pid);

#endif
