// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "outbuf.h"

static const uint64_t powers_of_10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

void out_init(struct ct_out *o, FILE *f)
{
	o->f = f;
	o->flushes = 0;
	o->len = 0;
	o->err = 0;
}

static void put(struct ct_out *o, const void *p, size_t n)
{
	errno = 0;
	if (fwrite(p, 1, n, o->f) != n && !o->err)
		o->err = errno ? errno : EIO;
}

void out_flush(struct ct_out *o)
{
	if (o->len)
		put(o, o->buf, o->len);
	o->len = 0;
	o->flushes++;
}

void out_write_slow(struct ct_out *o, const void *p, size_t n)
{
	out_flush(o);
	if (n >= CT_OUT_SIZE)   /* larger than the buffer: straight through */
		put(o, p, n);
	else
		out_write(o, p, n);
}

void out_printf(struct ct_out *o, const char *fmt, ...)
{
	va_list ap, again;
	size_t room = CT_OUT_SIZE - o->len;
	char *big;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(o->buf + o->len, room, fmt, ap);
	if (n >= 0 && (size_t)n < room) {
		o->len += (size_t)n;
	} else if (n >= 0 && n < CT_OUT_SIZE) {   /* fits once the buffer is emptied */
		out_flush(o);
		o->len = (size_t)vsnprintf(o->buf, CT_OUT_SIZE, fmt, again);
	} else if (n >= 0 && vasprintf(&big, fmt, again) == n) {
		out_write_slow(o, big, (size_t)n);
		free(big);
	}
	va_end(again);
	va_end(ap);
}

/* How many digits v has in base 10 (bits * log10(2), then one compare),
 * and in base 16; at least 1. */
static int dec_len(uint64_t v)
{
	int n = ((64 - __builtin_clzll(v | 1)) * 1233) >> 12;

	return v >= powers_of_10[n] ? n + 1 : (n ? n : 1);
}

static int hex_len(uint64_t v)
{
	return v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
}

void out_u64(struct ct_out *o, uint64_t v)
{
	out_u64_pad(o, v, 1);
}

/* Two digits at a time, from a table: half the divisions. */
static const char dec_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void out_u64_pad(struct ct_out *o, uint64_t v, int w)
{
	int n = dec_len(v);
	char *p, *start;

	if (n < w)
		n = w > 20 ? 20 : w;
	start = out_reserve(o, (size_t)n);   /* digits go in directly, backwards */
	p = start + n;
	for (; v >= 100; v /= 100) {
		p -= 2;
		memcpy(p, dec_pairs + 2 * (v % 100), 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, dec_pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	while (p > start)
		*--p = '0';
}

/* Each byte's two hex digits: one 2-byte copy per byte of a number or buffer. */
static const char hex_pairs[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

void out_hex_pad(struct ct_out *o, uint64_t v, int w)
{
	static const char digits[] = "0123456789abcdef";
	int n = hex_len(v);
	char *p;

	if (n < w)
		n = w > 16 ? 16 : w;
	p = out_reserve(o, (size_t)n) + n;   /* digits go in directly, backwards */
	for (; n >= 2; n -= 2, v >>= 8) {
		p -= 2;
		memcpy(p, hex_pairs + 2 * (v & 0xff), 2);
	}
	if (n)
		*--p = digits[v & 15];
}

void out_i64(struct ct_out *o, int64_t v)
{
	if (v < 0) {
		out_putc(o, '-');
		out_u64(o, 0 - (uint64_t)v);   /* INT64_MIN too */
		return;
	}
	out_u64(o, (uint64_t)v);
}

void out_hex_bytes(struct ct_out *o, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {
		size_t room = (CT_OUT_SIZE - o->len) / 2, chunk = n < room ? n : room;
		char *dst = o->buf + o->len;

		if (!chunk) {
			out_flush(o);
			continue;
		}
		size_t i = 0;

		for (; i + 4 <= chunk; i += 4) {   /* four a turn: half the loop's cost */
			memcpy(dst + 2 * i, hex_pairs + 2 * (size_t)b[i], 2);
			memcpy(dst + 2 * i + 2, hex_pairs + 2 * (size_t)b[i + 1], 2);
			memcpy(dst + 2 * i + 4, hex_pairs + 2 * (size_t)b[i + 2], 2);
			memcpy(dst + 2 * i + 6, hex_pairs + 2 * (size_t)b[i + 3], 2);
		}
		for (; i < chunk; i++)
			memcpy(dst + 2 * i, hex_pairs + 2 * (size_t)b[i], 2);
		o->len += 2 * chunk;
		b += chunk;
		n -= chunk;
	}
}
