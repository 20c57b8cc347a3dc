// SPDX-License-Identifier: MIT
/*
 * The source line of a bytecode offset, from a code object's co_linetable,
 * with CPython's own algorithms (Objects/codeobject.c,
 * _PyCode_CheckLineNumber and the address ranges it walks):
 *
 *   3.10   PEP 626 line table (Objects/lnotab_notes.txt at v3.10.0): pairs
 *          of (start delta in bytes, unsigned; line delta, signed, -128 =
 *          this range has no line).
 *   3.11+  the location table (Objects/locations.md at v3.11.0, unchanged
 *          to 3.14): entries of a header byte (bit 7 set, a 4-bit code, the
 *          length in code units - 1) and the code's payload: varints of
 *          6-bit chunks, bit 6 = more.
 *
 * The table comes from another process: every read is bounded by n, a
 * table that does not parse gives -1, as does an offset past its end.
 */
#include <limits.h>
#include <stdint.h>

#include "pyabi.h"

/* 3.10, Objects/lnotab_notes.txt: a pair of bytes per range, and the
 * line delta that means "no line". */
#define LINE10_PAIR      2
#define LINE10_NONE      (-128)

/* 3.11+, Objects/locations.md: the header byte, and the codes. */
#define LOC_HEADER       (1u << 7)   /* bit 7: an entry starts here */
#define LOC_CODE_SHIFT   3      /* bits 3-6: the code */
#define LOC_CODE_MASK    0x0f
#define LOC_LEN_MASK     0x07   /* bits 0-2: length in code units, minus 1 */
#define LOC_NONE         15     /* no location */
#define LOC_LONG         14     /* svarint line delta, 3 varints (end line, columns) */
#define LOC_NO_COLUMNS   13     /* svarint line delta */
#define LOC_ONE_LINE0    10     /* 10-12: line delta code - 10, 2 column bytes */
#define LOC_ONE_LINE2    12
#define LOC_SHORT_BYTES  1      /* 0-9: same line, 1 column byte */
#define LOC_ONE_LINE_BYTES 2
#define LOC_LONG_VARINTS 3      /* after the line delta */
#define VARINT_BITS      6      /* a varint chunk: 6 bits of value ... */
#define VARINT_MORE      (1u << 6)   /* ... and bit 6: another chunk follows */
#define VARINT_VALUE     0x3f
#define FIRST_MINOR_LOCATIONS 11

/* A byte cursor that never passes end. */
struct cursor {
	const uint8_t *p, *end;
};

/* An unsigned varint (payload bytes have bit 7 clear); -1 if malformed. */
static int varint(struct cursor *c, uint32_t *out)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (c->p >= c->end || (*c->p & LOC_HEADER) || shift >= sizeof(v) * CHAR_BIT)
			return -1;
		b = *c->p++;
		if (shift && (uint64_t)(b & VARINT_VALUE) << shift > UINT32_MAX)
			return -1;
		v |= (uint32_t)(b & VARINT_VALUE) << shift;
		shift += VARINT_BITS;
	} while (b & VARINT_MORE);
	*out = v;
	return 0;
}

/* A signed varint: the low bit is the sign. */
static int svarint(struct cursor *c, int64_t *out)
{
	uint32_t u;

	if (varint(c, &u) < 0)
		return -1;
	*out = (u & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
	return 0;
}

/* Skips n payload bytes; -1 if they are not all there. */
static int skip(struct cursor *c, unsigned n)
{
	while (n--) {
		if (c->p >= c->end || (*c->p & LOC_HEADER))
			return -1;
		c->p++;
	}
	return 0;
}

/* One entry's payload: the line delta it carries. */
static int entry_delta(struct cursor *c, unsigned code, int64_t *delta)
{
	uint32_t ignored;
	unsigned i;

	*delta = 0;
	if (code == LOC_NONE)
		return 0;
	if (code == LOC_LONG || code == LOC_NO_COLUMNS) {
		if (svarint(c, delta) < 0)
			return -1;
		for (i = 0; code == LOC_LONG && i < LOC_LONG_VARINTS; i++)
			if (varint(c, &ignored) < 0)
				return -1;
		return 0;
	}
	if (code >= LOC_ONE_LINE0 && code <= LOC_ONE_LINE2) {
		*delta = code - LOC_ONE_LINE0;
		return skip(c, LOC_ONE_LINE_BYTES);
	}
	return skip(c, LOC_SHORT_BYTES);
}

static int line_or_none(int64_t line)
{
	return line >= 0 && line <= INT_MAX ? (int)line : -1;
}

/* 3.11+: the location table. */
static int line_locations(const uint8_t *t, size_t n, int firstlineno, uint64_t offset,
			  unsigned unit)
{
	struct cursor c = { t, t + n };
	int64_t line = firstlineno, delta;
	uint64_t start = 0, end;
	unsigned code, len;
	uint8_t head;

	while (c.p < c.end) {
		head = *c.p++;
		if (!(head & LOC_HEADER))
			return -1;
		code = (head >> LOC_CODE_SHIFT) & LOC_CODE_MASK;
		len = (head & LOC_LEN_MASK) + 1;
		if (entry_delta(&c, code, &delta) < 0)
			return -1;
		line += delta;
		if (line < INT_MIN || line > INT_MAX)
			return -1;
		end = start + (uint64_t)len * unit;
		if (offset < end)
			return code == LOC_NONE ? -1 : line_or_none(line);
		start = end;
	}
	return -1;
}

/* 3.10: (start delta, line delta) pairs. */
static int line_pairs(const uint8_t *t, size_t n, int firstlineno, uint64_t offset)
{
	int64_t line = firstlineno;
	uint64_t start = 0, end;
	int cur;
	size_t i;

	if (n % LINE10_PAIR)
		return -1;
	for (i = 0; i < n; i += LINE10_PAIR) {
		int ldelta = (int8_t)t[i + 1];

		end = start + t[i];
		cur = -1;
		if (ldelta != LINE10_NONE) {
			line += ldelta;
			cur = line_or_none(line);
		}
		if (offset < end)
			return cur;
		start = end;
	}
	return -1;
}

int ct_pyline(unsigned minor, const uint8_t *table, size_t n, int firstlineno, uint32_t offset)
{
	const struct ct_pyabi *abi = ct_pyabi_builtin(minor);

	if (!abi || !table)
		return -1;
	if (minor < FIRST_MINOR_LOCATIONS)
		return line_pairs(table, n, firstlineno, offset);
	if (!abi->code_unit_size || abi->code_unit_size == CT_PY_NONE)
		return -1;
	return line_locations(table, n, firstlineno, offset, abi->code_unit_size);
}
