// SPDX-License-Identifier: MIT
/* Kernel names in a live capture (knames_live.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "codemaps.h"
#include "copy_snaps.h"
#include "hostelf.h"
#include "cache_folder.h"
#include "kcache.h"
#include "mkdir_p.h"
#include "kmaps_keep.h"
#include "knamer.h"
#include "knames_live.h"
#include "msg.h"

/* Records held while a launch waits for its upload: at most this many, or
 * bytes, or this long in the records' own time (two polls of an idle ring
 * at 50 Hz), then they go as they are (the launch named later). */
#define HOLD_RECORDS 4096
#define HOLD_BYTES   (16u << 20)
#define HOLD_NS      (50 * 1000 * 1000ull)

struct ct_knames {
	struct ct_rec **held;      /* copies, in the order they came */
	size_t nheld, held_bytes;
	uint64_t held_since_ns;    /* the first held record's time */
	uint64_t holds, held_out_unnamed;   /* holds; ... that ended with a launch still waiting */
	const char *proc_root;
	ct_knames_sink_fn sink;
	void *ctx;
	struct ct_knamer *k;
	struct ct_kmaps_keep *keep;   /* mappings read while the processes lived */
	struct ct_copy_snaps *snaps;  /* copies' sources as the reader thread saw them */
	char cache_dir[4096];      /* "" when there is none */
	uint64_t cache_read, cache_written, cache_failed;
	int cache_errno;           /* the first failure's */
};

static void cache_save(struct ct_knames *n, struct ct_kindex *x, uint32_t fi, const char *path)
{
	int err;

	if (!ct_mkdir_p(n->cache_dir))
		err = -errno;
	else
		err = ct_kcache_save(x, fi, path);
	if (!err) {
		n->cache_written++;
	} else {
		n->cache_failed++;
		if (!n->cache_errno)
			n->cache_errno = -err;
	}
}

/* The file of mapping m into the index, unless it is there: from the
 * cache when it has the file, else read and then cached. */
static void index_file(struct ct_knames *n, struct ct_kindex *x, const struct ct_codemap *m)
{
	char name[CT_KCACHE_NAME_MAX], path[4096 + CT_KCACHE_NAME_MAX + 2];
	struct ct_fatbin_map fb;
	struct stat st;
	bool fresh;
	uint32_t i, fi;

	for (i = 0; i < x->nfiles; i++)
		if (x->files[i].dev == m->dev && x->files[i].ino == m->ino)
			return;
	fi = ct_kindex_file(x, m->path, m->dev, m->ino, &fresh);
	if (m->fd < 0 || !m->is_elf || fstat(m->fd, &st))
		return;   /* none: not looked at again */
	if (ct_fatbin_map_fd(m->fd, &fb) < 0)
		return;
	/* no .nv_fatbin: the whole file is looked through for bare cubins */
	ct_kcache_name(name, m->build_id, m->build_id_size, m->dev, m->ino,
		       (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec,
		       (uint64_t)st.st_size, fb.fatbin ? fb.fatbin : fb.base,
		       fb.fatbin ? fb.size : fb.file_size);
	snprintf(path, sizeof(path), "%s/%s", n->cache_dir, name);
	if (n->cache_dir[0] && ct_kcache_load(x, fi, path)) {
		n->cache_read++;
	} else {
		if (fb.fatbin)
			ct_kindex_add_fatbin_to(x, fi, fb.fatbin, fb.size);
		else
			ct_kindex_add_embedded_to(x, fi, fb.base, fb.file_size);
		if (n->cache_dir[0])
			cache_save(n, x, fi, path);
	}
	ct_fatbin_unmap(&fb);
}

/* The process's Triton cache folder: TRITON_CACHE_DIR from its
 * environment, else $HOME/.triton/cache; "" if neither is set. */
static void triton_dir(const struct ct_knames *n, uint32_t pid, char *out, size_t size)
{
	char path[4200], env[65536], *v, *home = NULL, *dir = NULL;
	ssize_t got;
	int fd;

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/%u/environ", n->proc_root, pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	got = read(fd, env, sizeof(env) - 1);
	close(fd);
	if (got <= 0)
		return;
	env[got] = 0;
	for (v = env; v < env + got; v += strlen(v) + 1) {
		if (!strncmp(v, "TRITON_CACHE_DIR=", 17))
			dir = v + 17;
		else if (!strncmp(v, "HOME=", 5))
			home = v + 5;
	}
	if (dir && *dir == '/')
		snprintf(out, size, "%s/%u/root%s", n->proc_root, pid, dir);
	else if (home && *home == '/')
		snprintf(out, size, "%s/%u/root%s/.triton/cache", n->proc_root, pid, home);
}

#define TRITON_CUBIN_MAX (64u << 20)

/* One cubin of the Triton cache into the index, unless it is there; named
 * by its path in the process's view (path + skip). */
static void index_cubin(struct ct_kindex *x, const char *path, size_t skip)
{
	struct stat st;
	bool fresh;
	uint32_t fi;
	uint8_t *buf;
	FILE *f;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || st.st_size > TRITON_CUBIN_MAX)
		return;
	fi = ct_kindex_file(x, path + skip, st.st_dev, st.st_ino, &fresh);
	if (!fresh || !(f = fopen(path, "rb")))
		return;
	buf = malloc((size_t)st.st_size + 1);
	if (buf && fread(buf, 1, (size_t)st.st_size, f) == (size_t)st.st_size)
		ct_kindex_add_cubin(x, fi, buf, (size_t)st.st_size);
	free(buf);
	fclose(f);
}

/* Triton keeps each kernel it compiles as DIR/<hash>/<name>.cubin. */
static void index_triton(const struct ct_knames *n, uint32_t pid, struct ct_kindex *x)
{
	char dir[4300], sub[4600], file[4900], root[4200];
	struct dirent *d, *e;
	DIR *top, *one;
	size_t skip = (size_t)snprintf(root, sizeof(root), "%s/%u/root", n->proc_root, pid);

	triton_dir(n, pid, dir, sizeof(dir));
	if (!dir[0] || !(top = opendir(dir)))
		return;
	while ((d = readdir(top))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name);
		if (!(one = opendir(sub)))
			continue;
		while ((e = readdir(one))) {
			size_t len = strlen(e->d_name);

			if (len > 6 && !strcmp(e->d_name + len - 6, ".cubin")) {
				snprintf(file, sizeof(file), "%s/%s", sub, e->d_name);
				index_cubin(x, file, skip);
			}
		}
		closedir(one);
	}
	closedir(top);
}

struct index_ctx {
	struct ct_knames *n;
	struct ct_kindex *x;
};

static void index_maps(void *ctx, const struct ct_codemaps *maps)
{
	struct index_ctx *c = ctx;

	for (size_t i = 0; i < maps->n; i++)
		index_file(c->n, c->x, &maps->v[i]);
}

/* The files pid maps now, and those it mapped when the reader thread last
 * read them (a process that exited right after its work has none now). */
static bool index_files(void *ctx, uint32_t pid, struct ct_kindex *x)
{
	struct ct_knames *n = ctx;
	struct ct_codemaps none = { 0 }, maps = { 0 };
	struct index_ctx c = { n, x };
	bool live = !ct_codemaps_read(n->proc_root, pid, &none, &maps) && maps.n, kept;

	index_maps(&c, &maps);
	ct_codemaps_free(&maps);
	kept = ct_kmaps_keep_use(n->keep, pid, index_maps, &c);
	if (!live && !kept)
		return false;
	index_triton(n, pid, x);
	return true;
}

/* pid's memory now. */
static bool read_live(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t len)
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

/* The namer's reads: copies' sources as the reader thread saw them. */
static bool read_copy(void *ctx, uint32_t pid, uint64_t src, uint64_t dst, uint64_t off,
		      void *buf, size_t len)
{
	struct ct_knames *n = ctx;

	return ct_copy_snaps_read(n->snaps, pid, src, dst, off, buf, len);
}

static void emit(void *ctx, const struct ct_rec *r)
{
	struct ct_knames *n = ctx;

	n->sink(n->ctx, r);
}

struct ct_knames *ct_knames_new(const char *proc_root, ct_knames_sink_fn sink, void *ctx)
{
	struct ct_knames *n = calloc(1, sizeof(*n));
	struct ct_knamer_io io = { index_files, read_copy, emit, n };

	if (!n)
		return NULL;
	n->proc_root = proc_root;
	n->sink = sink;
	n->ctx = ctx;
	ct_cache_dir(n->cache_dir, sizeof(n->cache_dir), "CUDATRACE_KERNEL_CACHE", "kernels");
	if (!(n->keep = ct_kmaps_keep_new(proc_root)) || !(n->k = ct_knamer_new(&io)) ||
	    !(n->snaps = ct_copy_snaps_new(read_live, n))) {
		ct_knamer_free(n->k);
		ct_kmaps_keep_free(n->keep);
		free(n);
		return NULL;
	}
	return n;
}

void ct_knames_free(struct ct_knames *n)
{
	if (!n)
		return;
	ct_knames_flush(n);
	ct_knamer_free(n->k);
	ct_kmaps_keep_free(n->keep);
	ct_copy_snaps_free(n->snaps);
	free(n);
}

void ct_knames_flush(struct ct_knames *n)
{
	if (ct_knamer_waiting(n->k) && n->nheld)
		n->held_out_unnamed++;
	ct_knamer_stop_waiting(n->k);
	for (size_t i = 0; i < n->nheld; i++) {
		n->sink(n->ctx, n->held[i]);
		free(n->held[i]);
	}
	free(n->held);
	n->held = NULL;
	n->nheld = n->held_bytes = 0;
}

/* A copy of r at the end of the held records; false if it cannot be. */
static bool hold(struct ct_knames *n, const struct ct_rec *r)
{
	struct ct_rec *copy;
	struct ct_rec **v;

	if (n->nheld == HOLD_RECORDS || n->held_bytes + r->size > HOLD_BYTES)
		return false;
	if (!(copy = malloc(r->size)) || !(v = realloc(n->held, (n->nheld + 1) * sizeof(*v)))) {
		free(copy);
		return false;
	}
	memcpy(copy, r, r->size);
	n->held = v;
	if (!n->nheld)
		n->held_since_ns = r->ts_ns;
	n->held[n->nheld++] = copy;
	n->held_bytes += r->size;
	n->holds += n->nheld == 1;
	return true;
}

/* Held long enough: the upload r's time is past is not coming soon. */
static bool expired(const struct ct_knames *n, const struct ct_rec *r)
{
	return r->ts_ns > n->held_since_ns && r->ts_ns - n->held_since_ns > HOLD_NS;
}

bool ct_knames_hold_other(struct ct_knames *n, const struct ct_rec *r)
{
	if (!n->nheld)
		return false;
	if (ct_knamer_waiting(n->k) && !expired(n, r) && hold(n, r))
		return true;
	ct_knames_flush(n);
	return false;
}

void ct_knames_gpu(struct ct_knames *n, const struct ct_rec *r)
{
	if (n->nheld && expired(n, r))
		ct_knames_flush(n);
	if (r->type == CT_REC_GPU_SEG)   /* its launches' names go out first */
		ct_knamer_seg(n->k, (const struct ct_gpu_seg *)r);
	if (!n->nheld && !ct_knamer_waiting(n->k)) {
		n->sink(n->ctx, r);
		return;
	}
	if (!hold(n, r)) {   /* full: what is held goes, this after it */
		ct_knames_flush(n);
		n->sink(n->ctx, r);
	} else if (!ct_knamer_waiting(n->k)) {
		ct_knames_flush(n);   /* the upload came: its name went before them */
	}
}

void ct_knames_learn(struct ct_knames *n, const struct ct_rec *r)
{
	if (r->type == CT_REC_PROC_EXIT && r->pid == r->tid) {
		ct_knamer_forget(n->k, r->pid);
		ct_kmaps_keep_forget(n->keep, r->pid);
		ct_copy_snaps_forget(n->snaps, r->pid);
	}
}

void ct_knames_watch(struct ct_knames *n, const struct ct_rec *r, uint64_t now_ns)
{
	ct_kmaps_keep_watch(n->keep, r, now_ns);
	if (r->type == CT_REC_PROC_EXIT && r->pid == r->tid)
		ct_copy_snaps_exited(n->snaps, r->pid);
}

void ct_knames_watch_gpu(struct ct_knames *n, const struct ct_rec *r)
{
	ct_copy_snaps_seg(n->snaps, r);
}

void ct_knames_report(const struct ct_knames *n)
{
	struct ct_copy_snaps_stats c = ct_copy_snaps_stats(n->snaps);

	ct_knamer_report(n->k);
	if (c.copies || c.unreadable || c.dropped)
		ct_err("kernel names: %llu copies' sources kept as they were read after the reader "
			"saw them (the first %u KiB of each: %.1f MiB in %.1f ms, the longest read "
			"%.2f ms), %llu not readable then (device memory), %llu not kept (the "
			"queue full); the namer's reads: %llu answered from them, %llu past them "
			"found unchanged, %llu found written since (refused), %llu of sources a later "
			"copy may have overwritten first (refused; %llu such); %llu kept copies "
			"pushed out unread\n",
			(unsigned long long)c.copies, CT_SNAP_BYTES >> 10, c.read_bytes / 1048576.0,
			c.read_ns / 1e6, c.read_max_ns / 1e6, (unsigned long long)c.unreadable,
			(unsigned long long)c.dropped, (unsigned long long)c.served,
			(unsigned long long)c.checked, (unsigned long long)c.stale,
			(unsigned long long)c.refused_overtaken, (unsigned long long)c.overtaken,
			(unsigned long long)c.evicted);
	if (n->holds)
		ct_err("kernel names: %llu times a launch was read before its upload (another "
			"channel, read later): its segments held until the upload came, %llu "
			"of them given up (the launch named after its line)\n",
			(unsigned long long)n->holds, (unsigned long long)n->held_out_unnamed);
	if (n->cache_read || n->cache_written || n->cache_failed)
		ct_err("kernel index cache %s: %llu files read from it, %llu "
			"written, %llu not written%s%s\n", n->cache_dir,
			(unsigned long long)n->cache_read, (unsigned long long)n->cache_written,
			(unsigned long long)n->cache_failed, n->cache_errno ? ": " : "",
			n->cache_errno ? strerror(n->cache_errno) : "");
}
