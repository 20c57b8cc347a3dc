// SPDX-License-Identifier: MIT
/*
 * The unwind tables' asks kept across captures (uw_asks.h).  A text file
 * a file: "cudatrace-uw-asks 1", then "whole", or "lazy N" and N ELF
 * addresses in hex, a line each.  Read strictly: a file cut short or of
 * another kind is not used (a capture then builds as its stacks ask).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_folder.h"
#include "mkdir_p.h"
#include "replace_file.h"
#include "uw_asks.h"

#define MAGIC "cudatrace-uw-asks 1\n"

/* The addresses after "lazy N", N of them exactly. */
static int read_addrs(FILE *fp, size_t n, struct ct_uw_asks *out)
{
	char line[64], *end;

	out->addrs = malloc((n ? n : 1) * sizeof(*out->addrs));
	if (!out->addrs)
		return -ENOMEM;
	for (out->n = 0; out->n < n; out->n++) {
		if (!fgets(line, sizeof(line), fp) || !strchr(line, '\n'))
			return -EINVAL;
		errno = 0;
		out->addrs[out->n] = strtoull(line, &end, 16);
		if (errno || end == line || *end != '\n')
			return -EINVAL;
	}
	return fgetc(fp) == EOF ? 0 : -EINVAL;
}

static int parse(FILE *fp, struct ct_uw_asks *out)
{
	char line[64], *end;
	size_t n;

	if (!fgets(line, sizeof(line), fp) || strcmp(line, MAGIC) != 0 ||
	    !fgets(line, sizeof(line), fp))
		return -EINVAL;
	if (strcmp(line, "whole\n") == 0) {
		out->whole = true;
		return fgetc(fp) == EOF ? 0 : -EINVAL;
	}
	if (strncmp(line, "lazy ", 5) != 0)
		return -EINVAL;
	errno = 0;
	n = strtoull(line + 5, &end, 10);
	if (errno || end == line + 5 || *end != '\n' || n > CT_UW_ASKS_MAX)
		return -EINVAL;
	return read_addrs(fp, n, out);
}

int ct_uw_asks_load(const char *dir, const char *id, struct ct_uw_asks *out)
{
	char path[4096];
	FILE *fp;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = ct_cache_path(path, sizeof(path), dir, id, CT_UW_ASKS_SUFFIX)))
		return err;
	if (!(fp = fopen(path, "re")))
		return -errno;
	err = parse(fp, out);
	fclose(fp);
	if (err) {
		ct_uw_asks_free(out);
		return err;
	}
	ct_cache_touch(path);   /* used now: the folder's bound removes it last */
	return 0;
}

static bool write_asks(FILE *fp, const void *ctx)
{
	const struct ct_uw_asks *a = ctx;

	fputs(MAGIC, fp);
	if (a->whole)
		fputs("whole\n", fp);
	else
		fprintf(fp, "lazy %zu\n", a->n);
	for (size_t i = 0; !a->whole && i < a->n; i++)
		fprintf(fp, "%" PRIx64 "\n", a->addrs[i]);
	return !ferror(fp);
}

/* Written whole or not at all: a capture reading it at the same time
 * sees the old or the new. */
int ct_uw_asks_save(const char *dir, const char *id, const struct ct_uw_asks *a)
{
	char path[4096];
	int err;

	if ((err = ct_cache_path(path, sizeof(path), dir, id, CT_UW_ASKS_SUFFIX)))
		return err;
	if (!ct_mkdir_p(dir))
		return -errno;
	return ct_replace_file(path, write_asks, a);
}

void ct_uw_asks_free(struct ct_uw_asks *a)
{
	free(a->addrs);
	memset(a, 0, sizeof(*a));
}
