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
#include <stdint.h>
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
	uint64_t start;          /* the thread's CPU clock when the call began */
	sigjmp_buf jmp;
};

/*
 * Each thread's timer on its CPU clock, made once and left armed between
 * calls: arming and disarming a CPU timer costs two system calls of some
 * 0.9 us each, four times what a name takes to demangle.  It fires at the
 * latest CT_DEMANGLE_CPU_NS after it was armed; the handler stops the call
 * under way if that call has run so long, arms it again for what is left of
 * the call's time if not, and lets it go (disarmed) between calls.  So a
 * thread that demangles gets one signal every 50 ms of its CPU at most, and
 * none once it stops; SA_RESTART restarts what it interrupts.
 */
struct dm_thread {
	timer_t timer;
	bool made;
	volatile sig_atomic_t armed;
};

static __thread struct dm_out *volatile running;   /* this thread's demangle, if any */
static __thread struct dm_thread self;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t gone;     /* deletes a thread's timer when it exits */
static bool have_handler;

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static bool arm_in(struct dm_thread *t, uint64_t ns)
{
	struct itimerspec its = { .it_value = { (time_t)(ns / 1000000000u),
						(long)(ns % 1000000000u) } };

	t->armed = timer_settime(t->timer, 0, &its, NULL) == 0;
	return t->armed;
}

static void stop(void)
{
	struct dm_out *o = running;

	running = NULL;
	siglongjmp(o->jmp, 1);
}

/* Only ever jumps out of the demangler; between calls it leaves the timer
 * disarmed.  Its signal is not blocked while it runs (SA_NODEFER), so a
 * jump out of it leaves the thread's mask as the call found it. */
static void on_timer(int sig)
{
	struct dm_out *o = running;
	uint64_t used;

	(void)sig;
	self.armed = 0;
	if (!o)
		return;
	used = cpu_ns() - o->start;
	if (used >= CT_DEMANGLE_CPU_NS || !arm_in(&self, CT_DEMANGLE_CPU_NS - used))
		stop();
}

static void thread_gone(void *arg)
{
	struct dm_thread *t = arg;

	if (t->made)
		timer_delete(t->timer);
	t->made = false;
}

static void install(void)
{
	struct sigaction sa = { .sa_handler = on_timer, .sa_flags = SA_RESTART | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	have_handler = pthread_key_create(&gone, thread_gone) == 0 &&
		       sigaction(SIG_DEMANGLE, &sa, NULL) == 0;
}

static void put(const char *s, size_t n, void *arg)
{
	struct dm_out *o = arg;

	if (n >= CT_DEMANGLE_OUT_MAX - o->len)   /* room kept for the NUL */
		stop();
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* This thread's timer, made on its first call. */
static bool made(struct dm_thread *t)
{
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIG_DEMANGLE };

	if (t->made)
		return true;
	ev.sigev_notify_thread_id = gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t->timer))
		return false;
	if (pthread_setspecific(gone, t)) {
		timer_delete(t->timer);
		return false;
	}
	t->made = true;
	return true;
}

/* 1 demangled, 0 not (or stopped).  The call is the running one before the
 * timer is looked at: a signal in between arms it again, not away. */
static int bounded(const char *mangled, struct dm_out *o)
{
	volatile int ok = 0;

	if (!made(&self))
		return 0;
	o->start = cpu_ns();
	if (!sigsetjmp(o->jmp, 0)) {
		running = o;
		if (self.armed || arm_in(&self, CT_DEMANGLE_CPU_NS))
			ok = cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI, put, o);
	}
	running = NULL;
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
