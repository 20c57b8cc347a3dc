// SPDX-License-Identifier: MIT
/*
 * capture/python/pyline.c: the line of a bytecode offset from co_linetable.
 *
 * 1. Real tables: tests/unit/pyline/cpython-3.X.tsv, dumped by
 *    tests/unit/pyline/dump.py from CPython 3.10.13, 3.11.7, 3.12.1,
 *    3.13.0 and 3.14.10 (each file's first line says which): every code
 *    object of one sample module, with the line the interpreter itself
 *    gives for each code unit.  Every code unit is checked, and the first
 *    offset past the table.
 * 2. Tables built byte by byte from the documented formats, one per form:
 *    3.10 Objects/lnotab_notes.txt (v3.10.0), 3.11+ Objects/locations.md
 *    (v3.11.0).
 * 3. Hostile tables: truncated, bad headers, overflowing varints and
 *    lines, and a deterministic random sweep; each table lies in a heap
 *    block of exactly its size, so that ASan (tests/asan/test_pyline)
 *    catches any read past n.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "pyabi.h"

#define FIXTURES "tests/unit/pyline/"
#define MAX_LINE (1 << 20)
#define UNIT 2   /* sizeof(_Py_CODEUNIT), 3.10 .. 3.14 (capture/python/pyabi/cpython-3.X.tsv) */

/* The line through a heap copy of exactly n bytes. */
static int line_at(unsigned minor, const uint8_t *t, size_t n, int first, uint32_t off)
{
	uint8_t *copy = malloc(n ? n : 1);
	int line;

	if (!copy)
		abort();
	memcpy(copy, t, n);
	line = ct_pyline(minor, copy, n, first, off);
	free(copy);
	return line;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	return -1;
}

/* Hex to bytes; returns the count, or -1. */
static long unhex(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	while (s[0] && s[1]) {
		int hi = hexval(s[0]), lo = hexval(s[1]);

		if (hi < 0 || lo < 0 || n == cap)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	return *s ? -1 : (long)n;
}

/* One fixture row: name, firstlineno, table, lines.  Returns the number
 * of code units that decoded wrong (0 = all right), or -1 if unreadable. */
static int check_row(unsigned minor, char *row, char *name_out, size_t name_cap, int *units)
{
	static uint8_t table[65536];
	char *name = strtok(row, "\t"), *first = strtok(NULL, "\t");
	char *hex = strtok(NULL, "\t"), *lines = strtok(NULL, "\t\n");
	char *tok, *save = NULL;
	long n;
	int bad = 0, i = 0;

	if (!name || !first || !hex || !lines)
		return -1;
	snprintf(name_out, name_cap, "%s", name);
	n = unhex(hex, table, sizeof(table));
	if (n < 0)
		return -1;
	for (tok = strtok_r(lines, ",", &save); tok; tok = strtok_r(NULL, ",", &save), i++) {
		int want = strcmp(tok, "-") == 0 ? -1 : atoi(tok);
		int got = line_at(minor, table, (size_t)n, atoi(first), (uint32_t)i * UNIT);

		if (got != want) {
			if (!bad)
				printf("#   %s: offset %d: got %d, want %d\n", name, i * UNIT, got, want);
			bad++;
		}
	}
	/* Past the last code unit the table says nothing. */
	if (line_at(minor, table, (size_t)n, atoi(first), (uint32_t)i * UNIT) != -1) {
		printf("#   %s: offset %d past the end has a line\n", name, i * UNIT);
		bad++;
	}
	*units = i;
	return bad;
}

static void real_tables(unsigned minor)
{
	char path[256], *row = malloc(MAX_LINE), name[256], from[512] = "";
	int rows = 0, units_total = 0;
	FILE *f;

	snprintf(path, sizeof(path), FIXTURES "cpython-3.%u.tsv", minor);
	f = fopen(path, "r");
	if (!ok(f != NULL && row != NULL, "3.%u: fixture %s opens", minor, path)) {
		free(row);
		return;
	}
	while (fgets(row, MAX_LINE, f)) {
		int units = 0, bad;

		if (strncmp(row, "#Dumped by", 10) == 0)
			snprintf(from, sizeof(from), "%.*s", (int)strcspn(row + 1, "\n"), row + 1);
		if (row[0] == '#' || row[0] == '\n')
			continue;
		bad = check_row(minor, row, name, sizeof(name), &units);
		ok(bad == 0, "3.%u: %s: the line of each of %d code units is the interpreter's",
		   minor, name, units);
		rows++;
		units_total += units;
	}
	fclose(f);
	free(row);
	ok(rows >= 10 && units_total > 500, "3.%u: %d code objects, %d code units (%s)",
	   minor, rows, units_total, from);
}

/* --- 3.10: Objects/lnotab_notes.txt (v3.10.0) --------------------------------- */
static void built_310(void)
{
	/* (start delta, line delta) pairs: 6 bytes on line +1, 4 bytes with no
	 * line (-128), 2 bytes on line +2 from the last line, not from none. */
	static const uint8_t t[] = { 6, 1, 4, 0x80, 2, 2 };
	/* A range over 254 bytes is split; the rest carries line delta 0. */
	static const uint8_t split[] = { 254, 1, 6, 0 };
	/* A line delta over 127 is split over empty ranges. */
	static const uint8_t big[] = { 0, 127, 0, 127, 4, 46 };
	/* A negative delta (a loop's back edge). */
	static const uint8_t back[] = { 4, 3, 2, 0xfe };

	ok(line_at(10, t, sizeof(t), 10, 0) == 11 && line_at(10, t, sizeof(t), 10, 5) == 11,
	   "3.10: bytes 0-5 are on firstlineno + 1");
	ok(line_at(10, t, sizeof(t), 10, 6) == -1 && line_at(10, t, sizeof(t), 10, 9) == -1,
	   "3.10: a line delta of -128 is no line");
	ok(line_at(10, t, sizeof(t), 10, 10) == 13, "3.10: the line after no line counts from the last line");
	ok(line_at(10, t, sizeof(t), 10, 12) == -1, "3.10: past the last range: -1");
	ok(line_at(10, split, sizeof(split), 1, 253) == 2 && line_at(10, split, sizeof(split), 1, 259) == 2,
	   "3.10: a range split at 254 bytes keeps its line");
	ok(line_at(10, big, sizeof(big), 1, 3) == 301, "3.10: a line delta split over empty ranges (1 + 300)");
	ok(line_at(10, back, sizeof(back), 5, 4) == 6, "3.10: a negative line delta");
	ok(line_at(10, t, 0, 10, 0) == -1, "3.10: an empty table has no line");
}

/* --- 3.11+: Objects/locations.md (v3.11.0) -------------------------------------- */
#define HEAD(code, units) ((uint8_t)(0x80 | (code) << 3 | ((units) - 1)))

static void built_311(unsigned minor)
{
	/* Short form (code 0-9): same line, one column byte. */
	static const uint8_t s[] = { HEAD(3, 2), 0x25 };
	/* One-line forms (10-12): line + code - 10, start and end column. */
	static const uint8_t one[] = { HEAD(10, 1), 4, 8, HEAD(11, 1), 4, 8, HEAD(12, 2), 0, 3 };
	/* No-column form (13): svarint line delta: -3 is (3 << 1) | 1. */
	static const uint8_t nocol[] = { HEAD(13, 1), 0, HEAD(13, 3), 7 };
	/* Long form (14): svarint 200 (400: chunks 16 | more, 6), end line
	 * delta, start and end column + 1. */
	static const uint8_t lng[] = { HEAD(14, 1), 0x50, 0x06, 0, 5, 9, HEAD(0, 1), 0 };
	/* No location (15), then a line again: the no-location entry moves
	 * no line. */
	static const uint8_t none[] = { HEAD(11, 1), 0, 1, HEAD(15, 2), HEAD(11, 1), 0, 1 };
	/* Eight code units per entry at most: a long run is several entries. */
	static const uint8_t run[] = { HEAD(11, 8), 0, 1, HEAD(0, 8), 0, HEAD(0, 3), 0 };

	ok(line_at(minor, s, sizeof(s), 7, 0) == 7 && line_at(minor, s, sizeof(s), 7, 3) == 7,
	   "3.%u: short form: firstlineno, over 2 code units", minor);
	ok(line_at(minor, s, sizeof(s), 7, 4) == -1, "3.%u: past the last entry: -1", minor);
	ok(line_at(minor, one, sizeof(one), 7, 0) == 7 && line_at(minor, one, sizeof(one), 7, 2) == 8 &&
	   line_at(minor, one, sizeof(one), 7, 4) == 10 && line_at(minor, one, sizeof(one), 7, 7) == 10,
	   "3.%u: one-line forms add 0, 1, 2", minor);
	ok(line_at(minor, nocol, sizeof(nocol), 20, 0) == 20 && line_at(minor, nocol, sizeof(nocol), 20, 2) == 17 &&
	   line_at(minor, nocol, sizeof(nocol), 20, 7) == 17, "3.%u: no-column form, negative delta", minor);
	ok(line_at(minor, lng, sizeof(lng), 1, 0) == 201 && line_at(minor, lng, sizeof(lng), 1, 2) == 201,
	   "3.%u: long form: two-chunk svarint, then a short form on its line", minor);
	ok(line_at(minor, none, sizeof(none), 1, 0) == 2 && line_at(minor, none, sizeof(none), 1, 2) == -1 &&
	   line_at(minor, none, sizeof(none), 1, 5) == -1 && line_at(minor, none, sizeof(none), 1, 6) == 3,
	   "3.%u: code 15 is no line and moves no line", minor);
	ok(line_at(minor, run, sizeof(run), 1, 15 * UNIT) == 2 && line_at(minor, run, sizeof(run), 1, 18 * UNIT) == 2 &&
	   line_at(minor, run, sizeof(run), 1, 19 * UNIT) == -1, "3.%u: 8 + 8 + 3 code units", minor);
}

/* --- hostile tables ------------------------------------------------------------ */
static void hostile(void)
{
	static const uint8_t no_head[] = { 0x05, HEAD(0, 1), 0 };
	static const uint8_t cut_varint[] = { HEAD(13, 1), 0x50 };
	static const uint8_t cut_long[] = { HEAD(14, 1), 2, 0, 5 };
	static const uint8_t cut_short[] = { HEAD(0, 1) };
	static const uint8_t cut_one[] = { HEAD(11, 1), 1 };
	static const uint8_t head_in_payload[] = { HEAD(11, 1), 1, HEAD(0, 1), 0 };
	static const uint8_t varint_long[] = { HEAD(13, 1), 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f };
	static const uint8_t varint_wide[] = { HEAD(13, 1), 0x40, 0x40, 0x40, 0x40, 0x40, 0x3f };
	static const uint8_t line_up[] = { HEAD(13, 1), 0x7e, 0x7f, 0x7f, 0x7f, 0x3f, HEAD(13, 1), 0x7e, 0x7f,
					   0x7f, 0x7f, 0x3f };
	static const uint8_t line_down[] = { HEAD(13, 1), 0x7f, 0x7f, 0x7f, 0x7f, 0x1f };
	static const uint8_t odd10[] = { 4, 1, 4 };
	static const uint8_t ok_t[] = { HEAD(0, 1), 0 };
	static const uint8_t back10[] = { 2, 0xfe, 2, 0xfe };
	unsigned minor;

	ok(line_at(11, no_head, sizeof(no_head), 1, 0) == -1, "hostile: an entry without bit 7: -1");
	ok(line_at(11, cut_varint, sizeof(cut_varint), 1, 0) == -1, "hostile: a varint cut by the end: -1");
	ok(line_at(12, cut_long, sizeof(cut_long), 1, 0) == -1, "hostile: a long form cut by the end: -1");
	ok(line_at(13, cut_short, sizeof(cut_short), 1, 0) == -1, "hostile: a short form without its column: -1");
	ok(line_at(14, cut_one, sizeof(cut_one), 1, 0) == -1, "hostile: a one-line form with one column: -1");
	ok(line_at(11, head_in_payload, sizeof(head_in_payload), 1, 0) == -1,
	   "hostile: a header byte where a payload byte should be: -1");
	ok(line_at(11, varint_long, sizeof(varint_long), 1, 0) == -1, "hostile: a varint over 32 bits: -1");
	ok(line_at(11, varint_wide, sizeof(varint_wide), 1, 0) == -1,
	   "hostile: a varint of 7 chunks whose last overflows: -1");
	ok(line_at(11, line_up, sizeof(line_up), INT_MAX - 5, 2) == -1, "hostile: a line past INT_MAX: -1");
	ok(line_at(11, line_down, sizeof(line_down), 1, 0) == -1, "hostile: a negative line: -1");
	ok(line_at(10, back10, sizeof(back10), 1, 2) == -1, "hostile: 3.10 line below 0: -1");
	ok(line_at(10, odd10, sizeof(odd10), 1, 0) == -1, "hostile: 3.10 table of odd length: -1");
	ok(line_at(11, ok_t, sizeof(ok_t), 1, UINT32_MAX) == -1, "hostile: offset UINT32_MAX: -1");
	ok(ct_pyline(11, NULL, 4, 1, 0) == -1, "hostile: no table: -1");
	ok(ct_pyline(9, ok_t, sizeof(ok_t), 1, 0) == -1 && ct_pyline(15, ok_t, sizeof(ok_t), 1, 0) == -1,
	   "an unknown minor (3.9, 3.15): -1");
	for (minor = 10; minor <= 14; minor++)
		ok(line_at(minor, ok_t, 0, 1, 0) == -1, "3.%u: n = 0: -1", minor);
}

/* Random tables of every length to 64 bytes, all versions, many offsets:
 * no crash, no read past n (ASan), a line of -1 or within what the bytes
 * could reach. */
static void sweep(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint8_t t[64];
	int calls = 0, strange = 0;
	size_t n, i;
	unsigned minor, r;

	for (r = 0; r < 2000; r++) {
		n = r % sizeof(t);
		for (i = 0; i < n; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			t[i] = (uint8_t)x;
			if (r % 3 == 0 && i % 3 == 0)
				t[i] |= 0x80;   /* more valid-looking headers */
		}
		for (minor = 10; minor <= 14; minor++) {
			uint32_t off;

			for (off = 0; off < 600; off += 7) {
				int line = line_at(minor, t, n, 100, off);

				calls++;
				if (line < -1)
					strange++;
			}
		}
	}
	ok(strange == 0, "sweep: %d calls on random tables, every answer a line or -1", calls);
}

int main(void)
{
	unsigned minor;

	for (minor = 10; minor <= 14; minor++)
		real_tables(minor);
	built_310();
	for (minor = 11; minor <= 14; minor++)
		built_311(minor);
	hostile();
	sweep();
	return tap_done();
}
