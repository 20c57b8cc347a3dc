// SPDX-License-Identifier: MIT
/*
 * CPython layout facts by minor version: lookups over the generated tables
 * (build/pyabi_data.c, from the TSV files in capture/python/pyabi/) and the reading of a
 * process's own _Py_DebugOffsets.  Every number comes from the tables.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pyabi.h"
#include "pyabi_data.h"

const struct ct_pyabi *ct_pyabi_builtin(unsigned minor)
{
	size_t i;

	for (i = 0; i < ct_pyabi_tab_len; i++)
		if (ct_pyabi_tab[i].minor == minor)
			return &ct_pyabi_tab[i];
	return NULL;
}

const char *ct_pyabi_versions(char *buf, size_t n)
{
	unsigned lo = UINT_MAX, hi = 0, m;
	size_t len = 0;

	if (!n)
		return buf;
	buf[0] = 0;
	for (size_t i = 0; i < ct_pyabi_tab_len; i++) {
		lo = ct_pyabi_tab[i].minor < lo ? ct_pyabi_tab[i].minor : lo;
		hi = ct_pyabi_tab[i].minor > hi ? ct_pyabi_tab[i].minor : hi;
	}
	/* Minors run lo..hi with gaps where no table is: one run at a time. */
	for (m = lo; lo != UINT_MAX && m <= hi; m++) {
		unsigned end = m;
		int w;

		if (!ct_pyabi_builtin(m))
			continue;
		while (end < hi && ct_pyabi_builtin(end + 1))
			end++;
		w = end == m ? snprintf(buf + len, n - len, "%s3.%u", len ? ", " : "", m)
			     : snprintf(buf + len, n - len, "%s3.%u-3.%u", len ? ", " : "", m, end);
		if (w < 0 || (size_t)w >= n - len)
			break;   /* cut: what fits stays */
		len += (size_t)w;
		m = end;
	}
	return buf;
}

static const struct ct_pyabi_dbg_layout *dbg_layout(unsigned minor)
{
	size_t i;

	for (i = 0; i < ct_pyabi_dbg_tab_len; i++)
		if (ct_pyabi_dbg_tab[i].minor == minor)
			return &ct_pyabi_dbg_tab[i];
	return NULL;
}

size_t ct_pyabi_debug_offsets_size(unsigned minor)
{
	const struct ct_pyabi_dbg_layout *l = dbg_layout(minor);

	return l ? l->size : 0;
}

/* The uint64 at pos, if it lies inside len bytes. */
static int u64_at(const uint8_t *blob, size_t len, uint32_t pos, uint64_t *v)
{
	if (len < sizeof(*v) || pos > len - sizeof(*v))
		return -1;
	memcpy(v, blob + pos, sizeof(*v));   /* the process is x86-64 too */
	return 0;
}

/* Does the blob start like this minor's _Py_DebugOffsets? */
static int matches(const struct ct_pyabi_dbg_layout *l, const uint8_t *blob, size_t len)
{
	uint64_t version, threaded;
	size_t clen = strlen(l->cookie);

	if (len < l->size || l->cookie_pos > len || len - l->cookie_pos < clen)
		return 0;
	if (memcmp(blob + l->cookie_pos, l->cookie, clen) != 0)
		return 0;
	if (u64_at(blob, len, l->version_pos, &version) < 0 ||
	    version < l->version_lo || version > l->version_hi)
		return 0;
	/* The free-threaded build lays its objects out otherwise, and the
	 * constants of the per-version table are the default build's. */
	return u64_at(blob, len, l->free_threaded_pos, &threaded) == 0 && threaded == 0;
}

/* One carried field: its offset (or size) must lie inside its struct. */
static int take_field(const struct ct_pyabi_dbg_field *f, const uint8_t *blob, size_t len,
		      struct ct_pyabi *out)
{
	uint64_t value, struct_size;
	uint32_t v32;

	if (u64_at(blob, len, f->pos, &value) < 0 || u64_at(blob, len, f->size_pos, &struct_size) < 0)
		return -1;
	if (value >= CT_PY_NONE || (f->is_size ? value > struct_size : value >= struct_size))
		return -1;
	if (f->field > sizeof(*out) - sizeof(v32))
		return -1;
	v32 = (uint32_t)value;
	memcpy((uint8_t *)out + f->field, &v32, sizeof(v32));
	return 0;
}

int ct_pyabi_from_debug_offsets(const void *blob, size_t len, struct ct_pyabi *out)
{
	const struct ct_pyabi_dbg_layout *l = NULL;
	const struct ct_pyabi *base;
	struct ct_pyabi abi;
	size_t i;

	if (!blob || !out)
		return -1;
	for (i = 0; i < ct_pyabi_dbg_tab_len && !l; i++)
		if (matches(&ct_pyabi_dbg_tab[i], blob, len))
			l = &ct_pyabi_dbg_tab[i];
	if (!l || !(base = ct_pyabi_builtin(l->minor)))
		return -1;
	/* What the struct does not carry (constants, fields gone in this
	 * version) comes from the built-in table of the minor. */
	abi = *base;
	for (i = 0; i < l->nfields; i++)
		if (take_field(&l->fields[i], blob, len, &abi) < 0)
			return -1;
	/* The counter of code objects decides whether a code object is read
	 * again: a wrong offset would name frames after freed code.  Trusted
	 * only in a process laid out as the table says. */
	if (memcmp(&abi, base, sizeof(abi)) != 0)
		abi.interp_code_counter = CT_PY_NONE;
	*out = abi;
	return 0;
}
