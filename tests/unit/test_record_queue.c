// SPDX-License-Identifier: MIT
/*
 * The queue between the capture's reader thread and its record loop
 * (capture/record_queue.c): records come out whole and in order across
 * threads; a producer past the limit waits for room (and says it did)
 * rather than dropping; a consumer that gives up lets it go; close ends
 * the consumer once the queue is empty.  Built under ASan/UBSan too.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record_queue.h"
#include "tap.h"

#define N 20000

struct rec { struct ct_rec h; uint32_t seq; unsigned char pad[64]; };

static void *produce(void *arg)
{
	struct ct_rq *q = arg;
	struct rec r;

	for (uint32_t i = 0; i < N; i++) {
		memset(&r, 0, sizeof(r));
		r.h.type = CT_REC_PROC_EXIT;
		r.h.size = (uint32_t)(sizeof(r.h) + 4 + i % 64);
		r.seq = i;
		memset(r.pad, (int)(i & 0xff), i % 64);
		ct_rq_push(q, &r.h);
	}
	ct_rq_close(q);
	return NULL;
}

/* Holds the consumer back until the producer has had to wait for room (at
 * most ten seconds): a consumer as fast as the producer would otherwise
 * leave it nothing to wait for, and the check below would flake. */
static void let_producer_fill(struct ct_rq *q)
{
	struct timespec tick = { 0, 1000000 };

	for (int i = 0; i < 10000 && !ct_rq_stats(q).waits; i++)
		nanosleep(&tick, NULL);
}

int main(void)
{
	struct ct_rq *q = ct_rq_new(4096);   /* small: the producer must wait */
	struct ct_rq_stats st;
	pthread_t t;
	uint32_t next = 0, bad = 0;
	bool done = false;
	struct ct_rec *r;

	pthread_create(&t, NULL, produce, q);
	let_producer_fill(q);
	while (!done) {
		r = ct_rq_pop(q, 1000000000ull, &done);
		if (!r)
			continue;
		{
			struct rec *x = (struct rec *)r;
			uint32_t pad = x->h.size - (uint32_t)sizeof(x->h) - 4;

			bad += x->seq != next || pad != next % 64 ||
			       (pad && (x->pad[0] != (next & 0xff) || x->pad[pad - 1] != (next & 0xff)));
			next++;
		}
		free(r);
	}
	pthread_join(t, NULL);
	st = ct_rq_stats(q);
	ok(next == N && !bad, "%u records out of %u, in order and whole across threads", next, N);
	ok(st.records == N && st.waits > 0 && !st.dropped,
	   "a producer past the limit waited (%llu times), dropped nothing",
	   (unsigned long long)st.waits);
	ok(st.max_bytes <= 4096 + sizeof(struct rec), "the queue stayed within its limit (%llu bytes)",
	   (unsigned long long)st.max_bytes);
	ct_rq_free(q);

	/* a consumer that gives up: the producer is let go, the rest dropped and counted */
	q = ct_rq_new(256);
	ct_rq_abandon(q);
	pthread_create(&t, NULL, produce, q);
	pthread_join(t, NULL);
	st = ct_rq_stats(q);
	ok(st.dropped == N && !st.records, "after the consumer gave up: %llu dropped, none queued",
	   (unsigned long long)st.dropped);
	r = ct_rq_pop(q, 1000000, &done);
	ok(!r && done, "and the closed, empty queue says done");
	ct_rq_free(q);

	/* a pop that times out */
	q = ct_rq_new(1 << 20);
	r = ct_rq_pop(q, 2000000, &done);
	ok(!r && !done, "an empty open queue: a pop times out, not done");
	ct_rq_free(q);
	return tap_done();
}
