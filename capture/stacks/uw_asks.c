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

static int parse(FILE *fp, void *ctx)
{
	struct ct_uw_asks *out = ctx;
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
	int err;

	memset(out, 0, sizeof(*out));
	err = ct_cache_read(dir, id, CT_UW_ASKS_SUFFIX, parse, out);
	if (err)
		ct_uw_asks_free(out);
	return err;
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

int ct_uw_asks_save(const char *dir, const char *id, const struct ct_uw_asks *a)
{
	return ct_cache_write(dir, id, CT_UW_ASKS_SUFFIX, write_asks, a);
}

void ct_uw_asks_free(struct ct_uw_asks *a)
{
	free(a->addrs);
	memset(a, 0, sizeof(*a));
}
