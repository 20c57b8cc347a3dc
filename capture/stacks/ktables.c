// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "idmap.h"
#include "ktables.h"

enum kt_state { KT_NEW, KT_QUEUED, KT_LOADED, KT_NONE };

struct kt_file {
	uint64_t dev, ino;
	uint32_t id;
	int state;               /* enum kt_state; the thread sets LOADED, NONE */
	int fd;                  /* a dup of the mapping's, for the thread; -1 after */
	uint64_t size;           /* the file's bytes: the smallest queued is built first */
	char name[CT_KT_NAME];   /* the path's last part, for the closing line */
	struct kt_file *next;    /* in the queue */
};

struct ct_ktables {
	int procs_fd, files_fd, gen_fd;
	uint32_t gen;            /* the tables' generation: the kernel's cached rules hold in it */
	struct ct_uw_row *rows;  /* uw_rows's memory */
	size_t rows_bytes;
	uint32_t next_id;
	struct idmap files;      /* file key -> struct kt_file (capture thread) */
	struct ct_uw_proc *procbuf;
	pthread_t thread;
	bool thread_up;
	pthread_mutex_t mu;      /* guards the queue, stop and st */
	pthread_cond_t cv;
	struct kt_file *head;    /* the queue, in no order: the smallest goes first */
	struct kt_file *building;   /* the file the thread builds now, or NULL */
	bool stop;               /* also read by the thread's build, unlocked */
	bool give_way;           /* a file smaller than building's waits (read unlocked) */
	struct ct_ktables_stats st;
};

static uint64_t file_key(uint64_t dev, uint64_t ino)
{
	return ino ^ (dev << 40) ^ (dev >> 24);
}

/* --- the table thread ------------------------------------------------------ */

/* Back in the queue, its fd kept: a smaller file went first. */
static void requeue(struct ct_ktables *kt, struct kt_file *f)
{
	pthread_mutex_lock(&kt->mu);
	f->next = kt->head;
	kt->head = f;
	kt->st.gave_way++;
	pthread_mutex_unlock(&kt->mu);
}

static void load(struct ct_ktables *kt, struct kt_file *f)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	struct ct_uw_file entry = { .first = CT_UW_FILE_NONE };
	struct ct_uw_rows r;
	enum ct_uw_rows_fail why;
	size_t room;

	pthread_mutex_lock(&kt->mu);
	room = kt->st.rows_max - kt->st.rows;
	pthread_mutex_unlock(&kt->mu);
	why = ct_uw_rows_build(f->fd, room, &kt->stop, &kt->give_way, &r);
	if (why == CT_UW_ROWS_GAVE_WAY) {
		pthread_mutex_lock(&kt->mu);
		kt->st.build_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_unlock(&kt->mu);
		requeue(kt, f);
		return;
	}
	close(f->fd);
	f->fd = -1;
	if (why == CT_UW_ROWS_OK && r.n) {
		/* Only this thread adds rows: the room measured stays. */
		entry.first = (uint32_t)(kt->st.rows_max - room);
		entry.n = (uint32_t)r.n;
		memcpy(kt->rows + entry.first, r.v, r.n * sizeof(*r.v));
	} else if (why == CT_UW_ROWS_OK) {
		why = CT_UW_ROWS_NO_HDR;
	}
	ct_uw_rows_free(&r);
	/* The rows are in place before the entry that points at them. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	bpf_map_update_elem(kt->files_fd, &f->id, &entry, BPF_ANY);
	pthread_mutex_lock(&kt->mu);
	if (entry.n) {
		kt->st.rows += entry.n;
		kt->st.loaded++;
	} else {
		kt->st.none[why]++;
	}
	kt->st.build_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
	pthread_mutex_unlock(&kt->mu);
	__atomic_store_n(&f->state, entry.n ? KT_LOADED : KT_NONE, __ATOMIC_RELEASE);
}

/* Takes the smallest queued file out of the queue (kt->mu held): one
 * large library (a GiB of libtorch_cuda.so, minutes to build) must not
 * hold back the tables of the small ones every stack passes through. */
static struct kt_file *take_smallest(struct ct_ktables *kt)
{
	struct kt_file **best = &kt->head, *f;

	for (struct kt_file **pp = &kt->head; *pp; pp = &(*pp)->next)
		if ((*pp)->size < (*best)->size)
			best = pp;
	f = *best;
	*best = f->next;
	f->next = NULL;
	return f;
}

static void *table_thread(void *arg)
{
	struct ct_ktables *kt = arg;

	for (;;) {
		struct kt_file *f;

		pthread_mutex_lock(&kt->mu);
		while (!kt->head && !kt->stop)
			pthread_cond_wait(&kt->cv, &kt->mu);
		if (kt->stop) {
			pthread_mutex_unlock(&kt->mu);
			return NULL;
		}
		f = kt->building = take_smallest(kt);
		__atomic_store_n(&kt->give_way, false, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&kt->mu);
		load(kt, f);
		pthread_mutex_lock(&kt->mu);
		kt->building = NULL;
		pthread_mutex_unlock(&kt->mu);
	}
}

/* --- files and processes (the capture's thread) ------------------------------ */

/* A process's mappings changed: the rules the kernel cached by pc go. */
static void next_generation(struct ct_ktables *kt)
{
	uint32_t zero = 0;

	kt->gen++;
	bpf_map_update_elem(kt->gen_fd, &zero, &kt->gen, BPF_ANY);
}

/* The file of m, given an id at first sight; NULL: no id to give. */
static struct kt_file *file_of(struct ct_ktables *kt, const struct ct_codemap *m)
{
	uint64_t key = file_key(m->dev, m->ino);
	struct kt_file *f = idmap_get(&kt->files, key);

	if (f)
		return f->dev == m->dev && f->ino == m->ino ? f : NULL;
	if (kt->next_id >= CT_UW_FILES_MAX || !(f = calloc(1, sizeof(*f))))
		return NULL;
	f->dev = m->dev;
	f->ino = m->ino;
	f->id = kt->next_id++;
	f->fd = -1;
	idmap_put(&kt->files, key, f);
	pthread_mutex_lock(&kt->mu);
	kt->st.files++;
	pthread_mutex_unlock(&kt->mu);
	return f;
}

void ct_ktables_want(struct ct_ktables *kt, const struct ct_codemap *m)
{
	const char *slash = m->path ? strrchr(m->path, '/') : NULL;
	struct kt_file *f;
	struct stat st;

	if (!kt || !m->is_elf || m->fd < 0 || !(f = file_of(kt, m)) || f->state != KT_NEW)
		return;
	f->fd = dup(m->fd);
	if (f->fd < 0)
		return;
	f->size = fstat(f->fd, &st) ? UINT64_MAX : (uint64_t)st.st_size;
	snprintf(f->name, sizeof(f->name), "%s", slash ? slash + 1 : m->path ? m->path : "?");
	f->state = KT_QUEUED;
	pthread_mutex_lock(&kt->mu);
	f->next = kt->head;
	kt->head = f;
	if (kt->building && f->size < kt->building->size)
		__atomic_store_n(&kt->give_way, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&kt->cv);
	pthread_mutex_unlock(&kt->mu);
}

static int by_start(const void *a, const void *b)
{
	const struct ct_uw_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void ct_ktables_proc(struct ct_ktables *kt, uint32_t pid, const struct ct_codemaps *maps)
{
	struct ct_uw_proc *p = kt ? kt->procbuf : NULL;
	uint32_t n = 0, kept = 0;

	if (!p)
		return;
	for (size_t i = 0; i < maps->n && n < CT_UW_MAPS_MAX; i++) {
		const struct ct_codemap *m = &maps->v[i];
		struct kt_file *f = m->is_elf && m->fd >= 0 ? file_of(kt, m) : NULL;

		p->maps[n++] = (struct ct_uw_map){ .start = m->start, .end = m->end,
						   .bias = m->bias,
						   .file = f ? f->id : CT_UW_FILE_NONE };
	}
	qsort(p->maps, n, sizeof(p->maps[0]), by_start);
	for (uint32_t i = 0; i < n; i++)   /* sorted, and none overlapping */
		if (!kept || p->maps[i].start >= p->maps[kept - 1].end)
			p->maps[kept++] = p->maps[i];
	p->n = kept;
	bpf_map_update_elem(kt->procs_fd, &pid, p, BPF_ANY);
	next_generation(kt);
	pthread_mutex_lock(&kt->mu);
	kt->st.procs++;
	kt->st.maps_cut += maps->n - kept;
	pthread_mutex_unlock(&kt->mu);
}

void ct_ktables_forget(struct ct_ktables *kt, uint32_t pid)
{
	if (kt && !bpf_map_delete_elem(kt->procs_fd, &pid))
		next_generation(kt);
}

struct ct_ktables_stats ct_ktables_stats(struct ct_ktables *kt)
{
	struct ct_ktables_stats st;

	pthread_mutex_lock(&kt->mu);
	st = kt->st;
	st.queued = 0;
	for (struct kt_file *f = kt->head; f; f = f->next)
		st.queued++;
	snprintf(st.building, sizeof(st.building), "%s", kt->building ? kt->building->name : "");
	pthread_mutex_unlock(&kt->mu);
	return st;
}

struct ct_ktables *ct_ktables_new(struct ct_uw_fds fds, uint32_t rows_max)
{
	struct ct_ktables *kt = calloc(1, sizeof(*kt));
	long page = sysconf(_SC_PAGESIZE);

	if (!kt)
		return NULL;
	kt->procs_fd = fds.procs;
	kt->files_fd = fds.files;
	kt->gen_fd = fds.gen;
	kt->next_id = 1;
	kt->st.rows_max = rows_max;
	kt->rows_bytes = ((size_t)rows_max * sizeof(struct ct_uw_row) + page - 1) & ~(size_t)(page - 1);
	kt->rows = mmap(NULL, kt->rows_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds.rows, 0);
	kt->procbuf = calloc(1, sizeof(*kt->procbuf));
	pthread_mutex_init(&kt->mu, NULL);
	pthread_cond_init(&kt->cv, NULL);
	if (kt->rows == MAP_FAILED || !kt->procbuf ||
	    pthread_create(&kt->thread, NULL, table_thread, kt)) {
		if (kt->rows == MAP_FAILED)
			kt->rows = NULL;
		ct_ktables_free(kt);
		return NULL;
	}
	kt->thread_up = true;
	return kt;
}

static void free_file(uint64_t key, void *val, void *ctx)
{
	struct kt_file *f = val;

	(void)key;
	(void)ctx;
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

void ct_ktables_free(struct ct_ktables *kt)
{
	if (!kt)
		return;
	if (kt->thread_up) {
		pthread_mutex_lock(&kt->mu);
		__atomic_store_n(&kt->stop, true, __ATOMIC_RELAXED);
		pthread_cond_signal(&kt->cv);
		pthread_mutex_unlock(&kt->mu);
		pthread_join(kt->thread, NULL);
	}
	idmap_drain(&kt->files, free_file, NULL);
	idmap_free(&kt->files);
	if (kt->rows)
		munmap(kt->rows, kt->rows_bytes);
	free(kt->procbuf);
	pthread_mutex_destroy(&kt->mu);
	pthread_cond_destroy(&kt->cv);
	free(kt);
}
