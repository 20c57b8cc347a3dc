// SPDX-License-Identifier: MIT
/* The index of GPU function code (kindex.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "cubin.h"
#include "fatbin_format.h"
#include "embedded.h"
#include "kindex.h"
#include "grow.h"

#define HASH_MUL 0x9E3779B97F4A7C15ull   /* 2^64 / golden ratio */

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * HASH_MUL;
	return h ^ (h >> 29);
}

uint64_t ct_code_hash(const uint8_t *p, size_t n, const uint32_t *masks, uint32_t nmasks)
{
	uint64_t h = mix(0, n);
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < n; i += 8) {
		uint64_t w = 0;

		while (m < nmasks && (size_t)masks[m] + CUBIN_INSN_BYTES <= i)
			m++;
		if (!(m < nmasks && masks[m] <= i))
			memcpy(&w, p + i, n - i < 8 ? n - i : 8);
		h = mix(h, w);
	}
	return h;
}

static void *grow(void *v, size_t *cap, size_t need, size_t each)
{
	if (need <= *cap)   /* also need 0: ct_grow hands back v, which may be NULL */
		return v;
	v = ct_grow(v, cap, need, each, 64);
	if (!v)
		abort();   /* as idmap_put: the index is no use half made */
	return v;
}

void ct_kindex_init(struct ct_kindex *x)
{
	memset(x, 0, sizeof(*x));
}

void ct_kindex_free(struct ct_kindex *x)
{
	size_t i;

	for (i = 0; i < x->nfiles; i++)
		free(x->files[i].path);
	free(x->files);
	free(x->f);
	free(x->masks);
	free(x->names);
	idmap_free(&x->name_of);
	idmap_free(&x->buckets);
	memset(x, 0, sizeof(*x));
}

/* The offset of name in names, kept once per file. */
static uint32_t intern(struct ct_kindex *x, const char *name)
{
	size_t len = strlen(name) + 1;
	uint64_t h = ct_code_hash((const uint8_t *)name, len - 1, NULL, 0);
	void *v;

	for (; (v = idmap_get(&x->name_of, h)); h++)
		if (!strcmp(x->names + (uintptr_t)v - 1, name))
			return (uint32_t)((uintptr_t)v - 1);
	x->names = grow(x->names, &x->capnames, x->nnames + len, 1);
	memcpy(x->names + x->nnames, name, len);
	idmap_put(&x->name_of, h, (void *)(uintptr_t)(x->nnames + 1));
	x->nnames += len;
	return (uint32_t)(x->nnames - len);
}

/* The key length of a function: its start up to its first patched
 * instruction, at most CT_KINDEX_KEY, whole instructions. */
static uint32_t key_len(const struct ct_cubin_func *f)
{
	uint32_t n = f->size < CT_KINDEX_KEY ? f->size : CT_KINDEX_KEY;

	if (f->nmasks && f->masks[0] < n)
		n = f->masks[0];
	return n & ~(uint32_t)(CUBIN_INSN_BYTES - 1);
}

static uint64_t bucket_of(uint64_t key, uint32_t len)
{
	return mix(key, len);
}

struct add_ctx {
	struct ct_kindex *x;
	uint32_t file, added;
};

static void add_func(void *arg, const struct ct_cubin_func *cf)
{
	struct add_ctx *a = arg;
	struct ct_kindex *x = a->x;
	struct ct_kfunc *f;

	x->f = grow(x->f, &x->capf, x->nf + 1, sizeof(*x->f));
	x->masks = grow(x->masks, &x->capmasks, x->nmasks + cf->nmasks, sizeof(*x->masks));
	f = &x->f[x->nf];
	memset(f, 0, sizeof(*f));
	f->size = cf->size;
	f->addr = cf->addr;
	f->arch = cf->arch;
	f->regs = cf->regs;
	f->cbank0 = cf->cbank0;
	f->file = a->file;
	f->mask_at = (uint32_t)x->nmasks;
	f->nmasks = cf->nmasks;
	if (cf->nmasks) {
		memcpy(x->masks + x->nmasks, cf->masks, cf->nmasks * sizeof(*cf->masks));
		x->nmasks += cf->nmasks;
	}
	x->masks_lost += cf->masks_lost;
	f->hash = ct_code_hash(cf->code, cf->size, cf->masks, cf->nmasks);
	f->key_len = key_len(cf);
	f->name = intern(x, cf->name);
	f->key = f->key_len ? ct_code_hash(cf->code, f->key_len, NULL, 0) : 0;
	x->nf++;
	a->added++;
	ct_kindex_link(x, x->nf - 1);
}

void ct_kindex_append(struct ct_kindex *x, const struct ct_kfunc *f, size_t nf,
		      const uint32_t *masks, size_t nmasks, const char *names, size_t nnames)
{
	size_t i;

	x->f = grow(x->f, &x->capf, x->nf + nf, sizeof(*x->f));
	x->masks = grow(x->masks, &x->capmasks, x->nmasks + nmasks, sizeof(*x->masks));
	x->names = grow(x->names, &x->capnames, x->nnames + nnames, 1);
	if (nf)
		memcpy(x->f + x->nf, f, nf * sizeof(*f));
	if (nmasks)
		memcpy(x->masks + x->nmasks, masks, nmasks * sizeof(*masks));
	if (nnames)
		memcpy(x->names + x->nnames, names, nnames);
	x->nmasks += nmasks;
	x->nnames += nnames;
	for (i = 0; i < nf; i++) {
		x->nf++;
		ct_kindex_link(x, x->nf - 1);
	}
}

void ct_kindex_link(struct ct_kindex *x, size_t i)
{
	struct ct_kfunc *f = &x->f[i];
	uint64_t b;

	if (!f->key_len) {
		x->unkeyed++;
		return;
	}
	b = bucket_of(f->key, f->key_len);
	f->next = (uint32_t)(uintptr_t)idmap_get(&x->buckets, b);
	idmap_put(&x->buckets, b, (void *)(uintptr_t)(i + 1));
}

static void add_cubin_cb(void *arg, const uint8_t *elf, size_t n, uint32_t arch)
{
	struct add_ctx *a = arg;

	(void)arch;   /* the cubin's own e_flags say it too */
	ct_cubin_functions(elf, n, add_func, a);
}

uint32_t ct_kindex_file(struct ct_kindex *x, const char *path, uint64_t dev, uint64_t ino,
			bool *fresh)
{
	struct ct_kfile *kf;
	size_t i, cap = x->nfiles;

	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].dev == dev && x->files[i].ino == ino) {
			*fresh = false;
			return (uint32_t)i;
		}
	x->files = grow(x->files, &cap, x->nfiles + 1, sizeof(*x->files));
	kf = &x->files[x->nfiles];
	memset(kf, 0, sizeof(*kf));
	kf->path = strdup(path ? path : "?");
	if (!kf->path)
		abort();
	kf->dev = dev;
	kf->ino = ino;
	kf->f_at = x->nf;
	kf->masks_at = x->nmasks;
	kf->names_at = x->nnames;
	idmap_free(&x->name_of);   /* names are shared within a file only */
	*fresh = true;
	return (uint32_t)x->nfiles++;
}

uint32_t ct_kindex_add_cubin(struct ct_kindex *x, uint32_t fi, const uint8_t *elf, size_t n)
{
	struct add_ctx a = { x, fi, 0 };

	ct_cubin_functions(elf, n, add_func, &a);
	x->files[fi].functions += a.added;
	return a.added;
}

uint32_t ct_kindex_add_fatbin(struct ct_kindex *x, const char *path, uint64_t dev, uint64_t ino,
			      const uint8_t *p, size_t n)
{
	bool fresh;
	uint32_t fi = ct_kindex_file(x, path, dev, ino, &fresh);

	return fresh ? ct_kindex_add_fatbin_to(x, fi, p, n) : 0;
}

uint32_t ct_kindex_add_fatbin_to(struct ct_kindex *x, uint32_t fi, const uint8_t *p, size_t n)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	struct add_ctx a = { x, fi, 0 };

	ct_fatbin_walk(p, n, add_cubin_cb, &a, &x->files[fi].fb);
	x->files[fi].functions += a.added;
	x->files[fi].build_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
	return a.added;
}

static void add_embedded_cb(void *arg, const uint8_t *elf, size_t n)
{
	struct add_ctx *a = arg;

	a->x->files[a->file].fb.cubins++;
	ct_cubin_functions(elf, n, add_func, a);
}

uint32_t ct_kindex_add_embedded_to(struct ct_kindex *x, uint32_t fi, const uint8_t *p, size_t n)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	struct add_ctx a = { x, fi, 0 };

	ct_embedded_cubins(p, n, add_embedded_cb, &a);
	x->files[fi].functions += a.added;
	x->files[fi].build_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
	return a.added;
}

const char *ct_kindex_name(const struct ct_kindex *x, const struct ct_kfunc *f)
{
	return x->names + f->name;
}

const char *ct_kindex_path(const struct ct_kindex *x, const struct ct_kfunc *f)
{
	return x->files[f->file].path;
}

/* Whether a function of f's name is among the candidates kept. */
static bool name_kept(const struct ct_kindex *x, const struct ct_kfound *r,
		      const struct ct_kfunc *f)
{
	for (uint32_t i = 0; i < r->ncand; i++)
		if (!strcmp(ct_kindex_name(x, r->cand[i]), ct_kindex_name(x, f)))
			return true;
	return false;
}

/* Adds f to the found set: a second name -> ambiguous.  Names past
 * CT_KINDEX_CANDS are compared with the kept ones only, so a name seen
 * twice out there counts twice: candidates is then at least what it says. */
static void found(const struct ct_kindex *x, struct ct_kfound *r, const struct ct_kfunc *f)
{
	if (name_kept(x, r, f))
		return;
	if (r->ncand < CT_KINDEX_CANDS)
		r->cand[r->ncand++] = f;
	if (!r->f)
		r->f = f;
	r->candidates++;
	r->how = r->candidates > 1 ? CT_KM_AMBIGUOUS : CT_KM_ONE;
}

bool ct_kindex_narrow_params(struct ct_kfound *r, uint32_t params_end)
{
	uint32_t left = 0;

	if (r->how != CT_KM_AMBIGUOUS || !params_end || r->ncand < r->candidates)
		return false;
	for (uint32_t i = 0; i < r->ncand; i++) {
		const struct ct_kfunc *f = r->cand[i];

		if (!f->cbank0 || ((f->cbank0 + 3u) & ~3u) == params_end)
			r->cand[left++] = f;   /* fits, or not known: kept */
	}
	if (!left || left == r->ncand)
		return false;   /* none fits (not what this rule knows): leave it */
	r->ncand = r->candidates = left;
	r->f = r->cand[0];
	r->how = left == 1 ? CT_KM_ONE : CT_KM_AMBIGUOUS;
	return true;
}

/* Whether f can be the code of a launch giving regs registers a thread
 * (0: not known).  Code that needs more than it gets cannot run.  Nor is
 * code the launch's when it needs far fewer: the driver gives a launch its
 * function's REGCOUNT (H200, driver 580.159.04: 8, 10 and 14 launched with
 * 16; 18, 56, 72 and 160 with as many), and once more than that rounded up
 * (PyTorch's nll_loss_backward_reduce_cuda_kernel_2d, 32), so the bound
 * is twice it, at least 32: a reused staging buffer's 16-register
 * function under a 158-register launch is refused. */
static bool fits(const struct ct_kfunc *f, uint32_t regs, struct ct_kfound *r)
{
	uint32_t most = 2 * ((f->regs + 7u) & ~7u);

	if (most < CT_KINDEX_REGS_FLOOR)
		most = CT_KINDEX_REGS_FLOOR;
	if (!regs || !f->regs || (f->regs <= regs && regs <= most))
		return true;
	r->too_few_regs += f->regs > regs;
	r->too_many_regs += regs > most;
	return false;
}

struct ct_kfound ct_kindex_lookup(const struct ct_kindex *x, const uint8_t *code, size_t avail)
{
	return ct_kindex_lookup_for(x, code, avail, 0);
}

/* From function i + 1 of a bucket on, the first whose key is code's first
 * len bytes (key their hash): its index + 1, 0 none. */
static uint32_t keyed(const struct ct_kindex *x, uint32_t i, uint64_t key, uint32_t len)
{
	for (; i; i = x->f[i - 1].next)
		if (x->f[i - 1].key == key && x->f[i - 1].key_len == len)
			return i;
	return 0;
}

/* The first function whose key is code's first len bytes (+ 1, 0 none). */
static uint32_t first_keyed(const struct ct_kindex *x, const uint8_t *code, uint32_t len,
			    uint64_t *key)
{
	*key = ct_code_hash(code, len, NULL, 0);
	return keyed(x, (uint32_t)(uintptr_t)idmap_get(&x->buckets, bucket_of(*key, len)), *key,
		     len);
}

struct ct_kfound ct_kindex_lookup_for(const struct ct_kindex *x, const uint8_t *code, size_t avail,
				      uint32_t regs)
{
	struct ct_kfound r = { 0 };
	uint32_t len, checked = 0;

	for (len = CT_KINDEX_KEY; len >= CUBIN_INSN_BYTES; len -= CUBIN_INSN_BYTES) {
		uint64_t key;
		uint32_t i;

		if (len > avail)
			continue;
		for (i = first_keyed(x, code, len, &key); i; i = keyed(x, x->f[i - 1].next, key, len)) {
			const struct ct_kfunc *f = &x->f[i - 1];

			if (f->size > avail)
				continue;
			if (checked++ == CT_KINDEX_VERIFY) {
				r.capped = true;
				break;
			}
			if (ct_code_hash(code, f->size, f->nmasks ? x->masks + f->mask_at : NULL,
					 f->nmasks) == f->hash && fits(f, regs, &r))
				found(x, &r, f);
		}
	}
	r.hash = ct_code_hash(code, r.f ? r.f->size : avail, NULL, 0);
	return r;
}

bool ct_kindex_starts_function(const struct ct_kindex *x, const uint8_t *code, size_t avail)
{
	uint64_t key;

	for (uint32_t len = CT_KINDEX_KEY; len >= CUBIN_INSN_BYTES; len -= CUBIN_INSN_BYTES)
		if (len <= avail && first_keyed(x, code, len, &key))
			return true;
	return false;
}

void ct_karches_add(struct ct_karches *a, uint32_t arch)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (a->arch[i] == arch)
			return;
	if (arch && a->n < CT_KARCHES_MAX)
		a->arch[a->n++] = arch;
}

static bool arch_in(const struct ct_karches *only, uint32_t arch)
{
	if (!only || !only->n)
		return true;
	for (uint32_t i = 0; i < only->n; i++)
		if (only->arch[i] == arch)
			return true;
	return false;
}

struct ct_kfound ct_kindex_by_size(const struct ct_kindex *x, uint64_t min, uint64_t max,
				   uint32_t regs, const struct ct_karches *only)
{
	struct ct_kfound r = { 0 };
	size_t i;

	for (i = 0; i < x->nf; i++)
		if (x->f[i].size >= min && x->f[i].size <= max && arch_in(only, x->f[i].arch) &&
		    fits(&x->f[i], regs, &r))
			found(x, &r, &x->f[i]);
	return r;
}

size_t ct_kindex_bytes(const struct ct_kindex *x)
{
	return x->capf * sizeof(*x->f) + x->capmasks * sizeof(*x->masks) + x->capnames +
	       x->buckets.cap * (sizeof(uint64_t) + sizeof(void *)) +
	       x->name_of.cap * (sizeof(uint64_t) + sizeof(void *));
}
