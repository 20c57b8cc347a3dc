// SPDX-License-Identifier: MIT
/*
 * The live capture's signals (capture_signals.h).  A stop can come at any
 * moment, the first milliseconds included: the command is forked with the
 * signals held, and gets back the dispositions cudatrace was started with
 * before it lets them in, so a SIGTERM sent to it before its execvp kills
 * it rather than setting a flag in a copy of cudatrace (issue 33).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>

#include "capture_signals.h"

static volatile sig_atomic_t stop_signal;

static const int handled[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD };
#define NHANDLED (sizeof(handled) / sizeof(handled[0]))
static struct sigaction inherited[NHANDLED];   /* what cudatrace was started with */
static bool caught[NHANDLED];

static void on_stop(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
}

/* Interrupts the record loop's waits when the command exits, so that the
 * capture ends then rather than at a wait's timeout. */
static void on_child(int sig)
{
	(void)sig;
}

static void catch_one(size_t i, void (*fn)(int), int flags)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = flags };

	caught[i] = sigaction(handled[i], &sa, &inherited[i]) == 0;
}

void ct_signals_catch(bool command)
{
	for (size_t i = 0; i < NHANDLED; i++) {
		if (handled[i] == SIGPIPE)
			catch_one(i, SIG_IGN, 0);
		else if (handled[i] != SIGCHLD)
			catch_one(i, on_stop, 0);
		else if (command)
			catch_one(i, on_child, SA_NOCLDSTOP);
	}
}

int ct_stop_signal(void)
{
	return stop_signal;
}

void ct_signals_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < NHANDLED; i++)
		sigaddset(&set, handled[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

void ct_signals_release(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

void ct_signals_child_reset(const sigset_t *old)
{
	for (size_t i = 0; i < NHANDLED; i++)
		if (caught[i])   /* an ignored SIGPIPE would outlive execvp */
			sigaction(handled[i], &inherited[i], NULL);
	sigprocmask(SIG_SETMASK, old, NULL);
}
