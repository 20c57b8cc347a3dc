// SPDX-License-Identifier: MIT
/*
 * Lookups over the generated layout table (build/layouts_data.c, made
 * from the TSV files in decoders/layouts/ by gen-layouts.awk): one search
 * for a layout, and reads of a struct's fields by name through it.  See
 * docs/LAYOUTS.md.
 */
#include <string.h>

#include "layouts.h"

/* Generated: sorted by (family, req, size, since). */
extern const struct ct_layout ct_layout_tab[];
extern const size_t ct_layout_tab_len;

/* Generated: the entry layouts of counted arrays; [0] is none. */
extern const struct ct_elem ct_elem_tab[];
extern const size_t ct_elem_tab_len;

const struct ct_elem *ct_layout_elem(const struct ct_field *f)
{
	const struct ct_elem *e;

	if (!f || !f->elem || f->elem >= ct_elem_tab_len)
		return NULL;
	e = &ct_elem_tab[f->elem];
	return e->size && e->nfields ? e : NULL;
}

size_t ct_layout_count(void)
{
	return ct_layout_tab_len;
}

const struct ct_layout *ct_layout_at(size_t i)
{
	return i < ct_layout_tab_len ? &ct_layout_tab[i] : NULL;
}

/* size UINT32_MAX compares above every size: (fam, req) ranges. */
static int key_cmp(const struct ct_layout *l, uint32_t fam, uint32_t req, uint32_t size)
{
	if (l->family != fam)
		return l->family < fam ? -1 : 1;
	if (l->req != req)
		return l->req < req ? -1 : 1;
	if (l->size != size)
		return l->size < size ? -1 : 1;
	return 0;
}

/* Index of the first entry not below the key. */
static size_t lower_bound(uint32_t fam, uint32_t req, uint32_t size)
{
	size_t lo = 0, hi = ct_layout_tab_len;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(&ct_layout_tab[mid], fam, req, size) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Of the n layouts at first (one key, one size, sorted by since, with
 * disjoint driver ranges): one alone is chosen by its size, as in demmt;
 * of several, drv picks the latest one that it does not predate, and
 * drv 0 the newest. */
static const struct ct_layout *pick(const struct ct_layout *first, size_t n, uint32_t drv)
{
	const struct ct_layout *p = NULL;

	if (n == 1 || drv == 0)
		return &first[n - 1];
	for (size_t i = 0; i < n; i++)
		if (first[i].since <= drv)
			p = &first[i];
	return p;
}

static size_t run_len(size_t at, uint32_t fam, uint32_t req, uint32_t size)
{
	size_t n = 0;

	while (at + n < ct_layout_tab_len && key_cmp(&ct_layout_tab[at + n], fam, req, size) == 0)
		n++;
	return n;
}

static const struct ct_layout *search(uint32_t fam, uint32_t req, uint32_t size, uint32_t drv)
{
	size_t at = lower_bound(fam, req, size), n = run_len(at, fam, req, size);

	return n ? pick(&ct_layout_tab[at], n, drv) : NULL;
}

/*
 * ct_layout_find's answers, remembered: a decoder asks for the same few
 * (request, size) pairs for every call, from describe.c, special.c,
 * objects.c and the views, and each search takes ~15 steps through the
 * whole table.  Direct-mapped: a slot keeps the last key that hashed to it,
 * so colliding keys (even a crafted trace's) cost only searches.  One memo
 * per thread: lookups stay safe from any thread.
 */
#define MEMO_SLOTS 256

struct memo {
	bool used;
	uint32_t fam, req, size, drv;
	const struct ct_layout *l;   /* NULL: no layout of that size */
};

static _Thread_local struct memo memo[MEMO_SLOTS];

static size_t memo_slot(uint32_t fam, uint32_t req, uint32_t size, uint32_t drv)
{
	uint64_t h = req * 0x9e3779b97f4a7c15ull ^ (size ^ fam << 24 ^ (uint64_t)drv << 32) *
		     0xc2b2ae3d27d4eb4full;

	return (size_t)(h >> 56) % MEMO_SLOTS;
}

const struct ct_layout *ct_layout_find(enum ct_layout_family fam, uint32_t req,
				       uint32_t size, uint32_t drv)
{
	struct memo *m = &memo[memo_slot(fam, req, size, drv)];

	if (!m->used || m->fam != fam || m->req != req || m->size != size || m->drv != drv)
		*m = (struct memo){ true, fam, req, size, drv, search(fam, req, size, drv) };
	return m->l;
}

size_t ct_layout_sizes(enum ct_layout_family fam, uint32_t req, uint32_t drv,
		       const struct ct_layout **out, size_t max)
{
	size_t at = lower_bound(fam, req, 0), found = 0;

	while (at < ct_layout_tab_len && ct_layout_tab[at].family == fam &&
	       ct_layout_tab[at].req == req) {
		size_t n = run_len(at, fam, req, ct_layout_tab[at].size);
		const struct ct_layout *l = pick(&ct_layout_tab[at], n, drv);

		if (l && found < max)
			out[found] = l;
		found += l != NULL;
		at += n;
	}
	return found;
}

const struct ct_field *ct_layout_field(const struct ct_layout *l, const char *name)
{
	size_t n;

	if (!l || !name)
		return NULL;
	/* The exact name first, anywhere: a cheap first-byte test per field
	 * (every by-name read of a call comes here). */
	for (uint32_t i = 0; i < l->nfields; i++)
		if (l->fields[i].name[0] == name[0] && strcmp(l->fields[i].name, name) == 0)
			return &l->fields[i];
	/* Else "hRoot" also names "params.hRoot" of a wrapper struct. */
	n = strlen(name);
	for (uint32_t i = 0; i < l->nfields; i++) {
		const char *f = l->fields[i].name;
		size_t fl = strlen(f);

		if (fl > n && f[fl - n - 1] == '.' && strcmp(f + fl - n, name) == 0)
			return &l->fields[i];
	}
	return NULL;
}

/* The field, if it lies wholly inside len bytes and is at most max wide. */
static const struct ct_field *field_in(const struct ct_layout *l, uint32_t len,
				       const char *name, uint32_t max)
{
	const struct ct_field *f = ct_layout_field(l, name);

	if (!f || f->size > max || f->offset > len || f->size > len - f->offset)
		return NULL;
	return f;
}

/* Little-endian hosts only, as the traces are (x86-64, arm64). */
static uint64_t load(const unsigned char *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);
	return v;
}

bool ct_read_u64(const struct ct_layout *l, const void *buf, uint32_t len,
		 const char *field, uint64_t *out)
{
	const struct ct_field *f = field_in(l, len, field, 8);

	if (!f)
		return false;
	*out = load((const unsigned char *)buf + f->offset, f->size);
	return true;
}

bool ct_read_u32(const struct ct_layout *l, const void *buf, uint32_t len,
		 const char *field, uint32_t *out)
{
	const struct ct_field *f = field_in(l, len, field, 4);

	if (!f)
		return false;
	*out = (uint32_t)load((const unsigned char *)buf + f->offset, f->size);
	return true;
}

bool ct_read_u32_elem(const struct ct_layout *l, const void *buf, uint32_t len,
		      const char *field, uint32_t i, uint32_t *out)
{
	const struct ct_field *f = field_in(l, len, field, UINT32_MAX);

	if (!f || f->size % 4 || i >= f->size / 4)
		return false;
	*out = (uint32_t)load((const unsigned char *)buf + f->offset + 4 * i, 4);
	return true;
}

bool ct_write_u64(const struct ct_layout *l, void *buf, uint32_t len,
		  const char *field, uint64_t v)
{
	const struct ct_field *f = field_in(l, len, field, 8);

	if (!f || (f->size < 8 && v >> (8 * f->size)))
		return false;
	memcpy((unsigned char *)buf + f->offset, &v, f->size);
	return true;
}

uint32_t ct_driver_version(const char *s)
{
	while (s && *s) {
		uint32_t part[3] = { 0, 0, 0 };
		int np = 0, nd = 0, ok = 1;
		const char *p = s;

		for (; *p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'; p++) {
			if (*p >= '0' && *p <= '9' && part[np] <= 99999) {
				part[np] = part[np] * 10 + (uint32_t)(*p - '0');
				nd++;
			} else if (*p == '.' && nd > 0 && np < 2) {
				np++;
				nd = 0;
			} else {
				ok = 0;
			}
		}
		if (ok && np >= 1 && nd > 0 && part[0] <= 4293 && part[1] <= 999 && part[2] <= 999)
			return part[0] * 1000000u + part[1] * 1000u + part[2];
		s = *p ? p + 1 : p;
	}
	return 0;
}
