/* SPDX-License-Identifier: MIT */
/*
 * The generated CPython tables (build/pyabi_data.c, made by
 * capture/python/pyabi/gen-pyabi.awk from the TSV files in capture/python/pyabi/) as capture/python/pyabi.c reads
 * them, and the tests.  Other callers use capture/python/pyabi.h.
 */
#ifndef CT_PYABI_DATA_H
#define CT_PYABI_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "pyabi.h"

/* One ct_pyabi field that _Py_DebugOffsets carries. */
struct ct_pyabi_dbg_field {
	uint32_t field;       /* offsetof(struct ct_pyabi, the field) */
	uint32_t pos;         /* byte position of its uint64 in _Py_DebugOffsets */
	uint32_t size_pos;    /* position of the size of the struct it lies in */
	uint8_t is_size;      /* the value is itself a size (<= that struct's) */
};

/* _Py_DebugOffsets of one minor version. */
struct ct_pyabi_dbg_layout {
	uint32_t minor;
	uint32_t size;               /* sizeof(_Py_DebugOffsets) */
	const char *cookie;          /* _Py_Debug_Cookie, 8 bytes, no NUL in the blob */
	uint32_t cookie_pos;
	uint32_t version_pos;        /* PY_VERSION_HEX of the process */
	uint64_t version_lo, version_hi;  /* the PY_VERSION_HEX values of this minor */
	uint32_t free_threaded_pos;
	const struct ct_pyabi_dbg_field *fields;
	size_t nfields;
};

/* A field of struct ct_pyabi by name (as the TSV files name it). */
struct ct_pyabi_field_name {
	const char *name;
	size_t offset;        /* offsetof(struct ct_pyabi, the field) */
};

extern const struct ct_pyabi ct_pyabi_tab[];
extern const size_t ct_pyabi_tab_len;
extern const struct ct_pyabi_field_name ct_pyabi_field_names[];
extern const size_t ct_pyabi_field_names_len;
extern const struct ct_pyabi_dbg_layout ct_pyabi_dbg_tab[];
extern const size_t ct_pyabi_dbg_tab_len;

#endif
