// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "emit.h"

/*
 * Numbers are formatted here rather than by fprintf: decoding prints a
 * dozen of them per call, and printf's format parsing was the largest
 * cost of -r (callgrind: ~half the instructions of a text decode).
 */
static void put_hex(FILE *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[16];
	int i = sizeof(buf);

	do {
		buf[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	fwrite(buf + i, 1, sizeof(buf) - (size_t)i, out);
}

static void put_u64(FILE *out, uint64_t v)
{
	char buf[20];
	int i = sizeof(buf);

	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(buf + i, 1, sizeof(buf) - (size_t)i, out);
}

void em_init(struct emit *e, FILE *out, bool json)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->json = json;
}

void em_json_string(FILE *out, const char *s, size_t n)
{
	size_t i;

	size_t run = 0;

	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c != '"' && c != '\\' && c >= 0x20 && c < 0x7f)
			continue;   /* written with the run it belongs to */
		fwrite(s + run, 1, i - run, out);
		run = i + 1;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else
			fprintf(out, "\\u%04x", c);
	}
	fwrite(s + run, 1, n - run, out);
	fputc('"', out);
}

void em_text(FILE *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

static void key(struct emit *e, const char *k)
{
	int d = e->depth;

	if (d > 0 && d <= EM_MAX_DEPTH && e->need_sep[d - 1])
		fputs(e->json ? "," : ", ", e->out);
	if (d > 0 && d <= EM_MAX_DEPTH)
		e->need_sep[d - 1] = true;
	if (!k)
		return;
	if (e->json) {
		em_json_string(e->out, k, strlen(k));
		fputc(':', e->out);
	} else {
		fputs(k, e->out);
		fputc('=', e->out);
	}
}

void em_open(struct emit *e, const char *k)
{
	if (e->depth > 0)
		key(e, k);
	if (e->json || e->depth > 0)
		fputc('{', e->out);
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
		fputc('}', e->out);
}

void em_u64(struct emit *e, const char *k, uint64_t v)
{
	key(e, k);
	put_u64(e->out, v);
}

void em_i64(struct emit *e, const char *k, int64_t v)
{
	key(e, k);
	fprintf(e->out, "%" PRId64, v);
}

void em_hex(struct emit *e, const char *k, uint64_t v)
{
	key(e, k);
	if (e->json)
		fputc('"', e->out);
	fputs("0x", e->out);
	put_hex(e->out, v);
	if (e->json)
		fputc('"', e->out);
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
		snprintf(nk, sizeof(nk), "%s_name", k);
		em_str(e, nk, name);
		return;
	}
	key(e, k);
	fputs("0x", e->out);
	put_hex(e->out, v);
	fputc('<', e->out);
	fputs(name, e->out);
	fputc('>', e->out);
}

void em_str(struct emit *e, const char *k, const char *s)
{
	key(e, k);
	if (e->json)
		em_json_string(e->out, s, strlen(s));
	else
		fputs(s, e->out);
}

void em_bool(struct emit *e, const char *k, bool v)
{
	key(e, k);
	fputs(v ? "true" : "false", e->out);
}

void em_bytes(struct emit *e, const char *k, const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	static const char hex[] = "0123456789abcdef";
	char buf[512];
	size_t used = 0;

	key(e, k);
	fputc('"', e->out);
	/* In chunks: this is the hot path of --json on large buffers. */
	for (i = 0; i < n; i++) {
		buf[used++] = hex[b[i] >> 4];
		buf[used++] = hex[b[i] & 15];
		if (used == sizeof(buf)) {
			fwrite(buf, 1, used, e->out);
			used = 0;
		}
	}
	fwrite(buf, 1, used, e->out);
	fputc('"', e->out);
}

void em_enum(struct emit *e, const char *k, uint64_t v, const char *name)
{
	if (e->json || !name) {
		em_hex_named(e, k, v, name);
		return;
	}
	key(e, k);
	fputs(name, e->out);
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
	fputc('[', e->out);
	if (e->depth < EM_MAX_DEPTH)
		e->need_sep[e->depth] = false;
	e->depth++;
}

void em_str_list_item(struct emit *e, const char *s, size_t n)
{
	key(e, NULL);
	if (e->json)
		em_json_string(e->out, s, n);
	else
		fprintf(e->out, "\"%.*s\"", (int)n, s);
}

void em_str_list_end(struct emit *e)
{
	if (e->depth > 0)
		e->depth--;
	fputc(']', e->out);
}

void em_null(struct emit *e, const char *k)
{
	key(e, k);
	fputs(e->json ? "null" : "-", e->out);
}

void em_us(struct emit *e, const char *k, uint64_t ns)
{
	key(e, k);
	fprintf(e->out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}
