// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>

#include "outbuf.h"

void out_init(struct ct_out *o, FILE *f)
{
	o->f = f;
	o->len = 0;
}

void out_flush(struct ct_out *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

void out_write_slow(struct ct_out *o, const void *p, size_t n)
{
	out_flush(o);
	if (n >= CT_OUT_SIZE)   /* larger than the buffer: straight through */
		fwrite(p, 1, n, o->f);
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

/* The digits of v, at least w of them (zero-padded), ending at end.
 * Separate loops for 10 and 16: division by a constant is a multiply. */
static char *dec_digits(char *end, uint64_t v, int w)
{
	char *p = end;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v || end - p < w);
	return p;
}

static char *hex_digits(char *end, uint64_t v, int w)
{
	static const char digits[] = "0123456789abcdef";
	char *p = end;

	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v || end - p < w);
	return p;
}

void out_u64(struct ct_out *o, uint64_t v)
{
	out_u64_pad(o, v, 1);
}

void out_u64_pad(struct ct_out *o, uint64_t v, int w)
{
	char tmp[24], *p = dec_digits(tmp + sizeof(tmp), v, w > 20 ? 20 : w);

	out_write(o, p, (size_t)(tmp + sizeof(tmp) - p));
}

void out_hex_pad(struct ct_out *o, uint64_t v, int w)
{
	char tmp[24], *p = hex_digits(tmp + sizeof(tmp), v, w > 20 ? 20 : w);

	out_write(o, p, (size_t)(tmp + sizeof(tmp) - p));
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
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;

	while (n) {
		size_t room = (CT_OUT_SIZE - o->len) / 2, chunk = n < room ? n : room;
		char *dst = o->buf + o->len;

		if (!chunk) {
			out_flush(o);
			continue;
		}
		for (size_t i = 0; i < chunk; i++) {
			dst[2 * i] = digits[b[i] >> 4];
			dst[2 * i + 1] = digits[b[i] & 15];
		}
		o->len += 2 * chunk;
		b += chunk;
		n -= chunk;
	}
}
