// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_folder.h"
#include "replace_file.h"
#include "symcache.h"
#include "symindex_int.h"

#define SYMCACHE_MAGIC "CTSYMX\0\1"   /* the last byte: the layout's version */

struct symcache_head {
	char magic[8];
	uint32_t sym_size;       /* sizeof(struct ct_sym) that wrote it */
	uint32_t search_locals;
	uint64_t key;            /* which table, of which file (symindex.c) */
	uint64_t nglobal, nlocal, symbols, kept;
};
/* Then the globals' symbols and reaches, the locals' the same: every
 * array 8-byte aligned. */

static size_t table_bytes(uint64_t n)
{
	return n * (sizeof(struct ct_sym) + sizeof(uint64_t));
}

static void point_table(struct ct_symtable *t, unsigned char *at, uint64_t n)
{
	t->s = (struct ct_sym *)at;
	t->reach = (uint64_t *)(at + n * sizeof(struct ct_sym));
	t->n = t->cap = n;
}

bool ct_symcache_load(struct ct_symindex *x, const char *path, uint64_t key)
{
	struct symcache_head h;
	struct stat st;
	unsigned char *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, SYMCACHE_MAGIC, sizeof(h.magic)) &&
	     h.sym_size == sizeof(struct ct_sym) && h.key == key &&
	     h.nglobal < (1ull << 32) && h.nlocal < (1ull << 32) &&
	     (uint64_t)st.st_size == sizeof(h) + table_bytes(h.nglobal) + table_bytes(h.nlocal);
	map = ok ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		return false;
	free(x->global.s);
	free(x->global.reach);
	free(x->local.s);
	free(x->local.reach);
	point_table(&x->global, map + sizeof(h), h.nglobal);
	point_table(&x->local, map + sizeof(h) + table_bytes(h.nglobal), h.nlocal);
	x->search_locals = h.search_locals;
	x->info.symbols = h.symbols;
	x->info.kept = h.kept;
	x->map = map;
	x->map_len = (size_t)st.st_size;
	ct_cache_touch(path);   /* used now: a bound on the folder removes it last */
	return true;
}

static bool write_table(FILE *f, const struct ct_symtable *t)
{
	return fwrite(t->s, sizeof(*t->s), t->n, f) == t->n &&
	       fwrite(t->reach, sizeof(*t->reach), t->n, f) == t->n;
}

struct save {
	const struct symcache_head *h;
	const struct ct_symindex *x;
};

static bool write_cache(FILE *f, const void *ctx)
{
	const struct save *sv = ctx;

	return fwrite(sv->h, sizeof(*sv->h), 1, f) == 1 && write_table(f, &sv->x->global) &&
	       write_table(f, &sv->x->local);
}

int ct_symcache_save(const struct ct_symindex *x, const char *path, uint64_t key)
{
	struct symcache_head h = {
		.sym_size = sizeof(struct ct_sym), .search_locals = x->search_locals, .key = key,
		.nglobal = x->global.n, .nlocal = x->local.n, .symbols = x->info.symbols,
		.kept = x->info.kept,
	};
	struct save sv = { &h, x };

	memcpy(h.magic, SYMCACHE_MAGIC, sizeof(h.magic));
	return ct_replace_file(path, write_cache, &sv);
}
