/* SPDX-License-Identifier: MIT */
/*
 * The index of GPU function code: every function of every cubin of the
 * fatbins of the files added, found by its code.  A function is known by
 * the hash of its bytes with the instructions relocations patch zeroed
 * (cubin.h), and found from code at an address by the hash of its first
 * bytes (up to CT_KINDEX_KEY, and before its first patched instruction),
 * then checked whole.  Memory: one struct ct_kfunc per function, its masks
 * and its name once per file (ct_kindex_bytes says).
 */
#ifndef CT_KINDEX_H
#define CT_KINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fatbin.h"
#include "idmap.h"

#define CT_KINDEX_KEY      128   /* bytes of a function's start the key hashes */
#define CT_KINDEX_VERIFY   4096  /* candidates checked whole per lookup, at most */
#define CT_KINDEX_CANDS    8     /* functions of different names kept per lookup */
#define CT_KINDEX_REGS_FLOOR 32  /* a launch may give any function up to this (fits()) */

struct ct_kfunc {
	uint64_t hash;          /* the whole function, patched instructions zeroed */
	uint64_t key;           /* its first key_len bytes */
	uint64_t addr;          /* sh_addr in its cubin */
	uint32_t size, key_len;
	uint32_t name;          /* offset in names */
	uint32_t file;          /* index in files */
	uint32_t mask_at, nmasks;
	uint32_t arch;
	uint32_t regs;          /* registers a thread it needs, 0 if its cubin does not say */
	uint32_t cbank0;        /* bytes of its constant bank 0 (to its parameters' end), 0: none */
	uint32_t next;          /* next function of the same key bucket + 1, 0 none */
};

struct ct_kfile {
	char *path;
	uint64_t dev, ino;
	uint32_t functions;
	/* its functions, masks and names: contiguous when added by
	 * ct_kindex_add_fatbin (what kcache.c saves) */
	size_t f_at, masks_at, names_at;
	bool cached;            /* read from the cache, not built */
	uint64_t build_ns;      /* time spent indexing it */
	struct ct_fatbin_stats fb;
};

struct ct_kindex {
	struct ct_kfunc *f;
	size_t nf, capf;
	uint32_t *masks;
	size_t nmasks, capmasks;
	char *names;
	size_t nnames, capnames;
	struct idmap name_of;   /* name hash -> offset + 1, per file (reset per file) */
	struct idmap buckets;   /* key -> first function + 1 */
	struct ct_kfile *files;
	size_t nfiles;
	uint64_t unkeyed;       /* functions patched in their first instruction: found
				 * only by (address, size), never by content */
	uint64_t masks_lost;
};

enum ct_kmatch { CT_KM_NONE, CT_KM_ONE, CT_KM_AMBIGUOUS };

struct ct_kfound {
	enum ct_kmatch how;
	const struct ct_kfunc *f;   /* CT_KM_ONE, or the first of several */
	uint32_t candidates;        /* functions of different names that matched */
	const struct ct_kfunc *cand[CT_KINDEX_CANDS];   /* the first of each name */
	uint32_t ncand;             /* ... kept: min(candidates, CT_KINDEX_CANDS) */
	bool capped;                /* more candidates than CT_KINDEX_VERIFY: some not checked */
	uint32_t too_few_regs;      /* functions that matched but need more registers than the
				     * launch gives: not its code */
	uint32_t too_many_regs;     /* ... or need far fewer than it gives (fits()): not its
				     * code either */
	uint64_t hash;              /* the code's own hash (f->size bytes, or all given) */
};

void ct_kindex_init(struct ct_kindex *x);
void ct_kindex_free(struct ct_kindex *x);

/* Adds the functions of the fatbins in p[0..n) as file path (dev, ino
 * name it once: a file already added is not added again).  Returns the
 * number of functions added. */
uint32_t ct_kindex_add_fatbin(struct ct_kindex *x, const char *path, uint64_t dev, uint64_t ino,
			      const uint8_t *p, size_t n);
/* Makes function i (appended to x->f) findable by its key. */
void ct_kindex_link(struct ct_kindex *x, size_t i);
/* Appends functions whose name and mask offsets already count from
 * x->nnames and x->nmasks, with their masks and names (kcache.c). */
void ct_kindex_append(struct ct_kindex *x, const struct ct_kfunc *f, size_t nf,
		      const uint32_t *masks, size_t nmasks, const char *names, size_t nnames);
/* Adds the functions of the fatbins in p[0..n) to file index fi, new. */
uint32_t ct_kindex_add_fatbin_to(struct ct_kindex *x, uint32_t fi, const uint8_t *p, size_t n);
/* Adds the functions of the bare cubins in p[0..n) (embedded.h: a file
 * with no .nv_fatbin, such as libcuda) to file index fi, new. */
uint32_t ct_kindex_add_embedded_to(struct ct_kindex *x, uint32_t fi, const uint8_t *p, size_t n);
/* Adds one cubin's functions to file index fi (tests, cuModuleLoadData). */
uint32_t ct_kindex_add_cubin(struct ct_kindex *x, uint32_t fi, const uint8_t *elf, size_t n);
/* The file index of (dev, ino), adding it if new; *fresh says which. */
uint32_t ct_kindex_file(struct ct_kindex *x, const char *path, uint64_t dev, uint64_t ino,
			bool *fresh);

/* The function whose code starts at code[0] (avail bytes known from there). */
struct ct_kfound ct_kindex_lookup(const struct ct_kindex *x, const uint8_t *code, size_t avail);
/* ... that can run with regs registers a thread (a launch's QMD; 0: any). */
struct ct_kfound ct_kindex_lookup_for(const struct ct_kindex *x, const uint8_t *code, size_t avail,
				      uint32_t regs);
/* Whether some function's key matches code[0..avail): its start is a
 * function's start (not checked whole: a cheap first look). */
bool ct_kindex_starts_function(const struct ct_kindex *x, const uint8_t *code, size_t avail);
/* The architectures (a cubin's sm_NN) a process's code was found to be
 * by its bytes: SASS runs only on the architecture it was built for, so a
 * match by size alone is one of these. */
#define CT_KARCHES_MAX 4
struct ct_karches { uint32_t arch[CT_KARCHES_MAX]; uint32_t n; };

/* Adds arch to a (kept as is when full or known). */
void ct_karches_add(struct ct_karches *a, uint32_t arch);

/* The functions from min to max bytes long that can run with regs
 * registers (0: any), of one of the architectures in `only` (NULL or
 * none: any): the one name they share, or how many names they have. */
struct ct_kfound ct_kindex_by_size(const struct ct_kindex *x, uint64_t min, uint64_t max,
				   uint32_t regs, const struct ct_karches *only);

/* Of an ambiguous r, the names whose constant bank 0 ends at params_end
 * (rounded up to 4 bytes: a launch uploads whole dwords) or does not say,
 * when every name was kept and some but not all do: r keeps those (one:
 * CT_KM_ONE).  false if nothing was dropped, or params_end is 0. */
bool ct_kindex_narrow_params(struct ct_kfound *r, uint32_t params_end);

const char *ct_kindex_name(const struct ct_kindex *x, const struct ct_kfunc *f);
const char *ct_kindex_path(const struct ct_kindex *x, const struct ct_kfunc *f);
/* Bytes of memory the index holds. */
size_t ct_kindex_bytes(const struct ct_kindex *x);

/* The hash of n bytes of code with the 16-byte instructions at masks[]
 * (ascending byte offsets) taken as zero. */
uint64_t ct_code_hash(const uint8_t *p, size_t n, const uint32_t *masks, uint32_t nmasks);

#endif
