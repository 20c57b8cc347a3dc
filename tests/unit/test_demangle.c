// SPDX-License-Identifier: MIT
/* lib/demangle.c: the names libiberty demangles come out the same; names
 * whose output or walk is exponential in their length stop at the bounds
 * (NULL), quickly; a thread that blocks every signal is bounded too; the
 * cost of a name. */
#define _GNU_SOURCE
#include <libiberty/demangle.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demangle.h"
#include "tap.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *b36(unsigned n, char *buf)
{
	char tmp[8];
	int i = 0, j = 0;

	do
		tmp[i++] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[n % 36];
	while (n /= 36);
	while (i)
		buf[j++] = tmp[--i];
	buf[j] = 0;
	return buf;
}

/* S_ for 0, S<seq-1>_ after */
static void sub(char *s, unsigned i)
{
	char b[8];

	if (i)
		sprintf(s + strlen(s), "S%s_", b36(i - 1, b));
	else
		strcat(s, "S_");
}

/* head, then `levels` times step<S(base+i)_, S(base+i)_>: a tree that
 * doubles with each level, each level naming the one before twice. */
static char *nested(const char *head, const char *step, unsigned base, unsigned levels)
{
	char *s = calloc(1, strlen(head) + 32 + 24 * levels);
	unsigned i;

	strcpy(s, head);
	for (i = 0; i < levels; i++) {
		strcat(s, step);
		sub(s, i + base);
		sub(s, i + base);
		strcat(s, "E");
	}
	return s;
}

/* f(x, a<x,x>, a<a<x,x>,a<x,x>>, ...): the output doubles with each level. */
static char *doubling(unsigned levels)
{
	return nested("_Z1f1x1aIS_S_E", "S0_I", 2, levels);
}

/* void f<>(): the expansion of an empty pack, b<x, a<x,x>, ..., T_>...,
 * prints nothing; to find its pack (T_, last) the demangler walks the whole
 * tree, whose levels each name the one before twice: 3 ms at 30 levels,
 * twice that every two more (so some minutes at 60). */
static char *empty_pack(unsigned levels)
{
	char *s = nested("_Z1fIJEEvDp1bI1x1aIS1_S1_E", "S2_I", 3, levels);

	strcat(s, "T_E");   /* nested() leaves room */
	return s;
}

static void *blocked_thread(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	return ct_demangle(arg);
}

int main(void)
{
	static const char *const same[] = {
		"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEENS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
		"_Z6kernelPfS_i",
		"_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_Z1fIJEEvv",
	};
	char *bomb, *got, *want;
	double t0, dt;
	pthread_t th;
	size_t i;
	bool all = true;

	for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		got = ct_demangle(same[i]);
		want = cplus_demangle(same[i], DMGL_PARAMS | DMGL_ANSI);
		all &= ok_str(got, want, same[i]);
		free(got);
		free(want);
	}
	ok(all, "real names: as cplus_demangle gives them");
	ok(!ct_demangle("_Z") && !ct_demangle("k_plain") && !ct_demangle(""),
	   "what is no C++ name: NULL");
	got = ct_demangle(bomb = empty_pack(20));
	ok_str(got, "void f<>()", "an empty pack over a tree of 20 levels (a walk under the bound)");
	free(got);
	free(bomb);

	got = ct_demangle(bomb = doubling(10));
	ok(got && strlen(got) > 20000 && strlen(got) < CT_DEMANGLE_OUT_MAX,
	   "output doubling 10 times: %zu bytes, under the bound", got ? strlen(got) : 0);
	free(got);
	free(bomb);
	t0 = now();
	got = ct_demangle(bomb = doubling(60));
	dt = now() - t0;
	ok(!got && dt < 1, "output doubling 60 times (%zu bytes): NULL in %.3f s", strlen(bomb), dt);
	free(bomb);
	t0 = now();
	got = ct_demangle(bomb = empty_pack(60));
	dt = now() - t0;
	ok(!got && dt < 1, "a 2^60 walk that prints nothing (%zu bytes): NULL in %.3f s",
	   strlen(bomb), dt);
	pthread_create(&th, NULL, blocked_thread, bomb);
	t0 = now();
	pthread_join(th, (void **)&got);
	dt = now() - t0;
	ok(!got && dt < 1, "the same on a thread that blocks every signal: NULL in %.3f s", dt);
	got = ct_demangle(same[0]);
	ok(got != NULL, "a name after the bounds were hit: demangled");
	free(got);
	free(bomb);

	t0 = now();
	for (i = 0; i < 20000; i++)
		free(ct_demangle(same[i % 3]));
	dt = now() - t0;
	ok(dt < 10, "20000 real names: %.1f us each", dt / 20000 * 1e6);
	return tap_done();
}
