// SPDX-License-Identifier: MIT
/*
 * Building a file's symbol index: libdw's table found and read in place,
 * its symbols grouped into buckets of address (symindex_int.h), or the
 * buckets mapped back from the cache.  Lookups: symindex_find.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mkdir_p.h"

#include "symcache.h"
#include "symindex_int.h"

/* Symbols a bucket holds on average (between this and twice it, as the
 * width is a power of two; real tables cluster, and a lookup lands in a
 * bucket of hundreds): a lookup reads a bucket or two the first time, a
 * cache and TLB miss a symbol; fewer make more buckets to count into while
 * building, out of cache.  32 against 64 (docs/PERFORMANCE.md): first
 * lookups cheaper, the build the same within its spread; 16 made a
 * 1.45M-symbol table's build 2 ms slower.
 * CT_SYMINDEX_BUCKET_SYMS sets it, for the checks (1: a bucket for
 * nearly every symbol, every lookup across buckets). */
#define SYMS_PER_BUCKET 32
#define BUCKET_SYMS_ENV "CT_SYMINDEX_BUCKET_SYMS"

static uint32_t syms_per_bucket(void)
{
	const char *env = getenv(BUCKET_SYMS_ENV);
	unsigned long v = env ? strtoul(env, NULL, 10) : 0;

	return v >= 1 && v <= 65536 ? (uint32_t)v : SYMS_PER_BUCKET;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int binding_pref(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 3;
	case STB_WEAK:   return 2;
	case STB_LOCAL:  return 1;
	default:         return 0;
	}
}

/* --- which symbols, at which address ---------------------------------- */

/* The span of the file's executable segments.  A symbol above it names no
 * code address, nor keeps a label from naming one; those below it may
 * (a label at the file's start names code before the first symbol where
 * neither lies in a section, and a symbol's end there passes it). */
static void exec_span(Elf *elf, uint64_t *lo, uint64_t *hi)
{
	size_t n = 0;

	*lo = UINT64_MAX;
	*hi = 0;
	if (elf_getphdrnum(elf, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X))
				continue;
			if (ph.p_vaddr < *lo)
				*lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > *hi)
				*hi = ph.p_vaddr + ph.p_memsz;
		}
	if (*lo > *hi) {
		*lo = 0;
		*hi = UINT64_MAX;
	}
}

/* Whether libdw's search looks at a symbol at all (named: its name is
 * there and not empty). */
static bool searched(const GElf_Sym *s, bool named)
{
	int type = GELF_ST_TYPE(s->st_info);

	return named && s->st_shndx != SHN_UNDEF &&
	       type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

/* Where libdw puts a raw symbol, in the main file's ELF addresses. */
static uint64_t raw_value(const Elf64_Sym *s, const struct ct_symsource *src)
{
	bool moved = s->st_shndx < SHN_LORESERVE && s->st_shndx < src->nalloc &&
		     src->alloc[s->st_shndx];

	return s->st_value + (moved ? src->sbias : 0) - src->bias;
}

enum sym_kind { PASSED_OVER, ABOVE_CODE, KEPT };

/* Symbol i, and whether the index keeps it.  A raw symbol's name is not
 * read: a large file's string table is hundreds of MB, from disk the
 * first time.  A name at offset 0 is empty; one elsewhere is taken as not
 * empty (linkers make no other empty name), and an empty one found at a
 * lookup is left to libdw. */
static inline __attribute__((always_inline)) enum sym_kind
read_sym(struct ct_symindex *x, uint32_t i, struct ct_sym *out, bool raw)
{
	const struct ct_symsource *src = &x->src;
	GElf_Sym s;
	GElf_Addr addr;
	GElf_Word shndx;
	const char *name;
	bool named;

	if (raw) {
		s = src->syms[i];
		named = s.st_name && s.st_name < x->strtab_size;
		addr = raw_value(&src->syms[i], src);
		shndx = s.st_shndx;
		*out = (struct ct_sym){ .name = s.st_name };
	} else {
		name = dwfl_module_getsym_info(src->mod, (int)i, &s, &addr, &shndx, NULL, NULL);
		named = name && name[0];
		addr -= src->bias;
		if (named)
			x->names[i] = name;
		*out = (struct ct_sym){ .name = i };
	}
	if (!searched(&s, named))
		return PASSED_OVER;
	out->value = addr;
	out->size = s.st_size;
	out->idx = i;
	out->bind = (uint8_t)binding_pref(s.st_info);
	out->abs = shndx >= SHN_LORESERVE;
	return addr <= src->hi ? KEPT : ABOVE_CODE;
}

bool ct_symindex_read(struct ct_symindex *x, uint32_t i, struct ct_sym *out)
{
	return i && i < x->src.n && read_sym(x, i, out, x->src.syms != NULL) == KEPT;
}

/* --- the buckets ------------------------------------------------------ */

/* Buckets for up to max symbols between lo and hi. */
static void shape(struct ct_symtable *t, uint32_t max, uint64_t lo, uint64_t hi)
{
	uint64_t want = max / syms_per_bucket() + 1;

	t->lo = lo;
	t->shift = 0;
	while (t->shift < 63 && (hi - lo) >> t->shift >= want)
		t->shift++;
	t->nb = (uint32_t)((hi - lo) >> t->shift) + 1;
}

static uint32_t bucket_at(const struct ct_symtable *t, uint64_t value)
{
	uint64_t b = value < t->lo ? 0 : (value - t->lo) >> t->shift;

	return b < t->nb ? (uint32_t)b : t->nb - 1;
}

/* Anonymous memory populated at once: faulted in a page at a time, the
 * notes of a million symbols cost a third of the pass that writes them. */
static void *populated(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A table's arrays this large are mapped populated, in one system call,
 * rather than faulted in a page at a time as the filing writes them. */
#define ROOM_MAPPED_MIN (256u << 10)

/* Room for t's arrays, counts and ends zeroed, for up to max symbols. */
static bool make_room(struct ct_symtable *t, uint32_t max)
{
	size_t len = ct_symtable_bytes(max, t->nb);

	if (len >= ROOM_MAPPED_MIN) {
		t->mem = populated(len);
		t->mem_len = t->mem ? len : 0;
	} else {
		t->mem = calloc(1, len);
	}
	t->read = calloc(t->nb, sizeof(*t->read));
	if (!t->mem || !t->read)
		return false;
	ct_symtable_point(t, t->mem);
	return true;
}

#define NO_BUCKET UINT32_MAX

/* A bucket while building: its count and furthest end side by side, one
 * cache line to miss where the table's order jumps about in address. */
struct tally {
	uint64_t own;
	uint64_t count;
};

/* The one pass over table t's symbols (from..to): each kept symbol
 * counted into its bucket, the bucket's furthest end kept, and the bucket
 * noted (at[i]) for filing the symbol there.  Inlined for each kind of
 * table: the raw one is read at a few ns a symbol. */
static inline __attribute__((always_inline)) void
count(struct ct_symindex *x, struct ct_symtable *t, struct tally *tl, uint32_t *at,
      uint32_t from, uint32_t to, bool raw)
{
	uint32_t kept = 0;
	uint64_t symbols = 0;

	for (uint32_t i = from; i < to; i++) {
		enum sym_kind kind;
		struct ct_sym s;
		uint32_t b;

		at[i] = NO_BUCKET;
		kind = read_sym(x, i, &s, raw);
		symbols += kind != PASSED_OVER;
		if (kind != KEPT)
			continue;
		b = bucket_at(t, s.value);
		at[i] = b;
		tl[b].count++;
		if (s.value + s.size > tl[b].own)
			tl[b].own = s.value + s.size;
		kept++;
	}
	t->n = kept;
	x->info.symbols += symbols;
	x->info.kept += kept;
}

/* Counts to starts, and each bucket's reach over those below it. */
static void sum_buckets(struct ct_symtable *t, const struct tally *tl)
{
	uint32_t *first = (uint32_t *)t->first, at = 0;
	uint64_t *own = (uint64_t *)t->own, *reach = (uint64_t *)t->reach, far = 0;

	for (uint32_t b = 0; b < t->nb; b++) {
		first[b] = at;
		at += (uint32_t)tl[b].count;
		own[b] = tl[b].own;
		if (own[b] > far)
			far = own[b];
		reach[b] = far;
	}
	first[t->nb] = at;
}

/* One table's buckets counted and summed: symbols from..to. */
static bool count_table(struct ct_symindex *x, struct ct_symtable *t, uint32_t *at,
			uint32_t from, uint32_t to)
{
	struct tally *tl = calloc(t->nb, sizeof(*tl));

	if (!tl)
		return false;
	if (x->src.syms)
		count(x, t, tl, at, from, to, true);
	else
		count(x, t, tl, at, from, to, false);
	sum_buckets(t, tl);
	free(tl);
	return true;
}

/* Table t's kept symbols (those of at[from..to) noted) filed in their
 * buckets, in table order. */
static bool fill(struct ct_symtable *t, const uint32_t *at, uint32_t from, uint32_t to)
{
	uint32_t *next = malloc((size_t)t->nb * sizeof(*next));

	if (!next)
		return false;
	memcpy(next, t->first, (size_t)t->nb * sizeof(*next));
	for (uint32_t i = from; i < to; i++)
		if (at[i] != NO_BUCKET)
			((uint32_t *)t->order)[next[at[i]]++] = i;
	free(next);
	return true;
}

/* Advice on the pages holding len bytes at p (in libelf's mapping of the
 * file).  Advice only: where libelf read the file instead of mapping it,
 * the pages are its own and nothing changes. */
static void advise_pages(const void *p, size_t len, int advice)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), from;

	if (!p || !len || page == (uintptr_t)-1 || !page)
		return;
	from = (uintptr_t)p & ~(page - 1);
	madvise((void *)from, (uintptr_t)p + len - from, advice);
}

/* The raw table read ahead in large reads: a cold first run otherwise
 * faults it in from disk a few pages at a time. */
static void read_ahead(const struct ct_symsource *src)
{
	if (src->syms)
		advise_pages(src->syms, (size_t)src->n * sizeof(*src->syms), MADV_WILLNEED);
}

/* Names are read a few at a time, at random, from strings of up to
 * hundreds of MB: a page not in the page cache is read alone, not with
 * the 128 KiB read around it (on the GPU machine, JAX's first run read
 * 214 names from two such tables).  The symbol table is read ahead on
 * purpose (read_ahead: a read asked for, which this advice does not stop). */
static void names_read_alone(struct ct_symindex *x)
{
	advise_pages(x->strtab, x->strtab_size, MADV_RANDOM);
	x->info.names_at = (uintptr_t)x->strtab;
	x->info.names_len = x->strtab_size;
}

/* Room for n notes, kept for the next file's build: mapped and populated
 * once, not for every file.  Each thread that builds keeps its own, 4
 * bytes a symbol of the largest table it read (JAX's: 2.9 MB), until it
 * exits. */
static uint32_t *notes_room(size_t n)
{
	static __thread uint32_t *kept;
	static __thread size_t kept_len;
	size_t len = n * sizeof(uint32_t);

	if (len <= kept_len)
		return kept;
	if (kept)
		munmap(kept, kept_len);
	kept = populated(len);
	kept_len = kept ? len : 0;
	return kept;
}

/* Both tables' buckets, from one pass over the symbols. */
static bool bucket_symbols(struct ct_symindex *x)
{
	uint32_t n = x->src.n, fg = x->src.first_global;
	uint32_t nlocal = fg > 1 ? fg - 1 : 0, nglobal = n > fg ? n - fg : 0;
	uint32_t *at = notes_room(n);
	bool ok;

	shape(&x->local, nlocal, x->src.lo, x->src.hi);
	shape(&x->global, nglobal, x->src.lo, x->src.hi);
	if (!at)
		return false;
	x->info.symbols = x->info.kept = 0;
	read_ahead(&x->src);
	ok = make_room(&x->local, nlocal) && make_room(&x->global, nglobal) &&
	     count_table(x, &x->local, at, 1, fg < n ? fg : n) &&
	     count_table(x, &x->global, at, fg, n) &&
	     fill(&x->local, at, 1, fg < n ? fg : n) && fill(&x->global, at, fg, n);
	return ok;
}

/* --- libdw's table ---------------------------------------------------- */

/* The section of the symbol table libdw chose, if it is one we can read
 * in place: n entries of Elf64_Sym, first_global its sh_info. */
static Elf_Scn *table_section(Elf *elf, int n, int first_global)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_entsize != sizeof(Elf64_Sym))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			break;
		if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
	}
	if (!scn)
		scn = dynsym;
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_size / sizeof(Elf64_Sym) != (uint64_t)n ||
	    sh.sh_info != (uint64_t)first_global)
		return NULL;
	return scn;
}

/* Which of elf's sections are allocated: libdw moves a symbol by the
 * file's bias only if its section is (an absolute one stays).  NULL where a
 * symbol's section may be given elsewhere (SHT_SYMTAB_SHNDX): libdw's own
 * reading is asked then. */
static bool *alloc_sections(Elf *elf, size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool *alloc;

	if (elf_getshdrnum(elf, n) != 0 || !(alloc = calloc(*n ? *n : 1, sizeof(*alloc))))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		size_t i = elf_ndxscn(scn);

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_SYMTAB_SHNDX) {
			free(alloc);
			return NULL;
		}
		if (i < *n)
			alloc[i] = sh.sh_flags & SHF_ALLOC;
	}
	return alloc;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* Finds libdw's table in libelf's data, reading no symbol yet: the index
 * then reads it in place.  Returns the table's identity for the cache, or
 * 0: not a table we can read so (the index asks libdw for each symbol). */
static uint64_t locate_raw(struct ct_symindex *x, Elf *main)
{
	struct ct_symsource *src = &x->src;
	GElf_Sym probe;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	Dwarf_Addr sbias = 0;
	Elf_Scn *scn, *strscn;
	Elf_Data *d, *sd;
	GElf_Shdr sh;
	uint32_t n = src->n;

	if (!dwfl_module_getsym_info(src->mod, (int)n - 1, &probe, &addr, &shndx, &elf, &sbias) ||
	    !elf || gelf_getclass(elf) != ELFCLASS64 ||
	    !(scn = table_section(elf, (int)n, (int)src->first_global)) ||
	    !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) || d->d_type != ELF_T_SYM ||
	    d->d_size < (size_t)n * sizeof(Elf64_Sym) || !(strscn = elf_getscn(elf, sh.sh_link)) ||
	    !(sd = elf_getdata(strscn, NULL)) || !sd->d_size ||
	    ((const char *)sd->d_buf)[sd->d_size - 1] != 0 ||
	    !(src->alloc = alloc_sections(elf, &src->nalloc)))
		return 0;
	src->sbias = sbias;
	/* The same entry as libdw's, at the address libdw gives it. */
	const Elf64_Sym *last = &((const Elf64_Sym *)d->d_buf)[n - 1];

	if (probe.st_value != last->st_value || probe.st_name != last->st_name ||
	    addr - src->bias != raw_value(last, src)) {
		free(src->alloc);
		src->alloc = NULL;
		return 0;
	}
	src->syms = d->d_buf;
	x->strtab = sd->d_buf;
	x->strtab_size = sd->d_size;
	names_read_alone(x);
	return mix(mix(mix(mix(mix(mix(0xcbf29ce484222325ull, n), src->first_global), sd->d_size),
			   sh.sh_offset),
		       elf != main),
		   sbias - src->bias) | 1;
}

static int by_start_then_ndx(const void *a, const void *b)
{
	const struct ct_symsection *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->ndx < y->ndx ? -1 : x->ndx > y->ndx;
}

/* The main file's allocated sections by address, as libdw keeps them to
 * say which section an address is in. */
static bool read_sections(struct ct_symindex *x, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = 0;
	GElf_Shdr sh;

	if (elf_getshdrnum(elf, &cap) != 0)
		return false;
	x->secs = calloc(cap ? cap : 1, sizeof(*x->secs));
	if (!x->secs)
		return false;
	while ((scn = elf_nextscn(elf, scn)) && n < cap)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			x->secs[n++] = (struct ct_symsection){ sh.sh_addr, sh.sh_addr + sh.sh_size,
							 elf_ndxscn(scn) };
	qsort(x->secs, n, sizeof(*x->secs), by_start_then_ndx);
	x->nsecs = n;
	return true;
}

/* The buckets of the raw table: from the cache where it has this table,
 * else built and cached. */
static bool from_raw(struct ct_symindex *x, uint64_t key, const char *cache_dir,
		     const char *file_id)
{
	char path[4096];
	int err;

	if (cache_dir && file_id &&
	    snprintf(path, sizeof(path), "%s/%s-%016llx.symx", cache_dir, file_id,
		     (unsigned long long)key) < (int)sizeof(path)) {
		if (ct_symcache_load(x, path, key)) {
			x->info.cache_read = 1;
			return true;
		}
	} else {
		cache_dir = NULL;
	}
	if (!bucket_symbols(x))
		return false;
	if (cache_dir) {
		err = ct_mkdir_p(cache_dir) ? ct_symcache_save(x, path, key) : -errno;
		x->info.cache_written = !err;
		x->info.cache_errno = -err;
	}
	return true;
}

static void drop_table(struct ct_symtable *t)
{
	for (uint32_t b = 0; t->read && b < t->nb; b++)
		free(t->read[b]);
	free(t->read);
	if (t->mem_len)
		munmap(t->mem, t->mem_len);
	else
		free(t->mem);
	memset(t, 0, sizeof(*t));
}

static void drop_tables(struct ct_symindex *x)
{
	drop_table(&x->global);
	drop_table(&x->local);
	x->info.symbols = x->info.kept = 0;
}

struct ct_symindex *ct_symindex_build(Dwfl_Module *mod, const char *cache_dir,
				      const char *file_id)
{
	struct ct_symindex *x = calloc(1, sizeof(*x));
	double t0 = now_ms();
	GElf_Addr bias = 0;
	GElf_Ehdr eh;
	Elf *elf;
	int n, first_global;
	uint64_t key;
	bool ok = true;

	if (!x)
		return NULL;
	elf = dwfl_module_getelf(mod, &bias);
	n = dwfl_module_getsymtab(mod);
	first_global = n >= 2 ? dwfl_module_getsymtab_first_global(mod) : -1;
	if (!elf || first_global < 0 || !gelf_getehdr(elf, &eh))
		goto done;   /* no table: libdw names nothing */
	x->search_locals = first_global > 1;
	x->src = (struct ct_symsource){ .mod = mod, .n = (uint32_t)n,
				       .first_global = (uint32_t)first_global, .bias = bias };
	exec_span(elf, &x->src.lo, &x->src.hi);
	ok = read_sections(x, elf);
	if (ok && (eh.e_type == ET_DYN || eh.e_type == ET_EXEC) && (key = locate_raw(x, elf)) &&
	    from_raw(x, key, cache_dir, file_id))
		goto done;
	drop_tables(x);
	x->src.syms = NULL;
	x->strtab = NULL;
	x->info.via_libdw = 1;
	x->names = calloc((size_t)n, sizeof(*x->names));
	ok = ok && x->names && bucket_symbols(x);
done:
	x->info.build_ms = now_ms() - t0;
	if (!ok) {
		ct_symindex_free(x);
		return NULL;
	}
	return x;
}

void ct_symindex_free(struct ct_symindex *x)
{
	if (!x)
		return;
	if (x->map) {
		munmap(x->map, x->map_len);
		x->global.mem = x->local.mem = NULL;
		x->global.mem_len = x->local.mem_len = 0;
	}
	drop_tables(x);
	free(x->src.alloc);
	free(x->names);
	free(x->secs);
	free(x);
}

void ct_symindex_info(const struct ct_symindex *x, struct ct_symindex_info *out)
{
	*out = x->info;
}
