/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work: follows the GPFIFO rings of the channels a capture sees
 * allocated, from outside the process (docs/GPUWORK.md).  Fed every record
 * of the capture, it learns each channel (RM_ALLOC of a host channel
 * class: gpFifoOffset, gpFifoEntries, hUserdMemory[0], userdOffset[0]) and
 * the CPU mapping of its USERD (the mmap that RM_MAP_MEMORY prepared for
 * that memory object).  Each poll reads GPPut from the USERD through
 * /proc/PID/mem, then the new ring entries and the pushbuffer segments
 * they point to, and hands one CT_REC_GPU_SEG record per entry to the
 * sink: a segment that cannot be read, or entries that could not be,
 * become records that say so.  Channels go with their process (exit,
 * exec), their RM_FREE, or their client's.
 */
#ifndef CT_GPUWORK_READER_H
#define CT_GPUWORK_READER_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"

struct ct_gpuwork;
typedef void (*ct_gpuwork_sink_fn)(void *ctx, const struct ct_rec *r);

/* What the poller reads of process memory, by purpose (CUDATRACE_GPUWORK_COSTS
 * prints them): a read of video memory through BAR1 costs microseconds. */
enum gw_read_kind {
	GW_READ_PUT,        /* GPPut and GPGet in the USERD */
	GW_READ_ENTRIES,    /* ring entries of a poll */
	GW_READ_FRESH,      /* ring entries put while a batch was read (the overwrite check) */
	GW_READ_SEGMENTS,   /* pushbuffer segments */
	GW_READ_KINDS
};

/* A read waits for the process's mmap lock: max_ns shows one that did. */
struct gw_read_cost { uint64_t reads, bytes, ns, max_ns; };

/* CUDATRACE_GPUWORK_COSTS: the anatomy of the longest poll, to tell a
 * reader that waited (voluntary switches: a lock) from one that was
 * preempted (involuntary ones) from one that simply had much to read. */
struct gw_poll_cost {
	uint64_t wall_ns, cpu_ns, rings, reads, procs, waits, preempts;
	uint64_t read_ns, sink_ns, drain_ns, seg_bytes;   /* where its time went */
};

struct ct_gpuwork_stats {
	uint64_t channels;          /* channels learned */
	uint64_t no_userd;          /* ... whose USERD mapping was never seen */
	uint64_t segments;          /* segments read */
	uint64_t bytes;             /* their bytes */
	uint64_t truncated;         /* cut at the bound */
	uint64_t control;           /* control entries (no segment: NOP, GP_CRC ...) */
	uint64_t unreadable;        /* segments that could not be read */
	uint64_t lost;              /* ring entries never read (wrap_lost included) */
	uint64_t wraps;             /* times a ring went round between polls */
	uint64_t wrap_lost;         /* entries lost in them: a lower bound (GPPut is an
				     * index into the ring: whole rings more may have gone) */
	uint64_t overwritten;       /* segments or entries overwritten while read (in lost) */
	uint64_t not_followed;      /* rings given up: a GPPut outside the ring */
	uint64_t polls;             /* polls of one ring or more */
	uint64_t ring_polls;        /* reads of one ring's GPPut */
	uint64_t fast_polls;        /* ... sooner than 1/HZ: the ring was busy */
	uint64_t cpu_ns;            /* thread CPU time spent polling */
	/* the kernel's last look before exit (docs/GPUWORK.md) */
	uint64_t exit_looks;        /* rings with work put after the last poll, read at exit */
	uint64_t exit_entries;      /* ... entries read then */
	uint64_t exit_unseen;       /* ... entries it could not copy (in lost) */
	uint64_t exit_no_put;       /* rings whose GPPut could not be read at exit */
	uint64_t exit_too_late;     /* rings published after their process's look began */
	uint64_t exit_gap_ns;       /* the longest a process ran after a ring's last poll */
	uint64_t unpublished;       /* rings the kernel could not be told of (map full) */
	struct gw_read_cost read[GW_READ_KINDS];   /* process memory read, by purpose */
	uint64_t late_max_ns;       /* the latest a poll came after its ring was due */
	uint64_t late_polls;        /* ring polls more than 1 ms after they were due */
	uint64_t drain_max_ns;      /* the longest hand-over of the kernel's records in a poll */
	uint64_t parallel_polls;    /* polls whose rings several threads read (gpuwork_lanes.c) */
	struct gw_poll_cost worst;  /* the longest poll (CUDATRACE_GPUWORK_COSTS only) */
	uint64_t sink_ns;           /* time in the sink (CUDATRACE_GPUWORK_COSTS only) */
};

/* max_dwords: the bound per segment (CT_GPU_SEG_MAX at most). */
struct ct_gpuwork *ct_gpuwork_new(const char *proc_root, uint32_t max_dwords,
				  ct_gpuwork_sink_fn sink, void *ctx);
void ct_gpuwork_free(struct ct_gpuwork *g);
/* drain(ctx), called in each poll after GPPut of every channel is read and
 * before anything is sent, hands the reader (and the sink) every record
 * the kernel has by then: a driver call that ended before a GPPut moved
 * reaches the sink before that poll's records (the rule of "after", in
 * docs/GPUWORK.md, needs it). */
void ct_gpuwork_set_drain(struct ct_gpuwork *g, void (*drain)(void *ctx), void *ctx);
/* Every record of the capture, in order (checked by ct_record_check). */
void ct_gpuwork_learn(struct ct_gpuwork *g, const struct ct_rec *r);
/* Reads what every channel's producer has put since the last poll. */
void ct_gpuwork_poll(struct ct_gpuwork *g, uint64_t now_ns);
/* The same, for the rings due by now_ns only: an idle ring is polled HZ
 * times a second, a busy one faster, before it can go round (up to
 * 1000 Hz). */
void ct_gpuwork_poll_due(struct ct_gpuwork *g, uint64_t now_ns);
/* When the next ring is due (CLOCK_MONOTONIC ns). */
uint64_t ct_gpuwork_next_due(const struct ct_gpuwork *g);
/* Whether CUDATRACE_GPUWORK_COSTS asked where the reader's time goes. */
bool ct_gpuwork_costs(const struct ct_gpuwork *g);
/* --gpu-work=HZ: the idle rings' rate (default 200). */
void ct_gpuwork_set_rate(struct ct_gpuwork *g, uint32_t hz);
/* Where rings are published for the kernel's last look before exit (the
 * BPF map gw_exit, bpf/gpuwork_exit.bpf.h; capture.c's functions write
 * it): publish returns 0 or -errno. */
struct ct_gpuwork_exit_map {
	int (*publish)(void *ctx, const struct ct_gx_key *k, const struct ct_gx_chan *v);
	void (*unpublish)(void *ctx, const struct ct_gx_key *k);
	void *ctx;
};
void ct_gpuwork_set_exit_map(struct ct_gpuwork *g, const struct ct_gpuwork_exit_map *m);
/* on: a poll of several processes' rings reads each process's on a thread
 * of its own (gpuwork_lanes.c); the sink is then called from those threads
 * at once.  Off (the default): every ring on the caller's thread. */
void ct_gpuwork_set_workers(struct ct_gpuwork *g, bool on);
const struct ct_gpuwork_stats *ct_gpuwork_stats(const struct ct_gpuwork *g);
/* The closing line on stderr: channels, segments, lost, unreadable, CPU. */
void ct_gpuwork_report(const struct ct_gpuwork *g);

#endif
