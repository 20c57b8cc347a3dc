// SPDX-License-Identifier: MIT
/*
 * capture/stacks/symindex.c against libdw on real files: for each file
 * given, the index's name and offset for addresses around every symbol
 * that can name code (its start, one before, one after, its last byte,
 * its end) and for random addresses of the executable segments, beside
 * dwfl_module_addrinfo's for the same address.  A file with a large table
 * is sampled (libdw scans the whole table for each address).
 *   [CT_SYMINDEX_CACHE=DIR] symindex_check FILE...
 * prints, per file: ok|FAIL FILE addresses differences symbols kept
 * build_ms raw|cache|libdw index_ns_a_lookup libdw_ns_a_lookup names,
 * names being rr where every page of the raw table's strings is advised
 * random reads (the kernel's VmFlags, /proc/self/smaps), else no-rr, or -
 * without a raw table; exits 1 on any difference.  With a cache folder
 * the index is written there, then mapped back, and the one mapped is
 * checked.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "symindex.h"

#define BASE 0x7f0000000000ull   /* a shared object's place, as at run time */
#define LIBDW_SYMBOL_STEPS 400000000ull   /* symbols libdw may scan, a file (CT_SYMINDEX_STEPS) */

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct addrs {
	uint64_t *a;
	size_t n, cap;
	uint64_t lo[16], hi[16];   /* the executable segments: pcs lie in them */
	size_t nseg;
};

static void add(struct addrs *v, uint64_t a)
{
	size_t i;

	for (i = 0; i < v->nseg && !(a >= v->lo[i] && a < v->hi[i]); i++)
		;
	if (i == v->nseg)
		return;
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4096;
		v->a = realloc(v->a, v->cap * sizeof(*v->a));
		if (!v->a)
			exit(2);
	}
	v->a[v->n++] = a;
}

/* Addresses to ask about, in ELF addresses: around each symbol inside the
 * executable segments, and random ones in them. */
static void pick(Dwfl_Module *mod, GElf_Addr bias, struct addrs *v, unsigned seed)
{
	Elf *elf = dwfl_module_getelf(mod, &bias);
	int n = dwfl_module_getsymtab(mod);
	size_t nph = 0;

	if (elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph && v->nseg < 16; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && ph.p_memsz) {
				v->lo[v->nseg] = ph.p_vaddr;
				v->hi[v->nseg++] = ph.p_vaddr + ph.p_memsz;
			}
		}
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr a;

		if (!dwfl_module_getsym_info(mod, i, &s, &a, NULL, NULL, NULL) ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		a -= bias;
		add(v, a);
		add(v, a - 1);
		add(v, a + 1);
		if (s.st_size) {
			add(v, a + s.st_size - 1);
			add(v, a + s.st_size);
		}
	}
	srand(seed);
	for (size_t i = 0, nseg = v->nseg; i < nseg; i++)
		for (int k = 0; k < 2000; k++)
			add(v, v->lo[i] + ((uint64_t)rand() << 16 ^ (uint64_t)rand()) %
				       (v->hi[i] - v->lo[i]));
}

/* Whether every mapping over [at, at + len) has the random-read advice
 * (VmFlags rr): "rr", "no-rr", or "-" for no range. */
static const char *names_advice(uint64_t at, uint64_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long long lo, hi;
	uint64_t covered = at;
	bool inside = false, all_rr = true;
	char line[512];

	if (!len)
		return "-";
	if (!f)
		return "no-rr";
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) {   /* a mapping's first line */
			inside = lo < at + len && hi > at;
			if (inside && lo <= covered && hi > covered)
				covered = hi;
		} else if (inside && !strncmp(line, "VmFlags:", 8) && !strstr(line, " rr")) {
			all_rr = false;
		}
	}
	fclose(f);
	return all_rr && covered >= at + len ? "rr" : "no-rr";
}

static int check(const char *path)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	int fd = open(path, O_RDONLY);
	Dwfl_Module *mod;
	struct ct_symindex *x;
	struct ct_symindex_info info;
	struct addrs v = { 0 };
	GElf_Addr bias = 0;
	size_t step = 1, asked = 0, differ = 0, asked_libdw = 0;
	double t_index = 0, t_libdw = 0;
	const char *env = getenv("CT_SYMINDEX_STEPS"), *cache = getenv("CT_SYMINDEX_CACHE");
	uint64_t steps = env ? strtoull(env, NULL, 0) : LIBDW_SYMBOL_STEPS;
	int nsyms;
	struct stat st;
	char id[64];

	if (fd < 0 || !dwfl) {
		fprintf(stderr, "%s: cannot open\n", path);
		return 2;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, path, path, fd, BASE, true);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod || !dwfl_module_getelf(mod, &bias)) {
		fprintf(stderr, "%s: not an ELF file libdw takes\n", path);
		return 2;
	}
	/* With CT_SYMINDEX_CACHE=DIR: built and written, then mapped back
	 * from the cache; the one mapped is checked.  Named by the file's
	 * inode, as the capture names it by its build-id, size and time. */
	if (fstat(fd, &st) != 0)
		st.st_ino = st.st_dev = 0;
	snprintf(id, sizeof(id), "check-%llx-%llx", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	x = ct_symindex_build(mod, cache, id);
	if (x && cache) {
		ct_symindex_free(x);
		x = ct_symindex_build(mod, cache, id);
	}
	if (!x) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 2;
	}
	ct_symindex_info(x, &info);
	if (cache && !info.cache_read && !info.via_libdw && dwfl_module_getsymtab(mod) >= 2) {
		fprintf(stderr, "%s: not read back from the cache in %s\n", path, cache);
		differ++;
	}
	pick(mod, bias, &v, 31);
	nsyms = dwfl_module_getsymtab(mod);
	if (nsyms > 0 && v.n * (uint64_t)nsyms > steps)
		step = v.n * (uint64_t)nsyms / steps + 1;
	for (size_t i = 0; i < v.n; i += step) {
		uint64_t a = v.a[i], off_x = 0;
		GElf_Off off_d = 0;
		GElf_Sym sym;
		double t0 = now_ns();
		const char *nx = ct_symindex_lookup(x, a, &off_x);
		double t1 = now_ns();

		if (nx == CT_SYMINDEX_ASK_LIBDW) {   /* the capture asks libdw: counted */
			asked_libdw++;
			nx = dwfl_module_addrinfo(mod, bias + a, &off_d, &sym, NULL, NULL, NULL);
			off_x = off_d;
		}
		const char *nd = dwfl_module_addrinfo(mod, bias + a, &off_d, &sym, NULL, NULL, NULL);
		double t2 = now_ns();

		t_index += t1 - t0;
		t_libdw += t2 - t1;
		asked++;
		if ((nx == NULL) != (nd == NULL) || (nx && (strcmp(nx, nd) || off_x != off_d))) {
			if (differ++ < 10)
				fprintf(stderr, "%s: 0x%llx: index %s+0x%llx, libdw %s+0x%llx\n", path,
					(unsigned long long)a, nx ? nx : "(none)",
					(unsigned long long)off_x, nd ? nd : "(none)",
					(unsigned long long)off_d);
		}
	}
	if (asked_libdw)
		fprintf(stderr, "%s: %zu addresses left to libdw (an empty name)\n", path,
			asked_libdw);
	printf("%s %s %zu %zu %llu %llu %.1f %s %.0f %.0f %s\n", differ ? "FAIL" : "ok", path,
	       asked, differ, (unsigned long long)info.symbols, (unsigned long long)info.kept,
	       info.build_ms, info.via_libdw ? "libdw" : info.cache_read ? "cache" : "raw",
	       asked ? t_index / asked : 0, asked ? t_libdw / asked : 0,
	       names_advice(info.names_at, info.names_len));
	free(v.a);
	ct_symindex_free(x);
	dwfl_end(dwfl);
	return differ ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: symindex_check FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (int i = 1; i < argc; i++) {
		int r = check(argv[i]);

		if (r > rc)
			rc = r;
	}
	return rc;
}
