/* SPDX-License-Identifier: MIT */
/*
 * A cache folder of cudatrace's: where it is, and kept under a size (its
 * files of one kind, the least recently used removed first).  A file's
 * time of last use is its mtime, which a use sets (ct_cache_touch): atime
 * is not kept on most mounts.
 */
#ifndef CT_CACHE_FOLDER_H
#define CT_CACHE_FOLDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The folder named by environment variable env, else ~/.cache/cudatrace/
 * sub; "" when env is "off" or neither is set. */
void ct_cache_dir(char *out, size_t size, const char *env, const char *sub);

/* Removes dir's files ending in suffix, least recently used first, until
 * those left take at most max_bytes.  The files removed, or -errno. */
int ct_cache_bound(const char *dir, const char *suffix, uint64_t max_bytes);
/* The path of the file dir/NAME+suffix into out: 0, or -ENAMETOOLONG. */
int ct_cache_path(char *out, size_t size, const char *dir, const char *name, const char *suffix);
/* Marks path used now. */
void ct_cache_touch(const char *path);
/* Reads dir/NAME+suffix through parse (0, or -errno) and marks it used
 * where parse took it: 0, or -ENOENT (none), or parse's error. */
int ct_cache_read(const char *dir, const char *name, const char *suffix,
		  int (*parse)(FILE *f, void *ctx), void *ctx);
/* Writes dir/NAME+suffix through write, whole or not at all
 * (replace_file.h: a capture reading it meanwhile sees the old or the
 * new), the folder made if missing.  0, or -errno. */
int ct_cache_write(const char *dir, const char *name, const char *suffix,
		   bool (*write)(FILE *f, const void *ctx), const void *ctx);

#endif
