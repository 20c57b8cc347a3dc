/* SPDX-License-Identifier: MIT */
/*
 * Field output for decoders: one set of calls writes either the text form
 * (key=value, nested {..}) or JSON (structured values), so every decoder
 * serves both formats with the same code.
 */
#ifndef CT_EMIT_H
#define CT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "outbuf.h"

#define EM_MAX_DEPTH 16

struct emit {
	struct ct_out *out;
	bool json;
	int depth;
	bool need_sep[EM_MAX_DEPTH];
};

void em_init(struct emit *e, struct ct_out *out, bool json);
/* A JSON object or a text argument list: em_open(e, NULL) at top level. */
void em_open(struct emit *e, const char *key);
void em_close(struct emit *e);
void em_u64(struct emit *e, const char *key, uint64_t v);
void em_i64(struct emit *e, const char *key, int64_t v);
void em_hex(struct emit *e, const char *key, uint64_t v);     /* "0x.." */
/* An address or a size of address space: 0x.. in text (as strace prints
 * them), a plain number in JSON. */
void em_addr(struct emit *e, const char *key, uint64_t v);
/* A hex value with a name: text 0x2080012f<NAME>, JSON "0x..", key_name */
void em_hex_named(struct emit *e, const char *key, uint64_t v, const char *name);
void em_str(struct emit *e, const char *key, const char *s);
void em_bool(struct emit *e, const char *key, bool v);
void em_bytes(struct emit *e, const char *key, const void *p, size_t n);
/* Writes s with JSON escaping (or as is for text). */
void em_json_string(struct ct_out *out, const char *s, size_t n);
/* Text output: n bytes of an untrusted string (comm, path), control bytes
 * and bytes >= 0x7f as \xNN, so a trace cannot forge lines or send
 * terminal escape sequences. */
void em_text(struct ct_out *out, const char *s, size_t n);

/* An enumerated value: text prints the name alone when known; JSON gives
 * the number (hex string) and key_name. */
void em_enum(struct emit *e, const char *key, uint64_t v, const char *name);
/* A string of at most max bytes, stopping at a NUL. */
void em_strn(struct emit *e, const char *key, const char *s, size_t max);
/* A list of strings: JSON array, text [..]. */
void em_str_list_begin(struct emit *e, const char *key);
void em_str_list_item(struct emit *e, const char *s, size_t n);
void em_str_list_end(struct emit *e);
/* JSON null (text: "-"). */
void em_null(struct emit *e, const char *key);
/* Nanoseconds as microseconds with three decimals, a JSON number
 * (Chrome trace-event times). */
void em_us(struct emit *e, const char *key, uint64_t ns);
#endif
