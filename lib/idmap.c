// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "idmap.h"
#include "msg.h"

/*
 * The keys come from the trace (tids, client and object handles), so a
 * crafted file could choose them to collide under any fixed hash function
 * and make every insertion walk one long probe run (quadratic time).  The
 * hash is keyed with a random seed, drawn once per process: the key XOR
 * the seed goes through splitmix64's finalizer, a bijection on 64 bits
 * whose every output bit depends on every input bit.  Nothing printed
 * depends on where a key lands: idmap_drain visits keys in ascending order.
 */
static uint64_t seed;   /* 0 until drawn; never 0 after */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t draw_seed(void)
{
	uint64_t s, expect = 0;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		/* No entropy yet (early boot), or no getrandom: a fixed value,
		 * stirred with what little varies (time, where the stack is). */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = 0x2545f4914f6cdd1dull ^ (uint64_t)ts.tv_nsec ^ (uint64_t)(uintptr_t)&ts;
		s = mix(s);
	}
	s |= 1;
	/* Threads racing here all end up with the first seed stored. */
	if (!__atomic_compare_exchange_n(&seed, &expect, s, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		s = expect;
	return s;
}

/* Key 0 marks a free slot: no tid and no (client, handle) pair is 0. */
static size_t slot(uint64_t key, size_t cap)
{
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_ACQUIRE);

	if (!s)
		s = draw_seed();
	return (size_t)mix(key ^ s) & (cap - 1);
}

void *idmap_get(const struct idmap *m, uint64_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	for (i = slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

static void grow(struct idmap *m)
{
	struct idmap n = { .cap = m->cap ? m->cap * 2 : 64 };
	size_t i;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		ct_err("out of memory\n");
		abort();
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			idmap_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

void *idmap_put(struct idmap *m, uint64_t key, void *val)
{
	size_t i;
	void *old;

	if (!key)
		return val;   /* not storable: hand it back to be freed */
	if ((m->used + 1) * 4 >= m->cap * 3)
		grow(m);
	for (i = slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			old = m->vals[i];
			m->vals[i] = val;
			return old;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->used++;
	return NULL;
}

void *idmap_get_or_new(struct idmap *m, uint64_t key, size_t size, bool *made)
{
	void *val = idmap_get(m, key);

	if (made)
		*made = false;
	if (val || !key || !(val = calloc(1, size)))
		return val;
	idmap_put(m, key, val);
	if (made)
		*made = true;
	return val;
}

void *idmap_del(struct idmap *m, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!m->cap || !key)
		return NULL;
	for (i = slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->keys[i])
		return NULL;
	val = m->vals[i];
	m->keys[i] = 0;
	m->used--;
	/* Re-insert the rest of the probe run so lookups stay correct. */
	for (j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		uint64_t k = m->keys[j];
		void *v = m->vals[j];

		m->keys[j] = 0;
		m->used--;
		idmap_put(m, k, v);
	}
	return val;
}

/* Heap sort of the n pairs (keys[i], vals[i]) by key, in place. */
static void sift(uint64_t *k, void **v, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;
		uint64_t tk;
		void *tv;

		if (c >= n)
			return;
		if (c + 1 < n && k[c + 1] > k[c])
			c++;
		if (k[root] >= k[c])
			return;
		tk = k[root], k[root] = k[c], k[c] = tk;
		tv = v[root], v[root] = v[c], v[c] = tv;
		root = c;
	}
}

static void sort_pairs(uint64_t *k, void **v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift(k, v, i, n);
	for (i = n; i-- > 1;) {
		uint64_t tk = k[0];
		void *tv = v[0];

		k[0] = k[i], k[i] = tk;
		v[0] = v[i], v[i] = tv;
		sift(k, v, 0, i);
	}
}

void idmap_each(const struct idmap *m, void (*fn)(uint64_t key, void *val, void *ctx), void *ctx)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			fn(m->keys[i], m->vals[i], ctx);
}

/*
 * Deleting slot i moves only entries of its probe run that lie after it,
 * each to a slot between its home and where it was: an entry the scan has
 * not reached stays at i or beyond.  So slot i is looked at again, and no
 * entry is missed.
 */
size_t idmap_del_if(struct idmap *m, bool (*doomed)(uint64_t key, const void *val, void *ctx),
		    void (*gone)(uint64_t key, void *val, void *ctx), void *ctx)
{
	size_t i = 0, n = 0;

	while (i < m->cap) {
		uint64_t key = m->keys[i];
		void *val;

		if (!key || !doomed(key, m->vals[i], ctx)) {
			i++;
			continue;
		}
		val = idmap_del(m, key);
		if (gone)
			gone(key, val, ctx);
		n++;
	}
	return n;
}

void idmap_drain(struct idmap *m, void (*fn)(uint64_t key, void *val, void *ctx), void *ctx)
{
	struct idmap old = *m;
	size_t i, n = 0;

	/* The map is empty from here on, even for what fn looks up or adds. */
	memset(m, 0, sizeof(*m));
	for (i = 0; i < old.cap; i++) {
		if (old.keys[i]) {
			old.keys[n] = old.keys[i];
			old.vals[n] = old.vals[i];
			n++;
		}
	}
	/* Key order: what fn prints must not depend on the seed. */
	sort_pairs(old.keys, old.vals, n);
	for (i = 0; i < n; i++)
		fn(old.keys[i], old.vals[i], ctx);
	free(old.keys);
	free(old.vals);
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->used = 0;
}

void idmap_free_value(uint64_t key, void *val, void *ctx)
{
	(void)key;
	(void)ctx;
	free(val);
}

void idmap_free_all(struct idmap *m)
{
	idmap_drain(m, idmap_free_value, NULL);
	idmap_free(m);
}
