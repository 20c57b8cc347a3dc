// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "idmap.h"

/* Key 0 marks a free slot: no tid and no (client, handle) pair is 0. */
static size_t slot(uint64_t key, size_t cap)
{
	/* Fibonacci hashing: the high half of the product mixes every key bit. */
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
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
		fprintf(stderr, "cudatrace: out of memory\n");
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

void idmap_drain(struct idmap *m, void (*fn)(uint64_t key, void *val, void *ctx), void *ctx)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			uint64_t k = m->keys[i];
			void *v = m->vals[i];

			m->keys[i] = 0;
			fn(k, v, ctx);
		}
	}
	m->used = 0;
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->used = 0;
}
