// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>

#include "tidmap.h"

/* Key 0 marks a free slot; tid/pid 0 never issues an ioctl. */
static size_t slot(uint32_t key, size_t cap)
{
	return (size_t)(key * 2654435761u) & (cap - 1);
}

void *tidmap_get(const struct tidmap *m, uint32_t key)
{
	size_t i;

	if (!m->cap || !key)
		return NULL;
	for (i = slot(key, m->cap); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

static void grow(struct tidmap *m)
{
	struct tidmap n = { .cap = m->cap ? m->cap * 2 : 64 };
	size_t i;

	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		fprintf(stderr, "cudatrace: out of memory\n");
		abort();
	}
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			tidmap_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

void *tidmap_put(struct tidmap *m, uint32_t key, void *val)
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

void *tidmap_del(struct tidmap *m, uint32_t key)
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
		uint32_t k = m->keys[j];
		void *v = m->vals[j];

		m->keys[j] = 0;
		m->used--;
		tidmap_put(m, k, v);
	}
	return val;
}

void tidmap_drain(struct tidmap *m, void (*fn)(uint32_t key, void *val, void *ctx), void *ctx)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		if (m->keys[i]) {
			uint32_t k = m->keys[i];
			void *v = m->vals[i];

			m->keys[i] = 0;
			fn(k, v, ctx);
		}
	}
	m->used = 0;
}

void tidmap_free(struct tidmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->used = 0;
}
