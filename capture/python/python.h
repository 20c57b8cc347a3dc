/* SPDX-License-Identifier: MIT */
/*
 * --py-stack on the capture machine: finds CPython in the traced processes
 * (a python executable or libpython mapped executable), tells the BPF
 * program where each one's runtime is and which offsets to use (the
 * py_procs map), and names the raw Python frames the kernel sends
 * (CT_REC_PYSTACK) into CT_REC_PYFRAMES for the sink.
 */
#ifndef CT_PYTHON_H
#define CT_PYTHON_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"

struct ct_python;

typedef void (*ct_python_sink)(void *ctx, const struct ct_rec *r);

/* procs_map_fd: the BPF program's py_procs map; prefetch_rb_fd: its py_rb ring. */
struct ct_python *ct_python_new(const char *proc_root, int procs_map_fd, int prefetch_rb_fd,
				ct_python_sink sink, void *ctx);
/* Starts the thread that reads new code objects at once; 0 or -errno. */
int ct_python_start(struct ct_python *p);
void ct_python_free(struct ct_python *p);
/* Looks for CPython in pid's mappings now (-p, a process seen system-wide). */
void ct_python_scan(struct ct_python *p, uint32_t pid);
/*
 * The capture's hook, before the unwinder's: raw Python stacks are used
 * here (true); code mappings, exec and exit records update what is known
 * of the process (false: they go on).
 */
bool ct_python_take(struct ct_python *p, const struct ct_rec *r);

/* How the thread that reads new stacks' code objects at once is scheduled. */
enum ct_prefetch_priority {
	CT_PREFETCH_ORDINARY,    /* neither below (no CAP_SYS_NICE), or not started */
	CT_PREFETCH_NICE,        /* a negative nice value: real time was refused */
	CT_PREFETCH_REALTIME,    /* SCHED_FIFO */
};

struct ct_python_stats {
	uint64_t procs;          /* processes found running CPython */
	uint64_t unreadable;     /* processes running a CPython not read: no frames (warned) */
	uint64_t stacks;         /* raw stacks named */
	uint64_t frames, unnamed;
	uint64_t raw_bytes;      /* of the raw records, as the kernel sent them */
	uint64_t frames_left_out;/* frames the kernel left out, the thread's last record's */
	uint64_t outer_lost;     /* stacks whose left-out frames were in a record not kept */
	uint64_t threads_forgotten; /* threads' last stacks dropped at CT_PYLAST_MAX */
	uint64_t no_tstate;      /* calls from threads with no Python thread state */
	uint64_t prefetched;     /* new stacks read at once by the prefetch thread */
	uint64_t busy_ns;        /* time spent naming (monotonic clock: a thread CPU
	                          * clock is a system call, twice a stack) */
	enum ct_prefetch_priority prefetch_priority;   /* what the prefetch thread got */
	/* 3.12's count of code objects made (the kernel's cache of checks):
	 * found by its symbol, found in the process's data, not found (the
	 * last reason why), or still searched for. */
	uint64_t counter_by_symbol, counter_found, counter_missed, counter_searching;
	const char *counter_miss_why;
};
/* The figures so far (it counts the searches under way: takes the lock). */
const struct ct_python_stats *ct_python_stats(struct ct_python *p);

#endif
