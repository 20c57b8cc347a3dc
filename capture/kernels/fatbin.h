/* SPDX-License-Identifier: MIT */
/*
 * Reads fatbins: the containers laid one after another in a file's
 * .nv_fatbin section (or handed to cuModuleLoadData), their entries, and
 * the cubins in them, unpacked where they are compressed (LZ4, zstd).
 * Pure: a buffer in, a callback per cubin out; every length and offset is
 * checked against the buffer, every loop ends with it.
 */
#ifndef CT_FATBIN_H
#define CT_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#define CT_FATBIN_ENTRY_MAX  (256u << 20)   /* an unpacked cubin larger is skipped */

struct ct_fatbin_stats {
	uint64_t containers;
	uint64_t cubins;        /* ELF entries handed to the callback */
	uint64_t ptx;           /* PTX entries (not indexed: their code is made at run time) */
	uint64_t other;         /* entries of other kinds */
	uint64_t bad;           /* entries or containers whose lengths do not fit, or
				 * that would not unpack: skipped */
	uint64_t compressed;    /* ... of which unpacked (LZ4 or zstd) */
	uint64_t unpacked_bytes;
};

/* One cubin: its bytes (valid during the call), its sm number. */
typedef void (*ct_fatbin_cubin_fn)(void *ctx, const uint8_t *elf, size_t size, uint32_t arch);

/* Walks the containers in p[0..n): bytes between containers that are not
 * a container's header are skipped 8 at a time (padding). */
void ct_fatbin_walk(const uint8_t *p, size_t n, ct_fatbin_cubin_fn fn, void *ctx,
		    struct ct_fatbin_stats *st);

#endif
