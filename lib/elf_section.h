/* SPDX-License-Identifier: MIT */
/* A section of an ELF file found by its name, through libelf. */
#ifndef CT_ELF_SECTION_H
#define CT_ELF_SECTION_H

#include <gelf.h>

/* The first section of e named name with contents in the file (not
 * SHT_NOBITS), its header in *sh; NULL where there is none. */
Elf_Scn *ct_elf_section_named(Elf *e, const char *name, GElf_Shdr *sh);

#endif
