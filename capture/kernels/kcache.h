/* SPDX-License-Identifier: MIT */
/*
 * The index of one file on disk (kindex.h), so that a file's fatbins are
 * read once: libtorch_cuda.so holds tens of thousands of functions.  A
 * cache file is named by what identifies the file's contents: its
 * build-id (else its device, inode and modification time), its size, and
 * its .nv_fatbin section's size and the hash of its first and last 64 KiB
 * (a build-id alone is not enough: `objcopy --add-section` keeps it), and
 * read back with every count and offset checked: a damaged one is rebuilt.
 */
#ifndef CT_KCACHE_H
#define CT_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kindex.h"

#define CT_KCACHE_NAME_MAX 160

/* The cache file's name for a file of size bytes with fatbin fb[0..fbn):
 * from its build-id (n bytes), or when n is 0 from (dev, ino, mtime_ns). */
void ct_kcache_name(char out[CT_KCACHE_NAME_MAX], const uint8_t *build_id, uint32_t n,
		    uint64_t dev, uint64_t ino, uint64_t mtime_ns, uint64_t size,
		    const uint8_t *fb, size_t fbn);
/* Adds the cached functions of file fi (just made by ct_kindex_file) from
 * path; false (x unchanged) if there is none that reads whole. */
bool ct_kcache_load(struct ct_kindex *x, uint32_t fi, const char *path);
/* Writes what file fi (added by ct_kindex_add_fatbin) holds to path
 * (through a temporary file, renamed).  0, or -errno. */
int ct_kcache_save(const struct ct_kindex *x, uint32_t fi, const char *path);

#endif
