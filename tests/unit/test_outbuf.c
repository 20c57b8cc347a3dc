// SPDX-License-Identifier: MIT
/*
 * decoders/outbuf.c: the printers' output buffer writes what printf
 * would (numbers, zero-padded widths, %s of any length) and hands every
 * byte to the stream, in order, whatever the sizes written.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "outbuf.h"

static struct ct_out o;   /* 32 KiB: not on the stack */

/* What the buffer holds now, as a string (and empties it). */
static const char *held(void)
{
	static char s[64];

	snprintf(s, sizeof(s), "%.*s", (int)o.len, o.buf);
	o.len = 0;
	return s;
}

static int check_numbers(uint64_t v)
{
	char want[64];
	int bad = 0;

	for (int w = 1; w <= 8; w++) {
		out_u64_pad(&o, v, w);
		snprintf(want, sizeof(want), "%0*" PRIu64, w, v);
		bad += strcmp(held(), want) != 0;
		out_hex_pad(&o, v, w);
		snprintf(want, sizeof(want), "%0*" PRIx64, w, v);
		bad += strcmp(held(), want) != 0;
	}
	out_i64(&o, (int64_t)v);
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
	bad += strcmp(held(), want) != 0;
	return bad;
}

/* Every power of 2 and of 10, and its neighbours: where digit counts change. */
static void test_numbers(void)
{
	uint64_t p = 1;
	int bad = 0;

	for (int b = 0; b < 64; b++)
		for (int d = -1; d <= 1; d++)
			bad += check_numbers((1ull << b) + (uint64_t)d);
	for (int k = 0; k < 20; k++, p *= 10)
		for (int d = -1; d <= 1; d++)
			bad += check_numbers(p + (uint64_t)d);
	for (uint64_t v = 0; v < 100000; v++)
		bad += check_numbers(v);
	bad += check_numbers(UINT64_MAX) + check_numbers((uint64_t)INT64_MIN);
	ok(!bad, "u64, hex, i64 and zero-padded widths print as printf does (%d differ)", bad);
}

static void test_hex_bytes(void)
{
	unsigned char b[256];
	char want[513];

	for (int i = 0; i < 256; i++) {
		b[i] = (unsigned char)(255 - i);
		snprintf(want + 2 * i, 3, "%02x", b[i]);
	}
	for (size_t n = 0; n <= sizeof(b); n += 1 + n / 8) {
		out_hex_bytes(&o, b, n);
		if (o.len != 2 * n || memcmp(o.buf, want, 2 * n) != 0)
			break;
		o.len = 0;
	}
	ok(o.len == 0, "bytes as hex, any length");
	o.len = 0;
}

/* Not inlined: gcc's -Warray-bounds would see a large constant n reach
 * out_write's copy into the buffer, on the branch that n never takes. */
__attribute__((noinline)) static void write_n(const char *p, size_t n)
{
	out_write(&o, p, n);
}

/* Writes that cross the buffer's end, and larger than it, reach the stream
 * whole and in order. */
static void test_spill(void)
{
	size_t big = 3 * CT_OUT_SIZE + 5, len = 0, want_len = 0;
	char *text = malloc(big), *got = NULL, *want = malloc(2 * big + 100);
	FILE *f = open_memstream(&got, &len);

	for (size_t i = 0; i < big; i++)
		text[i] = (char)('a' + i % 26);
	out_init(&o, f);
	for (int round = 0; round < 3; round++) {
		write_n(text, CT_OUT_SIZE - 7);
		out_printf(&o, "<%d:%s>", round, "x");
		write_n(text, big);
		out_putc(&o, '\n');
		memcpy(want + want_len, text, CT_OUT_SIZE - 7);
		want_len += CT_OUT_SIZE - 7;
		want_len += (size_t)sprintf(want + want_len, "<%d:%s>", round, "x");
		memcpy(want + want_len, text, big);
		want_len += big;
		want[want_len++] = '\n';
		want = realloc(want, want_len + 2 * big + 100);
	}
	out_flush(&o);
	fclose(f);
	ok(len == want_len && memcmp(got, want, len) == 0,
	   "writes across and beyond the buffer reach the stream whole, in order (%zu bytes)",
	   len);
	free(text);
	free(want);
	free(got);
}

/* out_printf of more than the buffer holds. */
static void test_printf_long(void)
{
	size_t n = CT_OUT_SIZE + 100, len = 0;
	char *s = malloc(n + 1), *got = NULL;
	FILE *f = open_memstream(&got, &len);

	memset(s, 'q', n);
	s[n] = 0;
	out_init(&o, f);
	out_putc(&o, '[');
	out_printf(&o, "%s]", s);
	out_flush(&o);
	fclose(f);
	ok(len == n + 2 && got[0] == '[' && got[n + 1] == ']' && got[n] == 'q',
	   "out_printf longer than the buffer");
	free(s);
	free(got);
}

int main(void)
{
	out_init(&o, stdout);
	test_numbers();
	test_hex_bytes();
	test_spill();
	test_printf_long();
	return tap_done();
}
