// SPDX-License-Identifier: MIT
/*
 * Whole unwind tables kept across captures (uw_kept.h).  A file a table:
 * a header (magic with the rows' format, the row's size, the rows and
 * FDEs, an FNV-1a hash of the rows), then the rows as the kernel reads
 * them.  Read strictly, every row checked as the kernel's walk needs it:
 * a table that is not exactly what this build would make is not used
 * (the capture builds it again, and keeps the new one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_folder.h"
#include "fnv1a.h"
#include "uw_kept.h"

/* Bumped whenever the rows a build makes change (uw_rows.c, cfi_rules.c,
 * unwind_tables.h): an older capture's tables are then left unused. */
#define MAGIC "ctuwrow1"

struct header {
	char magic[8];
	uint32_t row_size;
	uint32_t pad;
	uint64_t n, fdes;
	uint64_t hash;   /* FNV-1a 64 of the rows' bytes */
};

/* A row the whole build makes: a kind it writes (never NOT_BUILT, a lazy
 * table's), an rbp rule of the three, addresses in order. */
static bool row_ok(const struct ct_uw_row *r, const struct ct_uw_row *prev)
{
	if (prev && r->addr < prev->addr)
		return false;
	if (r->kind > CT_UW_OTHER)
		return false;
	return (r->rbp & 3) <= CT_UW_RBP_LOST;
}

static int check(const struct header *h, const struct ct_uw_row *v)
{
	for (uint64_t i = 0; i < h->n; i++)
		if (!row_ok(&v[i], i ? &v[i - 1] : NULL))
			return -EINVAL;
	return ct_fnv1a(v, h->n * sizeof(*v)) == h->hash ? 0 : -EINVAL;
}

/* The header of the file open on fd, checked against its size and max. */
static int read_header(int fd, size_t max, struct header *h)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h) ||
	    memcmp(h->magic, MAGIC, sizeof(h->magic)) != 0 ||
	    h->row_size != sizeof(struct ct_uw_row) || !h->n ||
	    h->n > ((uint64_t)st.st_size - sizeof(*h)) / sizeof(struct ct_uw_row) ||
	    (uint64_t)st.st_size != sizeof(*h) + h->n * sizeof(struct ct_uw_row))
		return -EINVAL;
	return h->n > max ? -E2BIG : 0;
}

static int load_fd(int fd, size_t max, struct ct_uw_rows *out)
{
	size_t bytes;
	struct header h;
	int err;

	if ((err = read_header(fd, max, &h)))
		return err;
	bytes = h.n * sizeof(*out->v);
	out->v = malloc(bytes);
	if (!out->v)
		return -ENOMEM;
	if (pread(fd, out->v, bytes, sizeof(h)) != (ssize_t)bytes || (err = check(&h, out->v))) {
		free(out->v);
		out->v = NULL;
		return err ? err : -EINVAL;
	}
	out->n = out->cap = h.n;
	out->fdes = h.fdes;
	return 0;
}

struct loading {
	size_t max;
	struct ct_uw_rows *out;
};

static int load_file(FILE *fp, void *ctx)
{
	struct loading *l = ctx;

	return load_fd(fileno(fp), l->max, l->out);
}

int ct_uw_kept_load(const char *dir, const char *id, size_t max, struct ct_uw_rows *out)
{
	struct loading l = { max, out };

	memset(out, 0, sizeof(*out));
	return ct_cache_read(dir, id, CT_UW_KEPT_SUFFIX, load_file, &l);
}

static bool write_rows(FILE *fp, const void *ctx)
{
	const struct ct_uw_rows *r = ctx;
	struct header h = { .row_size = sizeof(*r->v), .n = r->n, .fdes = r->fdes,
			    .hash = ct_fnv1a(r->v, r->n * sizeof(*r->v)) };

	memcpy(h.magic, MAGIC, sizeof(h.magic));
	return fwrite(&h, sizeof(h), 1, fp) == 1 &&
	       fwrite(r->v, sizeof(*r->v), r->n, fp) == r->n;
}

int ct_uw_kept_save(const char *dir, const char *id, const struct ct_uw_rows *r)
{
	if (!r->n)
		return -EINVAL;
	return ct_cache_write(dir, id, CT_UW_KEPT_SUFFIX, write_rows, r);
}
