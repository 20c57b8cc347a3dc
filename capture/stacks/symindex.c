// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "grow.h"
#include "mkdir_p.h"

#include "symcache.h"
#include "symindex_int.h"

/*
 * libdw's choice (elfutils' dwfl_module_addrsym.c, __libdwfl_addrsym with
 * adjust_st_value false, as dwfl_module_addrinfo calls it), restated over
 * sorted tables:
 *  - the globals (the table from its first global on) are searched first,
 *    the locals only where no global sized symbol holds the address and no
 *    global label lies exactly at it;
 *  - among the sized symbols of one table that hold the address, taken in
 *    table order, one replaces the best so far if it starts later or binds
 *    more strongly (global 3, weak 2, local 1, others 0), or starts at the
 *    same place, is smaller and binds no less strongly;
 *  - else a sizeless symbol (a label) is the answer if it lies at M, the
 *    furthest any symbol at or below the address reaches (its start, or its
 *    start plus size), and in the address's section (absolute ones only at
 *    the address itself); of several, the last in table order, the locals'
 *    after the globals'.
 * tests/stacks/symindex_check.c holds it to libdw on real files.
 */

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

/* --- building --------------------------------------------------------- */

/* The span of the file's executable segments.  A symbol above it names no
 * code address, nor keeps a label from naming one; those below it may
 * (a label at the file's start names code before the first symbol where
 * neither lies in a section, and a symbol's end there passes it). */
struct span {
	uint64_t lo, hi;
};

static struct span exec_span(Elf *elf)
{
	struct span sp = { UINT64_MAX, 0 };
	size_t n = 0;

	if (elf_getphdrnum(elf, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X))
				continue;
			if (ph.p_vaddr < sp.lo)
				sp.lo = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > sp.hi)
				sp.hi = ph.p_vaddr + ph.p_memsz;
		}
	if (sp.lo > sp.hi)
		sp = (struct span){ 0, UINT64_MAX };
	return sp;
}

static bool in_span(struct span sp, uint64_t value)
{
	return value <= sp.hi;
}

/* Room for n symbols at once (a table's symbols all come in one pass),
 * or for one more. */
static bool reserve(struct ct_symtable *t, size_t n, size_t first)
{
	struct ct_sym *ns = ct_grow(t->s, &t->cap, n ? n : 1, sizeof(*ns), first ? first : 1);

	if (!ns)
		return false;
	t->s = ns;
	return true;
}

static bool push(struct ct_symtable *t, const struct ct_sym *s)
{
	if (!reserve(t, t->n + 1, 1024))
		return false;
	t->s[t->n++] = *s;
	return true;
}

/* Whether libdw's search looks at a symbol at all (named: its name is
 * there and not empty). */
static bool searched(const GElf_Sym *s, bool named)
{
	int type = GELF_ST_TYPE(s->st_info);

	return named && s->st_shndx != SHN_UNDEF &&
	       type != STT_SECTION && type != STT_FILE && type != STT_TLS;
}

static bool add(struct ct_symindex *x, struct span sp, uint32_t idx, uint32_t first_global,
		const GElf_Sym *s, uint32_t name, uint64_t value, bool abs)
{
	struct ct_sym e = { .value = value, .size = s->st_size, .name = name, .idx = idx,
			    .bind = (uint8_t)binding_pref(s->st_info), .abs = abs };

	x->info.symbols++;
	if (!in_span(sp, value))
		return true;
	x->info.kept++;
	return push(idx >= first_global ? &x->global : &x->local, &e);
}

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

/* Where libdw puts a raw symbol, in the main file's ELF addresses. */
static uint64_t raw_value(const Elf64_Sym *s, const bool *alloc, size_t nalloc,
			  uint64_t sbias, uint64_t bias)
{
	bool moved = s->st_shndx < SHN_LORESERVE && s->st_shndx < nalloc && alloc[s->st_shndx];

	return s->st_value + (moved ? sbias : 0) - bias;
}

/* The table libdw chose, where it can be read in place. */
struct raw_table {
	const Elf64_Sym *syms;
	int n, first_global;
	const char *str;
	size_t strsz;
	bool *alloc;            /* which sections are allocated */
	size_t nalloc;
	uint64_t sbias, bias;   /* its file's and the main file's */
	uint64_t key;           /* which table this is, for the cache */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* Finds libdw's table in libelf's data, reading no symbol yet; false:
 * not a table we can read so (the caller asks libdw instead). */
static bool locate_raw(struct raw_table *t, Dwfl_Module *mod, Elf *main, GElf_Addr bias, int n,
		       int first_global)
{
	GElf_Sym probe;
	GElf_Addr addr;
	GElf_Word shndx;
	Elf *elf = NULL;
	Dwarf_Addr sbias = 0;
	Elf_Scn *scn, *strscn;
	Elf_Data *d, *sd;
	GElf_Shdr sh;

	memset(t, 0, sizeof(*t));
	if (!dwfl_module_getsym_info(mod, n - 1, &probe, &addr, &shndx, &elf, &sbias) || !elf ||
	    gelf_getclass(elf) != ELFCLASS64 || !(scn = table_section(elf, n, first_global)) ||
	    !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) || d->d_type != ELF_T_SYM ||
	    d->d_size < (size_t)n * sizeof(Elf64_Sym) || !(strscn = elf_getscn(elf, sh.sh_link)) ||
	    !(sd = elf_getdata(strscn, NULL)) || !sd->d_size ||
	    ((const char *)sd->d_buf)[sd->d_size - 1] != 0 ||
	    !(t->alloc = alloc_sections(elf, &t->nalloc)))
		return false;
	t->syms = d->d_buf;
	t->n = n;
	t->first_global = first_global;
	t->str = sd->d_buf;
	t->strsz = sd->d_size;
	t->sbias = sbias;
	t->bias = bias;
	t->key = mix(mix(mix(mix(mix(mix(0xcbf29ce484222325ull, (uint64_t)n), (uint64_t)first_global),
				 sd->d_size), sh.sh_offset), elf != main), sbias - bias);
	/* The same entry as libdw's, at the address libdw gives it. */
	if (probe.st_value != t->syms[n - 1].st_value || probe.st_name != t->syms[n - 1].st_name ||
	    addr - bias != raw_value(&t->syms[n - 1], t->alloc, t->nalloc, sbias, bias)) {
		free(t->alloc);
		t->alloc = NULL;
		return false;
	}
	return true;
}

/* Reads the table in place: no per-symbol calls.  A name is not read
 * here: a large file's string table is most of what reading it would
 * cost (hundreds of MB, from disk the first time).  A name at offset 0 is
 * empty; one elsewhere is taken as not empty (linkers make no other empty
 * name), and an empty one found at a lookup is left to libdw. */
static bool read_raw(struct ct_symindex *x, const struct raw_table *t, struct span sp)
{
	bool ok = reserve(&x->global, (size_t)t->n, (size_t)t->n) &&
		  reserve(&x->local, (size_t)t->first_global, (size_t)t->first_global);

	for (int i = 1; i < t->n && ok; i++) {
		const Elf64_Sym *s = &t->syms[i];
		GElf_Sym g = *s;

		if (searched(&g, s->st_name && s->st_name < t->strsz))
			ok = add(x, sp, (uint32_t)i, (uint32_t)t->first_global, &g, s->st_name,
				 raw_value(s, t->alloc, t->nalloc, t->sbias, t->bias),
				 s->st_shndx >= SHN_LORESERVE);
	}
	return ok;
}

/* One symbol at a time through libdw: any table it reads. */
static bool read_via_libdw(struct ct_symindex *x, Dwfl_Module *mod, GElf_Addr bias, int n,
			   int first_global, struct span sp)
{
	x->info.via_libdw = 1;
	x->names = calloc((size_t)n, sizeof(*x->names));
	if (!x->names)
		return false;
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &s, &addr, &shndx, NULL, NULL);

		if (!searched(&s, name && name[0]))
			continue;
		x->names[i] = name;
		if (!add(x, sp, (uint32_t)i, (uint32_t)first_global, &s, (uint32_t)i, addr - bias,
			 shndx >= SHN_LORESERVE))
			return false;
	}
	return true;
}

/* Sorts t by value, keeping the table order (idx, in which the symbols
 * came) among equal values: a stable radix sort, 16 bits a pass, as many
 * passes as the largest value needs (a comparison sort of a million
 * symbols took 70% of building the index). */
static bool sort_by_value(struct ct_symtable *t)
{
	uint64_t max = 0;
	bool sorted = true;
	struct ct_sym *tmp;
	size_t *count;

	for (size_t i = 0; i < t->n; i++) {
		if (t->s[i].value > max)
			max = t->s[i].value;
		if (i && t->s[i].value < t->s[i - 1].value)
			sorted = false;
	}
	if (sorted)
		return true;
	tmp = malloc(t->n * sizeof(*tmp));
	count = malloc(65536 * sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return false;
	}
	for (unsigned shift = 0; shift < 64 && max >> shift; shift += 16) {
		struct ct_sym *swap;
		size_t at = 0;

		memset(count, 0, 65536 * sizeof(*count));
		for (size_t i = 0; i < t->n; i++)
			count[t->s[i].value >> shift & 0xffff]++;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];

			count[d] = at;
			at += c;
		}
		for (size_t i = 0; i < t->n; i++)
			tmp[count[t->s[i].value >> shift & 0xffff]++] = t->s[i];
		swap = t->s;
		t->s = tmp;
		tmp = swap;
	}
	free(tmp);
	free(count);
	return true;
}

static bool finish(struct ct_symtable *t)
{
	uint64_t far = 0;

	if (!sort_by_value(t))
		return false;
	t->reach = malloc((t->n ? t->n : 1) * sizeof(*t->reach));
	if (!t->reach)
		return false;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = t->s[i].value + t->s[i].size;

		if (end > far)
			far = end;
		t->reach[i] = far;
	}
	return true;
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

/* The index from the raw table: from the cache where it has this table,
 * else read, sorted and cached. */
static bool from_raw(struct ct_symindex *x, const struct raw_table *t, struct span sp,
		     const char *cache_dir, const char *file_id)
{
	char path[4096];
	int err;

	x->strtab = t->str;
	x->strtab_size = t->strsz;
	if (cache_dir && file_id &&
	    snprintf(path, sizeof(path), "%s/%s-%016llx.symx", cache_dir, file_id,
		     (unsigned long long)t->key) < (int)sizeof(path)) {
		if (ct_symcache_load(x, path, t->key)) {
			x->info.cache_read = 1;
			return true;
		}
	} else {
		cache_dir = NULL;
	}
	if (!read_raw(x, t, sp) || !finish(&x->global) || !finish(&x->local))
		return false;
	if (cache_dir) {
		err = ct_mkdir_p(cache_dir) ? ct_symcache_save(x, path, t->key) : -errno;
		x->info.cache_written = !err;
		x->info.cache_errno = -err;
	}
	return true;
}

static void drop_tables(struct ct_symindex *x)
{
	free(x->global.s);
	free(x->global.reach);
	free(x->local.s);
	free(x->local.reach);
	memset(&x->global, 0, sizeof(x->global));
	memset(&x->local, 0, sizeof(x->local));
	x->info.symbols = x->info.kept = 0;
	x->strtab = NULL;
}

struct ct_symindex *ct_symindex_build(Dwfl_Module *mod, const char *cache_dir,
				      const char *file_id)
{
	struct ct_symindex *x = calloc(1, sizeof(*x));
	double t0 = now_ms();
	GElf_Addr bias = 0;
	GElf_Ehdr eh;
	struct raw_table t = { 0 };
	Elf *elf;
	int n, first_global;
	bool ok = true;
	struct span sp;

	if (!x)
		return NULL;
	elf = dwfl_module_getelf(mod, &bias);
	n = dwfl_module_getsymtab(mod);
	first_global = n >= 2 ? dwfl_module_getsymtab_first_global(mod) : -1;
	if (!elf || first_global < 0 || !gelf_getehdr(elf, &eh))
		goto done;   /* no table: libdw names nothing */
	x->search_locals = first_global > 1;
	sp = exec_span(elf);
	ok = read_sections(x, elf);
	if (ok && (eh.e_type == ET_DYN || eh.e_type == ET_EXEC) &&
	    locate_raw(&t, mod, elf, bias, n, first_global) &&
	    from_raw(x, &t, sp, cache_dir, file_id))
		goto done;
	drop_tables(x);
	ok = ok && read_via_libdw(x, mod, bias, n, first_global, sp) && finish(&x->global) &&
	     finish(&x->local);
done:
	free(t.alloc);
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
	if (x->map)
		munmap(x->map, x->map_len);
	else
		drop_tables(x);
	free(x->names);
	free(x->secs);
	free(x);
}

void ct_symindex_info(const struct ct_symindex *x, struct ct_symindex_info *out)
{
	*out = x->info;
}

/* --- looking up ------------------------------------------------------- */

/* A symbol's name; CT_SYMINDEX_ASK_LIBDW where it is empty, or outside
 * the strings (a cache written for another table). */
static const char *name_of(const struct ct_symindex *x, const struct ct_sym *s)
{
	const char *name = NULL;

	if (x->strtab && s->name < x->strtab_size)
		name = x->strtab + s->name;
	else if (!x->strtab && x->names)
		name = x->names[s->name];
	return name && name[0] ? name : CT_SYMINDEX_ASK_LIBDW;
}

/* How many of t's symbols start at or below addr. */
static size_t at_or_below(const struct ct_symtable *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->s[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* libdw's section index for addr: a section's end counts as in it unless
 * the next starts there; 0 (SHN_UNDEF) where none holds it. */
static size_t section_of(const struct ct_symindex *x, uint64_t addr)
{
	size_t lo = 0, hi = x->nsecs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < x->secs[mid].start)
			hi = mid;
		else if (addr > x->secs[mid].end)
			lo = mid + 1;
		else {
			if (addr == x->secs[mid].end && mid + 1 < x->nsecs &&
			    addr == x->secs[mid + 1].start)
				mid++;
			return x->secs[mid].ndx;
		}
	}
	return SHN_UNDEF;
}

/* libdw's preference between the best sized symbol so far and the next
 * in table order. */
static bool replaces(const struct ct_sym *best, const struct ct_sym *s)
{
	if (!best || best->value < s->value || best->bind < s->bind)
		return true;
	return best->value == s->value &&
	       ((best->size > s->size && best->bind <= s->bind) ||
		(best->size >= s->size && best->bind < s->bind));
}

/* The sized symbol of t that libdw picks for addr, or NULL.  below: how
 * many of t's symbols start at or below addr. */
static const struct ct_sym *sized_pick(const struct ct_symtable *t, size_t below, uint64_t addr)
{
	const struct ct_sym *best = NULL;
	uint32_t last_idx = 0;
	bool taken = false;

	/* Walking down by address while some symbol further down could still
	 * reach addr; libdw takes them in table order, so fold in that order:
	 * each round takes the lowest idx above the last taken. */
	for (;;) {
		const struct ct_sym *next = NULL;

		for (size_t i = below; i > 0 && t->reach[i - 1] > addr; i--) {
			const struct ct_sym *s = &t->s[i - 1];

			if (s->size && addr - s->value < s->size &&
			    (!taken || s->idx > last_idx) && (!next || s->idx < next->idx))
				next = s;
		}
		if (!next)
			return best;
		if (replaces(best, next))
			best = next;
		last_idx = next->idx;
		taken = true;
	}
}

/* The last label of t (by table order) at exactly value m in addr's
 * section, or NULL. */
static const struct ct_sym *label_at(const struct ct_symindex *x, const struct ct_symtable *t,
				  size_t below, uint64_t m, uint64_t addr)
{
	const struct ct_sym *pick = NULL;

	for (size_t i = below; i > 0 && t->s[i - 1].value == m; i--) {
		const struct ct_sym *s = &t->s[i - 1];
		bool same = s->abs ? m == addr : section_of(x, m) == section_of(x, addr);

		if (!s->size && same && (!pick || s->idx > pick->idx))
			pick = s;
	}
	return pick;
}

const char *ct_symindex_lookup(const struct ct_symindex *x, uint64_t addr, uint64_t *off)
{
	size_t gb = at_or_below(&x->global, addr), lb = 0;
	const struct ct_sym *s = sized_pick(&x->global, gb, addr);
	uint64_t m;
	bool locals;

	if (s)
		goto found;
	m = gb ? x->global.reach[gb - 1] : 0;
	locals = x->search_locals && !(gb && m == addr && label_at(x, &x->global, gb, addr, addr));
	if (locals) {
		lb = at_or_below(&x->local, addr);
		if ((s = sized_pick(&x->local, lb, addr)))
			goto found;
		if (lb && x->local.reach[lb - 1] > m)
			m = x->local.reach[lb - 1];
	}
	if (!(locals && (s = label_at(x, &x->local, lb, m, addr))) &&
	    !(s = label_at(x, &x->global, gb, m, addr)))
		return NULL;
found:
	*off = addr - s->value;
	return name_of(x, s);
}
