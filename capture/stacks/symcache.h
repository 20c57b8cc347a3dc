/* SPDX-License-Identifier: MIT */
/*
 * A file's symbol index on disk, so that tracing the same program again
 * does not pass over its symbol tables again (JAX's ten files hold 1.45
 * million symbols).  The buckets as they are in memory (symindex_int.h:
 * four bytes a symbol, sixteen a bucket), behind a header that names the
 * table they came from; mapped back, not read: a lookup touches only the
 * pages its buckets do.  The symbols themselves, and their names, stay
 * in the file's own tables, read as a bucket is.
 */
#ifndef CT_SYMCACHE_H
#define CT_SYMCACHE_H

#include <stdbool.h>
#include <stdint.h>

struct ct_symindex;

/* Maps x's tables from path if it holds a table with this key; false:
 * none there, or not this one (x unchanged). */
bool ct_symcache_load(struct ct_symindex *x, const char *path, uint64_t key);
/* Writes x's tables to path (a temporary file renamed).  0, or -errno. */
int ct_symcache_save(const struct ct_symindex *x, const char *path, uint64_t key);

#endif
