// SPDX-License-Identifier: MIT
/*
 * -k's table thread (capture/stacks/ktables.c) on real BPF maps: a large
 * library's table wanted first, then a small one's, as on the GPU machine
 * (libtorch_cuda.so on the first stacks, then the libraries every call
 * passes through).  Prints how long each took to be loaded, in ms:
 *   small_ms BIG_LOADED_AT_SMALL(0|1) big_ms
 * and exits 0.  tests/live/stacks.py judges the figures.  Needs root.
 * Usage: ktables_order BIG.so SMALL.so
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "ktables.h"

static int want(struct ct_ktables *kt, const char *path, struct ct_codemap *m)
{
	struct stat st;

	memset(m, 0, sizeof(*m));
	m->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m->fd < 0 || fstat(m->fd, &st))
		return -1;
	m->ino = st.st_ino;
	m->dev = (uint32_t)st.st_dev;
	m->is_elf = true;
	m->path = (char *)path;
	ct_ktables_want(kt, m, 0);
	return 0;
}

/* Whether file id's table is in the map (built, or known to have none). */
static bool done(int files_fd, uint32_t id)
{
	struct ct_uw_file f = { 0 };

	return !bpf_map_lookup_elem(files_fd, &id, &f) && (f.n || f.first == CT_UW_FILE_NONE);
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, fm, .map_flags = BPF_F_MMAPABLE);
	struct ct_uw_fds fds;
	struct ct_ktables *kt;
	struct ct_codemap big, small;
	uint64_t t0, small_ns = 0, big_ns = 0;
	bool big_first = false;

	if (argc != 3) {
		fprintf(stderr, "usage: ktables_order BIG.so SMALL.so\n");
		return 2;
	}
	fds.procs = -1;
	fds.gen = -1;
	fds.files = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_files", 4, sizeof(struct ct_uw_file),
				   CT_UW_FILES_MAX, &fm);
	fds.rows = bpf_map_create(BPF_MAP_TYPE_ARRAY, "uw_rows", 4, sizeof(struct ct_uw_row),
				  CT_UW_ROWS_MAX, &mm);
	if (fds.files < 0 || fds.rows < 0 || !(kt = ct_ktables_new(fds, CT_UW_ROWS_MAX))) {
		fprintf(stderr, "ktables_order: cannot make the maps (root needed)\n");
		return 2;
	}
	t0 = ct_now_ns(CLOCK_MONOTONIC);
	if (want(kt, argv[1], &big))
		return 2;
	usleep(50000);   /* the big file's build under way */
	if (want(kt, argv[2], &small))
		return 2;
	/* ids are given in order from 1: big 1, small 2 */
	while (ct_now_ns(CLOCK_MONOTONIC) - t0 < 120ull * 1000000000) {
		if (!small_ns && done(fds.files, 2)) {
			small_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
			big_first = done(fds.files, 1);
		}
		if (!big_ns && done(fds.files, 1))
			big_ns = ct_now_ns(CLOCK_MONOTONIC) - t0;
		if (small_ns && big_ns)
			break;
		usleep(1000);
	}
	printf("%.1f %d %.1f\n", small_ns / 1e6, big_first, big_ns / 1e6);
	ct_ktables_free(kt);
	return 0;
}
