// SPDX-License-Identifier: MIT
/*
 * lib/deadlines.c: a socket still armed at its deadline is shut down (its
 * peer reads EOF) and counted; one disarmed in time, or re-armed, is not.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "deadlines.h"
#include "tap.h"

static int expired;

static void count(void *ctx)
{
	(void)ctx;
	expired++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds until the peer reads EOF, or -1 if it does not within secs. */
static double eof_after(int fd, double t0, double secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, (int)(secs * 1000)) == 1 && read(fd, &c, 1) == 0)
		return now_s() - t0;
	return -1;
}

int main(void)
{
	struct ct_deadlines *d = ct_deadlines_start(200, count, NULL);
	int late[2], early[2], again[2];
	double t0, took;

	if (!d || socketpair(AF_UNIX, SOCK_STREAM, 0, late) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, early) || socketpair(AF_UNIX, SOCK_STREAM, 0, again))
		return 1;
	t0 = now_s();
	ct_deadlines_arm(d, late[0]);
	ct_deadlines_arm(d, early[0]);
	ct_deadlines_arm(d, again[0]);
	ct_deadlines_disarm(d, early[0]);
	usleep(150000);
	ct_deadlines_arm(d, again[0]);   /* a new 200 ms from here */
	took = eof_after(late[1], t0, 1.0);
	ok(took >= 0.19 && took < 0.5, "an armed socket is shut down at its deadline "
	   "(200 ms; %.3f s)", took);
	took = eof_after(again[1], t0, 1.0);
	ok(took >= 0.34 && took < 0.65, "re-armed at 150 ms: shut down 200 ms later (%.3f s)", took);
	ok(eof_after(early[1], t0, 0.3) < 0, "a disarmed one stays open");
	ok(expired == 2, "each one shut down is counted (%d)", expired);
	ct_deadlines_stop(d);
	return tap_done();
}
