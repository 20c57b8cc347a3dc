// SPDX-License-Identifier: MIT
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_rules.h"
#include "cudatrace.h"
#include "grow.h"
#include "uw_rows.h"

/* .eh_frame_hdr's encodings (the LSB's DW_EH_PE_*): the sorted table is
 * read where it has the one every toolchain writes, 4-byte offsets from
 * the header's own address. */
#define EH_PE_OMIT         0xff
#define EH_PE_DATAREL_SDATA4 0x3b

static bool push(struct ct_uw_rows *r, size_t max, struct ct_uw_row row)
{
	struct ct_uw_row *last = r->n ? &r->v[r->n - 1] : NULL, *v;

	if (last && last->kind == row.kind && last->cfa_off == row.cfa_off && last->rbp == row.rbp)
		return true;   /* the same rule goes on */
	if (last && last->addr == row.addr) {
		*last = row;   /* an empty row: the later one holds */
		return true;
	}
	if (r->n == max)
		return false;
	v = ct_grow(r->v, &r->cap, r->n + 1, sizeof(*v), 1024);
	if (!v)
		return false;
	r->v = v;
	r->v[r->n++] = row;
	return true;
}

/* A rule of cfi_rules.c's shapes as a row; CT_UW_OTHER where the row's
 * fields cannot hold it (x86-64 code has the return address at CFA - 8
 * and rsp = CFA everywhere outside signal frames). */
static struct ct_uw_row row_of(Dwarf_Frame *fr, uint32_t addr)
{
	struct ct_uw_row row = { .addr = addr, .kind = CT_UW_OTHER };
	struct ct_cfi_rule r = { 0 };

	if (ct_cfi_rule_of_frame(fr, &r) != CT_CFI_USABLE)
		return row;
	if (r.outermost) {
		row.kind = CT_UW_OUTERMOST;
		return row;
	}
	if (r.ra_off != -8 || r.rsp_off != 0 || r.cfa_off < 0 || r.cfa_off > UINT16_MAX)
		return row;
	if (r.rbp == CT_CFI_RBP_SAVED && (r.rbp_off % 8 || r.rbp_off < CT_UW_RBP_OFF_MIN ||
					  r.rbp_off > CT_UW_RBP_OFF_MAX))
		return row;
	row.kind = r.cfa_reg == CT_REG_RSP ? CT_UW_CFA_RSP : CT_UW_CFA_RBP;
	row.cfa_off = (uint16_t)r.cfa_off;
	row.rbp = CT_UW_RBP(r.rbp, r.rbp == CT_CFI_RBP_SAVED ? r.rbp_off : 0);
	return row;
}

/* The rows of the FDE that starts at start (up to next, where the next
 * FDE starts), then a gap row where it ends before next. */
static enum ct_uw_rows_fail fde_rows(Dwarf_CFI *cfi, uint64_t start, uint64_t next, size_t max,
				     struct ct_uw_rows *out)
{
	uint64_t a = start;

	while (a < next) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		struct ct_uw_row row;

		if (dwarf_cfi_addrframe(cfi, a, &fr) != 0)
			break;
		dwarf_frame_info(fr, &s, &e, NULL);
		row = row_of(fr, (uint32_t)a);
		free(fr);
		if (e > UINT32_MAX)
			return CT_UW_ROWS_FAR;
		if (!push(out, max, row))
			return out->n == max ? CT_UW_ROWS_TOO_MANY : CT_UW_ROWS_NO_MEM;
		if (e <= a)
			break;
		a = e;
	}
	if (a < next &&
	    !push(out, max, (struct ct_uw_row){ .addr = (uint32_t)a, .kind = CT_UW_NO_FDE }))
		return out->n == max ? CT_UW_ROWS_TOO_MANY : CT_UW_ROWS_NO_MEM;
	out->fdes++;
	return CT_UW_ROWS_OK;
}

/* .eh_frame_hdr: its ELF address, and its bytes (through PT_GNU_EH_FRAME). */
static const uint8_t *eh_frame_hdr(Elf *elf, uint64_t *vaddr, size_t *size)
{
	size_t phnum;
	GElf_Phdr ph;
	Elf_Data *d;

	if (elf_getphdrnum(elf, &phnum))
		return NULL;
	for (size_t i = 0; i < phnum; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (!d || !d->d_buf)
			return NULL;
		*vaddr = ph.p_vaddr;
		*size = d->d_size;
		return d->d_buf;
	}
	return NULL;
}

static int32_t s32_at(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A file's FDEs: .eh_frame_hdr's sorted table of their starts, and libdw's
 * CFI to read each one's rows (the file stays mapped while it is open). */
struct ct_uw_fdes {
	Elf *elf;
	Dwarf_CFI *cfi;
	const uint8_t *table;    /* count pairs (start, FDE), 4-byte offsets from hdr_addr */
	uint64_t hdr_addr;
	size_t count;
	struct ct_uw_rows one;   /* one FDE's rows, a scratch buffer */
};

static uint64_t fde_start(const struct ct_uw_fdes *t, size_t i)
{
	return t->hdr_addr + (int64_t)s32_at(t->table + 8 * i);
}

/* The table's starts rising and under 4 GiB (the rows hold 4-byte
 * addresses), checked once: the searches and builds rely on both. */
static enum ct_uw_rows_fail check_starts(const struct ct_uw_fdes *t)
{
	for (size_t i = 1; i < t->count; i++)
		if (fde_start(t, i) < fde_start(t, i - 1))
			return CT_UW_ROWS_NO_HDR;
	return t->count && fde_start(t, t->count - 1) > UINT32_MAX ? CT_UW_ROWS_FAR
								 : CT_UW_ROWS_OK;
}

struct ct_uw_fdes *ct_uw_fdes_open(int fd, enum ct_uw_rows_fail *why)
{
	struct ct_uw_fdes *t = calloc(1, sizeof(*t));
	const uint8_t *h;
	size_t size;

	*why = CT_UW_ROWS_NO_MEM;
	if (!t)
		return NULL;
	*why = CT_UW_ROWS_NO_HDR;
	elf_version(EV_CURRENT);
	t->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	h = t->elf ? eh_frame_hdr(t->elf, &t->hdr_addr, &size) : NULL;
	/* version 1; eh_frame_ptr sdata4; fde_count udata4; the table's encoding */
	if (h && size >= 12 && h[0] == 1 && h[2] == 0x03 && h[3] == EH_PE_DATAREL_SDATA4) {
		t->count = (uint32_t)s32_at(h + 8);
		t->table = h + 12;
		if (t->count <= (size - 12) / 8 && (t->cfi = dwarf_getcfi_elf(t->elf)))
			*why = check_starts(t);
	}
	if (*why != CT_UW_ROWS_OK) {
		ct_uw_fdes_close(t);
		return NULL;
	}
	return t;
}

size_t ct_uw_fdes_count(const struct ct_uw_fdes *t)
{
	return t->count;
}

uint32_t ct_uw_fdes_start(const struct ct_uw_fdes *t, size_t i)
{
	return (uint32_t)fde_start(t, i);
}

size_t ct_uw_fdes_find(const struct ct_uw_fdes *t, uint64_t addr)
{
	size_t lo = 0, n = t->count;

	if (!n || addr < fde_start(t, 0))
		return SIZE_MAX;
	while (n > 1) {   /* the last start at or before addr */
		size_t half = n / 2;

		if (fde_start(t, lo + half) <= addr)
			lo += half;
		n -= half;
	}
	return lo;
}

/* FDE i's rows, up to where FDE i + 1 starts (the last: to 4 GiB). */
static enum ct_uw_rows_fail rows_of(struct ct_uw_fdes *t, size_t i, size_t max,
				    struct ct_uw_rows *out)
{
	uint64_t next = i + 1 < t->count ? fde_start(t, i + 1) : UINT32_MAX;

	return fde_rows(t->cfi, fde_start(t, i), next, max, out);
}

enum ct_uw_rows_fail ct_uw_fdes_rows(struct ct_uw_fdes *t, size_t i, size_t max,
				     const struct ct_uw_row **rows, size_t *n)
{
	enum ct_uw_rows_fail rc;

	t->one.n = 0;   /* alone: push() must not merge with another FDE's last row */
	rc = rows_of(t, i, max, &t->one);
	*rows = t->one.v;
	*n = rc == CT_UW_ROWS_OK ? t->one.n : 0;
	return rc;
}

void ct_uw_fdes_close(struct ct_uw_fdes *t)
{
	if (!t)
		return;
	if (t->cfi)
		dwarf_cfi_end(t->cfi);
	if (t->elf)
		elf_end(t->elf);
	ct_uw_rows_free(&t->one);
	free(t);
}

enum ct_uw_rows_fail ct_uw_rows_build(int fd, size_t max, const bool *stop,
				      const bool *give_way, struct ct_uw_rows *out)
{
	enum ct_uw_rows_fail rc;
	struct ct_uw_fdes *t;

	memset(out, 0, sizeof(*out));
	if (!(t = ct_uw_fdes_open(fd, &rc)))
		return rc;
	for (size_t i = 0; i < t->count && rc == CT_UW_ROWS_OK; i++) {
		if (!(i & 1023) && __atomic_load_n(stop, __ATOMIC_RELAXED))
			rc = CT_UW_ROWS_STOPPED;
		else if (!(i & 1023) && give_way && __atomic_load_n(give_way, __ATOMIC_RELAXED))
			rc = CT_UW_ROWS_GAVE_WAY;
		else
			rc = rows_of(t, i, max, out);
	}
	ct_uw_fdes_close(t);
	if (rc != CT_UW_ROWS_OK)
		ct_uw_rows_free(out);
	return rc;
}

void ct_uw_rows_free(struct ct_uw_rows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
