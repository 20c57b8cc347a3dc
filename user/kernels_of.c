// SPDX-License-Identifier: MIT
/*
 * --kernels-of FILE: the index --gpu-work's kernel names build for one file
 * (capture/kernels/kindex.h), built and described: what it holds, and what
 * it cost (wall time, the index's bytes, the process's peak RSS, which
 * includes the file's pages read through its mapping).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hostelf.h"
#include "kernels_of.h"
#include "kindex.h"
#include "msg.h"

static void list(FILE *out, const struct ct_kindex *x)
{
	size_t i;

	for (i = 0; i < x->nf; i++)
		fprintf(out, "sm_%u %8u %s%s\n", x->f[i].arch, x->f[i].size, ct_kindex_name(x, &x->f[i]),
			x->f[i].key_len ? "" : " (patched in its first instruction: found by size only)");
}

static void archs(FILE *out, const struct ct_kindex *x)
{
	uint64_t seen[8] = { 0 };   /* sm 0..511 */
	size_t i;

	for (i = 0; i < x->nf; i++)
		if (x->f[i].arch < 512)
			seen[x->f[i].arch / 64] |= 1ull << (x->f[i].arch % 64);
	for (i = 0; i < 512; i++)
		if (seen[i / 64] >> (i % 64) & 1)
			fprintf(out, " sm_%zu", i);
}

int ct_kernels_of(const struct ct_options *o)
{
	struct ct_fatbin_map m;
	struct ct_kindex x;
	struct rusage ru;
	struct stat st;
	uint64_t t0;
	int fd = open(o->kernels_of, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0 || fstat(fd, &st)) {
		ct_err("cannot read %s: %s\n", o->kernels_of, strerror(errno));
		return 1;
	}
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	rc = ct_fatbin_map_fd(fd, &m);
	close(fd);
	if (rc < 0) {
		ct_err("%s is not an ELF file cudatrace can read\n", o->kernels_of);
		return 1;
	}
	ct_kindex_init(&x);
	if (m.fatbin) {
		ct_kindex_add_fatbin(&x, o->kernels_of, (uint64_t)st.st_dev, st.st_ino, m.fatbin, m.size);
	} else {   /* bare cubins (libcuda's own kernels) */
		bool fresh;
		uint32_t fi = ct_kindex_file(&x, o->kernels_of, (uint64_t)st.st_dev, st.st_ino, &fresh);

		ct_kindex_add_embedded_to(&x, fi, m.base, m.file_size);
	}
	getrusage(RUSAGE_SELF, &ru);
	if (o->verbose)
		list(o->out, &x);
	fprintf(o->out, "%s: %zu functions in %" PRIu64 " cubins (%" PRIu64 " compressed, %" PRIu64
		" MiB unpacked), %" PRIu64 " PTX entries, %" PRIu64 " entries that did not read; "
		"%zu bytes of .nv_fatbin; architectures:", o->kernels_of, x.nf, x.files[0].fb.cubins,
		x.files[0].fb.compressed,
		x.files[0].fb.unpacked_bytes >> 20, x.files[0].fb.ptx, x.files[0].fb.bad, m.size);
	archs(o->out, &x);
	fprintf(o->out, "; index %zu KiB, built in %.3f s, peak RSS %ld MiB; %" PRIu64
		" functions patched in their first instruction (found by size only)\n",
		ct_kindex_bytes(&x) / 1024, (ct_now_ns(CLOCK_MONOTONIC) - t0) / 1e9,
		ru.ru_maxrss / 1024, x.unkeyed);
	ct_kindex_free(&x);
	ct_fatbin_unmap(&m);
	return 0;
}
