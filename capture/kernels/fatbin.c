// SPDX-License-Identifier: MIT
/*
 * Fatbin containers and entries (fatbin.h; the layout: fatbin_format.h).
 * An entry's payload is at entry + header_size, padded_size long; when
 * compressed, compressed_size bytes of it unpack to uncompressed_size.
 */
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "fatbin.h"
#include "fatbin_format.h"

/* The payload of entry e (at most room bytes of it are there), unpacked
 * into *buf when it is compressed.  NULL if it cannot be had. */
static const uint8_t *payload(const struct fatbin_entry *e, const uint8_t *data, uint64_t room,
			      uint8_t **buf, size_t *size)
{
	uint64_t in = e->compressed_size ? e->compressed_size : e->padded_size;
	uint64_t out = e->uncompressed_size;

	if (in > room)
		return NULL;
	if (!(e->flags & (FATBIN_FLAG_LZ4 | FATBIN_FLAG_ZSTD))) {
		*size = (size_t)in;
		return data;
	}
	if (!e->compressed_size || !out || out > CT_FATBIN_ENTRY_MAX || in > INT32_MAX)
		return NULL;
	*buf = malloc((size_t)out);
	if (!*buf)
		return NULL;
	if (e->flags & FATBIN_FLAG_LZ4) {
		int got = LZ4_decompress_safe((const char *)data, (char *)*buf, (int)in, (int)out);

		if (got < 0 || (uint64_t)got != out)
			return NULL;
	} else {
		size_t got = ZSTD_decompress(*buf, (size_t)out, data, (size_t)in);

		if (ZSTD_isError(got) || got != out)
			return NULL;
	}
	*size = (size_t)out;
	return *buf;
}

static void one_entry(const struct fatbin_entry *e, const uint8_t *data, uint64_t room,
		      ct_fatbin_cubin_fn fn, void *ctx, struct ct_fatbin_stats *st)
{
	uint8_t *buf = NULL;
	const uint8_t *elf;
	size_t size = 0;

	if (e->kind == FATBIN_KIND_PTX) {
		st->ptx++;
		return;
	}
	if (e->kind != FATBIN_KIND_ELF) {
		st->other++;
		return;
	}
	elf = payload(e, data, room, &buf, &size);
	if (!elf) {
		st->bad++;
	} else {
		st->cubins++;
		if (buf) {
			st->compressed++;
			st->unpacked_bytes += size;
		}
		fn(ctx, elf, size, e->arch);
	}
	free(buf);
}

/* The entries of one container, p[0..n) after its header. */
static void entries(const uint8_t *p, uint64_t n, ct_fatbin_cubin_fn fn, void *ctx,
		    struct ct_fatbin_stats *st)
{
	uint64_t at = 0;

	while (n - at >= sizeof(struct fatbin_entry)) {
		struct fatbin_entry e;
		uint64_t room;

		memcpy(&e, p + at, sizeof(e));
		if (e.header_size < sizeof(e) || e.header_size > n - at) {
			st->bad++;
			return;
		}
		room = n - at - e.header_size;
		if (e.padded_size > room) {
			st->bad++;
			return;
		}
		one_entry(&e, p + at + e.header_size, e.padded_size, fn, ctx, st);
		at += e.header_size + e.padded_size;   /* both checked: at <= n */
	}
}

void ct_fatbin_walk(const uint8_t *p, size_t n, ct_fatbin_cubin_fn fn, void *ctx,
		    struct ct_fatbin_stats *st)
{
	size_t at = 0;

	while (n - at >= sizeof(struct fatbin_container)) {
		struct fatbin_container c;

		memcpy(&c, p + at, sizeof(c));
		if (c.magic != FATBIN_CONTAINER_MAGIC) {
			at += 8;   /* padding between containers */
			continue;
		}
		if (c.header_size < sizeof(c) || c.header_size > n - at ||
		    c.fat_size > n - at - c.header_size) {
			st->bad++;
			at += 8;
			continue;
		}
		st->containers++;
		entries(p + at + c.header_size, c.fat_size, fn, ctx, st);
		at += c.header_size + (size_t)c.fat_size;
		at = (at + 7) & ~(size_t)7;
		if (at > n)
			break;
	}
}
