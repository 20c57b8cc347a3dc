// SPDX-License-Identifier: MIT
/*
 * Source lines kept across captures (src_kept.h).  A text file a file:
 * "cudatrace-src-lines 1", "from FROM", "N", then N lines of an ELF
 * address in hex, a tab, and the line's text (empty: the address has
 * none).  Read strictly: a file cut short, of another kind or from other
 * DWARF is not used (the capture reads the DWARF then, and keeps it anew).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cache_folder.h"
#include "elf_section.h"
#include "src_kept.h"

#define MAGIC "cudatrace-src-lines 1\n"
#define DEBUG_BY_BUILD_ID "/usr/lib/debug/.build-id/"

/* Keys are addresses + 1: the map cannot hold key 0. */
static bool key_of(uint64_t addr, uint64_t *key)
{
	*key = addr + 1;
	return addr != UINT64_MAX;
}

void ct_src_kept_from(Elf *elf, const char *build_id, char out[CT_SRC_KEPT_FROM_MAX])
{
	GElf_Shdr sh;
	char path[512];
	struct stat st;

	if (elf && (ct_elf_section_named(elf, ".debug_line", &sh) ||
		    ct_elf_section_named(elf, ".zdebug_line", &sh))) {
		snprintf(out, CT_SRC_KEPT_FROM_MAX, "self");
		return;
	}
	/* libdw's offline search (dwfl_build_id_find_debuginfo): .build-id/NN/REST.debug */
	if (build_id && strlen(build_id) > 2 &&
	    (size_t)snprintf(path, sizeof(path), DEBUG_BY_BUILD_ID "%.2s/%s.debug", build_id,
			     build_id + 2) < sizeof(path) &&
	    stat(path, &st) == 0) {
		snprintf(out, CT_SRC_KEPT_FROM_MAX, "build-id %lld %lld.%09ld", (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
		return;
	}
	snprintf(out, CT_SRC_KEPT_FROM_MAX, "none");
}

const char *ct_src_kept_get(const struct idmap *lines, uint64_t addr)
{
	uint64_t key;

	return key_of(addr, &key) ? idmap_get(lines, key) : NULL;
}

bool ct_src_kept_put(struct idmap *lines, uint64_t addr, const char *text)
{
	uint64_t key;
	char *copy;

	text = text ? text : "";
	if (!key_of(addr, &key) || strlen(text) > CT_SRC_KEPT_TEXT_MAX || strpbrk(text, "\t\n") ||
	    (lines->used >= CT_SRC_KEPT_MAX && !idmap_get(lines, key)) || !(copy = strdup(text)))
		return false;
	free(idmap_put(lines, key, copy));
	return true;
}

/* One "ADDR\tTEXT\n" line into lines. */
static int read_line(FILE *fp, struct idmap *lines)
{
	char buf[32 + CT_SRC_KEPT_TEXT_MAX + 2], *end, *nl;
	uint64_t addr;

	if (!fgets(buf, sizeof(buf), fp) || !(nl = strchr(buf, '\n')))
		return -EINVAL;
	*nl = 0;
	errno = 0;
	addr = strtoull(buf, &end, 16);
	if (errno || end == buf || *end != '\t' || ct_src_kept_get(lines, addr) ||
	    !ct_src_kept_put(lines, addr, end + 1))
		return -EINVAL;
	return 0;
}

struct reading {
	const char *from;
	struct idmap *lines;
};

static int parse(FILE *fp, void *ctx)
{
	const struct reading *r = ctx;
	char line[CT_SRC_KEPT_FROM_MAX + 16], want[CT_SRC_KEPT_FROM_MAX + 16], *end;
	unsigned long long n;
	int err;

	snprintf(want, sizeof(want), "from %s\n", r->from);
	if (!fgets(line, sizeof(line), fp) || strcmp(line, MAGIC) != 0 ||
	    !fgets(line, sizeof(line), fp) || strcmp(line, want) != 0 ||
	    !fgets(line, sizeof(line), fp))
		return -EINVAL;
	errno = 0;
	n = strtoull(line, &end, 10);
	if (errno || end == line || *end != '\n' || n > CT_SRC_KEPT_MAX)
		return -EINVAL;
	for (unsigned long long i = 0; i < n; i++)
		if ((err = read_line(fp, r->lines)))
			return err;
	return fgetc(fp) == EOF ? 0 : -EINVAL;
}

int ct_src_kept_load(const char *dir, const char *id, const char *from, struct idmap *lines)
{
	struct reading r = { from, lines };
	int err = ct_cache_read(dir, id, CT_SRC_KEPT_SUFFIX, parse, &r);

	if (err)
		idmap_free_all(lines);
	return err;
}

struct writing {
	const char *from;
	const struct idmap *lines;
};

static void write_one(uint64_t key, void *val, void *ctx)
{
	fprintf(ctx, "%" PRIx64 "\t%s\n", key - 1, (const char *)val);
}

static bool write_lines(FILE *fp, const void *ctx)
{
	const struct writing *w = ctx;

	fprintf(fp, MAGIC "from %s\n%zu\n", w->from, w->lines->used);
	idmap_each(w->lines, write_one, fp);
	return !ferror(fp);
}

int ct_src_kept_save(const char *dir, const char *id, const char *from,
		     const struct idmap *lines)
{
	struct writing w = { from, lines };

	return ct_cache_write(dir, id, CT_SRC_KEPT_SUFFIX, write_lines, &w);
}
