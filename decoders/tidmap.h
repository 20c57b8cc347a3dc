/* SPDX-License-Identifier: MIT */
/* A small open-addressing map from a 32-bit id (tid, pid) to a pointer. */
#ifndef CT_TIDMAP_H
#define CT_TIDMAP_H

#include <stddef.h>
#include <stdint.h>

struct tidmap {
	uint32_t *keys;
	void **vals;
	size_t cap, used;
};

void *tidmap_get(const struct tidmap *m, uint32_t key);
/* Replaces any old value and returns it (or NULL).  Aborts on ENOMEM. */
void *tidmap_put(struct tidmap *m, uint32_t key, void *val);
void *tidmap_del(struct tidmap *m, uint32_t key);
/* Calls fn on every value, then empties the map. */
void tidmap_drain(struct tidmap *m, void (*fn)(uint32_t key, void *val, void *ctx), void *ctx);
void tidmap_free(struct tidmap *m);

#endif
