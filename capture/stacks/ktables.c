// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_folder.h"
#include "clock.h"
#include "idmap.h"
#include "ktables.h"
#include "msg.h"
#include "uw_asks.h"
#include "uw_kept.h"
#include "uw_lazy.h"
#include "uw_space.h"

/*
 * Files of at least this many bytes get lazy tables: only the FDEs stacks
 * pass through, asked for by the copies' unwinding.  A whole table costs
 * about 9,000 rows a MB of file (libLLVM-14, 110 MB: 977,169 rows, built
 * in 213-276 ms here; the GPU machine took 5.2 s for 2.6M rows), so a
 * 16 MiB file's is ~150,000 rows (4% of the array) and well under a
 * second even there, and saves the copies a lazy table makes on each new
 * path; the files every stack passes through on the GPU machine (XLA's,
 * libtorch_cuda.so: hundreds of MB to a GiB) took longer than a short
 * program ran, or overflowed the rows.  CT_KT_LAZY_MIN (bytes) changes
 * it, for tests.
 */
#define CT_KT_LAZY_BYTES (16ull << 20)
#define CT_KT_LAZY_ENV   "CT_KT_LAZY_MIN"
#define CT_KT_ROWS_ENV   "CT_KT_ROWS"   /* fewer rows than the array's, for tests */

enum kt_state { KT_NEW, KT_QUEUED, KT_LOADED, KT_NONE, KT_LAZY };

struct kt_file {
	uint64_t dev, ino;
	uint32_t id;
	int state;               /* enum kt_state; the thread sets LOADED, NONE */
	int fd;                  /* a dup of the mapping's, for the thread; -1 after */
	uint64_t size;           /* the file's bytes: the smallest queued is built first */
	char name[CT_KT_NAME];   /* the path's last part, for the closing line */
	char cache_id[CT_CODEMAP_ID_MAX];   /* its name in the cache folder; "" none */
	bool kept_asked;         /* the last capture's asks looked for (ct_ktables_proc) */
	bool kept_tried;         /* the last capture's table looked for (the thread's) */
	struct kt_file *next;    /* in the queue */
	/* Lazy (KT_LAZY): the ELF addresses asked for and not yet taken by the
	 * thread (kt->mu), those asked ever (the capture thread's, to ask once),
	 * the table (the thread's) and its run's size in uw_rows. */
	uint64_t *asks;
	size_t nasks, capasks;
	struct idmap asked;
	struct kt_file *next_lazy;   /* in kt->lazy, while asks wait */
	bool in_lazy;
	struct ct_uw_lazy *lz;
	uint32_t run_first, run_n;   /* its run in uw_rows */
	uint32_t reg_first, reg_n;   /* the rows kept for its runs (run_where) */
};

struct ct_ktables {
	int procs_fd, files_fd, gen_fd;
	struct ct_uw_file *entries;   /* uw_files's memory: each entry stored as one word */
	uint64_t lazy_min;       /* files of at least this many bytes are lazy */
	uint32_t gen;            /* the tables' generation: the kernel's cached rules hold in it */
	struct ct_uw_row *rows;  /* uw_rows's memory */
	struct ct_uw_space space;   /* where rows go (the thread's) */
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
	struct kt_file *lazy;    /* lazy files with asks waiting: all taken at once, first */
	bool stop;               /* also read by the thread's build, unlocked */
	bool give_way;           /* a file smaller than building's waits (read unlocked) */
	char cache_dir[4096];    /* where asks and tables are kept across captures; "" nowhere */
	int keep_err;            /* the last table not kept's -errno (kt->mu) */
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

/* The rows' counts from the space (kt->mu held). */
static void space_stats(struct ct_ktables *kt)
{
	kt->st.rows = kt->space.end - kt->space.spare;
	kt->st.rows_spare = kt->space.spare;
	kt->st.graces = kt->space.graces;
}

/* File id's entry, one 8-byte store after its rows: the kernel reads it
 * as one word, so it never sees one run's start with another's length. */
static void set_entry(struct ct_ktables *kt, uint32_t id, struct ct_uw_file e)
{
	uint64_t word;

	memcpy(&word, &e, sizeof(word));
	__atomic_store_n((uint64_t *)&kt->entries[id], word, __ATOMIC_RELEASE);
}

/* The outcome of keeping a table for the next capture, counted. */
static void count_kept(struct ct_ktables *kt, int err)
{
	pthread_mutex_lock(&kt->mu);
	if (err) {
		kt->st.tables_keep_failed++;
		kt->keep_err = err;
	} else {
		kt->st.tables_kept++;
	}
	pthread_mutex_unlock(&kt->mu);
}

/* File f's whole table, at most max rows: the one the last capture kept
 * (uw_kept.h), else built, and then kept for the next. */
static enum ct_uw_rows_fail whole_rows(struct ct_ktables *kt, struct kt_file *f, size_t max,
				       struct ct_uw_rows *r)
{
	bool keeps = kt->cache_dir[0] && f->cache_id[0];
	enum ct_uw_rows_fail why;
	int err = -ENOENT;

	if (keeps && !f->kept_tried)   /* once: a build that gave way comes back here */
		err = ct_uw_kept_load(kt->cache_dir, f->cache_id, max, r);
	f->kept_tried = true;

	if (!err) {
		pthread_mutex_lock(&kt->mu);
		kt->st.tables_read++;
		kt->st.tables_read_rows += r->n;
		pthread_mutex_unlock(&kt->mu);
		return CT_UW_ROWS_OK;
	}
	if (err == -EINVAL) {   /* another build's, or damaged: made again, kept anew */
		pthread_mutex_lock(&kt->mu);
		kt->st.tables_refused++;
		pthread_mutex_unlock(&kt->mu);
	}
	why = ct_uw_rows_build(f->fd, max, &kt->stop, &kt->give_way, r);
	if (keeps && why == CT_UW_ROWS_OK && r->n)
		count_kept(kt, ct_uw_kept_save(kt->cache_dir, f->cache_id, r));
	return why;
}

static void load(struct ct_ktables *kt, struct kt_file *f)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	struct ct_uw_file entry = { .first = CT_UW_FILE_NONE };
	struct ct_uw_rows r;
	enum ct_uw_rows_fail why;
	uint32_t first;

	why = whole_rows(kt, f, ct_uw_space_tail(&kt->space), &r);
	if (why == CT_UW_ROWS_GAVE_WAY) {
		pthread_mutex_lock(&kt->mu);
		kt->st.build_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
		pthread_mutex_unlock(&kt->mu);
		requeue(kt, f);
		return;
	}
	close(f->fd);
	f->fd = -1;
	if (why == CT_UW_ROWS_OK && r.n && ct_uw_space_take(&kt->space, (uint32_t)r.n, &first)) {
		entry.first = first;
		entry.n = (uint32_t)r.n;
		memcpy(kt->rows + entry.first, r.v, r.n * sizeof(*r.v));
	} else if (why == CT_UW_ROWS_OK) {
		why = CT_UW_ROWS_NO_HDR;
	}
	ct_uw_rows_free(&r);
	set_entry(kt, f->id, entry);
	pthread_mutex_lock(&kt->mu);
	if (entry.n) {
		space_stats(kt);
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

/* A lazy file's first asks: its FDE table opened, or none to be had. */
static bool lazy_open(struct ct_ktables *kt, struct kt_file *f)
{
	enum ct_uw_rows_fail why;

	if (f->lz || f->fd < 0)
		return f->lz != NULL;
	f->lz = ct_uw_lazy_open(f->fd, &why);
	if (f->lz)
		return true;
	close(f->fd);
	f->fd = -1;
	set_entry(kt, f->id, (struct ct_uw_file){ .first = CT_UW_FILE_NONE });
	pthread_mutex_lock(&kt->mu);
	kt->st.none[why]++;
	pthread_mutex_unlock(&kt->mu);
	__atomic_store_n(&f->state, KT_NONE, __ATOMIC_RELEASE);
	return false;
}

/*
 * The FDEs asked for built, and the file's new run written where
 * uw_space.h gives room (never over rows the kernel may be reading), then
 * its entry moved to it and the old run given back.  The kernel caches
 * no CT_UW_NOT_BUILT (a copy is no rule), and an FDE's rows are the same
 * in every run, so the rules it cached hold: the generation stays.
 */
/* Rows kept for a lazy file's first run, at the least. */
#define KT_LAZY_REGION_MIN 256

/*
 * Where a lazy file's new run of n rows goes: after its run now, in the
 * rows kept for it; else in new rows kept, twice as many as before (or
 * as n), its old ones given back whole (to be reused after a grace
 * period: uw_space.h) once its entry has moved.  One file's runs lie
 * together, so what it gives back is one piece, and it takes new rows
 * O(log) times.  false: no rows to be had.
 */
static bool run_where(struct ct_ktables *kt, struct kt_file *f, uint32_t n, uint32_t *first,
		      struct uw_span *old)
{
	uint64_t end = (uint64_t)f->run_first + f->run_n, want;
	uint32_t at;

	*old = (struct uw_span){ 0, 0 };
	if (f->reg_n && end + n <= (uint64_t)f->reg_first + f->reg_n) {
		*first = (uint32_t)end;
		return true;
	}
	want = 2 * (uint64_t)(n > f->reg_n ? n : f->reg_n);
	if (want < KT_LAZY_REGION_MIN)
		want = KT_LAZY_REGION_MIN;
	if (want > UINT32_MAX || !ct_uw_space_take(&kt->space, (uint32_t)want, &at)) {
		want = n;   /* short of rows: just the run */
		if (!ct_uw_space_take(&kt->space, n, &at))
			return false;
	}
	*old = (struct uw_span){ f->reg_first, f->reg_n };
	f->reg_first = *first = at;
	f->reg_n = (uint32_t)want;
	return true;
}

static void lazy_serve(struct ct_ktables *kt, struct kt_file *f, uint64_t *asks, size_t n)
{
	uint64_t t0 = ct_now_ns(CLOCK_MONOTONIC);
	const struct ct_uw_rows *run;
	struct uw_span old;
	size_t added;
	uint32_t first;

	if (!lazy_open(kt, f) || !(added = ct_uw_lazy_add(f->lz, asks, n)))
		return;
	run = ct_uw_lazy_run(f->lz);
	if (!run || run->n > UINT32_MAX || !run_where(kt, f, (uint32_t)run->n, &first, &old)) {
		pthread_mutex_lock(&kt->mu);
		space_stats(kt);
		kt->st.lazy_full += added;
		pthread_mutex_unlock(&kt->mu);
		return;
	}
	memcpy(kt->rows + first, run->v, run->n * sizeof(*run->v));
	set_entry(kt, f->id, (struct ct_uw_file){ .first = first, .n = (uint32_t)run->n });
	ct_uw_space_give(&kt->space, old.first, old.n);
	pthread_mutex_lock(&kt->mu);
	space_stats(kt);
	kt->st.rows_old += f->run_n;
	kt->st.loaded += !f->run_n;
	kt->st.lazy_fdes += added;
	kt->st.lazy_runs++;
	kt->st.build_ns += ct_now_ns(CLOCK_MONOTONIC) - t0;
	pthread_mutex_unlock(&kt->mu);
	f->run_first = first;
	f->run_n = (uint32_t)run->n;
}

/* Every lazy file's asks waiting, taken at once (kt->mu held, dropped
 * while building): a stack's frames ask for several FDEs together. */
static void lazy_batch(struct ct_ktables *kt)
{
	while (kt->lazy) {
		struct kt_file *f = kt->lazy;
		uint64_t *asks = f->asks;
		size_t n = f->nasks;

		kt->lazy = f->next_lazy;
		f->in_lazy = false;
		f->asks = NULL;
		f->nasks = f->capasks = 0;
		pthread_mutex_unlock(&kt->mu);
		lazy_serve(kt, f, asks, n);
		free(asks);
		pthread_mutex_lock(&kt->mu);
	}
}

static void *table_thread(void *arg)
{
	struct ct_ktables *kt = arg;

	for (;;) {
		struct kt_file *f;

		pthread_mutex_lock(&kt->mu);
		while (!kt->head && !kt->lazy && !kt->stop)
			pthread_cond_wait(&kt->cv, &kt->mu);
		if (kt->stop) {
			pthread_mutex_unlock(&kt->mu);
			return NULL;
		}
		/* A few FDEs: before the next whole file, not in the middle of
		 * one (a whole file is under CT_KT_LAZY_BYTES: it ends soon; a
		 * build given way starts again, and asks keep coming while a
		 * program finds new paths). */
		if (kt->lazy) {
			lazy_batch(kt);
			pthread_mutex_unlock(&kt->mu);
			continue;
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
	if (kt->cache_dir[0])
		ct_codemap_file_id(m, f->cache_id);
	idmap_put(&kt->files, key, f);
	pthread_mutex_lock(&kt->mu);
	kt->st.files++;
	pthread_mutex_unlock(&kt->mu);
	return f;
}

/* A lazy file's FDE at ELF address addr asked for, once. */
static void lazy_ask(struct ct_ktables *kt, struct kt_file *f, uint64_t addr)
{
	bool added = true;

	if (idmap_get(&f->asked, addr + 1))
		return;
	idmap_put(&f->asked, addr + 1, f);
	pthread_mutex_lock(&kt->mu);
	if (f->nasks == f->capasks) {
		size_t cap = f->capasks ? f->capasks * 2 : 16;
		uint64_t *v = realloc(f->asks, cap * sizeof(*v));

		if (v) {
			f->asks = v;
			f->capasks = cap;
		}
	}
	if (f->nasks < f->capasks)
		f->asks[f->nasks++] = addr;
	else
		added = false;
	if (added && !f->in_lazy) {
		f->in_lazy = true;
		f->next_lazy = kt->lazy;
		kt->lazy = f;
	}
	pthread_cond_signal(&kt->cv);
	pthread_mutex_unlock(&kt->mu);
	if (!added)
		idmap_del(&f->asked, addr + 1);
}

/* A file first wanted (KT_NEW): lazy, or queued for its whole table.
 * Left KT_NEW where its fd cannot be had. */
static void first_sight(struct ct_ktables *kt, struct kt_file *f, const struct ct_codemap *m)
{
	const char *slash = m->path ? strrchr(m->path, '/') : NULL;
	struct stat st;

	f->fd = dup(m->fd);
	if (f->fd < 0)
		return;
	f->size = fstat(f->fd, &st) ? UINT64_MAX : (uint64_t)st.st_size;
	snprintf(f->name, sizeof(f->name), "%s", slash ? slash + 1 : m->path ? m->path : "?");
	if (f->size >= kt->lazy_min && f->size != UINT64_MAX) {
		f->state = KT_LAZY;
		pthread_mutex_lock(&kt->mu);
		kt->st.lazy++;
		pthread_mutex_unlock(&kt->mu);
		return;
	}
	f->state = KT_QUEUED;
	pthread_mutex_lock(&kt->mu);
	f->next = kt->head;
	kt->head = f;
	if (kt->building && f->size < kt->building->size)
		__atomic_store_n(&kt->give_way, true, __ATOMIC_RELAXED);
	pthread_cond_signal(&kt->cv);
	pthread_mutex_unlock(&kt->mu);
}

void ct_ktables_want(struct ct_ktables *kt, const struct ct_codemap *m, uint64_t pc)
{
	struct kt_file *f;

	if (!kt || !m->is_elf || m->fd < 0 || !(f = file_of(kt, m)))
		return;
	if (f->state == KT_NEW)
		first_sight(kt, f, m);
	if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == KT_LAZY)
		lazy_ask(kt, f, pc - m->bias);
}

/* What the last capture wanted of m's file, asked for now, before this
 * one's stacks ask (once a file a capture). */
static void ask_as_kept(struct ct_ktables *kt, struct kt_file *f, const struct ct_codemap *m)
{
	struct ct_uw_asks a;

	if (f->kept_asked || !f->cache_id[0])
		return;
	f->kept_asked = true;
	if (ct_uw_asks_load(kt->cache_dir, f->cache_id, &a))
		return;
	if (f->state == KT_NEW)
		first_sight(kt, f, m);
	for (size_t i = 0; i < a.n && __atomic_load_n(&f->state, __ATOMIC_ACQUIRE) == KT_LAZY; i++)
		lazy_ask(kt, f, a.addrs[i]);
	pthread_mutex_lock(&kt->mu);
	kt->st.kept_files++;
	kt->st.kept_fdes += f->state == KT_LAZY ? a.n : 0;
	pthread_mutex_unlock(&kt->mu);
	ct_uw_asks_free(&a);
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

		if (f)
			ask_as_kept(kt, f, m);
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

/* The size from which files are lazy: CT_KT_LAZY_MIN's, where it is a number. */
static uint64_t lazy_min(void)
{
	const char *v = getenv(CT_KT_LAZY_ENV);
	char *end;
	uint64_t n;

	if (!v || !*v)
		return CT_KT_LAZY_BYTES;
	n = strtoull(v, &end, 10);
	return *end ? CT_KT_LAZY_BYTES : n;
}

/* uw_files's memory, whole pages. */
static size_t files_bytes(long page)
{
	return (CT_UW_FILES_MAX * sizeof(struct ct_uw_file) + page - 1) & ~(size_t)(page - 1);
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
	if (getenv(CT_KT_ROWS_ENV) && strtoul(getenv(CT_KT_ROWS_ENV), NULL, 10) < rows_max)
		rows_max = (uint32_t)strtoul(getenv(CT_KT_ROWS_ENV), NULL, 10);
	kt->st.rows_max = rows_max;
	ct_uw_space_init(&kt->space, rows_max);
	kt->lazy_min = lazy_min();
	ct_codemap_cache_dir(kt->cache_dir, sizeof(kt->cache_dir));
	kt->rows_bytes = ((size_t)rows_max * sizeof(struct ct_uw_row) + page - 1) & ~(size_t)(page - 1);
	kt->rows = mmap(NULL, kt->rows_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fds.rows, 0);
	kt->entries = mmap(NULL, files_bytes(page), PROT_READ | PROT_WRITE, MAP_SHARED, fds.files, 0);
	kt->procbuf = calloc(1, sizeof(*kt->procbuf));
	pthread_mutex_init(&kt->mu, NULL);
	pthread_cond_init(&kt->cv, NULL);
	if (kt->rows == MAP_FAILED || kt->entries == MAP_FAILED || !kt->procbuf ||
	    pthread_create(&kt->thread, NULL, table_thread, kt)) {
		if (kt->rows == MAP_FAILED)
			kt->rows = NULL;
		if (kt->entries == MAP_FAILED)
			kt->entries = NULL;
		ct_ktables_free(kt);
		return NULL;
	}
	kt->thread_up = true;
	return kt;
}

/* The asks being kept: files kept, those that could not be, and why. */
struct keeping {
	const char *dir;
	uint64_t kept, failed;
	int err;
};

static void collect_asked(uint64_t key, void *val, void *ctx)
{
	struct ct_uw_asks *a = ctx;

	(void)val;
	if (a->n < CT_UW_ASKS_MAX)   /* a file keeps no more: the rest are asked again */
		a->addrs[a->n++] = key - 1;   /* lazy_ask's key: the address + 1 */
}

/* File f's asks kept (a file whose stacks wanted a table: whole, or the
 * lazy FDEs they asked for). */
static void keep_asks(uint64_t key, void *val, void *ctx)
{
	struct kt_file *f = val;
	struct keeping *k = ctx;
	struct ct_uw_asks a = { .whole = f->state != KT_LAZY };
	size_t room = f->asked.used < CT_UW_ASKS_MAX ? f->asked.used : CT_UW_ASKS_MAX;
	int err;

	(void)key;
	if (!f->cache_id[0] || f->state == KT_NEW || f->state == KT_NONE)
		return;
	if (!a.whole && !(a.addrs = malloc((room ? room : 1) * sizeof(*a.addrs))))
		err = -ENOMEM;
	else {
		if (!a.whole)
			idmap_each(&f->asked, collect_asked, &a);
		err = ct_uw_asks_save(k->dir, f->cache_id, &a);
	}
	free(a.addrs);
	if (!err) {
		k->kept++;
		return;
	}
	k->failed++;
	k->err = err;
}

/* The least recently used asks go past this (a few KB a file). */
#define KT_ASKS_BOUND (64ull << 20)

static void keep_all_asks(struct ct_ktables *kt)
{
	struct keeping k = { .dir = kt->cache_dir };

	if (!kt->cache_dir[0])
		return;
	idmap_each(&kt->files, keep_asks, &k);
	if (k.failed)
		ct_err("-k: the unwind tables' asks of %llu files not kept in %s (%s); the next "
		       "capture builds them as its stacks ask (set CUDATRACE_SYMBOL_CACHE to a "
		       "writable folder, or off)\n", (unsigned long long)k.failed, kt->cache_dir,
		       strerror(-k.err));
	if (k.kept)
		ct_cache_bound(kt->cache_dir, CT_UW_ASKS_SUFFIX, KT_ASKS_BOUND);
}

/* The least recently used tables go past this (JAX's seven whole tables: 1 MB). */
#define KT_TABLES_BOUND (256ull << 20)

/* After the thread: the tables kept this capture held to the bound, and
 * those that could not be kept said. */
static void bound_kept_tables(struct ct_ktables *kt)
{
	if (kt->st.tables_keep_failed)
		ct_err("-k: the unwind tables of %llu files not kept in %s (%s); the next capture "
		       "builds them again (set CUDATRACE_SYMBOL_CACHE to a writable folder, or "
		       "off)\n", (unsigned long long)kt->st.tables_keep_failed, kt->cache_dir,
		       strerror(-kt->keep_err));
	if (kt->st.tables_kept)
		ct_cache_bound(kt->cache_dir, CT_UW_KEPT_SUFFIX, KT_TABLES_BOUND);
}

static void free_file(uint64_t key, void *val, void *ctx)
{
	struct kt_file *f = val;

	(void)key;
	(void)ctx;
	if (f->fd >= 0)
		close(f->fd);
	ct_uw_lazy_close(f->lz);
	idmap_free(&f->asked);
	free(f->asks);
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
		keep_all_asks(kt);
		bound_kept_tables(kt);
	}
	idmap_drain(&kt->files, free_file, NULL);
	idmap_free(&kt->files);
	if (kt->rows)
		munmap(kt->rows, kt->rows_bytes);
	if (kt->entries)
		munmap(kt->entries, files_bytes(sysconf(_SC_PAGESIZE)));
	free(kt->procbuf);
	ct_uw_space_free(&kt->space);
	pthread_mutex_destroy(&kt->mu);
	pthread_cond_destroy(&kt->cv);
	free(kt);
}
