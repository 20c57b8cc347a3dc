// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <string.h>

#include "emit.h"
#include "utf8.h"

/*
 * Everything is written through outbuf.h, numbers included: decoding
 * prints a dozen of them per call, and stdio (fprintf's format parsing,
 * then a locked fputs/fputc per token) was most of the cost of -r.
 */

void em_init(struct emit *e, struct ct_out *out, bool json)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->json = json;
}

/* Bytes written as they are: in JSON strings (printable ASCII but '"' and
 * '\\'), and in text (printable ASCII).  A table: one look per byte. */
static const bool json_plain[256] = {   /* 0x20-0x7e less '"' (0x22), '\\' (0x5c) */
	[0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true,
};
static const bool text_plain[256] = { [0x20 ... 0x7e] = true };

/* How many of the n bytes at s are plain by the table. */
static size_t plain_run(const bool *plain, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && plain[(unsigned char)s[i]])
		i++;
	return i;
}

void em_json_string(struct ct_out *out, const char *s, size_t n)
{
	size_t run = plain_run(json_plain, s, n);
	char *p;

	if (run == n && n <= CT_OUT_SIZE - 2) {   /* most are: quoted in one piece */
		p = out_reserve(out, n + 2);
		p[0] = '"';
		memcpy(p + 1, s, n);
		p[n + 1] = '"';
		return;
	}
	out_putc(out, '"');
	for (; (run = plain_run(json_plain, s, n)) < n; s += run + 1, n -= run + 1) {
		unsigned char c = (unsigned char)s[run];

		size_t u = ct_utf8_char_len(s + run, n - run);

		out_write(out, s, run);
		if (u > 1) {   /* a valid multibyte character goes through as it is */
			out_write(out, s + run, u);
			run += u - 1;
		} else if (c == '"' || c == '\\') {
			out_putc(out, '\\');
			out_putc(out, (char)c);
		} else {
			out_write(out, "\\u00", 4);
			out_hex_pad(out, c, 2);
		}
	}
	out_write(out, s, n);
	out_putc(out, '"');
}

void em_text(struct ct_out *out, const char *s, size_t n)
{
	size_t run;

	for (; (run = plain_run(text_plain, s, n)) < n; s += run + 1, n -= run + 1) {
		out_write(out, s, run);
		out_write(out, "\\x", 2);
		out_hex_pad(out, (unsigned char)s[run], 2);
	}
	out_write(out, s, n);
}

/* A JSON key and its ':'.  Most are plain (field names): quoted in one
 * piece, measured by one scan that stops at the NUL (which is not plain). */
static void json_key(struct ct_out *out, const char *k)
{
	size_t n = 0;
	char *p;

	while (json_plain[(unsigned char)k[n]])
		n++;

	if (k[n] == 0 && n <= CT_OUT_SIZE - 3) {
		p = out_reserve(out, n + 3);
		p[0] = '"';
		memcpy(p + 1, k, n);
		memcpy(p + n + 1, "\":", 2);
		return;
	}
	em_json_string(out, k, strlen(k));
	out_putc(out, ':');
}

static void key(struct emit *e, const char *k)
{
	int d = e->depth;

	if (d > 0 && d <= EM_MAX_DEPTH) {
		if (e->need_sep[d - 1] && e->json)
			out_putc(e->out, ',');
		else if (e->need_sep[d - 1])
			out_write(e->out, ", ", 2);
		e->need_sep[d - 1] = true;
	}
	if (!k)
		return;
	if (e->json) {
		json_key(e->out, k);
	} else {
		out_puts(e->out, k);
		out_putc(e->out, '=');
	}
}

void em_open(struct emit *e, const char *k)
{
	if (e->depth > 0)
		key(e, k);
	if (e->json || e->depth > 0)
		out_putc(e->out, '{');
	if (e->depth < EM_MAX_DEPTH)
		e->need_sep[e->depth] = false;
	e->depth++;
}

void em_close(struct emit *e)
{
	if (e->depth <= 0)
		return;
	e->depth--;
	if (e->json || e->depth > 0)
		out_putc(e->out, '}');
}

void em_u64(struct emit *e, const char *k, uint64_t v)
{
	key(e, k);
	out_u64(e->out, v);
}

void em_i64(struct emit *e, const char *k, int64_t v)
{
	key(e, k);
	out_i64(e->out, v);
}

void em_hex(struct emit *e, const char *k, uint64_t v)
{
	key(e, k);
	if (e->json)
		out_write(e->out, "\"0x", 3);
	else
		out_write(e->out, "0x", 2);
	out_hex(e->out, v);
	if (e->json)
		out_putc(e->out, '"');
}

void em_addr(struct emit *e, const char *k, uint64_t v)
{
	if (e->json) {
		em_u64(e, k, v);
		return;
	}
	key(e, k);
	out_write(e->out, "0x", 2);
	out_hex(e->out, v);
}

/* k + "_name" in nk, cut to size as snprintf would cut it. */
static const char *name_key(char *nk, size_t size, const char *k)
{
	size_t n = strnlen(k, size - 1), m = size - 1 - n < 5 ? size - 1 - n : 5;

	memcpy(nk, k, n);
	memcpy(nk + n, "_name", m);
	nk[n + m] = 0;
	return nk;
}

void em_hex_named(struct emit *e, const char *k, uint64_t v, const char *name)
{
	char nk[128];

	if (!name) {
		em_hex(e, k, v);
		return;
	}
	if (e->json) {
		em_hex(e, k, v);
		em_str(e, name_key(nk, sizeof(nk), k), name);
		return;
	}
	key(e, k);
	out_write(e->out, "0x", 2);
	out_hex(e->out, v);
	out_putc(e->out, '<');
	out_puts(e->out, name);
	out_putc(e->out, '>');
}

void em_str(struct emit *e, const char *k, const char *s)
{
	key(e, k);
	if (e->json)
		em_json_string(e->out, s, strlen(s));
	else
		out_puts(e->out, s);
}

void em_bool(struct emit *e, const char *k, bool v)
{
	key(e, k);
	out_puts(e->out, v ? "true" : "false");
}

void em_bytes(struct emit *e, const char *k, const void *p, size_t n)
{
	key(e, k);
	out_putc(e->out, '"');
	out_hex_bytes(e->out, p, n);
	out_putc(e->out, '"');
}

void em_enum(struct emit *e, const char *k, uint64_t v, const char *name)
{
	if (e->json || !name) {
		em_hex_named(e, k, v, name);
		return;
	}
	key(e, k);
	out_puts(e->out, name);
}

void em_strn(struct emit *e, const char *k, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	key(e, k);
	if (e->json)
		em_json_string(e->out, s, n);
	else
		em_text(e->out, s, n);
}

/* Lists reuse the separator state of one extra depth level. */
void em_str_list_begin(struct emit *e, const char *k)
{
	key(e, k);
	out_putc(e->out, '[');
	if (e->depth < EM_MAX_DEPTH)
		e->need_sep[e->depth] = false;
	e->depth++;
}

void em_str_list_item(struct emit *e, const char *s, size_t n)
{
	key(e, NULL);
	if (e->json)
		em_json_string(e->out, s, n);
	else {   /* as printf's "%.*s": up to a NUL */
		out_putc(e->out, '"');
		out_write(e->out, s, strnlen(s, n));
		out_putc(e->out, '"');
	}
}

void em_str_list_end(struct emit *e)
{
	if (e->depth > 0)
		e->depth--;
	out_putc(e->out, ']');
}

void em_null(struct emit *e, const char *k)
{
	key(e, k);
	out_puts(e->out, e->json ? "null" : "-");
}

void em_us(struct emit *e, const char *k, uint64_t ns)
{
	key(e, k);
	out_u64(e->out, ns / 1000);
	out_putc(e->out, '.');
	out_u64_pad(e->out, ns % 1000, 3);
}
