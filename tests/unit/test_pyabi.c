// SPDX-License-Identifier: MIT
/*
 * capture/python/pyabi.c and the generated tables (build/pyabi_data.c).
 *
 * 1. The built-in table of each minor says what capture/python/pyabi/cpython-3.X.tsv
 *    says, field by field, and the TSV names every field of the struct.
 * 2. ct_pyabi_from_debug_offsets() on real _Py_DebugOffsets: the first
 *    bytes of _PyRuntime of running CPython 3.13.0 and 3.14.10
 *    (tests/unit/pyabi/debug-offsets-3.X.Y.hex, dumped by
 *    capture/python/pyabi/check-live.py) give exactly the built-in table, which was
 *    derived from the headers independently.
 * 3. A blob built from the documented layout (capture/python/pyabi/debug-offsets-
 *    3.X.tsv positions, cookie, version) with values other than the
 *    built-in ones: the values come from the blob.
 * 4. Refusals: a bad cookie, short blobs, other versions, the
 *    free-threaded build, offsets outside their struct, values past 32 bits.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "pyabi.h"
#include "pyabi_data.h"

#define TSV_DIR "capture/python/pyabi/"
#define FIXTURES "tests/unit/pyabi/"
#define MAX_BLOB 4096

static uint32_t get(const struct ct_pyabi *a, size_t off)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)a + off, sizeof(v));
	return v;
}

static int field_index(const char *name)
{
	size_t i;

	for (i = 0; i < ct_pyabi_field_names_len; i++)
		if (strcmp(ct_pyabi_field_names[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* Rows of a TSV: the first two columns, comments skipped. */
struct row { char key[64], val[64]; };

static int read_rows(const char *path, struct row *rows, int cap)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < cap) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63[^\t]\t%63[^\t\n]", rows[n].key, rows[n].val) == 2)
			n++;
	}
	fclose(f);
	return n;
}

static const char *lookup(const struct row *rows, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(rows[i].key, key) == 0)
			return rows[i].val;
	return NULL;
}

static void tables_match_tsv(unsigned minor)
{
	const struct ct_pyabi *a = ct_pyabi_builtin(minor);
	struct row rows[128];
	char path[128];
	int n, i, bad = 0, idx;
	uint32_t want;

	snprintf(path, sizeof(path), TSV_DIR "cpython-3.%u.tsv", minor);
	n = read_rows(path, rows, 128);
	if (!ok(a && a->minor == minor && n > 0, "3.%u: a built-in table, and %s (%d rows)", minor, path, n))
		return;
	for (i = 0; i < n; i++) {
		idx = field_index(rows[i].key);
		want = strcmp(rows[i].val, "none") == 0 ? CT_PY_NONE : (uint32_t)strtoul(rows[i].val, NULL, 10);
		if (idx < 0 || get(a, ct_pyabi_field_names[idx].offset) != want) {
			printf("#   %s: %s is %s in the TSV\n", path, rows[i].key, rows[i].val);
			bad++;
		}
	}
	ok(bad == 0 && n == (int)ct_pyabi_field_names_len, "3.%u: the built-in table is the TSV's, all %zu fields",
	   minor, ct_pyabi_field_names_len);
}

/* --- _Py_DebugOffsets ---------------------------------------------------------- */
static long read_hex(const char *path, uint8_t *out, size_t cap)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t n = 0, i;
	unsigned b;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (i = 0; line[i] && line[i + 1] && line[i] != '\n' && n < cap; i += 2) {
			if (sscanf(line + i, "%2x", &b) != 1)
				break;
			out[n++] = (uint8_t)b;
		}
	}
	fclose(f);
	return (long)n;
}

static void put64(uint8_t *blob, const char *pos, uint64_t v)
{
	memcpy(blob + strtoul(pos, NULL, 10), &v, sizeof(v));
}

static int same_abi(const struct ct_pyabi *a, const struct ct_pyabi *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static void real_blob(unsigned minor, const char *patch)
{
	static uint8_t blob[MAX_BLOB];
	struct ct_pyabi got;
	struct row pos[64];
	char path[128];
	long n;
	int np;

	snprintf(path, sizeof(path), FIXTURES "debug-offsets-3.%u.%s.hex", minor, patch);
	n = read_hex(path, blob, sizeof(blob));
	snprintf(path, sizeof(path), TSV_DIR "debug-offsets-3.%u.tsv", minor);
	np = read_rows(path, pos, 64);
	if (!ok(n > 0 && np > 0 && lookup(pos, np, "sizeof"), "3.%u.%s: fixture and layout read", minor, patch))
		return;
	ok((size_t)n == ct_pyabi_debug_offsets_size(minor) &&
	   ct_pyabi_debug_offsets_size(minor) == strtoul(lookup(pos, np, "sizeof"), NULL, 10),
	   "3.%u: ct_pyabi_debug_offsets_size is the TSV's sizeof (%zu)", minor, ct_pyabi_debug_offsets_size(minor));
	memset(&got, 0xab, sizeof(got));
	ok(ct_pyabi_from_debug_offsets(blob, (size_t)n, &got) == 0 && same_abi(&got, ct_pyabi_builtin(minor)),
	   "3.%u.%s: the process's _Py_DebugOffsets give the built-in table, field for field", minor, patch);
}

/* A blob from the documented layout: the built-in values, then moved. */
static size_t build_blob(unsigned minor, uint8_t *blob, struct row *pos, int np)
{
	const struct ct_pyabi *a = ct_pyabi_builtin(minor);
	size_t size = strtoul(lookup(pos, np, "sizeof"), NULL, 10);
	int i, idx;

	memset(blob, 0, size);
	memcpy(blob + strtoul(lookup(pos, np, "cookie"), NULL, 10), lookup(pos, np, "cookie_text"), 8);
	put64(blob, lookup(pos, np, "version"), strtoul(lookup(pos, np, "version_hex"), NULL, 10));
	for (i = 0; i < np; i++) {
		size_t k = strlen(pos[i].key);

		if ((idx = field_index(pos[i].key)) >= 0)
			put64(blob, pos[i].val, get(a, ct_pyabi_field_names[idx].offset));
		else if (k > 5 && strcmp(pos[i].key + k - 5, "_size") == 0)
			put64(blob, pos[i].val, 1u << 16);   /* every struct 64 KiB */
	}
	return size;
}

static void built_blob(unsigned minor)
{
	static uint8_t blob[MAX_BLOB], bad[MAX_BLOB];
	struct ct_pyabi got, before;
	struct row pos[64];
	char path[128];
	size_t size;
	int np;

	snprintf(path, sizeof(path), TSV_DIR "debug-offsets-3.%u.tsv", minor);
	np = read_rows(path, pos, 64);
	if (!ok(np > 0, "3.%u: %s read", minor, path))
		return;
	size = build_blob(minor, blob, pos, np);
	ok(ct_pyabi_from_debug_offsets(blob, size, &got) == 0 && same_abi(&got, ct_pyabi_builtin(minor)),
	   "3.%u: a blob built from the layout gives the built-in table", minor);
	put64(blob, lookup(pos, np, "tstate_next"), 4000);
	put64(blob, lookup(pos, np, "code_linetable"), 4008);
	ok(ct_pyabi_from_debug_offsets(blob, size, &got) == 0 && got.tstate_next == 4000 &&
	   got.code_linetable == 4008 && got.unicode_kind_shift == ct_pyabi_builtin(minor)->unicode_kind_shift,
	   "3.%u: offsets come from the blob, constants from the table", minor);
	ok(got.interp_code_counter == CT_PY_NONE &&
	   ct_pyabi_builtin(minor)->interp_code_counter != CT_PY_NONE,
	   "3.%u: a process laid out otherwise: the table's counter of code objects is not used",
	   minor);

	memset(&before, 0x5a, sizeof(before));
#define REFUSE(what, mutate, len) do { \
		memcpy(bad, blob, size); \
		mutate; \
		got = before; \
		ok(ct_pyabi_from_debug_offsets(bad, (len), &got) == -1 && same_abi(&got, &before), \
		   "3.%u: refused, *out untouched: %s", minor, what); \
	} while (0)
	REFUSE("bad cookie", bad[strtoul(lookup(pos, np, "cookie"), NULL, 10) + 3] ^= 1, size);
	REFUSE("one byte short", (void)0, size - 1);
	REFUSE("empty", (void)0, 0);
	REFUSE("version 3.12", put64(bad, lookup(pos, np, "version"), 0x030c00f0), size);
	REFUSE("version 3.15", put64(bad, lookup(pos, np, "version"), 0x030f00a0), size);
	REFUSE("version 4.x", put64(bad, lookup(pos, np, "version"), 0x040000f0 | (minor << 16)), size);
	REFUSE("free-threaded build", put64(bad, lookup(pos, np, "free_threaded"), 1), size);
	REFUSE("an offset equal to its struct's size",
	       put64(bad, lookup(pos, np, "tstate_interp"), 1u << 16), size);
	REFUSE("a struct size of 0", put64(bad, lookup(pos, np, "frame_size"), 0), size);
	REFUSE("a size past its struct's",
	       put64(bad, lookup(pos, np, "unicode_ascii_size"), (1u << 16) + 1), size);
	REFUSE("an offset past 32 bits", (put64(bad, lookup(pos, np, "code_size"), UINT64_MAX),
	       put64(bad, lookup(pos, np, "code_name"), 1ull << 32)), size);
	memcpy(bad, blob, size);
	put64(bad, lookup(pos, np, "unicode_ascii_size"), 1u << 16);
	ok(ct_pyabi_from_debug_offsets(bad, size, &got) == 0 && got.unicode_ascii_size == 1u << 16,
	   "3.%u: a size may equal its struct's", minor);
	ok(ct_pyabi_from_debug_offsets(NULL, size, &got) == -1 && ct_pyabi_from_debug_offsets(blob, size, NULL) == -1,
	   "3.%u: NULL blob or out: -1", minor);
}

/* 5. What the user is told is read (the warning on another version):
 * from the tables, a run of minors joined; a short buffer is cut, ended. */
static void versions_said(void)
{
	unsigned lo = ~0u, hi = 0;
	char want[32], got[32], tiny[6];

	for (size_t i = 0; i < ct_pyabi_tab_len; i++) {
		lo = ct_pyabi_tab[i].minor < lo ? ct_pyabi_tab[i].minor : lo;
		hi = ct_pyabi_tab[i].minor > hi ? ct_pyabi_tab[i].minor : hi;
	}
	snprintf(want, sizeof(want), "3.%u-3.%u", lo, hi);   /* 3.10 .. 3.14: no gap */
	ok_str(ct_pyabi_versions(got, sizeof(got)), want, "the versions read, from the tables");
	ok(strlen(ct_pyabi_versions(tiny, sizeof(tiny))) < sizeof(tiny),
	   "a short buffer: cut, NUL-terminated (\"%s\")", tiny);
}

int main(void)
{
	static uint8_t blob[MAX_BLOB];
	unsigned minor;
	size_t i;
	long n;

	/* The generator found every field of capture/python/pyabi.h (all uint32_t), in order. */
	for (i = 0; i < ct_pyabi_field_names_len && ct_pyabi_field_names[i].offset == i * sizeof(uint32_t); i++)
		;
	ok(i == ct_pyabi_field_names_len && i * sizeof(uint32_t) == sizeof(struct ct_pyabi),
	   "the generated name list has all %zu fields of struct ct_pyabi, in order",
	   sizeof(struct ct_pyabi) / sizeof(uint32_t));
	for (minor = 10; minor <= 14; minor++)
		tables_match_tsv(minor);
	ok(!ct_pyabi_builtin(9) && !ct_pyabi_builtin(15) && !ct_pyabi_builtin(0), "no table for 3.9, 3.15, 3.0");
	ok(ct_pyabi_debug_offsets_size(12) == 0 && ct_pyabi_debug_offsets_size(15) == 0,
	   "no _Py_DebugOffsets before 3.13 or past 3.14");
	real_blob(13, "0");
	real_blob(14, "10");
	built_blob(13);
	built_blob(14);
	/* A 3.13 blob read with only 3.14's length of bytes still is 3.13. */
	n = read_hex(FIXTURES "debug-offsets-3.13.0.hex", blob, sizeof(blob));
	if (n > 0) {
		struct ct_pyabi got;

		ok(ct_pyabi_from_debug_offsets(blob, ct_pyabi_debug_offsets_size(14), &got) == 0 && got.minor == 13,
		   "a 3.13 blob followed by more bytes is read as 3.13");
	}
	versions_said();
	return tap_done();
}
