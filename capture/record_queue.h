/* SPDX-License-Identifier: MIT */
/*
 * The records between the capture's two threads (docs/GPUWORK.md, "A
 * reader nothing can starve"): the reader thread takes every record the
 * kernel hands over, and the GPU work it reads, as soon as they come, and
 * appends copies here in that order; the record loop takes them out, in
 * the same order, and does the slow work (stacks, Python names, the sink).
 * One producer, one consumer, one lock.
 *
 * The queue holds at most `limit` bytes: past it the producer waits for
 * room (counted: a reader held back by the record loop), unless the
 * consumer has given up (ct_rq_abandon), when records are dropped and
 * counted.
 */
#ifndef CT_RECORD_QUEUE_H
#define CT_RECORD_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudatrace.h"

struct ct_rq;

struct ct_rq_stats {
	uint64_t records;      /* records queued */
	uint64_t max_bytes;    /* the most bytes queued at once */
	uint64_t waits;        /* times the producer waited for room */
	uint64_t wait_ns;      /* ... for this long in all */
	uint64_t dropped;      /* queued after the consumer gave up, or out of memory */
};

struct ct_rq *ct_rq_new(size_t limit);
void ct_rq_free(struct ct_rq *q);
/* Appends a copy of r (r->h.size bytes; the caller checked them). */
void ct_rq_push(struct ct_rq *q, const struct ct_rec *r);
/* The producer is done: ct_rq_pop returns NULL once the queue is empty. */
void ct_rq_close(struct ct_rq *q);
/* The consumer takes no more: the producer never waits again. */
void ct_rq_abandon(struct ct_rq *q);
/* The oldest record (free() it), waiting up to timeout_ns for one; NULL if
 * none came.  *done: the producer closed the queue and it is empty. */
struct ct_rec *ct_rq_pop(struct ct_rq *q, uint64_t timeout_ns, bool *done);
struct ct_rq_stats ct_rq_stats(struct ct_rq *q);

#endif
