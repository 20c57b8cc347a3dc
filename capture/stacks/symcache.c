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

#define SYMCACHE_MAGIC "CTSYMX\0\2"   /* the last byte: the layout's version */

struct symcache_table {
	uint64_t lo;
	uint32_t shift, nb, n, pad;
};

struct symcache_head {
	char magic[8];
	uint32_t search_locals, pad;
	uint64_t key;            /* which table, of which file (symindex.c) */
	uint64_t symbols, kept;
	struct symcache_table global, local;
};
/* Then the globals' arrays (ct_symtable_point's block), the locals' the
 * same, each 8-byte aligned. */

size_t ct_symtable_bytes(uint32_t n, uint32_t nb)
{
	return ((size_t)nb + 1 + 1) / 2 * 8 + (size_t)nb * 16 + (size_t)n * 4;
}

/* first, own, reach, order: the 8-byte arrays 8-byte aligned. */
void ct_symtable_point(struct ct_symtable *t, void *mem)
{
	unsigned char *at = mem;

	t->first = (const uint32_t *)at;
	at += ((size_t)t->nb + 1 + 1) / 2 * 8;
	t->own = (const uint64_t *)at;
	t->reach = t->own + t->nb;
	t->order = (const uint32_t *)(t->reach + t->nb);
}

static size_t table_bytes(const struct symcache_table *t)
{
	return (ct_symtable_bytes(t->n, t->nb) + 7) / 8 * 8;
}

/* Whether a table read back is whole: shaped as a build shapes it, its
 * buckets' bounds in order.  A symbol index in it is checked as it is
 * read (ct_symindex_read). */
static bool table_sane(const struct symcache_table *h, struct ct_symtable *t, void *mem)
{
	*t = (struct ct_symtable){ .lo = h->lo, .shift = h->shift, .nb = h->nb, .n = h->n };
	if (!h->nb || h->shift > 63)
		return false;
	ct_symtable_point(t, mem);
	if (t->first[0] != 0 || t->first[t->nb] != t->n)
		return false;
	for (uint32_t b = 0; b < t->nb; b++)
		if (t->first[b] > t->first[b + 1])
			return false;
	t->read = calloc(t->nb, sizeof(*t->read));
	return t->read != NULL;
}

bool ct_symcache_load(struct ct_symindex *x, const char *path, uint64_t key)
{
	struct symcache_head h;
	struct ct_symtable global, local = { 0 };
	struct stat st;
	unsigned char *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !fstat(fd, &st) && pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	     !memcmp(h.magic, SYMCACHE_MAGIC, sizeof(h.magic)) && h.key == key &&
	     (uint64_t)st.st_size == sizeof(h) + table_bytes(&h.global) + table_bytes(&h.local);
	map = ok ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	close(fd);
	if (map == MAP_FAILED)
		return false;
	if (!table_sane(&h.global, &global, map + sizeof(h)) ||
	    !table_sane(&h.local, &local, map + sizeof(h) + table_bytes(&h.global))) {
		free(global.read);
		free(local.read);
		munmap(map, (size_t)st.st_size);
		return false;
	}
	x->global = global;
	x->local = local;
	x->search_locals = h.search_locals;
	x->info.symbols = h.symbols;
	x->info.kept = h.kept;
	x->map = map;
	x->map_len = (size_t)st.st_size;
	ct_cache_touch(path);   /* used now: a bound on the folder removes it last */
	return true;
}

/* t's arrays as ct_symtable_point lays them out, padded to 8 bytes. */
static bool write_table(FILE *f, const struct ct_symtable *t)
{
	static const uint64_t zero;
	size_t slots = ((size_t)t->nb + 1 + 1) / 2 * 2, pad;   /* first[], to 8 bytes */

	pad = table_bytes(&(struct symcache_table){ .n = t->n, .nb = t->nb }) -
	      ct_symtable_bytes(t->n, t->nb);
	return fwrite(t->first, sizeof(uint32_t), t->nb + 1, f) == t->nb + 1u &&
	       fwrite(&zero, sizeof(uint32_t), slots - (t->nb + 1), f) == slots - (t->nb + 1) &&
	       fwrite(t->own, sizeof(uint64_t), t->nb, f) == t->nb &&
	       fwrite(t->reach, sizeof(uint64_t), t->nb, f) == t->nb &&
	       fwrite(t->order, sizeof(uint32_t), t->n, f) == t->n &&
	       fwrite(&zero, 1, pad, f) == pad;
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

static struct symcache_table head_of(const struct ct_symtable *t)
{
	return (struct symcache_table){ .lo = t->lo, .shift = t->shift, .nb = t->nb, .n = t->n };
}

int ct_symcache_save(const struct ct_symindex *x, const char *path, uint64_t key)
{
	struct symcache_head h = {
		.search_locals = x->search_locals, .key = key, .symbols = x->info.symbols,
		.kept = x->info.kept, .global = head_of(&x->global), .local = head_of(&x->local),
	};
	struct save sv = { &h, x };

	memcpy(h.magic, SYMCACHE_MAGIC, sizeof(h.magic));
	return ct_replace_file(path, write_cache, &sv);
}
