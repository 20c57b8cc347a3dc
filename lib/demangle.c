// SPDX-License-Identifier: MIT
/*
 * Bounded demangling (demangle.h).  libiberty's callback demangler
 * allocates nothing (its tables are on the stack, its output goes to the
 * callback), so it can be left by a jump: when the output passes its
 * bound, or when a timer on the thread's CPU clock sends its signal.
 */
#define _GNU_SOURCE
#include <libiberty/demangle.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demangle.h"

#ifndef sigev_notify_thread_id   /* glibc before 2.37 */
#define sigev_notify_thread_id _sigev_un._tid
#endif
#define SIG_DEMANGLE (SIGRTMIN + 3)

/* Not locals of bounded(): what a jump leaves them is then well defined. */
struct dm_out {
	char *buf;
	size_t len;
	timer_t timer;
	bool armed;
	sigjmp_buf jmp;
};

static __thread struct dm_out *volatile running;   /* this thread's demangle, if any */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool have_handler;

static void stop(void)
{
	struct dm_out *o = running;

	running = NULL;
	siglongjmp(o->jmp, 1);
}

/* Only ever jumps out of the demangler: a signal that comes late is let go. */
static void on_timer(int sig)
{
	(void)sig;
	if (running)
		stop();
}

static void install(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	have_handler = sigaction(SIG_DEMANGLE, &sa, NULL) == 0;
}

static void put(const char *s, size_t n, void *arg)
{
	struct dm_out *o = arg;

	if (n >= CT_DEMANGLE_OUT_MAX - o->len)   /* room kept for the NUL */
		stop();
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static bool arm(timer_t *t)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIG_DEMANGLE };
	struct itimerspec its = { .it_value = { CT_DEMANGLE_CPU_NS / 1000000000,
						CT_DEMANGLE_CPU_NS % 1000000000 } };

	ev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, t))
		return false;
	if (!timer_settime(*t, 0, &its, NULL))
		return true;
	timer_delete(*t);
	return false;
}

/* 1 demangled, 0 not (or stopped). */
static int bounded(const char *mangled, struct dm_out *o)
{
	volatile int ok = 0;

	if (!sigsetjmp(o->jmp, 1)) {
		running = o;
		if ((o->armed = arm(&o->timer)))
			ok = cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI, put, o);
	}
	running = NULL;
	if (o->armed)
		timer_delete(o->timer);
	return ok;
}

char *ct_demangle(const char *mangled)
{
	struct dm_out o = { 0 };
	sigset_t sig, old;
	char *res = NULL;
	bool blocked;
	int ok;

	pthread_once(&once, install);
	if (!have_handler || !(o.buf = malloc(CT_DEMANGLE_OUT_MAX)))
		return NULL;
	/* A thread that blocks it (the capture's reader blocks all) lets it
	 * through for the call; the mask of one that does not is left alone:
	 * changing the record loop's mask for each name cost the Python
	 * frames of short processes (tests/live/python_said.py). */
	pthread_sigmask(SIG_BLOCK, NULL, &old);
	blocked = sigismember(&old, SIG_DEMANGLE) == 1;
	if (blocked) {
		sigemptyset(&sig);
		sigaddset(&sig, SIG_DEMANGLE);
		pthread_sigmask(SIG_UNBLOCK, &sig, NULL);
	}
	ok = bounded(mangled, &o);
	if (blocked)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ok) {
		o.buf[o.len] = 0;
		res = strdup(o.buf);
	}
	free(o.buf);
	return res;
}
