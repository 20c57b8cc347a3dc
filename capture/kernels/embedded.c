// SPDX-License-Identifier: MIT
/* Bare cubins inside a file's bytes (embedded.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <string.h>

#include "embedded.h"

/* v + add, or 0 where it would pass `limit` (then the image is refused). */
static uint64_t end_of(uint64_t v, uint64_t add, uint64_t limit)
{
	return add > limit || v > limit - add ? 0 : v + add;
}

/* The extent of the EM_CUDA image at p (room bytes left), 0 if it is none
 * or something in it lies past `room`. */
static uint64_t image_extent(const uint8_t *p, uint64_t room)
{
	Elf64_Ehdr eh;
	uint64_t end, shend, i;

	if (room < sizeof(eh))
		return 0;
	memcpy(&eh, p, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != EM_CUDA || eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
		return 0;
	shend = end_of(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), room);
	if (!shend)
		return 0;
	end = shend;
	if (eh.e_phnum) {
		uint64_t ph = end_of(eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize, room);

		if (!ph)
			return 0;
		end = ph > end ? ph : end;
	}
	for (i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh;
		uint64_t e;

		memcpy(&sh, p + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL)
			continue;
		if (!(e = end_of(sh.sh_offset, sh.sh_size, room)))
			return 0;
		end = e > end ? e : end;
	}
	return end;
}

size_t ct_embedded_cubins(const uint8_t *p, size_t n, ct_embedded_fn fn, void *ctx)
{
	const uint8_t *at = p, *end = p + n;
	size_t found = 0;

	while (at < end && (at = memmem(at, (size_t)(end - at), ELFMAG, SELFMAG))) {
		uint64_t len = image_extent(at, (uint64_t)(end - at));

		if (len) {
			fn(ctx, at, (size_t)len);
			found++;
			at += len;   /* an image holds no other */
		} else {
			at++;
		}
	}
	return found;
}
