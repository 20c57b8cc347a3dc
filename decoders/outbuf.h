/* SPDX-License-Identifier: MIT */
/*
 * The printers' output buffer.  Text and JSON are built here a token at a
 * time, a few instructions each, and handed to the stdio stream in large
 * fwrite()s: stdio called per token (fputs, fputc, fprintf) was half of
 * the instructions of decoding a trace (docs/PERFORMANCE.md).
 *
 * The buffer hands its bytes on when it is full and at out_flush(); its
 * owner flushes before anything else writes to the same stream, so that
 * the stream sees the bytes in the order they were printed.
 */
#ifndef CT_OUTBUF_H
#define CT_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CT_OUT_SIZE 32768

struct ct_out {
	FILE *f;
	uint64_t flushes;   /* out_flush calls so far: a copy of buf[] taken before is stale */
	int err;            /* errno of the first write that failed, 0 none */
	size_t len;
	char buf[CT_OUT_SIZE];
};

void out_init(struct ct_out *o, FILE *f);
/* Hands what is buffered to the stream (fwrite; its errors stay on f, and
 * the first one's errno in err: ferror() alone cannot tell ENOSPC from EIO). */
void out_flush(struct ct_out *o);
/* For out_write: n bytes that do not fit in what is left of the buffer. */
void out_write_slow(struct ct_out *o, const void *p, size_t n);
/* printf, for the rare and the cold lines; the hot ones use the calls below. */
void out_printf(struct ct_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Numbers as printf's %llu, %lld, and %0*llu / %0*llx with width w (at
 * most 20 and 16: no wider numbers are printed). */
void out_u64(struct ct_out *o, uint64_t v);
void out_i64(struct ct_out *o, int64_t v);
void out_u64_pad(struct ct_out *o, uint64_t v, int w);
void out_hex_pad(struct ct_out *o, uint64_t v, int w);
/* n bytes as 2n lower-case hex digits: the raw buffers of --json. */
void out_hex_bytes(struct ct_out *o, const void *p, size_t n);

static inline void out_write(struct ct_out *o, const void *p, size_t n)
{
	if (n <= CT_OUT_SIZE - o->len) {
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	} else {
		out_write_slow(o, p, n);
	}
}

/* Room for n bytes (n <= CT_OUT_SIZE), counted in the buffer already: the
 * caller writes them at the pointer returned, before any other out_ call. */
static inline char *out_reserve(struct ct_out *o, size_t n)
{
	if (CT_OUT_SIZE - o->len < n)
		out_flush(o);
	o->len += n;
	return o->buf + o->len - n;
}

static inline void out_putc(struct ct_out *o, char c)
{
	if (o->len == CT_OUT_SIZE)
		out_flush(o);
	o->buf[o->len++] = c;
}

static inline void out_puts(struct ct_out *o, const char *s)
{
	out_write(o, s, strlen(s));
}

/* %llx: lower-case hex digits, no 0x. */
static inline void out_hex(struct ct_out *o, uint64_t v)
{
	out_hex_pad(o, v, 1);
}

#endif
