/* SPDX-License-Identifier: MIT */
/*
 * A small open-addressing map from a 64-bit id (tid, handle pair) to a
 * pointer.  The hash is keyed with a random seed per process (the ids come
 * from trace files, which may be crafted to collide), so where an entry
 * sits in keys[] differs from run to run: code that walks keys[] must not
 * print in that order.  idmap_drain visits entries in ascending key order.
 */
#ifndef CT_IDMAP_H
#define CT_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idmap {
	uint64_t *keys;
	void **vals;
	size_t cap, used;
};

void *idmap_get(const struct idmap *m, uint64_t key);
/* Replaces any old value and returns it (or NULL).  Aborts on ENOMEM. */
void *idmap_put(struct idmap *m, uint64_t key, void *val);
void *idmap_del(struct idmap *m, uint64_t key);
/* The value of key, or else a new one of size bytes, zeroed (calloc), put
 * under key; *made (may be NULL) says which.  NULL when out of memory, or
 * for key 0, which the map cannot hold. */
void *idmap_get_or_new(struct idmap *m, uint64_t key, size_t size, bool *made);
/* Calls fn on every entry, in no particular order; fn must not change the map. */
void idmap_each(const struct idmap *m, void (*fn)(uint64_t key, void *val, void *ctx), void *ctx);
/* Deletes every entry doomed says so, handing each to gone (may be NULL);
 * returns how many.  Neither callback may change the map.  Allocates
 * nothing, so it cannot fail. */
size_t idmap_del_if(struct idmap *m, bool (*doomed)(uint64_t key, const void *val, void *ctx),
		    void (*gone)(uint64_t key, void *val, void *ctx), void *ctx);
/* Empties the map, then calls fn on every entry in ascending key order
 * (the map is already empty while fn runs) and frees its storage. */
void idmap_drain(struct idmap *m, void (*fn)(uint64_t key, void *val, void *ctx), void *ctx);
void idmap_free(struct idmap *m);
/* For idmap_drain: frees a value made by malloc. */
void idmap_free_value(uint64_t key, void *val, void *ctx);
/* Frees every value (made by malloc) and the map's storage. */
void idmap_free_all(struct idmap *m);

#endif
