// SPDX-License-Identifier: MIT
/*
 * Socket deadlines (deadlines.h): one thread checks them ten times a second.
 * The server must disarm a socket before it closes it (under the same lock
 * the check takes), so a number reused by a new socket is never shut down.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "clock.h"
#include "deadlines.h"
#include "grow.h"

#define CHECK_EVERY_NS 100000000ull

struct ct_deadlines {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
	uint64_t after_ns;
	uint64_t *due;          /* by fd: CLOCK_MONOTONIC ns, 0 when disarmed */
	size_t n;
	void (*on_expired)(void *ctx);
	void *ctx;
};

static void shut_expired(struct ct_deadlines *d, uint64_t now)
{
	size_t fd;

	for (fd = 0; fd < d->n; fd++) {
		if (!d->due[fd] || d->due[fd] > now)
			continue;
		d->due[fd] = 0;
		shutdown((int)fd, SHUT_RDWR);
		if (d->on_expired)
			d->on_expired(d->ctx);
	}
}

static void *run(void *arg)
{
	struct ct_deadlines *d = arg;
	struct timespec until;
	uint64_t t;

	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		shut_expired(d, ct_now_ns(CLOCK_MONOTONIC));
		t = ct_now_ns(CLOCK_MONOTONIC) + CHECK_EVERY_NS;
		until.tv_sec = (time_t)(t / 1000000000ull);
		until.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&d->wake, &d->lock, &until);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

struct ct_deadlines *ct_deadlines_start(unsigned after_ms, void (*on_expired)(void *ctx),
					void *ctx)
{
	struct ct_deadlines *d = calloc(1, sizeof(*d));
	pthread_condattr_t ca;

	if (!d)
		return NULL;
	d->after_ns = (uint64_t)after_ms * 1000000ull;
	d->on_expired = on_expired;
	d->ctx = ctx;
	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&d->thread, NULL, run, d)) {
		free(d);
		return NULL;
	}
	return d;
}

/* Grows the table to hold fd; false when out of memory (fd stays unarmed). */
static bool hold(struct ct_deadlines *d, size_t fd)
{
	size_t had = d->n;
	uint64_t *due;

	if (fd < d->n)
		return true;
	due = ct_grow(d->due, &d->n, fd + 1, sizeof(*due), 64);
	if (!due)
		return false;
	memset(due + had, 0, (d->n - had) * sizeof(*due));
	d->due = due;
	return true;
}

void ct_deadlines_arm(struct ct_deadlines *d, int fd)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&d->lock);
	if (hold(d, (size_t)fd))
		d->due[fd] = ct_now_ns(CLOCK_MONOTONIC) + d->after_ns;
	pthread_mutex_unlock(&d->lock);
}

void ct_deadlines_disarm(struct ct_deadlines *d, int fd)
{
	pthread_mutex_lock(&d->lock);
	if (fd >= 0 && (size_t)fd < d->n)
		d->due[fd] = 0;
	pthread_mutex_unlock(&d->lock);
}

void ct_deadlines_stop(struct ct_deadlines *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->wake);
	free(d->due);
	free(d);
}
