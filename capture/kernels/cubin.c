// SPDX-License-Identifier: MIT
/*
 * Cubin functions (cubin.h), through libelf.  Which bytes a relocation
 * changes: the driver patches the instruction at r_offset (R_CUDA_ABS32_LO/
 * HI_32 into its bits 32-63, calls into bits 16-80 ...); the whole 16-byte
 * instruction holding r_offset is masked, for every type, so that a type
 * not known here cannot make a match fail (docs/KERNELS.md).
 */
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cubin.h"
#include "fatbin_format.h"
#include "grow.h"

uint32_t ct_cubin_arch(uint32_t e_flags, uint8_t abi)
{
	if (abi == CUBIN_ABI_V2)
		return (e_flags >> 8) & 0xff;
	return e_flags & 0xff;
}

/* Whether [off, off + size) lies inside the n bytes of the file. */
static bool inside(uint64_t off, uint64_t size, size_t n)
{
	return off <= n && size <= n - off;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The relocation sections of a cubin, by the section they patch: found
 * once, so that a cubin of thousands of functions is read in n log n. */
struct rel_sec {
	size_t target, index;
};

static int cmp_rel(const void *a, const void *b)
{
	const struct rel_sec *x = a, *y = b;

	return x->target < y->target ? -1 : x->target > y->target;
}

static struct rel_sec *rel_sections(Elf *e, size_t *n)
{
	struct rel_sec *v = NULL, *nv;
	size_t cap = 0;
	Elf_Scn *s = NULL;
	GElf_Shdr sh;

	*n = 0;
	while ((s = elf_nextscn(e, s))) {
		if (!gelf_getshdr(s, &sh) || (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA))
			continue;
		if (!(nv = ct_grow(v, &cap, *n + 1, sizeof(*v), 64)))
			break;
		v = nv;
		v[*n].target = sh.sh_info;
		v[(*n)++].index = elf_ndxscn(s);
	}
	if (v)
		qsort(v, *n, sizeof(*v), cmp_rel);
	return v;
}

/* The instructions one relocation section patches, added to masks. */
static uint32_t relocs_of(Elf_Scn *s, uint32_t size, uint32_t *masks, uint32_t n, uint32_t *lost)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t i, count;

	if (!gelf_getshdr(s, &sh) || !(d = elf_getdata(s, NULL)) || !sh.sh_entsize)
		return n;
	count = d->d_size / sh.sh_entsize;
	for (i = 0; i < count; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		uint64_t off;

		if (sh.sh_type == SHT_RELA) {
			if (!gelf_getrela(d, (int)i, &ra))
				break;
			off = ra.r_offset;
		} else {
			if (!gelf_getrel(d, (int)i, &r))
				break;
			off = r.r_offset;
		}
		if (off >= size)
			continue;
		if (n < CT_CUBIN_MASKS_MAX)
			masks[n++] = (uint32_t)off & ~(uint32_t)(CUBIN_INSN_BYTES - 1);
		else
			(*lost)++;
	}
	return n;
}

/* The patched instructions of the section at index text, size bytes long. */
static uint32_t relocations(Elf *e, const struct rel_sec *rels, size_t nrels, size_t text,
			    uint32_t size, uint32_t *masks, uint32_t *lost)
{
	size_t lo = 0, hi = nrels;
	uint32_t n = 0;

	while (lo < hi) {   /* the first relocation section of text */
		size_t mid = lo + (hi - lo) / 2;

		if (rels[mid].target < text)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nrels && rels[lo].target == text; lo++)
		n = relocs_of(elf_getscn(e, rels[lo].index), size, masks, n, lost);
	qsort(masks, n, sizeof(*masks), cmp_u32);
	return n;
}

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* What a function's .text section has said of it elsewhere in the cubin,
 * by section index; 0 where not said. */
struct sec_facts {
	uint32_t regs;     /* .nv.info's REGCOUNT */
	uint32_t cbank0;   /* bytes of .nv.constant0.<name> */
};

/* Registers by section index, from the REGCOUNT entries of .nv.info (by
 * the function's symbol, whose st_shndx is its .text section). */
static void nvinfo_regs(const Elf_Data *info, const Elf_Data *syms, struct sec_facts *facts,
			size_t nsec)
{
	const uint8_t *d = info->d_buf;
	size_t i = 0, n = info->d_size;

	while (d && i + 4 <= n) {
		uint8_t fmt = d[i], attr = d[i + 1];
		uint16_t size = (uint16_t)(d[i + 2] | d[i + 3] << 8);
		GElf_Sym sym;

		if (fmt < CUBIN_EIFMT_NVAL || fmt > CUBIN_EIFMT_SVAL)
			return;   /* an entry of no known format: its length is unknown */
		if (fmt != CUBIN_EIFMT_SVAL) {
			i += 4;
			continue;
		}
		if (size > n - i - 4)
			return;
		if (attr == CUBIN_EIATTR_REGCOUNT && size >= 8 &&
		    gelf_getsym((Elf_Data *)syms, (int)u32_at(d + i + 4), &sym) &&
		    sym.st_shndx < nsec)
			facts[sym.st_shndx].regs = u32_at(d + i + 8);
		i += 4 + (size_t)size;
	}
}

/* Each section's facts (its function's, for a .text section), in one
 * pass over the sections: .nv.info and the symbols give the registers,
 * each .nv.constant0.<name> (its sh_info the function's section) the
 * bank's size.  NULL if the sections cannot be counted. */
static struct sec_facts *section_facts(Elf *e, size_t shstr)
{
	static const size_t plen = sizeof(CUBIN_CBANK0_PREFIX) - 1;
	Elf_Data *info = NULL, *syms = NULL;
	struct sec_facts *facts;
	Elf_Scn *s = NULL;
	size_t nsec;
	GElf_Shdr sh;

	if (elf_getshdrnum(e, &nsec) || !(facts = calloc(nsec ? nsec : 1, sizeof(*facts))))
		return NULL;
	while ((s = elf_nextscn(e, s))) {
		const char *name;

		if (!gelf_getshdr(s, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			syms = elf_getdata(s, NULL);
		else if (!(name = elf_strptr(e, shstr, sh.sh_name)))
			continue;
		else if (!strcmp(name, CUBIN_NV_INFO))
			info = elf_getdata(s, NULL);
		else if (!strncmp(name, CUBIN_CBANK0_PREFIX, plen) && sh.sh_info < nsec &&
			 sh.sh_size <= UINT32_MAX)
			facts[sh.sh_info].cbank0 = (uint32_t)sh.sh_size;
	}
	if (info && syms)
		nvinfo_regs(info, syms, facts, nsec);
	return facts;
}

static int functions(Elf *e, const uint8_t *p, size_t n, ct_cubin_func_fn fn, void *ctx)
{
	static const size_t plen = sizeof(CUBIN_TEXT_PREFIX) - 1;
	uint32_t *masks = malloc(CT_CUBIN_MASKS_MAX * sizeof(*masks));
	struct rel_sec *rels = NULL;
	struct sec_facts *facts;
	size_t nrels = 0;
	GElf_Ehdr eh;
	size_t shstr;
	Elf_Scn *s = NULL;
	int count = 0;

	if (!masks || !gelf_getehdr(e, &eh) || eh.e_machine != CUBIN_EM_CUDA ||
	    elf_getshdrstrndx(e, &shstr)) {
		free(masks);
		return -1;
	}
	rels = rel_sections(e, &nrels);
	facts = section_facts(e, shstr);
	while ((s = elf_nextscn(e, s))) {
		struct ct_cubin_func f = { 0 };
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e, shstr, sh.sh_name)) || strncmp(name, CUBIN_TEXT_PREFIX, plen) ||
		    !name[plen] || !inside(sh.sh_offset, sh.sh_size, n) || !sh.sh_size ||
		    sh.sh_size > UINT32_MAX)
			continue;
		f.name = name + plen;
		f.code = p + sh.sh_offset;
		f.size = (uint32_t)sh.sh_size;
		f.addr = sh.sh_addr;
		f.arch = ct_cubin_arch((uint32_t)eh.e_flags, eh.e_ident[EI_ABIVERSION]);
		f.regs = facts ? facts[elf_ndxscn(s)].regs : 0;
		f.cbank0 = facts ? facts[elf_ndxscn(s)].cbank0 : 0;
		f.masks = masks;
		f.nmasks = relocations(e, rels, nrels, elf_ndxscn(s), f.size, masks, &f.masks_lost);
		fn(ctx, &f);
		count++;
	}
	free(facts);
	free(rels);
	free(masks);
	return count;
}

int ct_cubin_functions(const uint8_t *p, size_t n, ct_cubin_func_fn fn, void *ctx)
{
	Elf *e;
	int count;

	if (elf_version(EV_CURRENT) == EV_NONE || n < sizeof(Elf64_Ehdr))
		return -1;
	/* libelf reads the image, it does not write it (ELF_C_READ) */
	e = elf_memory((char *)(uintptr_t)p, n);
	if (!e)
		return -1;
	count = elf_kind(e) == ELF_K_ELF && gelf_getclass(e) == ELFCLASS64 ?
		functions(e, p, n, fn, ctx) : -1;
	elf_end(e);
	return count;
}
