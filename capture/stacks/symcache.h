/* SPDX-License-Identifier: MIT */
/*
 * A file's symbol index on disk, so that tracing the same program again
 * does not read and sort its symbol tables again (JAX's ten files hold
 * 1.45 million symbols: 140-210 ms a run).  The sorted tables as they are
 * in memory, behind a header that names the table they came from; mapped
 * back, not read: a lookup touches only the pages its searches do.  The
 * names stay in the file's own string table.
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
