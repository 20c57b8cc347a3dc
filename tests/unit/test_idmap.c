// SPDX-License-Identifier: MIT
/*
 * lib/idmap.c: the map, and its defence against hash flooding.
 *
 * The keys of the attack are 100,000 (client, handle) pairs that all land
 * in slot 0 under the old unkeyed hash (Fibonacci hashing, the top half of
 * key * 0x9E3779B97F4A7C15): key = j * inverse(multiplier), so the product
 * is j itself, whose bits 32 and up are 0.  A trace file can name any such
 * pair (an RM_ALLOC's hRoot and hObjectNew).  Under the old hash every
 * insertion walked one probe run as long as the map; under the seeded hash
 * the longest run of occupied slots stays short.  The check is on that
 * structure (deterministic for any seed that is not astronomically
 * unlucky), not on the time, which is only printed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include "idmap.h"

#define OLD_MUL 0x9E3779B97F4A7C15ull
#define NKEYS   100000
#define NOLD    10000   /* the old hash, for comparison: quadratic, so fewer */


static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The slot function idmap.c used before it was seeded. */
static size_t old_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * OLD_MUL) >> 32) & (cap - 1);
}

/* Multiplicative inverse of an odd number mod 2^64 (Newton's iteration). */
static uint64_t inverse(uint64_t a)
{
	uint64_t x = a;
	int i;

	for (i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

/* Longest run of occupied slots (wrapping): what one probe may walk. */
static size_t longest_run(const struct idmap *m)
{
	size_t i, run = 0, best = 0;

	for (i = 0; i < 2 * m->cap; i++) {
		run = m->keys[i & (m->cap - 1)] ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best > m->cap ? m->cap : best;
}

/* The old map, kept here only to time the attack against it. */
static double old_insert_seconds(const uint64_t *keys, size_t nk, size_t *probes)
{
	size_t cap = 1, i, j;
	uint64_t *t;
	double t0 = now();

	while (cap * 3 <= nk * 4)
		cap *= 2;
	t = calloc(cap, sizeof(*t));
	*probes = 0;
	for (i = 0; i < nk; i++) {
		for (j = old_slot(keys[i], cap); t[j]; j = (j + 1) & (cap - 1))
			++*probes;
		t[j] = keys[i];
	}
	free(t);
	return now() - t0;
}

static uint64_t last_key;
static size_t drained, out_of_order, wrong_val;

static void check_drain(uint64_t key, void *val, void *ctx)
{
	(void)ctx;
	if (drained && key <= last_key)
		out_of_order++;
	if ((uint64_t)(uintptr_t)val != (key ^ 0x5a5a))
		wrong_val++;
	last_key = key;
	drained++;
}

static uint64_t each_sum, each_n;

static void sum_each(uint64_t key, void *val, void *ctx)
{
	(void)ctx;
	each_n++;
	each_sum += (uintptr_t)val == (key ^ 0x5a5a) ? key : 1u << 30;
}

/* idmap_get_or_new: made once, zeroed, found after; key 0 refused. */
static void get_or_new(void)
{
	struct idmap m = { 0 };
	uint64_t *v, *again, *zero;
	bool made, made_again, made_zero = true;

	v = idmap_get_or_new(&m, 42, 4 * sizeof(*v), &made);
	ok(v && made && !v[0] && !v[3] && idmap_get(&m, 42) == v,
	   "get_or_new: a new zeroed value, put under its key");
	v[1] = 9;
	again = idmap_get_or_new(&m, 42, 4 * sizeof(*v), &made_again);
	ok(again == v && !made_again && again[1] == 9 && m.used == 1,
	   "get_or_new: the same value the second time, not made again");
	zero = idmap_get_or_new(&m, 0, sizeof(*v), &made_zero);
	ok(!zero && !made_zero && m.used == 1, "get_or_new: key 0 cannot be held: NULL");
	ok(idmap_get_or_new(&m, 43, 8, NULL) && m.used == 2, "get_or_new: made may be NULL");
	idmap_free_all(&m);
}

static bool key_is_odd(uint64_t key, const void *val, void *ctx)
{
	(void)val;
	(void)ctx;
	return key & 1;
}

static bool never(uint64_t key, const void *val, void *ctx)
{
	(void)key;
	(void)val;
	(void)ctx;
	return false;
}

static void count_gone(uint64_t key, void *val, void *ctx)
{
	size_t *bad = ctx;

	if (!(key & 1) || (uintptr_t)val != (key ^ 0x5a5a))
		++*bad;
}

/* idmap_del_if at each fill up to the map's growth, with the seed's
 * placement: every doomed entry handed over once, the rest still found
 * (deleting moves the rest of a probe run, wrapping at the end). */
static void del_if(void)
{
	size_t sizes[] = { 1, 2, 47, 48, 95, 300, 5000 }, failures = 0;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s], bad = 0, gone, missing = 0;
		struct idmap m = { 0 };

		for (uint64_t k = 1; k <= n; k++)
			idmap_put(&m, k * 0x10001, (void *)(uintptr_t)((k * 0x10001) ^ 0x5a5a));
		gone = idmap_del_if(&m, key_is_odd, count_gone, &bad);
		for (uint64_t k = 1; k <= n; k++) {
			uint64_t key = k * 0x10001;
			void *v = idmap_get(&m, key);

			if ((key & 1) ? v != NULL : v != (void *)(uintptr_t)(key ^ 0x5a5a))
				missing++;
		}
		if (bad || missing || m.used != n - gone || gone != (n + 1) / 2)
			failures++;
		idmap_free(&m);
	}
	ok(!failures, "del_if: the odd keys handed over once each, the even ones kept, "
	   "at 7 sizes");
	{
		struct idmap m = { 0 };

		idmap_put(&m, 3, (void *)3);
		ok(idmap_del_if(&m, never, NULL, NULL) == 0 && idmap_get(&m, 3) == (void *)3,
		   "del_if: none doomed, none deleted");
		ok(idmap_del_if(&m, key_is_odd, NULL, NULL) == 1 && m.used == 0,
		   "del_if: no callback for what goes is allowed");
		idmap_free(&m);
	}
}

int main(void)
{
	uint64_t inv = inverse(OLD_MUL), *keys = malloc(NKEYS * sizeof(*keys));
	struct idmap m = { 0 }, m2 = { 0 };
	size_t i, collide = 0, run, bad = 0, probes;
	double t0, t_ins, t_get, t_old;

	ok(inv * OLD_MUL == 1, "the inverse of the old multiplier");
	for (i = 0; i < NKEYS; i++) {
		keys[i] = (uint64_t)(i + 1) * inv;   /* old product: i + 1 */
		/* every capacity the map passes through, up to 2^20 slots */
		if (old_slot(keys[i], 64) == 0 && old_slot(keys[i], 1u << 20) == 0)
			collide++;
	}
	ok(collide == NKEYS, "100000 distinct keys that all share slot 0 under the old hash");

	t_old = old_insert_seconds(keys, NOLD, &probes);
	printf("# old hash: %d of these keys: %.3f s, %zu probes (%.0f per key)\n", NOLD, t_old,
	       probes, (double)probes / NOLD);

	t0 = now();
	for (i = 0; i < NKEYS; i++)
		idmap_put(&m, keys[i], (void *)(uintptr_t)(keys[i] ^ 0x5a5a));
	t_ins = now() - t0;
	run = longest_run(&m);
	ok(m.used == NKEYS, "all 100000 stored");
	printf("# seeded hash: %d keys inserted in %.3f s; capacity %zu, longest occupied run %zu\n",
	       NKEYS, t_ins, m.cap, run);
	/* Uniform hashing at load 0.38 gives runs of a few dozen; the old hash
	 * one run of 100000.  1000 has a vanishing chance of a false alarm. */
	ok(run < 1000, "no long probe run: the colliding keys are spread out");

	t0 = now();
	for (i = 0; i < NKEYS; i++)
		if (idmap_get(&m, keys[i]) != (void *)(uintptr_t)(keys[i] ^ 0x5a5a))
			bad++;
	t_get = now() - t0;
	ok(!bad, "every key found with its value");
	printf("# lookups of all %d: %.3f s\n", NKEYS, t_get);
	ok(idmap_get(&m, keys[0] + 1) == NULL && idmap_get(&m, 0) == NULL,
	   "absent keys and key 0 are not found");

	/* Deleting every other key keeps the rest reachable. */
	for (i = 0; i < NKEYS; i += 2)
		if (idmap_del(&m, keys[i]) != (void *)(uintptr_t)(keys[i] ^ 0x5a5a))
			bad++;
	for (i = 0; i < NKEYS; i++)
		if (idmap_get(&m, keys[i]) != (i % 2 ? (void *)(uintptr_t)(keys[i] ^ 0x5a5a) : NULL))
			bad++;
	ok(!bad && m.used == NKEYS / 2, "deleting half: the other half is still found");

	/* Replacing returns the old value. */
	ok(idmap_put(&m, keys[1], (void *)(uintptr_t)(keys[1] ^ 0x5a5a)) ==
	   (void *)(uintptr_t)(keys[1] ^ 0x5a5a) && m.used == NKEYS / 2,
	   "putting an existing key replaces it and hands back the old value");
	ok(idmap_put(&m, 0, (void *)1) == (void *)1, "key 0 is refused (handed back)");

	/* Drain: ascending key order, whatever the seed put where. */
	idmap_drain(&m, check_drain, NULL);
	ok(drained == NKEYS / 2 && !out_of_order && !wrong_val,
	   "drain visits every entry once, in ascending key order");
	ok(m.used == 0 && idmap_get(&m, keys[1]) == NULL, "the map is empty after drain");
	idmap_put(&m, 7, (void *)7);
	ok(idmap_get(&m, 7) == (void *)7, "and usable again");
	idmap_free(&m);

	/* Small keys in order (tids): drain order is the key order too. */
	for (i = 300; i > 0; i--)
		idmap_put(&m2, i, (void *)(uintptr_t)(i ^ 0x5a5a));
	each_sum = each_n = 0;
	idmap_each(&m2, sum_each, NULL);
	ok(each_n == 300 && each_sum == 300 * 301 / 2 && m2.used == 300,
	   "each visits the 300 entries once and leaves the map as it was");
	drained = out_of_order = wrong_val = 0;
	idmap_drain(&m2, check_drain, NULL);
	ok(drained == 300 && !out_of_order && !wrong_val && last_key == 300,
	   "300 small keys inserted backwards drain 1..300");
	idmap_free(&m2);
	free(keys);
	get_or_new();
	del_if();

	return tap_done();
}
