/* SPDX-License-Identifier: MIT */
/*
 * A cache folder kept under a size: its files of one kind, the least
 * recently used removed first.  A file's time of last use is its mtime,
 * which a use sets (ct_cache_touch): atime is not kept on most mounts.
 */
#ifndef CT_CACHE_BOUND_H
#define CT_CACHE_BOUND_H

#include <stdint.h>

/* Removes dir's files ending in suffix, least recently used first, until
 * those left take at most max_bytes.  The files removed, or -errno. */
int ct_cache_bound(const char *dir, const char *suffix, uint64_t max_bytes);
/* Marks path used now. */
void ct_cache_touch(const char *path);

#endif
