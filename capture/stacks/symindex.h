/* SPDX-License-Identifier: MIT */
/*
 * A file's symbols by address: the name dwfl_module_addrinfo would give an
 * address, found without libdw's scan.  libdw (0.188) scans the whole
 * table for each address it is asked; JAX's and CUDA's libraries hold
 * hundreds of thousands of symbols, and naming JAX's stacks spent 10.3 of
 * 10.3 s there (872 addresses, 11.8 ms each).  The index passes over the
 * table twice, grouping the symbols into buckets of address (no sort: a
 * first run pays some 15 ns a symbol), reads a bucket the first
 * time a lookup needs it, and answers as libdw does: the same table (libdw
 * chooses it: .symtab, a separate debug file's, or .dynsym), globals
 * before locals, the nearest sized symbol that holds the address with
 * libdw's binding and size preferences, else an assembly label (a
 * sizeless symbol) in the address's section that no other symbol's end
 * passes.
 */
#ifndef CT_SYMINDEX_H
#define CT_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

struct ct_symindex;

/* The index of mod's symbol table (NULL: out of memory).  Addresses are
 * the main file's ELF addresses, mod's bias taken off.  cache_dir (NULL:
 * none) keeps indexes across runs (symcache.h), under names that begin
 * with file_id (the file's build-id, size and time), so the same file is
 * not read and sorted again. */
struct ct_symindex *ct_symindex_build(Dwfl_Module *mod, const char *cache_dir,
				      const char *file_id);
void ct_symindex_free(struct ct_symindex *x);

/* The symbol holding ELF address addr and addr's offset in it, or NULL;
 * what dwfl_module_addrinfo(mod, bias + addr, ...) returns.  Reads the
 * buckets it needs the first time (not thread-safe: one caller a time).  Names are
 * not read while building (a large file's string table is most of its
 * cost), so a symbol whose name turns out empty (no linker makes one but
 * at offset 0) is not answered: CT_SYMINDEX_ASK_LIBDW says to ask libdw;
 * so too where a bucket cannot be read (memory short). */
#define CT_SYMINDEX_ASK_LIBDW ((const char *)1)
const char *ct_symindex_lookup(struct ct_symindex *x, uint64_t addr, uint64_t *off);

/* What the index holds, for the closing line and the checks. */
struct ct_symindex_info {
	uint64_t symbols;     /* in the table libdw chose */
	uint64_t kept;        /* those that can name code */
	double build_ms;
	int via_libdw;        /* read one by one through libdw (no raw table) */
	int cache_read;       /* mapped from the cache */
	int cache_written;    /* built and written to the cache */
	int cache_errno;      /* writing it failed so */
	uint64_t names_at;    /* the raw table's strings, read at random (0: none) */
	uint64_t names_len;
};
void ct_symindex_info(const struct ct_symindex *x, struct ct_symindex_info *out);

#endif
