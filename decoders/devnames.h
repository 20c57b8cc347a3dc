/* SPDX-License-Identifier: MIT */
/*
 * The paths of traced files, from the trace header (META device=) and
 * CT_REC_FDPATH records: a record names its file by (rdev, inode), the
 * decoder prints "/dev/nvidia0".
 */
#ifndef CT_DEVNAMES_H
#define CT_DEVNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_devname {
	uint32_t kdev;
	bool regfile;
	uint64_t ino;
	char *path;
	bool has_minor;   /* path reads as "/dev/nvidia%d" (sscanf's reading) ... */
	int minor;        /* ... and this is the %d: the GPU's device minor */
};

struct ct_devnames {
	struct ct_devname *v;
	size_t n, cap;
};

/* Adds a path (len bytes, need not be NUL-terminated); later ones win. */
void ct_devnames_add(struct ct_devnames *t, uint32_t kdev, bool regfile, uint64_t ino,
		     const char *path, size_t len);
/* The entry of a traced file, NULL if unknown; char devices match on rdev alone. */
const struct ct_devname *ct_devnames_entry(const struct ct_devnames *t, uint32_t kdev,
					   bool regfile, uint64_t ino);
/* Its path, NULL if unknown. */
const char *ct_devnames_find(const struct ct_devnames *t, uint32_t kdev, bool regfile,
			     uint64_t ino);
void ct_devnames_free(struct ct_devnames *t);

#endif
