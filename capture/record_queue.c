// SPDX-License-Identifier: MIT
/*
 * A FIFO of record copies between the reader thread and the record loop
 * (record_queue.h): a linked list under one mutex, two condition
 * variables (a record came; room was made).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "record_queue.h"

struct rq_node {
	struct rq_node *next;
	struct ct_rec rec;   /* rec.size bytes from here */
};

struct ct_rq {
	pthread_mutex_t lock;
	pthread_cond_t came, room;
	struct rq_node *head, *tail;
	size_t bytes, limit;
	bool closed, abandoned;
	struct ct_rq_stats st;
};

struct ct_rq *ct_rq_new(size_t limit)
{
	struct ct_rq *q = calloc(1, sizeof(*q));
	pthread_condattr_t a;

	if (!q)
		return NULL;
	q->limit = limit;
	pthread_mutex_init(&q->lock, NULL);
	/* timed waits on the monotonic clock: a clock set back does not stall them */
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&q->came, &a);
	pthread_condattr_destroy(&a);
	pthread_cond_init(&q->room, NULL);
	return q;
}

void ct_rq_free(struct ct_rq *q)
{
	struct rq_node *n, *next;

	if (!q)
		return;
	for (n = q->head; n; n = next) {
		next = n->next;
		free(n);
	}
	pthread_cond_destroy(&q->came);
	pthread_cond_destroy(&q->room);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* Waits, lock held, until the queue has room or the consumer gave up. */
static void wait_for_room(struct ct_rq *q)
{
	uint64_t t0;

	if (q->bytes < q->limit || q->abandoned)
		return;
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	q->st.waits++;
	while (q->bytes >= q->limit && !q->abandoned)
		pthread_cond_wait(&q->room, &q->lock);
	q->st.wait_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
}

void ct_rq_push(struct ct_rq *q, const struct ct_rec *r)
{
	struct rq_node *n = malloc(offsetof(struct rq_node, rec) + r->size);

	if (n) {   /* copied outside the lock */
		n->next = NULL;
		memcpy(&n->rec, r, r->size);
	}
	pthread_mutex_lock(&q->lock);
	wait_for_room(q);
	if (!n || q->abandoned) {
		q->st.dropped++;
		pthread_mutex_unlock(&q->lock);
		free(n);
		return;
	}
	if (q->tail)
		q->tail->next = n;
	else
		q->head = n;
	q->tail = n;
	q->bytes += r->size;
	q->st.records++;
	if (q->bytes > q->st.max_bytes)
		q->st.max_bytes = q->bytes;
	pthread_cond_signal(&q->came);
	pthread_mutex_unlock(&q->lock);
}

void ct_rq_close(struct ct_rq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_signal(&q->came);
	pthread_mutex_unlock(&q->lock);
}

void ct_rq_abandon(struct ct_rq *q)
{
	pthread_mutex_lock(&q->lock);
	q->abandoned = true;
	pthread_cond_broadcast(&q->room);
	pthread_mutex_unlock(&q->lock);
}

struct ct_rec *ct_rq_pop(struct ct_rq *q, uint64_t timeout_ns, bool *done)
{
	uint64_t until = ct_now_ns(CLOCK_MONOTONIC) + timeout_ns;
	struct timespec ts = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };
	struct rq_node *n;

	pthread_mutex_lock(&q->lock);
	while (!q->head && !q->closed)
		if (pthread_cond_timedwait(&q->came, &q->lock, &ts) == ETIMEDOUT)
			break;
	n = q->head;
	if (n) {
		q->head = n->next;
		if (!q->head)
			q->tail = NULL;
		q->bytes -= n->rec.size;
		if (q->bytes < q->limit)
			pthread_cond_signal(&q->room);
	}
	*done = !n && q->closed;
	pthread_mutex_unlock(&q->lock);
	return n ? memmove(n, &n->rec, n->rec.size) : NULL;
}

struct ct_rq_stats ct_rq_stats(struct ct_rq *q)
{
	struct ct_rq_stats s;

	pthread_mutex_lock(&q->lock);
	s = q->st;
	pthread_mutex_unlock(&q->lock);
	return s;
}
