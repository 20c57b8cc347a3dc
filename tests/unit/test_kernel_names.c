// SPDX-License-Identifier: MIT
/*
 * --gpu-work's kernel names (capture/kernels/): the fatbin and cubin
 * readers on real nvcc 13.0 output (tests/kernels/, made by make.sh: the
 * same kernels plain, LZ4- and zstd-compressed, two architectures, and a
 * relocatable cubin with patched instructions), then the naming of a real
 * trace offline: traces/kernels/probe.ctrace (an H200, tests/gpu/probe/
 * probe.cu) named from its binary's .nv_fatbin, checked against the
 * launches its manifest (probe.json) lists.  With CT_BIG_BINARY (or
 * /work/artifacts/big) present, big.ctrace too: a 992,000-byte kernel
 * uploaded by copy engine.
 */
#include <fcntl.h>
#include <stddef.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cubin.h"
#include "decode.h"
#include "fatbin.h"
#include "gpuwork.h"
#include "hostelf.h"
#include "kcache.h"
#include "metrics.h"
#include "kindex.h"
#include "kname.h"
#include "kname_record.h"
#include "knamer.h"
#include "record.h"
#include "embedded.h"
#include "gpuwork_qmds.h"
#include "tap.h"
#include "trace_file.h"
#include "whole_file.h"

/* The traces named here, for a look (`cudatrace -r`) after the test. */
#define NAMED_PROBE "build/tests/probe-named.ctrace"
#define NAMED_BIG   "build/tests/big-named.ctrace"

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) == (size_t)len) {
		*n = (size_t)len;
		buf[len] = 0;   /* the manifests are read as strings */
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* --- the readers ------------------------------------------------------------ */

static struct ct_kindex index_of(const char *path)
{
	struct ct_kindex x;
	size_t n = 0;
	uint8_t *p = slurp(path, &n);

	ct_kindex_init(&x);
	ok(p != NULL, "%s read", path);
	if (p)
		ct_kindex_add_fatbin(&x, path, 1, 1, p, n);
	free(p);
	return x;
}

static const struct ct_kfunc *by_name(const struct ct_kindex *x, const char *name, uint32_t arch)
{
	size_t i;

	for (i = 0; i < x->nf; i++)
		if (!strcmp(ct_kindex_name(x, &x->f[i]), name) && x->f[i].arch == arch)
			return &x->f[i];
	return NULL;
}

/* A copy known by its size alone is code of the process's architecture:
 * k_two's k_add of sm_80 is not a candidate on an sm_90 GPU. */
static uint32_t archs_other_than(const struct ct_kfound *r, uint32_t arch)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->ncand; i++)
		n += r->cand[i]->arch != arch;
	return n;
}

static void by_size_arch(const struct ct_kindex *two)
{
	const struct ct_kfunc *a80 = by_name(two, "k_add", 80), *a90 = by_name(two, "k_add", 90);
	struct ct_karches sm90 = { 0 }, sm80 = { 0 }, both = { 0 };
	struct ct_kfound any, only90, only80;

	if (!a80 || !a90) {
		ok(0, "k_two.fatbin: k_add for sm_80 and sm_90");
		return;
	}
	ct_karches_add(&sm90, 90);
	ct_karches_add(&sm90, 90);
	ct_karches_add(&sm80, 80);
	ct_karches_add(&both, 90);
	ct_karches_add(&both, 80);
	ct_karches_add(&both, 0);
	ok(sm90.n == 1 && both.n == 2, "an architecture is kept once, 0 never (%u, %u)", sm90.n,
	   both.n);
	any = ct_kindex_by_size(two, 0, 4096, 0, NULL);
	only90 = ct_kindex_by_size(two, 0, 4096, 0, &sm90);
	only80 = ct_kindex_by_size(two, 0, 4096, 0, &sm80);
	ok(any.candidates == 3 && archs_other_than(&any, 90) > 0,
	   "by size, any architecture: %u names, %u of the first kept not sm_90", any.candidates,
	   archs_other_than(&any, 90));
	ok(only90.candidates == 3 && archs_other_than(&only90, 90) == 0 && only80.candidates == 3 &&
	   archs_other_than(&only80, 80) == 0,
	   "... of the process's architecture: sm_90's alone (%u not), sm_80's alone (%u not)",
	   archs_other_than(&only90, 90), archs_other_than(&only80, 80));
}

static void test_fatbins(void)
{
	static const char *const names[] = { "k_add", "_Z7k_scaleIfEvPT_S0_i",
					     "_Z7k_scaleIdEvPT_S0_i" };
	struct ct_kindex plain = index_of("tests/kernels/k_plain.fatbin");
	struct ct_kindex lz4 = index_of("tests/kernels/k_lz4.fatbin");
	struct ct_kindex zst = index_of("tests/kernels/k_zstd.fatbin");
	struct ct_kindex two = index_of("tests/kernels/k_two.fatbin");
	unsigned i;

	ok(plain.nf == 3 && lz4.nf == 3 && zst.nf == 3, "3 functions each: plain %zu, lz4 %zu, zstd %zu",
	   plain.nf, lz4.nf, zst.nf);
	ok(lz4.files[0].fb.unpacked_bytes > 0 && zst.files[0].fb.unpacked_bytes > 0 &&
	   plain.files[0].fb.unpacked_bytes == 0, "the LZ4 and zstd cubins were unpacked, the plain one not");
	ok(plain.files[0].fb.ptx == 1 && plain.files[0].fb.bad == 0, "one PTX entry, nothing bad");
	for (i = 0; i < 3; i++) {
		const struct ct_kfunc *a = by_name(&plain, names[i], 90), *b = by_name(&lz4, names[i], 90),
				      *c = by_name(&zst, names[i], 90);

		ok(a && b && c && a->hash == b->hash && a->hash == c->hash && a->size == c->size &&
		   a->size % 16 == 0, "%s: sm_90, the same code plain, LZ4 and zstd", names[i]);
	}
	ok(two.nf == 6 && by_name(&two, "k_add", 80) && by_name(&two, "k_add", 90) &&
	   by_name(&two, "k_add", 80)->hash != by_name(&two, "k_add", 90)->hash,
	   "two architectures: each function twice, sm_80 code unlike sm_90's");
	by_size_arch(&two);
	ct_kindex_free(&plain);
	ct_kindex_free(&lz4);
	ct_kindex_free(&zst);
	ct_kindex_free(&two);
}

/* Registers a thread, from .nv.info's REGCOUNT (k_add 10, k_scale 8 in
 * nvcc 13.0's sm_90 cubin), and a launch that gives fewer refuses the match. */
static void test_registers(void)
{
	struct ct_kindex x = index_of("tests/kernels/k_plain.fatbin");
	const struct ct_kfunc *add = by_name(&x, "k_add", 90);
	const struct ct_kfunc *sf = by_name(&x, "_Z7k_scaleIfEvPT_S0_i", 90);
	size_t n = 0;
	uint8_t *code = slurp("tests/kernels/k_add.code", &n);
	struct ct_kfound r;

	ok(add && sf && add->regs == 10 && sf->regs == 8, "registers from .nv.info: k_add %u, "
	   "k_scale<float> %u", add ? add->regs : 0, sf ? sf->regs : 0);
	r = code ? ct_kindex_lookup_for(&x, code, n, 16) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_ONE && r.f == add, "a launch of 16 registers: k_add's code is k_add");
	r = code ? ct_kindex_lookup_for(&x, code, n, 9) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_NONE && r.too_few_regs == 1,
	   "a launch of 9 registers cannot run k_add (10): refused, counted (%u)", r.too_few_regs);
	r = code ? ct_kindex_lookup_for(&x, code, n, 32) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_ONE && r.f == add, "k_add (10) under a launch of 32: at most 32 for any");
	r = code ? ct_kindex_lookup_for(&x, code, n, 158) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_NONE && r.too_many_regs == 1,
	   "k_add (10) under a launch of 158: not its code (the eager program's big kernel read "
	   "from a reused buffer), refused");
	r = ct_kindex_by_size(&x, 512, 512, 8, NULL);
	ok(r.how == CT_KM_AMBIGUOUS && r.candidates == 2 && r.too_few_regs == 1,
	   "by size with 8 registers: the two k_scale, not k_add (%u names, %u refused)",
	   r.candidates, r.too_few_regs);
	free(code);
	ct_kindex_free(&x);
}

/* Constant bank 0 from .nv.constant0.<name>: 0x210 bytes of the driver's,
 * then the parameters (k_add(float *, const float *, int): 20 bytes,
 * k_scale<float>(float *, float, int): 16, k_scale<double>: 20); a launch
 * whose parameters end at one name's end tells same-size code apart. */
static void test_params_narrow(void)
{
	struct ct_kindex x = index_of("tests/kernels/k_plain.fatbin");
	const struct ct_kfunc *add = by_name(&x, "k_add", 90);
	const struct ct_kfunc *sf = by_name(&x, "_Z7k_scaleIfEvPT_S0_i", 90);
	const struct ct_kfunc *sd = by_name(&x, "_Z7k_scaleIdEvPT_S0_i", 90);
	struct ct_kfound r;

	ok(add && sf && sd && add->cbank0 == 0x210 + 20 && sf->cbank0 == 0x210 + 16 &&
	   sd->cbank0 == 0x210 + 20, "bank 0: k_add %u, k_scale<float> %u, k_scale<double> %u",
	   add ? add->cbank0 : 0, sf ? sf->cbank0 : 0, sd ? sd->cbank0 : 0);
	r = ct_kindex_by_size(&x, 512, 512, 8, NULL);
	ok(r.ncand == 2 && ct_kindex_narrow_params(&r, 0x210 + 16) && r.how == CT_KM_ONE &&
	   r.f == sf, "parameters ending at 0x220: k_scale<float>");
	r = ct_kindex_by_size(&x, 512, 512, 8, NULL);
	ok(ct_kindex_narrow_params(&r, 0x210 + 20) && r.f == sd,
	   "... at 0x224: k_scale<double>");
	r = ct_kindex_by_size(&x, 512, 512, 8, NULL);
	ok(!ct_kindex_narrow_params(&r, 0x210 + 24) && r.how == CT_KM_AMBIGUOUS &&
	   !ct_kindex_narrow_params(&r, 0) && r.candidates == 2,
	   "... at 0x228, or not known: still ambiguous, both names");
	r = ct_kindex_by_size(&x, 512, 512, 0, NULL);   /* k_add (20 bytes) too */
	ok(r.candidates == 3 && ct_kindex_narrow_params(&r, 0x210 + 20) &&
	   r.how == CT_KM_AMBIGUOUS && r.candidates == 2 && r.ncand == 2 &&
	   ct_kindex_narrow_params(&r, 0x210 + 16) == false,
	   "with k_add: 0x224 leaves two names (k_add, k_scale<double>), still ambiguous");
	r = ct_kindex_by_size(&x, 512, 512, 0, NULL);
	ok(ct_kindex_narrow_params(&r, 0x210 + 16) && r.how == CT_KM_ONE && r.f == sf,
	   "... 0x220 one: k_scale<float>");
	r = ct_kindex_by_size(&x, 512, 512, 8, NULL);
	r.candidates++;   /* a name past the kept ones: not all seen */
	ok(!ct_kindex_narrow_params(&r, 0x210 + 16), "a name not kept: never narrowed");
	ct_kindex_free(&x);
}

/* The same code under three names (tests/kernels/k_twins.cu, nvcc 13.0
 * sm_90 on the H200 machine: cuobjdump -res-usage gives each 8 registers,
 * CONSTANT[0] 540, 540 and 544): one lookup finds all three; parameters
 * ending at 540 leave k_twin_a and k_twin_b, at 544 k_twin_c alone. */
static void test_twins(void)
{
	struct ct_kindex x = index_of("tests/kernels/k_twins.fatbin");
	size_t n = 0;
	uint8_t *code = slurp("tests/kernels/k_twin.code", &n);
	struct ct_kfound r = code ? ct_kindex_lookup_for(&x, code, n, 16) : (struct ct_kfound){ 0 };
	const struct ct_kfunc *c = by_name(&x, "k_twin_c", 90);

	ok(x.nf == 3 && r.how == CT_KM_AMBIGUOUS && r.candidates == 3 && r.ncand == 3,
	   "one code, three names: ambiguous, all three kept (%u)", r.candidates);
	ok(ct_kindex_narrow_params(&r, 540) && r.how == CT_KM_AMBIGUOUS && r.candidates == 2 &&
	   strcmp(ct_kindex_name(&x, r.cand[0]), "k_twin_c") &&
	   strcmp(ct_kindex_name(&x, r.cand[1]), "k_twin_c"),
	   "parameters ending at 540: k_twin_a or k_twin_b");
	r = code ? ct_kindex_lookup_for(&x, code, n, 16) : (struct ct_kfound){ 0 };
	ok(ct_kindex_narrow_params(&r, 544) && r.how == CT_KM_ONE && r.f == c,
	   "... at 544: k_twin_c");
	r = code ? ct_kindex_lookup_for(&x, code, n, 16) : (struct ct_kfound){ 0 };
	if (r.f) {   /* the record of the three, as the decoder reads it */
		struct ct_kernel_name *rec = ct_kname_record(&x, 7, 0x7f00001000ull, CT_KN_INLINE, &r,
							     ct_kindex_name(&x, r.f), 0);
		struct ct_knames_table t = { 0 };
		const struct ct_kname *k;
		const char *label;

		ok(rec && !ct_record_check(&rec->h, rec->h.size) &&
		   rec->flags == (CT_KN_AMBIGUOUS | CT_KN_NAMES) && rec->candidates == 3,
		   "the record: ambiguous, its three names, and it passes its check");
		if (rec)
			ct_kname_learn(&t, rec);
		k = ct_kname_find(&t, 7, 0x7f00001000ull);
		label = k ? ct_kname_label(k) : NULL;
		ok(k && k->nalt == 3 && label && strlen(label) == 14 && !strncmp(label, "k_twin_{", 8) &&
		   strchr(label + 8, 'a') && strchr(label + 8, 'b') && strchr(label + 8, 'c'),
		   "decoded: the label k_twin_{a|b|c}, in the index's order (%s)",
		   label ? label : "(none)");
		ct_knames_table_free(&t);
		free(rec);
	}
	free(code);
	ct_kindex_free(&x);
}

struct masks_seen {
	uint32_t funcs, masked, lost;
};

static void count_masks(void *ctx, const struct ct_cubin_func *f)
{
	struct masks_seen *m = ctx;
	uint32_t i;

	m->funcs++;
	m->masked += f->nmasks;
	m->lost += f->masks_lost;
	for (i = 0; i < f->nmasks; i++)
		if (f->masks[i] % 16 || f->masks[i] >= f->size)
			m->lost += 1000;
}

static void count_masks_fn(void *ctx, const struct ct_cubin_func *f)
{
	(void)ctx;
	(void)ct_code_hash(f->code, f->size, f->masks, f->nmasks);
}

/* -rdc: the driver patches instructions (the address of `counter`); a
 * function is found with those instructions changed, and not with others. */
static void test_relocations(void)
{
	struct masks_seen whole = { 0 }, rdc = { 0 };
	size_t n1 = 0, n2 = 0;
	uint8_t *c1 = slurp("tests/kernels/k.cubin", &n1), *c2 = slurp("tests/kernels/k_rdc.cubin", &n2);
	struct ct_kindex x;
	const struct ct_kfunc *f;
	bool fresh;
	int nf1, nf2;

	ok(c1 && c2, "the cubins read");
	if (!c1 || !c2)
		goto out;
	nf1 = ct_cubin_functions(c1, n1, count_masks, &whole);
	nf2 = ct_cubin_functions(c2, n2, count_masks, &rdc);
	ok(nf1 == 3 && whole.masked == 0,
	   "whole-program cubin: 3 functions, no instruction patched (%u)", whole.masked);
	ok(nf2 == 3 && rdc.masked > 0 && rdc.lost == 0,
	   "-rdc cubin: %u patched instructions, each a whole instruction inside its function",
	   rdc.masked);
	ct_kindex_init(&x);
	ct_kindex_add_cubin(&x, ct_kindex_file(&x, "k_rdc.cubin", 1, 2, &fresh), c2, n2);
	f = by_name(&x, "_Z7k_scaleIfEvPT_S0_i", 90);
	ok(f && f->nmasks > 0, "k_scale<float> has patched instructions");
	if (f && f->nmasks) {
		/* the function's bytes as the GPU got them: patched with an address */
		const struct ct_kfunc *g = f;
		uint8_t *code = malloc(g->size);
		struct ct_kfound r;
		uint32_t m = x.masks[g->mask_at];
		size_t i;

		/* find its bytes again in the cubin: its hash over the cubin's sections */
		for (i = 0; i + g->size <= n2; i += 16)
			if (ct_code_hash(c2 + i, g->size, x.masks + g->mask_at, g->nmasks) == g->hash)
				break;
		ok(i + g->size <= n2, "its code found in the cubin");
		memcpy(code, c2 + i, g->size);
		memset(code + m + 4, 0xab, 4);   /* a relocated address */
		r = ct_kindex_lookup(&x, code, g->size);
		ok(r.how == CT_KM_ONE && r.f == g, "found with its patched instruction changed");
		memcpy(code, c2 + i, g->size);   /* now an instruction no relocation patches */
		code[m == g->size - 16 ? 0 : g->size - 16] ^= 1;
		r = ct_kindex_lookup(&x, code, g->size);
		ok(r.how == CT_KM_NONE, "not found with another instruction changed");
		free(code);
	}
	ct_kindex_free(&x);
out:
	free(c1);
	free(c2);
}

/* --- the index on disk ------------------------------------------------------ */

static void test_cache(void)
{
	const char *path = "build/tests/k_two.kidx";
	struct ct_kindex a = index_of("tests/kernels/k_two.fatbin"), b;
	const struct ct_kfunc *fa, *fb;
	struct ct_kfound r;
	bool fresh;
	uint32_t fi;
	size_t n = 0;
	uint8_t *raw;
	FILE *f;

	unlink(path);
	ok(ct_kcache_save(&a, 0, path) == 0, "the index of k_two.fatbin saved");
	ct_kindex_init(&b);
	ct_kindex_file(&b, "other", 9, 9, &fresh);   /* a file before it: offsets move */
	ct_kindex_add_cubin(&b, 0, (raw = slurp("tests/kernels/k.cubin", &n)), n);
	free(raw);
	fi = ct_kindex_file(&b, "k_two", 1, 1, &fresh);
	ok(ct_kcache_load(&b, fi, path) && b.files[fi].cached && b.files[fi].functions == 6,
	   "read back after another file's functions: 6 functions");
	fa = by_name(&a, "_Z7k_scaleIdEvPT_S0_i", 80);
	fb = NULL;
	for (size_t i = b.files[fi].f_at; i < b.nf; i++)
		if (!strcmp(ct_kindex_name(&b, &b.f[i]), "_Z7k_scaleIdEvPT_S0_i") && b.f[i].arch == 80)
			fb = &b.f[i];
	ok(fa && fb && fa->hash == fb->hash && fa->size == fb->size && fb->file == fi,
	   "a function the same after the round trip");
	/* found by its code: the bytes of k.cubin's k_add are sm_90's */
	raw = slurp("tests/kernels/k_add.code", &n);
	r = raw ? ct_kindex_lookup(&b, raw, n) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_ONE && !strcmp(ct_kindex_name(&b, r.f), "k_add"),
	   "k_add's code found (in k.cubin or the cached file: one name)");
	free(raw);
	/* damaged: cut, and a name offset out of range */
	raw = slurp(path, &n);
	if (raw && (f = fopen(path, "wb"))) {
		fwrite(raw, 1, n - 3, f);
		fclose(f);
	}
	fi = ct_kindex_file(&b, "k_two again", 2, 2, &fresh);
	ok(!ct_kcache_load(&b, fi, path) && b.files[fi].functions == 0, "a cut cache file: not used");
	if (raw && (f = fopen(path, "wb"))) {
		raw[n - 1] = 'x';   /* the names no longer end with NUL */
		fwrite(raw, 1, n, f);
		fclose(f);
	}
	ok(!ct_kcache_load(&b, fi, path), "a cache file whose names do not end: not used");
	free(raw);
	unlink(path);
	ct_kindex_free(&a);
	ct_kindex_free(&b);
}

/* --- bare cubins inside a file (libcuda's own kernels) ----------------------- */

static void count_image(void *ctx, const uint8_t *elf, size_t n)
{
	size_t *sizes = ctx;

	(void)elf;
	sizes[sizes[0] < 7 ? ++sizes[0] : 0] = n;
}

/* A stand-in libcuda: bytes, a host ELF header, k.cubin at an odd offset,
 * a cut copy, an EM_CUDA header whose section headers lie past the end,
 * k.cubin again at the end. */
static void test_embedded(void)
{
	size_t cn = 0, n = 0, at, sizes[8] = { 0 }, found;
	uint8_t *c = slurp("tests/kernels/k.cubin", &cn), *buf, *code;
	struct ct_kindex x;
	struct ct_kfound r;
	Elf64_Ehdr liar;
	bool fresh;

	if (!ok(c && cn > sizeof(liar), "k.cubin read"))
		return;
	buf = calloc(1, 4 * cn + 4096);
	for (at = 0; at < 1001; at++)
		buf[at] = (uint8_t)(at * 7);
	memcpy(buf + 3, ELFMAG, SELFMAG);                     /* a host ELF's magic, no cubin */
	memcpy(buf + (at = 1001), c, cn);                     /* odd offset */
	at += cn + 37;
	memcpy(buf + at, c, cn / 2);                          /* cut: its sections past the end... */
	at += cn / 2;
	memcpy(&liar, c, sizeof(liar));
	liar.e_shoff = (uint64_t)1 << 40;                     /* ... and headers far out */
	memcpy(buf + at, &liar, sizeof(liar));
	at += sizeof(liar) + 5;
	memcpy(buf + at, c, cn);
	n = at + cn;
	found = ct_embedded_cubins(buf, n, count_image, sizes);
	ok(found == 2 && sizes[1] == cn && sizes[2] == cn,
	   "two whole cubins found, the cut one and the liar refused (%zu: %zu, %zu bytes of %zu)",
	   found, sizes[1], sizes[2], cn);
	for (size_t cut = 0; cut < n; cut += 97)   /* cut anywhere: never past the end */
		ct_embedded_cubins(buf, cut, count_image, sizes);

	ct_kindex_init(&x);
	ct_kindex_file(&x, "libcuda.so.1", 3, 3, &fresh);
	ct_kindex_add_embedded_to(&x, 0, buf, n);
	ok(x.files[0].functions > 0 && x.files[0].fb.cubins == 2,
	   "their functions indexed (%u from %llu cubins)", x.files[0].functions,
	   (unsigned long long)x.files[0].fb.cubins);
	code = slurp("tests/kernels/k_add.code", &cn);
	r = code ? ct_kindex_lookup(&x, code, cn) : (struct ct_kfound){ 0 };
	ok(r.how == CT_KM_ONE && !strcmp(ct_kindex_name(&x, r.f), "k_add") &&
	   !strcmp(ct_kindex_path(&x, r.f), "libcuda.so.1"),
	   "k_add's code found in the bare cubins, the file its module");
	ct_kindex_free(&x);
	free(code);
	free(buf);
	free(c);
}

/* --- hostile fatbins: every length and offset wrong in turn ------------------ */

#include "fatbin_format.h"

static void count_cubin(void *ctx, const uint8_t *elf, size_t n, uint32_t arch)
{
	(void)elf;
	(void)arch;
	*(size_t *)ctx += n;
}

/* The plain fatbin with one field of its first container or first entry
 * set to v: walked without reading outside it, the damage counted. */
static struct ct_fatbin_stats walk_with(const uint8_t *p, size_t n, size_t field_at, size_t width,
					uint64_t v, size_t *cubin_bytes)
{
	struct ct_fatbin_stats st = { 0 };
	uint8_t *q = malloc(n);

	memcpy(q, p, n);
	memcpy(q + field_at, &v, width);
	*cubin_bytes = 0;
	ct_fatbin_walk(q, n, count_cubin, cubin_bytes, &st);
	free(q);
	return st;
}

#define CONT(f) offsetof(struct fatbin_container, f), sizeof(((struct fatbin_container *)0)->f)
#define ENTRY(f) sizeof(struct fatbin_container) + offsetof(struct fatbin_entry, f), \
		 sizeof(((struct fatbin_entry *)0)->f)

static void test_hostile(void)
{
	size_t n = 0, z = 0, got;
	uint8_t *p = slurp("tests/kernels/k_plain.fatbin", &n), *zp = slurp("tests/kernels/k_zstd.fatbin", &z);
	struct ct_fatbin_stats st;
	size_t cut;

	if (!ok(p && zp && n > 256, "the fatbins to damage"))
		return;
	st = walk_with(p, n, CONT(fat_size), (uint64_t)-1, &got);
	ok(st.bad >= 1 && st.containers == 0, "container longer than the file: skipped, said");
	st = walk_with(p, n, CONT(header_size), 0, &got);
	ok(st.bad >= 1, "container header of size 0: skipped, said");
	st = walk_with(p, n, ENTRY(header_size), 0, &got);
	ok(st.bad == 1 && st.cubins == 0, "entry header of size 0 (no way on): the container given up, said");
	st = walk_with(p, n, ENTRY(padded_size), (uint64_t)1 << 62, &got);
	ok(st.bad == 1 && st.cubins == 0, "entry payload past its container: given up, said");
	st = walk_with(p, n, ENTRY(flags), FATBIN_FLAG_LZ4, &got);
	ok(st.cubins + st.bad >= 1 && got == 0, "an LZ4 flag on plain bytes: nothing unpacked");
	st = walk_with(p, n, ENTRY(compressed_size), 0xffffffffu, &got);
	ok(got <= n, "a compressed size past the payload: nothing read outside");
	/* the zstd fatbin's first entry (PTX or ELF), its sizes wrong */
	st = walk_with(zp, z, ENTRY(uncompressed_size), (uint64_t)CT_FATBIN_ENTRY_MAX + 1, &got);
	ok(st.bad >= 1, "an unpacked size over the bound: not unpacked, said");
	st = walk_with(zp, z, ENTRY(uncompressed_size), 7, &got);
	ok(st.bad >= 1, "an unpacked size smaller than the frame's: not used, said");
	for (cut = 0; cut < n; cut += 97) {   /* cut anywhere: no read past the end */
		struct ct_fatbin_stats s2 = { 0 };
		uint8_t *q = malloc(cut ? cut : 1);

		memcpy(q, p, cut);
		ct_fatbin_walk(q, cut, count_cubin, &got, &s2);
		free(q);
	}
	ok(true, "the fatbin cut at every 97th byte walked (ASan: no read past the end)");
	{
		size_t cn = 0;
		uint8_t *c = slurp("tests/kernels/k.cubin", &cn);
		int bad = 0;

		for (cut = 0; c && cut < cn; cut += 61) {
			uint8_t *q = malloc(cut ? cut : 1);

			memcpy(q, c, cut);
			if (ct_cubin_functions(q, cut, count_masks_fn, NULL) > 3)
				bad++;
			free(q);
		}
		ok(c && !bad, "the cubin cut at every 61st byte read (ASan: no read past the end)");
		free(c);
	}
	free(p);
	free(zp);
}

/* --- a real trace, named offline ------------------------------------------ */

struct offline {
	const uint8_t *fatbin;
	size_t fatbin_size;
	const char *module;
	char *names[64];          /* program -> name, by program */
	uint64_t programs[64];
	uint32_t hows[64];
	unsigned n;
	struct ct_writer *w;      /* the trace again, with its names */
};

static bool off_index(void *ctx, uint32_t pid, struct ct_kindex *x)
{
	struct offline *o = ctx;

	(void)pid;
	ct_kindex_add_fatbin(x, o->module, 7, 7, o->fatbin, o->fatbin_size);
	return true;
}

static bool off_read(void *ctx, uint32_t pid, uint64_t src, uint64_t dst, uint64_t off,
		     void *buf, size_t n)
{
	(void)ctx, (void)pid, (void)src, (void)dst, (void)off, (void)buf, (void)n;
	return false;   /* the process is gone: its staging buffers too */
}

static void off_emit(void *ctx, const struct ct_rec *r)
{
	struct offline *o = ctx;
	const struct ct_kernel_name *k = (const struct ct_kernel_name *)r;

	ok(ct_record_check(r, r->size) == NULL, "kernel name record passes its check");
	if (o->w)
		ct_writer_add(o->w, r);
	if (o->n < 64) {
		o->programs[o->n] = k->program;
		o->hows[o->n] = k->how;
		o->names[o->n++] = strdup((const char *)(k + 1));
	}
}

static const char *name_at(const struct offline *o, uint64_t prog, uint32_t *how)
{
	unsigned i;

	for (i = o->n; i-- > 0;)
		if (o->programs[i] == prog) {
			*how = o->hows[i];
			return o->names[i];
		}
	return NULL;
}

/* The manifest's kernel for a grid and block, if exactly one kernel has it. */
static const char *manifest_kernel(const char *json, const uint32_t g[3], const uint32_t b[3])
{
	static char found[64];
	char want[160];
	const char *p = json, *hit = NULL;
	int hits = 0;

	snprintf(want, sizeof(want), "\"grid\": [\n    %u,\n    %u,\n    %u\n   ],\n   \"block\": [\n    %u,\n    %u,\n    %u\n",
		 g[0], g[1], g[2], b[0], b[1], b[2]);
	found[0] = 0;
	while ((p = strstr(p, want))) {
		const char *k = p;

		while (k > json && strncmp(k, "\"kernel\": \"", 11))
			k--;
		if (k > json) {
			char name[64];

			sscanf(k + 11, "%63[^\"]", name);
			if (!hit || strcmp(found, name))
				hits++;
			snprintf(found, sizeof(found), "%s", name);
			hit = found;
		}
		p++;
	}
	return hits == 1 ? hit : NULL;
}

struct launches {
	struct offline *o;
	const char *json;
	unsigned launches, named, checked, wrong, internal;
	struct gw_chan *chans[16];
	uint32_t handles[16];
	unsigned nchans;
	struct gw_qmds *qmds;   /* graph launches' kernels are checked too */
};

static void on_launch(void *ctx, const struct gw_event *e)
{
	struct launches *l = ctx;
	const char *name, *want;
	uint32_t how = 0;

	if (e->kind != GW_LAUNCH || !e->have_qmd)
		return;
	l->launches++;
	name = name_at(l->o, e->program, &how);
	want = manifest_kernel(l->json, e->grid, e->block);
	if (name)
		l->named++;
	if (!want) {   /* CUDA's own (a memset kernel ...): no manifest entry */
		l->internal++;
		return;
	}
	l->checked++;
	if (!name || strcmp(name, want)) {
		l->wrong++;
		printf("# launch grid=(%u,%u,%u): named %s, manifest says %s\n", e->grid[0], e->grid[1],
		       e->grid[2], name ? name : "(none)", want);
	}
}

static struct gw_chan *chan(struct launches *l, const struct ct_gpu_seg *s)
{
	unsigned i;

	for (i = 0; i < l->nchans; i++)
		if (l->handles[i] == s->channel)
			return l->chans[i];
	if (l->nchans == 16)
		return NULL;
	l->handles[l->nchans] = s->channel;
	if (!l->qmds)
		l->qmds = gw_qmds_new();
	l->chans[l->nchans] = gw_chan_new(s->chan_class);
	if (l->chans[l->nchans])
		gw_chan_set_qmds(l->chans[l->nchans], l->qmds);
	return l->chans[l->nchans++];
}

/* Runs the trace through the namer, then through a decoder of its own to
 * compare each launch's name with the manifest.  Returns launches named. */
static unsigned name_trace(const char *trace, const char *json_path, struct offline *o,
			   unsigned *launches, unsigned *wrong, unsigned *checked)
{
	struct ct_knamer_io io = { off_index, off_read, off_emit, o };
	struct ct_knamer *k = ct_knamer_new(&io);
	struct launches l = { .o = o };
	size_t jn = 0;
	char *json = (char *)slurp(json_path, &jn), err[256];
	struct ct_reader *r;
	const void *rec;
	size_t len;
	unsigned i;

	for (int pass = 0; pass < 2; pass++) {
		r = ct_reader_open(trace, err, sizeof(err));
		if (!ok(r != NULL && json, "%s and %s open", trace, json_path))
			return 0;
		while (ct_reader_next(r, &rec, &len) == CT_READ_OK) {
			const struct ct_gpu_seg *s = rec;
			struct gw_chan *c;

			if (pass == 0) {   /* the namer; its names go before their segment */
				if (s->h.type == CT_REC_GPU_SEG)
					ct_knamer_seg(k, s);
				if (o->w)
					ct_writer_add(o->w, rec);
			} else if (s->h.type == CT_REC_GPU_SEG && (c = chan(&l, s)) && s->ndwords) {
				l.json = json;
				gw_decode(c, (const uint32_t *)(s + 1), s->ndwords, s->flags & CT_GS_TRUNC,
					  on_launch, &l);
			}
		}
		ct_reader_close(r);
	}
	ct_knamer_report(k);
	*launches = l.launches;
	*wrong = l.wrong;
	*checked = l.checked;
	for (i = 0; i < l.nchans; i++)
		gw_chan_free(l.chans[i]);
	gw_qmds_free(l.qmds);
	for (i = 0; i < o->n; i++)
		printf("# %#llx %s (how %u)\n", (unsigned long long)o->programs[i], o->names[i], o->hows[i]);
	ct_knamer_free(k);
	free(json);
	return l.named;
}

/* The trace with its names, decoded as `cudatrace -r` does: each launch
 * line's name against the manifest. */
static void check_named_lines(const char *named, const char *json_path, const char *what)
{
	size_t jn = 0, tn = 0;
	char *json = (char *)slurp(json_path, &jn), *text = NULL, err[256], *line;
	FILE *out = open_memstream(&text, &tn);
	struct ct_decode_opts opt = { .out = out };
	struct ct_decoder *d = ct_decoder_new(&opt);
	struct ct_reader *r = ct_reader_open(named, err, sizeof(err));
	unsigned lines = 0, right = 0, wrong = 0;
	const void *rec;
	size_t len;

	if (!ok(json && d && r, "%s: the named trace decodes", what))
		return;
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK)
		ct_decoder_feed(d, rec);
	ct_reader_close(r);
	ct_decoder_free(d);
	fclose(out);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128];
		uint32_t g[3], b[3];
		const char *at = strstr(line, "COMPUTE LAUNCH "), *want;

		if (!at || sscanf(at, "COMPUTE LAUNCH %127s grid=(%u,%u,%u) block=(%u,%u,%u)", name, &g[0],
				  &g[1], &g[2], &b[0], &b[1], &b[2]) != 7)
			continue;
		lines++;
		if (!(want = manifest_kernel(json, g, b)))
			continue;
		if (strcmp(name, want)) {
			wrong++;
			printf("# %s\n", line);
		} else {
			right++;
		}
	}
	ok(right >= 4 && wrong == 0, "%s: %u launch lines carry a name, %u the manifest's, %u another",
	   what, lines, right, wrong);
	free(text);
	free(json);
}

static void free_offline(struct offline *o)
{
	unsigned i;

	for (i = 0; i < o->n; i++)
		free(o->names[i]);
}

static void test_probe_trace(void)
{
	struct offline o = { .module = "probe" };
	size_t n = 0;
	uint8_t *fb = slurp("traces/kernels/probe.nv_fatbin", &n);
	unsigned launches, wrong, checked, named;

	ok(fb != NULL, "probe's .nv_fatbin read");
	if (!fb)
		return;
	o.fatbin = fb;
	o.fatbin_size = n;
	o.w = ct_writer_open(NAMED_PROBE, false);
	named = name_trace("traces/kernels/probe.ctrace", "traces/kernels/probe.json", &o, &launches,
			   &wrong, &checked);
	ok(o.w && ct_writer_close(o.w) == 0, "the trace written again with its names");
	check_named_lines(NAMED_PROBE, "traces/kernels/probe.json", "probe");
	ok(checked >= 10 && wrong == 0, "probe: %u launches the manifest names, %u named wrong or not",
	   checked, wrong);
	printf("# probe: %u of %u launches named\n", named, launches);
	free_offline(&o);
	free(fb);
}

static void test_big_trace(void)
{
	const char *bin = getenv("CT_BIG_BINARY") ? getenv("CT_BIG_BINARY") : "/work/artifacts/big";
	struct offline o = { .module = "big" };
	struct ct_fatbin_map m = { 0 };
	unsigned launches, wrong, checked, named;
	int fd = open(bin, O_RDONLY);

	if (fd < 0 || ct_fatbin_map_fd(fd, &m) || !m.fatbin) {
		printf("ok %d - # SKIP big.ctrace: %s not here\n", ++tap_count, bin);
		if (fd >= 0)
			close(fd);
		ct_fatbin_unmap(&m);
		return;
	}
	close(fd);
	o.fatbin = m.fatbin;
	o.fatbin_size = m.size;
	o.w = ct_writer_open(NAMED_BIG, false);
	named = name_trace("traces/kernels/big.ctrace", "traces/kernels/big.json", &o, &launches, &wrong,
			   &checked);
	ok(o.w && ct_writer_close(o.w) == 0, "the trace written again with its names");
	check_named_lines(NAMED_BIG, "traces/kernels/big.json", "big");
	ok(checked >= 4 && wrong == 0, "big: %u launches the manifest names, %u named wrong or not",
	   checked, wrong);
	printf("# big: %u of %u launches named\n", named, launches);
	free_offline(&o);
	ct_fatbin_unmap(&m);
}

/* --metrics-kernels 2 on the named probe trace: the first two kernels of
 * the process by name, the rest summed, launches with no name apart.  The
 * trace's 32 launches: 20 on the stream and its graph's 3 kernels at each
 * of 4 graph launches (docs/GPUWORK.md, "Graphs and clusters"). */
static void test_metrics(void)
{
	struct ct_metrics_opts mo = { .proc_root = "/nonexistent", .kernels = 2 };
	struct ct_metrics *m = ct_metrics_new(&mo);
	FILE *devnull = fopen("/dev/null", "w");
	struct ct_decode_opts o = { .out = devnull, .quiet = true };
	struct ct_decoder *d = ct_decoder_new(&o);
	struct ct_view mv = ct_metrics_view(m);
	struct ct_reader *r = ct_reader_open("traces/kernels/probe-named.ctrace", NULL, 0);
	static const char *const want[][2] = {
		{ "jit:0d0be55a85e42164", "4" }, { "k_vcyrsz", "3" }, { "(unnamed)", "2" },
		{ "(other)", "23" },
	};
	const void *rec;
	char *text, line[256];
	size_t len;
	unsigned i;

	if (!ok(m && d && r, "metrics, decoder and the named probe trace"))
		return;
	ct_decoder_add_view(d, &mv);
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK)
		ct_decoder_feed(d, rec);
	ct_reader_close(r);
	text = ct_metrics_render(m, &len);
	for (i = 0; i < 4; i++) {
		snprintf(line, sizeof(line), "container=\"\",pod=\"\",pid=\"471\",kernel=\"%s\"} %s\n",
			 want[i][0], want[i][1]);
		ok(text && strstr(text, line), "cudatrace_gpu_kernel_launches_total kernel=%s: %s",
		   want[i][0], want[i][1]);
	}
	free(text);
	ct_decoder_free(d);
	ct_metrics_free(m);
	fclose(devnull);
}

int main(void)
{
	test_fatbins();
	test_registers();
	test_params_narrow();
	test_twins();
	test_relocations();
	test_hostile();
	test_cache();
	test_embedded();
	test_metrics();
	test_probe_trace();
	test_big_trace();
	return tap_done();
}
