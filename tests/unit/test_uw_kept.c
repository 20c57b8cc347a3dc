// SPDX-License-Identifier: MIT
/* Whole unwind tables kept across captures (capture/stacks/uw_kept.c):
 * kept and read back row for row, and every file that is not exactly a
 * table this build makes left unused: another format, cut short or
 * longer, rows out of order or of a kind or rbp rule the whole build never
 * writes (each with its hash made right, so that the row check is what
 * refuses it), a hash that does not match, more rows than the room. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "uw_kept.h"

static char dir[] = "/tmp/ct-uwkept-XXXXXX";

/* The file's header as uw_kept.c writes it. */
struct header {
	char magic[8];
	uint32_t row_size, pad;
	uint64_t n, fdes, hash;
};

static uint64_t fnv(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static struct ct_uw_row rows[] = {
	{ .addr = 0x1000, .cfa_off = 8, .kind = CT_UW_CFA_RSP, .rbp = CT_UW_RBP_SAME },
	{ .addr = 0x1004, .cfa_off = 16, .kind = CT_UW_CFA_RBP, .rbp = CT_UW_RBP(CT_UW_RBP_SAVED, -16) },
	{ .addr = 0x1040, .kind = CT_UW_NO_FDE },
	{ .addr = 0x2000, .kind = CT_UW_OTHER, .rbp = CT_UW_RBP_LOST },
	{ .addr = 0x2010, .kind = CT_UW_OUTERMOST },
};
#define NROWS (sizeof(rows) / sizeof(*rows))

/* Writes a table file for id: header h (its hash made from v unless
 * keep_hash), then the n rows of v, then extra bytes. */
static void put(const char *id, struct header h, const struct ct_uw_row *v, size_t n,
		size_t extra, int keep_hash)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s%s", dir, id, CT_UW_KEPT_SUFFIX);
	if (!keep_hash)
		h.hash = fnv(v, n * sizeof(*v));
	fp = fopen(path, "w");
	if (!fp)
		return;
	fwrite(&h, sizeof(h), 1, fp);
	fwrite(v, sizeof(*v), n, fp);
	for (size_t i = 0; i < extra; i++)
		fputc(0, fp);
	fclose(fp);
}

static struct header good_header(size_t n)
{
	struct header h = { .row_size = sizeof(struct ct_uw_row), .n = n, .fdes = 2 };

	memcpy(h.magic, "ctuwrow1", 8);
	return h;
}

static void round_trip(void)
{
	struct ct_uw_rows r = { .v = rows, .n = NROWS, .fdes = 2 }, b;

	ok(ct_uw_kept_save(dir, "lib-1", &r) == 0, "a whole table kept");
	ok(ct_uw_kept_load(dir, "lib-1", 100, &b) == 0 && b.n == NROWS && b.fdes == 2 &&
	   memcmp(b.v, rows, sizeof(rows)) == 0, "and read back, row for row, with its FDEs");
	free(b.v);
	ok(ct_uw_kept_load(dir, "lib-1", NROWS, &b) == 0, "exactly the room: read");
	free(b.v);
	ok(ct_uw_kept_load(dir, "lib-1", NROWS - 1, &b) == -E2BIG && !b.v,
	   "more rows than the room: -E2BIG, nothing read");
	ok(ct_uw_kept_load(dir, "none", 100, &b) == -ENOENT, "none kept: -ENOENT");
	ok(ct_uw_kept_save(dir, "empty", &(struct ct_uw_rows){ 0 }) == -EINVAL,
	   "an empty table is not kept");
}

static void refuse(const char *what, struct header h, const struct ct_uw_row *v, size_t n,
		   size_t extra, int keep_hash)
{
	struct ct_uw_rows b;
	int err;

	put("bad", h, v, n, extra, keep_hash);
	err = ct_uw_kept_load(dir, "bad", 100, &b);
	ok(err == -EINVAL && !b.v && !b.n, "refused (-EINVAL, nothing read): %s", what);
}

static void refused(void)
{
	struct ct_uw_row v[NROWS];
	struct header h = good_header(NROWS);

	memcpy(v, rows, sizeof(v));
	refuse("cut short by a row", h, v, NROWS - 1, 0, 0);
	refuse("a byte more than its rows", h, v, NROWS, 1, 0);
	h.magic[7] = '2';
	refuse("another format's magic", h, v, NROWS, 0, 0);
	h = good_header(NROWS);
	h.row_size = 16;
	refuse("another row size", h, v, NROWS, 0, 0);
	h = good_header(0);
	refuse("no rows", h, v, 0, 0, 0);
	h = good_header(NROWS);
	h.hash = 1;
	refuse("a hash that does not match the rows", h, v, NROWS, 0, 1);
	h = good_header(NROWS);
	v[2].addr = 0x0fff;
	refuse("rows out of address order", h, v, NROWS, 0, 0);
	memcpy(v, rows, sizeof(v));
	v[1].kind = CT_UW_NOT_BUILT;
	refuse("a lazy table's not-built row", h, v, NROWS, 0, 0);
	v[1].kind = 77;
	refuse("a kind no build makes", h, v, NROWS, 0, 0);
	memcpy(v, rows, sizeof(v));
	v[0].rbp = 3;
	refuse("an rbp rule of none of the three", h, v, NROWS, 0, 0);
	h = good_header(NROWS);
	h.n = (uint64_t)-1;
	refuse("a row count past the file", h, v, NROWS, 0, 0);
	ok(ct_uw_kept_save("/proc/no/such", "x", &(struct ct_uw_rows){ .v = rows, .n = 1 }) < 0,
	   "a folder that cannot be made: an error, nothing else");
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		return 1;
	round_trip();
	refused();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}
