// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_section.h"
#include "pyelf.h"

/* Py_Version and PY_VERSION_HEX: major in bits 31:24, minor in 23:16. */
#define HEX_MAJOR(v) ((v) >> 24)
#define HEX_MINOR(v) (((v) >> 16) & 0xff)

bool ct_pyelf_candidate(const char *path)
{
	const char *base = strrchr(path, '/');

	return strstr(base ? base + 1 : path, "python") != NULL;
}

struct wanted {
	GElf_Sym runtime, version;
	bool has_runtime, has_version;
	uint64_t code_type, str_type, bytes_type, code_counter;
};

static void scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct wanted *w)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; d && i < n; i++) {
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (!w->has_runtime && strcmp(name, "_PyRuntime") == 0) {
			w->runtime = sym;
			w->has_runtime = true;
		} else if (!w->has_version && strcmp(name, "Py_Version") == 0) {
			w->version = sym;
			w->has_version = true;
		} else if (strcmp(name, "PyCode_Type") == 0) {
			w->code_type = sym.st_value;
		} else if (strcmp(name, "PyUnicode_Type") == 0) {
			w->str_type = sym.st_value;
		} else if (strcmp(name, "PyBytes_Type") == 0) {
			w->bytes_type = sym.st_value;
		} else if (strcmp(name, "_Py_next_func_version") == 0) {
			w->code_counter = sym.st_value;
		}
	}
}

/* Up to want bytes of initialised data at ELF address addr, from the
 * section that holds it; returns the bytes copied (0: none). */
static size_t read_at(Elf *elf, uint64_t addr, void *out, size_t want)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		uint64_t off, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		off = addr - sh.sh_addr;
		if (!d || !d->d_buf || off >= d->d_size)
			return 0;
		n = d->d_size - off < want ? d->d_size - off : want;
		memcpy(out, (const char *)d->d_buf + off, n);
		return n;
	}
	return 0;
}

/* "python3.10", "libpython3.10.so.1.0", "python3.10d": 3.minor from the name. */
static unsigned minor_from_name(const char *path)
{
	const char *base = strrchr(path, '/'), *p;
	unsigned minor;

	p = strstr(base ? base + 1 : path, "python");
	return p && sscanf(p, "python3.%u", &minor) == 1 ? minor : 0;
}

/* The file's .data section, where it has one with contents. */
static void find_data(Elf *elf, struct ct_pyelf *out)
{
	GElf_Shdr sh;

	out->data_addr = out->data_off = out->data_size = 0;
	if (!ct_elf_section_named(elf, ".data", &sh))
		return;
	out->data_addr = sh.sh_addr;
	out->data_off = sh.sh_offset;
	out->data_size = sh.sh_size;
}

int ct_pyelf_find(int fd, const char *path, struct ct_pyelf *out)
{
	struct wanted w = {};
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint32_t hex = 0;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -1;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB))
			scan_symtab(elf, scn, &sh, &w);
	if (w.has_version && read_at(elf, w.version.st_value, &hex, 4) == 4 && HEX_MAJOR(hex) == 3)
		out->minor = HEX_MINOR(hex);
	else
		out->minor = minor_from_name(path);
	out->runtime = w.runtime.st_value;
	out->code_type = w.code_type;
	out->str_type = w.str_type;
	out->bytes_type = w.bytes_type;
	out->code_counter = w.code_counter;
	find_data(elf, out);
	out->head_len = w.has_runtime ? (uint32_t)read_at(elf, out->runtime, out->head,
							   sizeof(out->head)) : 0;
	elf_end(elf);
	return w.has_runtime && out->minor ? 0 : -1;
}
