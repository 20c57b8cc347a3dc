/* SPDX-License-Identifier: MIT */
/* FNV-1a, 64 bits, of a run of bytes: a cheap identity of a record or a
 * file's contents (not a defence against one made to collide). */
#ifndef CT_FNV1A_H
#define CT_FNV1A_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t ct_fnv1a(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a's offset basis and prime */

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#endif
