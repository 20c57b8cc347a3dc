// SPDX-License-Identifier: MIT
/* A file's index on disk (kcache.h): a header, then its functions, masks
 * and names as kindex.c holds them, offsets taken from the file's start. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcache.h"
#include "replace_file.h"

#define KCACHE_MAGIC   "CTKIDX\0\3"   /* the last byte: the layout's version */

struct kcache_head {
	char magic[8];
	uint32_t kfunc_size;     /* sizeof(struct ct_kfunc) that wrote it */
	uint32_t nf;
	uint64_t nmasks, nnames;
	uint64_t build_ns;
	struct ct_fatbin_stats fb;
};

#define KCACHE_EDGE (64u << 10)   /* bytes hashed at each end of the fatbin */

void ct_kcache_name(char out[CT_KCACHE_NAME_MAX], const uint8_t *build_id, uint32_t n,
		    uint64_t dev, uint64_t ino, uint64_t mtime_ns, uint64_t size,
		    const uint8_t *fb, size_t fbn)
{
	size_t edge = fbn < KCACHE_EDGE ? fbn : KCACHE_EDGE;
	uint64_t h = ct_code_hash(fb, edge, NULL, 0) ^
		     ct_code_hash(fb + fbn - edge, edge, NULL, 0) * 31;
	uint32_t i;
	int at;

	if (!n)
		at = snprintf(out, CT_KCACHE_NAME_MAX, "file-%llx-%llx-%llx", (unsigned long long)dev,
			      (unsigned long long)ino, (unsigned long long)mtime_ns);
	else
		at = snprintf(out, CT_KCACHE_NAME_MAX, "build-id-");
	for (i = 0; i < n && at < 100; i++)
		at += snprintf(out + at, CT_KCACHE_NAME_MAX - (size_t)at, "%02x", build_id[i]);
	snprintf(out + at, CT_KCACHE_NAME_MAX - (size_t)at, "-%llx-%zx-%016llx.kidx",
		 (unsigned long long)size, fbn, (unsigned long long)h);
}

struct save {
	const struct kcache_head *h;
	const struct ct_kindex *x;
	const struct ct_kfile *kf;
};

/* The header, then the file's functions (their offsets made the file's
 * own), masks and names. */
static bool write_cache(FILE *f, const void *ctx)
{
	const struct save *sv = ctx;
	const struct ct_kfile *kf = sv->kf;
	const struct ct_kindex *x = sv->x;

	fwrite(sv->h, sizeof(*sv->h), 1, f);
	for (size_t i = 0; i < sv->h->nf; i++) {
		struct ct_kfunc k = x->f[kf->f_at + i];

		k.name -= (uint32_t)kf->names_at;
		k.mask_at -= (uint32_t)kf->masks_at;
		k.file = 0;
		k.next = 0;
		fwrite(&k, sizeof(k), 1, f);
	}
	if (sv->h->nmasks)
		fwrite(x->masks + kf->masks_at, sizeof(*x->masks), sv->h->nmasks, f);
	if (sv->h->nnames)
		fwrite(x->names + kf->names_at, 1, sv->h->nnames, f);
	return true;   /* ferror() says, in ct_replace_file */
}

int ct_kcache_save(const struct ct_kindex *x, uint32_t fi, const char *path)
{
	const struct ct_kfile *kf = &x->files[fi];
	struct kcache_head h = { .kfunc_size = sizeof(struct ct_kfunc) };
	struct save sv = { &h, x, kf };

	memcpy(h.magic, KCACHE_MAGIC, sizeof(h.magic));
	h.nf = (uint32_t)kf->functions;
	h.nmasks = x->nmasks - kf->masks_at;
	h.nnames = x->nnames - kf->names_at;
	h.build_ns = kf->build_ns;
	h.fb = kf->fb;
	if (kf->f_at + kf->functions != x->nf)
		return -EINVAL;   /* not the last file added: its parts are not contiguous */
	return ct_replace_file(path, write_cache, &sv);
}

/* Every function's name and masks inside what was read. */
static bool sane(const struct kcache_head *h, const struct ct_kfunc *f, const char *names)
{
	uint32_t i;

	if (h->nnames && names[h->nnames - 1])
		return false;
	for (i = 0; i < h->nf; i++)
		if (f[i].name >= h->nnames || f[i].mask_at > h->nmasks ||
		    f[i].nmasks > h->nmasks - f[i].mask_at || f[i].key_len > f[i].size)
			return false;
	return true;
}

bool ct_kcache_load(struct ct_kindex *x, uint32_t fi, const char *path)
{
	struct kcache_head h;
	struct ct_kfunc *f = NULL;
	uint32_t *masks = NULL;
	char *names = NULL;
	FILE *in = fopen(path, "rb");
	bool ok = false;
	size_t i;

	if (!in)
		return false;
	if (fread(&h, sizeof(h), 1, in) != 1 || memcmp(h.magic, KCACHE_MAGIC, sizeof(h.magic)) ||
	    h.kfunc_size != sizeof(struct ct_kfunc) || h.nf > (1u << 26) ||
	    h.nmasks > (1ull << 30) || h.nnames > (1ull << 32) ||
	    !(f = malloc((h.nf ? h.nf : 1) * sizeof(*f))) ||
	    !(masks = malloc((h.nmasks ? h.nmasks : 1) * sizeof(*masks))) ||
	    !(names = malloc(h.nnames ? h.nnames : 1)) ||
	    fread(f, sizeof(*f), h.nf, in) != h.nf ||
	    fread(masks, sizeof(*masks), h.nmasks, in) != h.nmasks ||
	    fread(names, 1, h.nnames, in) != h.nnames || fgetc(in) != EOF || !sane(&h, f, names))
		goto out;
	for (i = 0; i < h.nf; i++) {
		f[i].name += (uint32_t)x->nnames;
		f[i].mask_at += (uint32_t)x->nmasks;
		f[i].file = fi;
	}
	ct_kindex_append(x, f, h.nf, masks, h.nmasks, names, h.nnames);
	x->files[fi].functions = h.nf;
	x->files[fi].fb = h.fb;
	x->files[fi].build_ns = h.build_ns;
	x->files[fi].cached = true;
	ok = true;
out:
	fclose(in);
	free(f);
	free(masks);
	free(names);
	return ok;
}
