// SPDX-License-Identifier: MIT
/* A host file's .nv_fatbin (hostelf.h): the file mapped, its section
 * found by libelf, its bounds checked against the file's size. */
#include <gelf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "elf_section.h"
#include "fatbin_format.h"
#include "hostelf.h"

static int find_section(Elf *e, size_t file_size, struct ct_fatbin_map *m)
{
	GElf_Shdr sh;
	size_t names;

	/* Not ELF, or no section names: -1, as apart from no such section. */
	if (elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &names))
		return -1;
	if (!ct_elf_section_named(e, FATBIN_SECTION, &sh))
		return 1;
	if (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset)
		return -1;
	m->fatbin = (const uint8_t *)m->base + sh.sh_offset;
	m->size = (size_t)sh.sh_size;
	return 0;
}

int ct_fatbin_map_fd(int fd, struct ct_fatbin_map *m)
{
	struct stat st;
	Elf *e;
	int rc;

	memset(m, 0, sizeof(*m));
	if (elf_version(EV_CURRENT) == EV_NONE || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return -1;
	m->file_size = (size_t)st.st_size;
	m->base = mmap(NULL, m->file_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -1;
	}
	e = elf_memory(m->base, m->file_size);
	rc = e ? find_section(e, m->file_size, m) : -1;
	elf_end(e);
	if (rc < 0)
		ct_fatbin_unmap(m);
	return rc;
}

void ct_fatbin_unmap(struct ct_fatbin_map *m)
{
	if (m->base)
		munmap(m->base, m->file_size);
	memset(m, 0, sizeof(*m));
}
