/* SPDX-License-Identifier: MIT */
/*
 * The .nv_fatbin section of a host ELF file (an executable or a library
 * a process maps), mapped read-only with the whole file.
 */
#ifndef CT_HOSTELF_H
#define CT_HOSTELF_H

#include <stddef.h>
#include <stdint.h>

struct ct_fatbin_map {
	void *base;            /* the whole file, mapped; NULL if none */
	size_t file_size;
	const uint8_t *fatbin; /* its .nv_fatbin section, inside base */
	size_t size;
};

/* 0 and m filled; 1 if the file has no .nv_fatbin (the file mapped, fatbin
 * NULL: it may hold bare cubins, embedded.h); -1 if it is not an ELF file
 * that can be read (nothing mapped).  ct_fatbin_unmap after 0 or 1. */
int ct_fatbin_map_fd(int fd, struct ct_fatbin_map *m);
void ct_fatbin_unmap(struct ct_fatbin_map *m);

#endif
