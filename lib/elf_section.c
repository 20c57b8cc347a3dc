// SPDX-License-Identifier: MIT
#include <string.h>

#include "elf_section.h"

Elf_Scn *ct_elf_section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *s = NULL;
	size_t names;

	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &names))
		return NULL;
	while ((s = elf_nextscn(e, s))) {
		const char *n;

		if (gelf_getshdr(s, sh) && sh->sh_type != SHT_NOBITS &&
		    (n = elf_strptr(e, names, sh->sh_name)) && strcmp(n, name) == 0)
			return s;
	}
	return NULL;
}
