/* SPDX-License-Identifier: MIT */
/*
 * The symbol index's insides, shared by its building and lookups
 * (symindex.c) and its copy on disk (symcache.c).  Nothing else includes it.
 */
#ifndef CT_SYMINDEX_INT_H
#define CT_SYMINDEX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symindex.h"

struct ct_sym {
	uint64_t value, size;   /* main file's ELF address */
	uint32_t name;          /* st_name in the table's strings (names: its slot) */
	uint32_t idx;           /* in libdw's table: its order */
	uint8_t bind;           /* libdw's binding preference, higher wins */
	uint8_t abs;            /* section index SHN_ABS or another reserved one */
	uint8_t pad[6];
};

struct ct_symtable {
	struct ct_sym *s;       /* by value, then idx */
	uint64_t *reach;        /* reach[i]: the furthest end of s[0..i] */
	size_t n, cap;
};

struct ct_symsection {
	uint64_t start, end;
	size_t ndx;
};

struct ct_symindex {
	struct ct_symtable global, local;
	bool search_locals;     /* libdw's first global > 1 */
	struct ct_symsection *secs;   /* allocated sections, by start */
	size_t nsecs;
	/* Names: the table's own strings (in libelf's data: they live as long
	 * as the Dwfl), or, read through libdw, a pointer a symbol. */
	const char *strtab;
	size_t strtab_size;
	const char **names;
	void *map;              /* the tables, mapped from the cache; else NULL */
	size_t map_len;
	struct ct_symindex_info info;
};

#endif
