// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <string.h>

#include "emit.h"

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

void em_json_string(struct ct_out *out, const char *s, size_t n)
{
	size_t i, run = 0;

	out_putc(out, '"');
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c != '"' && c != '\\' && c >= 0x20 && c < 0x7f)
			continue;   /* written with the run it belongs to */
		out_write(out, s + run, i - run);
		run = i + 1;
		if (c == '"' || c == '\\') {
			out_putc(out, '\\');
			out_putc(out, (char)c);
		} else {
			out_write(out, "\\u00", 4);
			out_hex_pad(out, c, 2);
		}
	}
	out_write(out, s + run, n - run);
	out_putc(out, '"');
}

void em_text(struct ct_out *out, const char *s, size_t n)
{
	size_t i, run = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f)
			continue;   /* written with the run it belongs to */
		out_write(out, s + run, i - run);
		run = i + 1;
		out_write(out, "\\x", 2);
		out_hex_pad(out, c, 2);
	}
	out_write(out, s + run, n - run);
}

static void key(struct emit *e, const char *k)
{
	int d = e->depth;

	if (d > 0 && d <= EM_MAX_DEPTH) {
		if (e->need_sep[d - 1])
			out_write(e->out, ", ", e->json ? 1 : 2);
		e->need_sep[d - 1] = true;
	}
	if (!k)
		return;
	if (e->json) {
		em_json_string(e->out, k, strlen(k));
		out_putc(e->out, ':');
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
