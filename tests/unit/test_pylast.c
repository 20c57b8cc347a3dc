// SPDX-License-Identifier: MIT
/*
 * capture/python/pylast.c: a Python record's left-out outer frames put
 * back from the thread's last record, never from another one; and the
 * raw record's sizes as format/record.c checks them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "pylast.h"
#include "record.h"

#define MAXF 8

struct rec {
	struct ct_pystack s;
	struct ct_pyframe_raw f[MAXF];
};

/* A stack of n frames whose frame i (innermost first) is (base + i). */
static void stack_of(struct ct_pyframe_raw *f, uint32_t n, uint64_t base)
{
	for (uint32_t i = 0; i < n; i++)
		f[i] = (struct ct_pyframe_raw){ .code = base + i, .instr = 2 * (base + i),
						.check = 3 * (base + i) };
}

/* The kernel's record of that stack: its inner n - kept frames. */
static struct rec record(uint32_t tid, uint32_t seq, const struct ct_pyframe_raw *whole,
			 uint32_t n, uint32_t kept)
{
	struct rec r = { .s = { .h = { .type = CT_REC_PYSTACK, .pid = 100, .tid = tid },
				.nframes = n, .seq = seq, .outer_kept = kept } };

	memcpy(r.f, whole, (n - kept) * sizeof(*whole));
	r.s.h.size = (uint32_t)(sizeof(r.s) + (n - kept) * sizeof(*whole));
	return r;
}

static const struct ct_pyframes named = { .h = { .type = CT_REC_PYFRAMES, .size = sizeof(named) } };

/* Keeps the record as the capture does once named; returns the frames whole. */
static uint32_t take(struct ct_pylast *l, const struct rec *r, struct ct_pyframe_raw *out, bool *lost)
{
	uint32_t n = ct_pylast_whole(l, &r->s, out, lost);

	ct_pylast_keep(l, &r->s, out, n, !*lost, &named);
	return n;
}

static bool same(const struct ct_pyframe_raw *a, const struct ct_pyframe_raw *b, uint32_t n)
{
	return memcmp(a, b, n * sizeof(*a)) == 0;
}

static void test_put_back(void)
{
	struct ct_pylast l = { 0 };
	struct ct_pyframe_raw w5[MAXF], w3[MAXF], out[CT_PY_FRAMES_MAX];
	struct rec r;
	bool lost;
	uint32_t n;

	stack_of(w5, 5, 10);
	r = record(7, 1, w5, 5, 0);
	n = take(&l, &r, out, &lost);
	ok(n == 5 && !lost && same(out, w5, 5), "a whole record is whole");

	w5[0].instr = 999;   /* the innermost frame moved on; the outer 4 the same */
	r = record(7, 2, w5, 5, 4);
	n = take(&l, &r, out, &lost);
	ok(n == 5 && !lost && same(out, w5, 5), "4 outer frames put back from the last record");

	/* shallower: the outer 2 of the last (its outermost), one of its own */
	stack_of(w3, 1, 50);
	w3[1] = w5[3];
	w3[2] = w5[4];
	r = record(7, 3, w3, 3, 2);
	n = take(&l, &r, out, &lost);
	ok(n == 3 && !lost && same(out, w3, 3), "the outermost frames, counted from the outermost");

	r = record(8, 1, w3, 3, 2);
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(lost && n == 1, "another thread's record is not used: lost, its own frame only");

	r = record(7, 4, w3, 3, 2);
	r.s.h.pid = 101;
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(lost && n == 1, "another process's record (a tid reused) is not used");

	r = record(7, 4, w3, 3, 3);
	r.s.nframes = 9;   /* more left out than the last record had */
	r.s.outer_kept = 8;
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(lost, "more frames left out than the last record had: lost");
	ct_pylast_free(&l);
}

static void test_gap(void)
{
	struct ct_pylast l = { 0 };
	struct ct_pyframe_raw w[MAXF], out[CT_PY_FRAMES_MAX];
	struct rec r;
	bool lost;
	uint32_t n;

	stack_of(w, 4, 1);
	r = record(9, 1, w, 4, 0);
	take(&l, &r, out, &lost);
	r = record(9, 3, w, 4, 3);   /* record 2 never came */
	n = take(&l, &r, out, &lost);
	ok(lost && n == 1, "a record missing between: the outer frames lost, not filled");
	r = record(9, 4, w, 4, 3);
	n = take(&l, &r, out, &lost);
	ok(lost && n == 1, "the next one that leaves frames out: lost too (the last was dropped)");
	r = record(9, 5, w, 4, 0);
	n = take(&l, &r, out, &lost);
	ok(!lost && n == 4, "a whole record: kept again");
	r = record(9, 6, w, 4, 4);
	n = take(&l, &r, out, &lost);
	ok(!lost && n == 4 && same(out, w, 4), "... and the next is put back from it");
	ct_pylast_free(&l);
}

static void test_repeat(void)
{
	struct ct_pylast l = { 0 };
	struct ct_pyframe_raw w[MAXF], out[CT_PY_FRAMES_MAX];
	struct rec r;
	bool lost;
	uint32_t n;

	stack_of(w, 3, 20);
	r = record(5, 1, w, 3, 0);
	take(&l, &r, out, &lost);
	r = record(5, 2, w, 3, 3);
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(ct_pylast_repeat(&l, &r.s, out, n, 0) != NULL, "the same stack takes the last named record");
	r = record(5, 3, w, 3, 2);
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(!lost && n == 3, "a repeat becomes the thread's last: the next puts back from it");
	ok(ct_pylast_repeat(&l, &r.s, out, n, 0) != NULL, "... and repeats it");
	ok(ct_pylast_repeat(&l, &r.s, out, n, CT_PY_NEW_TSTATE) == NULL,
	   "other flags: not a repeat");
	out[0].check ^= 1;
	ok(ct_pylast_repeat(&l, &r.s, out, n, 0) == NULL, "another check: not a repeat");

	r = record(5, 0, w, 0, 0);   /* no thread state: not numbered */
	r.s.flags = CT_PY_NO_TSTATE;
	n = take(&l, &r, out, &lost);
	ok(n == 0 && !lost && ct_pylast_repeat(&l, &r.s, out, 0, CT_PY_NO_TSTATE) == NULL,
	   "a record without a number is neither kept nor a repeat");
	stack_of(w, 3, 20);
	r = record(5, 4, w, 3, 3);
	n = ct_pylast_whole(&l, &r.s, out, &lost);
	ok(!lost && n == 3 && same(out, w, 3), "... and leaves the thread's last as it was");
	ct_pylast_free(&l);
}

static void test_forgotten(void)
{
	struct ct_pylast l = { 0 };
	struct ct_pyframe_raw w[MAXF], out[CT_PY_FRAMES_MAX];
	struct rec r;
	bool lost;

	stack_of(w, 2, 30);
	for (uint32_t tid = 1; tid <= CT_PYLAST_MAX; tid++) {
		r = record(tid, 1, w, 2, 0);
		take(&l, &r, out, &lost);
	}
	ok(l.forgotten == 0, "%d threads kept", CT_PYLAST_MAX);
	r = record(CT_PYLAST_MAX + 1, 1, w, 2, 0);
	take(&l, &r, out, &lost);
	ok(l.forgotten == CT_PYLAST_MAX, "one more: the others forgotten, and counted (%llu)",
	   (unsigned long long)l.forgotten);
	r = record(1, 2, w, 2, 2);
	ct_pylast_whole(&l, &r.s, out, &lost);
	ok(lost, "a forgotten thread's next record that leaves frames out: lost");
	r = record(CT_PYLAST_MAX + 1, 2, w, 2, 2);
	ct_pylast_whole(&l, &r.s, out, &lost);
	ok(!lost, "the thread kept last: put back");
	ct_pylast_free(&l);
}

static void test_forget_process(void)
{
	struct ct_pylast l = { 0 };
	struct ct_pyframe_raw w[MAXF], out[CT_PY_FRAMES_MAX];
	struct rec r;
	bool lost;

	stack_of(w, 3, 40);
	for (uint32_t tid = 1; tid <= 6; tid++) {
		r = record(tid, 1, w, 3, 0);
		r.s.h.pid = tid <= 4 ? 100 : 200;
		take(&l, &r, out, &lost);
	}
	ct_pylast_forget_process(&l, 100);
	ok(l.by_tid.used == 2, "a process's exit drops its 4 threads' stacks, not the other's 2 (%zu left)",
	   l.by_tid.used);
	r = record(5, 2, w, 3, 3);
	r.s.h.pid = 200;
	ct_pylast_whole(&l, &r.s, out, &lost);
	ok(!lost, "the other process's thread still puts frames back");
	r = record(2, 2, w, 3, 3);
	ct_pylast_whole(&l, &r.s, out, &lost);
	ok(lost, "the exited process's thread has none");
	ct_pylast_forget_process(&l, 999);
	ok(l.by_tid.used == 2, "a process with no stacks kept: nothing dropped");
	ct_pylast_free(&l);
}

static void test_record_check(void)
{
	struct ct_pyframe_raw w[MAXF];
	struct rec r;

	stack_of(w, 4, 1);
	r = record(3, 2, w, 4, 3);
	ok(ct_record_check(&r, r.s.h.size) == NULL, "a record that leaves 3 of 4 frames out is sound");
	r.s.h.size += sizeof(w[0]);
	ok(ct_record_check(&r, r.s.h.size) != NULL, "a size that counts a left-out frame: refused");
	r = record(3, 2, w, 4, 3);
	r.s.outer_kept = 5;
	ok(ct_record_check(&r, r.s.h.size) != NULL, "more left out than the stack has: refused");
	r = record(3, 0, w, 4, 3);
	ok(ct_record_check(&r, r.s.h.size) != NULL, "frames left out of a record without a number: refused");
}

int main(void)
{
	test_put_back();
	test_gap();
	test_repeat();
	test_forgotten();
	test_forget_process();
	test_record_check();
	return tap_done();
}
