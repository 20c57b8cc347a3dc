/* SPDX-License-Identifier: MIT */
/*
 * The symbol index's insides, shared by its building (symindex.c), its
 * lookups (symindex_find.c) and its copy on disk (symcache.c).  Nothing
 * else includes it.
 */
#ifndef CT_SYMINDEX_INT_H
#define CT_SYMINDEX_INT_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symindex.h"

/* One symbol as a lookup weighs it. */
struct ct_sym {
	uint64_t value, size;   /* main file's ELF address */
	uint32_t name;          /* st_name in the table's strings (names: its slot) */
	uint32_t idx;           /* in libdw's table: its order */
	uint8_t bind;           /* libdw's binding preference, higher wins */
	uint8_t abs;            /* section index SHN_ABS or another reserved one */
	uint8_t pad[6];
};

/*
 * One of libdw's two searches (the globals, the locals).  Its symbols are
 * grouped by address into buckets, bucket b holding the values from
 * lo + (b << shift) (bucket 0 also those below lo, the last those above),
 * each in table order: building them is two passes over the table and
 * no sort.  A bucket's symbols are read the first time a lookup needs
 * them (read[b]), and scanned whole; a lookup needs a few.
 */
struct ct_symtable {
	uint64_t lo;
	uint32_t shift, nb, n;  /* bucket width 1 << shift; buckets; symbols */
	const uint32_t *order;  /* n: table indexes, bucket by bucket */
	const uint32_t *first;  /* nb + 1: bucket b is order[first[b] .. first[b + 1]) */
	const uint64_t *own;    /* nb: the furthest end (value + size) in bucket b */
	const uint64_t *reach;  /* nb: the furthest end in buckets 0..b */
	struct ct_sym **read;   /* nb: bucket b's symbols in table order, once read */
	void *mem;              /* first, own, reach and order, unless mapped */
	size_t mem_len;         /* mem's length where it is a mapping of its own */
};

/* Where a symbol is read from: libdw's table in place, or libdw. */
struct ct_symsource {
	const Elf64_Sym *syms;  /* the raw table; NULL: through libdw (mod) */
	Dwfl_Module *mod;
	uint32_t n, first_global;
	bool *alloc;            /* which sections are allocated */
	size_t nalloc;
	uint64_t sbias, bias;   /* its file's and the main file's */
	uint64_t lo, hi;        /* the executable segments' span: none kept above hi */
};

struct ct_symsection {
	uint64_t start, end;
	size_t ndx;
};

struct ct_symindex {
	struct ct_symtable global, local;
	bool search_locals;     /* libdw's first global > 1 */
	struct ct_symsource src;
	struct ct_symsection *secs;   /* allocated sections, by start */
	size_t nsecs;
	/* Names: the table's own strings (in libelf's data: they live as long
	 * as the Dwfl), or, read through libdw, a pointer a symbol. */
	const char *strtab;
	size_t strtab_size;
	const char **names;
	void *map;              /* the buckets, mapped from the cache; else NULL */
	size_t map_len;
	struct ct_symindex_info info;
};

/* Symbol i as the index keeps it: false where libdw's search passes it
 * over or it lies above the executable segments. */
bool ct_symindex_read(struct ct_symindex *x, uint32_t i, struct ct_sym *out);

/* The space for t's arrays as one block: order, first, own, reach. */
size_t ct_symtable_bytes(uint32_t n, uint32_t nb);
void ct_symtable_point(struct ct_symtable *t, void *mem);

#endif
