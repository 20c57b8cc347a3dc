// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nvfacts.h"
#include "fields.h"
#include "nvtables.h"

#define TEXT_HANDLES_MAX 16   /* text shows this many of a handle array */

void ct_print_uuid(struct emit *e, const char *key, const unsigned char *u)
{
	char s[48];

	snprintf(s, sizeof(s),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	em_str(e, key, s);
}

uint64_t ct_field_u(const unsigned char *p, uint32_t size)
{
	uint32_t v32;
	uint16_t v16;
	uint64_t v = 0;

	switch (size) {   /* the usual sizes as plain loads, not a memcpy call */
	case 1:
		return p[0];
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v, p, size <= 8 ? size : 8);   /* little-endian, as on x86-64 */
	return v;
}

static int64_t field_s(const unsigned char *p, uint32_t size)
{
	uint64_t v = ct_field_u(p, size);

	if (size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

/* A char array holding text: printable up to a NUL, then only NULs; with
 * whole (a counted buffer), printable to its end will do too. */
static bool is_c_string(const unsigned char *p, uint32_t n, bool whole)
{
	uint32_t i = 0;

	while (i < n && p[i] >= 0x20 && p[i] < 0x7f)
		i++;
	if (i == 0 || (i == n && !whole))
		return false;
	for (; i < n; i++)
		if (p[i])
			return false;
	return true;
}

uint32_t ct_u32s_used(const unsigned char *p, uint32_t n)
{
	while (n > 0 && !ct_field_u(p + 4 * (n - 1), 4))
		n--;
	return n;
}

/* What f's count field says (entries, or bytes of a whole buffer), if it
 * has one inside len; else max. */
static uint32_t counted(const struct ct_field *f, const struct ct_field *fields,
			const unsigned char *buf, uint32_t len, uint32_t max)
{
	const struct ct_field *c;
	uint64_t n;

	if (f->count < 0)
		return max;
	c = &fields[f->count];
	if ((uint64_t)c->offset + c->size > len || c->size > 8)
		return max;
	n = ct_field_u(buf + c->offset, c->size);
	return n < max ? (uint32_t)n : max;
}

/*
 * The entries of an array past its count are left out, never silently:
 * text says how many and whether they hold anything ("... 4 more, all
 * zero"; "not all zero" shows a count that is not one, or a program's
 * leftovers), JSON gives NAME_omitted and NAME_omitted_zero.  The raw
 * buffers (-vv, JSON's nested_in/nested_out) hold them all.
 */
static bool all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Text: the last item of the array's list. */
static void omitted_item(struct emit *e, uint32_t n, bool zero)
{
	char s[64];

	snprintf(s, sizeof(s), "... %u more, %s", n, zero ? "all zero" : "not all zero");
	em_str(e, NULL, s);
}

/* JSON: two keys after the array, NAME being the first namelen bytes of name. */
static void omitted_json(struct emit *e, const char *name, size_t namelen, uint32_t n,
			 bool zero)
{
	char k[160];

	snprintf(k, sizeof(k), "%.*s_omitted", (int)namelen, name);
	em_u64(e, k, n);
	snprintf(k, sizeof(k), "%.*s_omitted_zero", (int)namelen, name);
	em_bool(e, k, zero);
}

/* An NvHandle array of whole entries, up to its count (n) or its last
 * non-zero entry. */
static void print_handles(const struct ct_field_printer *pr, const char *key,
			  const unsigned char *p, const struct ct_field_ctx *fc, uint32_t n,
			  uint32_t whole)
{
	struct emit *e = pr->em;
	uint32_t used = ct_u32s_used(p, n), i;
	bool zero = n >= whole || all_zero(p + 4 * (size_t)n, 4 * (size_t)(whole - n));
	char desc[160];

	em_str_list_begin(e, key);
	for (i = 0; i < used; i++) {
		uint32_t h = (uint32_t)ct_field_u(p + 4 * i, 4);
		const char *what = h ? ct_objects_describe(pr->objs, fc->client, h, desc,
							   sizeof(desc)) : NULL;

		if (!e->json && i == TEXT_HANDLES_MAX) {
			em_str(e, NULL, "...");
			break;
		}
		if (e->json) {
			em_open(e, NULL);
			em_hex_named(e, "handle", h, what);
			em_close(e);
		} else {
			em_hex_named(e, NULL, h, what);
		}
	}
	if (n < whole && !e->json)
		omitted_item(e, whole - n, zero);
	em_str_list_end(e);
	if (n < whole && e->json && key)
		omitted_json(e, key, strlen(key), whole - n, zero);
}

/* The cmd of NVOS54 (an RM control) and of nv_ioctl_xfer_t (an escape). */
static bool print_cmd(struct emit *e, const struct ct_field *f, const char *key, uint64_t v,
		      const struct ct_field_ctx *fc)
{
	const struct nv_ctrl_info *ci;
	const struct nv_esc_info *ei;

	if ((fc->esc_nr != NV_ESC_RM_CONTROL && fc->esc_nr != NV_ESC_IOCTL_XFER_CMD) ||
	    f->name[0] != 'c' || strcmp(f->name, "cmd") != 0)   /* every field comes here */
		return false;
	if (fc->esc_nr == NV_ESC_IOCTL_XFER_CMD) {
		ei = nv_esc_lookup((uint32_t)v);
		em_hex_named(e, key, v, ei ? ei->name : NULL);
	} else if (fc->has_ctrl && fc->ctrl == v) {   /* the call's own command */
		em_hex_named(e, key, v, fc->ctrl_name);
	} else {
		ci = nv_ctrl_lookup((uint32_t)v);
		em_hex_named(e, key, v, ci ? ci->name : NULL);
	}
	return true;
}

static void print_status(struct emit *e, const char *key, uint64_t v,
			 const struct ct_field_ctx *fc)
{
	const struct nv_status_info *st;

	if (fc->has_status && fc->status == v) {   /* the call's own status */
		em_enum(e, key, v, fc->status_name);
		return;
	}
	st = nv_status_lookup((uint32_t)v);
	em_enum(e, key, v, st ? st->name : NULL);
}

/* An array or union (n bytes of it in use): text if it holds text, else
 * hex (JSON, -vv) or its size. */
static void print_bytes(const struct ct_field_printer *pr, const struct ct_field *f,
			const char *key, const unsigned char *p, uint32_t n)
{
	struct emit *e = pr->em;
	char s[32];

	if (n && is_c_string(p, n, n < f->size)) {
		em_strn(e, key, (const char *)p, n);
	} else if (e->json || pr->verbose >= 2) {
		em_bytes(e, key, p, n);
	} else {
		snprintf(s, sizeof(s), "[%u bytes]", n);
		em_str(e, key, s);
	}
}

/* "flags" or "Flags" in a field's name: shown in hex.  One strstr. */
static bool says_flags(const char *name)
{
	const char *s;

	for (s = name; (s = strstr(s, "lags")); s++)
		if (s > name && (s[-1] == 'f' || s[-1] == 'F'))
			return true;
	return false;
}

/* n: the entries (handles) or bytes (bytes, uuid) of an array in use.
 * key: f's name, or NULL for an entry of a list (a scalar array entry). */
static void print_field(const struct ct_field_printer *pr, const struct ct_field *f,
			const char *key, const unsigned char *p, const struct ct_field_ctx *fc,
			uint32_t n)
{
	struct emit *e = pr->em;
	uint64_t v = f->size <= 8 ? ct_field_u(p, f->size) : 0;
	const struct nv_class_info *cl;

	if (print_cmd(e, f, key, v, fc))
		return;
	switch (f->kind) {
	case CT_FK_S:
	case CT_FK_FD:
		em_i64(e, key, field_s(p, f->size));
		break;
	case CT_FK_HANDLE: {
		char desc[160];

		em_hex_named(e, key, v,
			     ct_objects_describe(pr->objs, fc->client ? fc->client : (uint32_t)v,
						 (uint32_t)v, desc, sizeof(desc)));
		break;
	}
	case CT_FK_HANDLES:
		print_handles(pr, key, p, fc, n, f->size / 4);
		break;
	case CT_FK_PTR:
		em_hex(e, key, v);
		break;
	case CT_FK_ADDR:
	case CT_FK_SIZE:
		em_addr(e, key, v);
		break;
	case CT_FK_STATUS:
		if (!fc->not_written)
			print_status(e, key, v, fc);
		break;
	case CT_FK_CLASS:
		cl = nv_class_lookup((uint32_t)v);
		em_hex_named(e, key, v, cl ? cl->name : NULL);
		break;
	case CT_FK_BOOL:
		em_bool(e, key, v != 0);
		break;
	case CT_FK_UUID:
		if (n == 16) {
			ct_print_uuid(e, key, p);
			break;
		}
		/* fall through */
	case CT_FK_BYTES:
		print_bytes(pr, f, key, p, n);
		break;
	default:
		if (says_flags(f->name))
			em_hex(e, key, v);
		else
			em_u64(e, key, v);
	}
}

/* What one member (or a scalar entry) of an array's entries is, as
 * print_field's n: handles counted in entries, the rest in bytes. */
static uint32_t whole_of(const struct ct_field *f)
{
	return f->kind == CT_FK_HANDLES ? f->size / 4 : f->size;
}

/* A JSON list cannot hold a named value's two keys: a handle, class or
 * status entry is an object, {"class":"0x80","class_name":"..."}, as a
 * handle of print_handles is. */
static const char *json_entry_key(uint8_t kind)
{
	switch (kind) {
	case CT_FK_HANDLE:
		return "handle";
	case CT_FK_CLASS:
		return "class";
	case CT_FK_STATUS:
		return "status";
	}
	return NULL;
}

/*
 * An array whose entries are known (ct_layout_elem): its first n entries of
 * cap, a list of values (a scalar entry) or of {member=...}.  n comes from
 * its count field, already cut to cap; the rest are left out (all_zero
 * above says how).
 */
static void print_array(const struct ct_field_printer *pr, const struct ct_field *f,
			const struct ct_elem *el, const unsigned char *p,
			const struct ct_field_ctx *fc, uint32_t n, uint32_t cap)
{
	struct emit *e = pr->em;
	const struct ct_field *m0 = &el->fields[0];
	bool scalar = el->nfields == 1 && !m0->name[0];
	bool zero = all_zero(p + (size_t)n * el->size, (size_t)(cap - n) * el->size);
	const char *jk = e->json ? json_entry_key(m0->kind) : NULL;
	uint32_t i, j;

	em_str_list_begin(e, f->name);
	for (i = 0; i < n; i++) {
		const unsigned char *q = p + (size_t)i * el->size;

		if (scalar && !jk) {
			print_field(pr, m0, NULL, q, fc, whole_of(m0));
			continue;
		}
		em_open(e, NULL);
		for (j = 0; j < el->nfields; j++) {
			const struct ct_field *m = &el->fields[j];

			print_field(pr, m, scalar ? jk : m->name, q + m->offset, fc, whole_of(m));
		}
		em_close(e);
	}
	if (n < cap && !e->json)
		omitted_item(e, cap - n, zero);
	em_str_list_end(e);
	if (n < cap && e->json)
		omitted_json(e, f->name, strlen(f->name), cap - n, zero);
}

/*
 * The elements of a flattened array (pciBarInfo[0].flags ... [7].barOffset)
 * from fields[i], the first field past its count n: how many there are and
 * where they end, and the note that they are left out, text
 * "pciBarInfo[4..7]=... all zero", JSON pciBarInfo_omitted.  Returns the
 * index of the first field after them.
 */
static uint32_t omit_elements(const struct ct_field_printer *pr, const struct ct_layout *l,
			      uint32_t i, const unsigned char *buf, uint32_t len, uint32_t n)
{
	const struct ct_field *f = &l->fields[i];
	const char *br = strchr(f->name, '[');
	size_t plen = br ? (size_t)(br - f->name) : strlen(f->name);
	uint32_t j = i, cap = n, end = f->offset;
	struct emit *e = pr->em;
	char k[160];
	bool zero;

	for (; j < l->nfields; j++) {
		const struct ct_field *g = &l->fields[j];

		if (g->index < 0 || g->count != f->count || strncmp(g->name, f->name, plen) ||
		    g->name[plen] != '[')
			break;
		if ((uint32_t)g->index + 1 > cap)
			cap = (uint32_t)g->index + 1;
		if (g->offset + g->size > end)
			end = g->offset + g->size;
	}
	if (end > len)
		end = len;   /* captured less: what is there */
	zero = all_zero(buf + f->offset, end > f->offset ? end - f->offset : 0);
	if (e->json) {
		omitted_json(e, f->name, plen, cap - n, zero);
	} else {
		snprintf(k, sizeof(k), "%.*s[%u..%u]", (int)plen, f->name, n, cap - 1);
		em_str(e, k, zero ? "... all zero" : "... not all zero");
	}
	return j;
}

uint32_t ct_first_handle(const struct ct_layout *l, const unsigned char *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; l && i < l->nfields; i++)
		if (l->fields[i].kind == CT_FK_HANDLE && l->fields[i].offset + 4 <= len)
			return (uint32_t)ct_field_u(buf + l->fields[i].offset, 4);
	return 0;
}

/* Every field by name when the layout of exactly this size is known. */
void ct_print_struct(const struct ct_field_printer *pr, const char *key,
		     const struct ct_layout *l, const unsigned char *buf, uint32_t len,
		     const struct ct_field_ctx *outer)
{
	struct ct_field_ctx fc = *outer;
	uint32_t i;

	if (!fc.client)
		fc.client = ct_first_handle(l, buf, len);
	em_open(pr->em, key);
	for (i = 0; i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];
		const struct ct_elem *el = ct_layout_elem(f);
		uint32_t whole = el ? f->size / el->size : whole_of(f);

		if ((uint64_t)f->offset + f->size > len)
			break;   /* captured less than the struct: print what is there */
		if (f->index >= 0 && (uint32_t)f->index >= counted(f, l->fields, buf, len, UINT32_MAX)) {
			/* the first element past its array's count: the rest go too */
			i = omit_elements(pr, l, i, buf, len, (uint32_t)f->index) - 1;
			continue;
		}
		if (el)
			print_array(pr, f, el, buf + f->offset, &fc,
				    counted(f, l->fields, buf, len, whole), whole);
		else
			print_field(pr, f, f->name, buf + f->offset, &fc,
				    f->index < 0 ? counted(f, l->fields, buf, len, whole) : whole);
	}
	em_close(pr->em);
}

