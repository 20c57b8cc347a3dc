// SPDX-License-Identifier: MIT
/* Kernel names in a live capture (knames_live.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "codemaps.h"
#include "hostelf.h"
#include "knamer.h"
#include "knames_live.h"

struct ct_knames {
	const char *proc_root;
	ct_knames_sink_fn sink;
	void *ctx;
	struct ct_knamer *k;
};

/* The file of mapping m into the index, unless it is there. */
static void index_file(struct ct_kindex *x, const struct ct_codemap *m)
{
	struct ct_fatbin_map fb;
	bool fresh;
	uint32_t i;

	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].dev == m->dev && x->files[i].ino == m->ino)
			return;
	if (m->fd < 0 || !m->is_elf || ct_fatbin_map_fd(m->fd, &fb) != 0) {
		ct_kindex_file(x, m->path, m->dev, m->ino, &fresh);   /* none: not looked at again */
		return;
	}
	ct_kindex_add_fatbin(x, m->path, m->dev, m->ino, fb.fatbin, fb.size);
	ct_fatbin_unmap(&fb);
}

static bool index_files(void *ctx, uint32_t pid, struct ct_kindex *x)
{
	struct ct_knames *n = ctx;
	struct ct_codemaps none = { 0 }, maps = { 0 };
	size_t i;

	if (ct_codemaps_read(n->proc_root, pid, &none, &maps))
		return false;
	for (i = 0; i < maps.n; i++)
		index_file(x, &maps.v[i]);
	ct_codemaps_free(&maps);
	return true;
}

static bool read_mem(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct ct_knames *n = ctx;
	char path[4200];
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/mem", n->proc_root, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = addr <= INT64_MAX - len ? pread(fd, buf, len, (off_t)addr) : -1;
	close(fd);
	return got == (ssize_t)len;
}

static void emit(void *ctx, const struct ct_rec *r)
{
	struct ct_knames *n = ctx;

	n->sink(n->ctx, r);
}

struct ct_knames *ct_knames_new(const char *proc_root, ct_knames_sink_fn sink, void *ctx)
{
	struct ct_knames *n = calloc(1, sizeof(*n));
	struct ct_knamer_io io = { index_files, read_mem, emit, n };

	if (!n)
		return NULL;
	n->proc_root = proc_root;
	n->sink = sink;
	n->ctx = ctx;
	if (!(n->k = ct_knamer_new(&io))) {
		free(n);
		return NULL;
	}
	return n;
}

void ct_knames_free(struct ct_knames *n)
{
	if (!n)
		return;
	ct_knamer_free(n->k);
	free(n);
}

void ct_knames_seg(struct ct_knames *n, const struct ct_rec *r)
{
	if (r->type == CT_REC_GPU_SEG)
		ct_knamer_seg(n->k, (const struct ct_gpu_seg *)r);
}

void ct_knames_learn(struct ct_knames *n, const struct ct_rec *r)
{
	if (r->type == CT_REC_PROC_EXIT && r->pid == r->tid)
		ct_knamer_forget(n->k, r->pid);
}

void ct_knames_report(const struct ct_knames *n)
{
	ct_knamer_report(n->k);
}
