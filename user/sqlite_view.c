// SPDX-License-Identifier: MIT
/*
 * The SQLite view.  Rows go through prepared statements inside one
 * transaction per batch (CT_SQLITE_BATCH rows, or a second of a live
 * capture), so a capture costs one fsync per batch, not per row.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sqlite3.h>

#include "nvfacts.h"
#include "call_name.h"
#include "devmem.h"
#include "meta.h"
#include "nvtables.h"
#include "record.h"
#include "sqlite_view.h"
#include "labels.h"

#define CT_SQLITE_BATCH 50000

static const char schema[] =
	"CREATE TABLE IF NOT EXISTS traces(id INTEGER PRIMARY KEY, host TEXT, driver TEXT,"
	" kernel TEXT, producer TEXT, options TEXT, start_realtime_ns INTEGER,"
	" start_monotonic_ns INTEGER, added_at TEXT);"
	"CREATE TABLE IF NOT EXISTS header(trace_id INTEGER, host TEXT, key TEXT, value TEXT);"
	"CREATE TABLE IF NOT EXISTS calls(trace_id INTEGER, host TEXT, ts_ns INTEGER,"
	" pid INTEGER, tid INTEGER, comm TEXT, syscall TEXT, name TEXT, \"escape\" TEXT,"
	" request INTEGER, ctrl INTEGER, class INTEGER, status INTEGER, status_name TEXT,"
	" ret INTEGER, failed INTEGER, finished INTEGER, dur_ns INTEGER, gpu INTEGER,"
	" path TEXT, api TEXT, caller TEXT);"
	"CREATE TABLE IF NOT EXISTS processes(trace_id INTEGER, host TEXT, ts_ns INTEGER,"
	" pid INTEGER, ppid INTEGER, source TEXT, comm TEXT, argv TEXT, exit_ns INTEGER);"
	"CREATE TABLE IF NOT EXISTS objects(trace_id INTEGER, host TEXT, ts_ns INTEGER,"
	" pid INTEGER, client INTEGER, handle INTEGER, parent INTEGER, class INTEGER,"
	" class_name TEXT, gpu INTEGER, size INTEGER, kind TEXT, freed_ns INTEGER);"
	"CREATE TABLE IF NOT EXISTS mmaps(trace_id INTEGER, host TEXT, ts_ns INTEGER,"
	" pid INTEGER, tid INTEGER, comm TEXT, addr INTEGER, len INTEGER, prot INTEGER,"
	" flags INTEGER, \"offset\" INTEGER, ret INTEGER, dur_ns INTEGER, gpu INTEGER, path TEXT);"
	"CREATE INDEX IF NOT EXISTS objects_handle ON objects(trace_id, client, handle);"
	"CREATE INDEX IF NOT EXISTS processes_pid ON processes(trace_id, pid);";

enum stmt { S_TRACE, S_HEADER, S_CALL, S_PROC, S_EXIT, S_OBJ, S_FREE, S_MMAP, S_MAX };

static const char *const sql[S_MAX] = {
	[S_TRACE] = "INSERT INTO traces(host, driver, kernel, producer, options,"
		    " start_realtime_ns, start_monotonic_ns, added_at)"
		    " VALUES(?, ?, ?, ?, ?, ?, ?, datetime('now'))",
	[S_HEADER] = "INSERT INTO header VALUES(?, ?, ?, ?)",
	[S_CALL] = "INSERT INTO calls VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		   " ?, ?, ?, ?, NULL, NULL)",
	[S_PROC] = "INSERT INTO processes VALUES(?, ?, ?, ?, ?, ?, ?, ?, NULL)",
	[S_EXIT] = "UPDATE processes SET exit_ns = ? WHERE trace_id = ? AND pid = ?"
		   " AND exit_ns IS NULL",
	[S_OBJ] = "INSERT INTO objects VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
	[S_FREE] = "UPDATE objects SET freed_ns = ? WHERE trace_id = ? AND client = ?"
		   " AND handle = ? AND freed_ns IS NULL",
	[S_MMAP] = "INSERT INTO mmaps VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};

struct ct_sqlite {
	sqlite3 *db;
	char *path;
	char host[256];
	bool host_fixed;          /* given on the command line */
	sqlite3_stmt *st[S_MAX];
	sqlite3_int64 trace_id;   /* 0 until the header (or the first row) */
	uint64_t rows;            /* in the open transaction */
	uint64_t batch_start_ns;
	bool in_tx, failed;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void db_error(struct ct_sqlite *s, const char *what)
{
	if (!s->failed)
		fprintf(stderr, "cudatrace: --sqlite %s: %s: %s\n", s->path, what,
			sqlite3_errmsg(s->db));
	s->failed = true;
}

static bool exec(struct ct_sqlite *s, const char *q)
{
	char what[40];

	if (sqlite3_exec(s->db, q, NULL, NULL, NULL) == SQLITE_OK)
		return true;
	snprintf(what, sizeof(what), "%.24s%s", q, strlen(q) > 24 ? "..." : "");
	db_error(s, what);
	return false;
}

int ct_sqlite_close(struct ct_sqlite *s)
{
	int i, rc;

	if (!s)
		return 0;
	if (s->in_tx && !s->failed)
		exec(s, "COMMIT");
	for (i = 0; i < S_MAX; i++)
		sqlite3_finalize(s->st[i]);
	if (sqlite3_close(s->db) != SQLITE_OK)
		db_error(s, "close");
	rc = s->failed ? -1 : 0;
	free(s->path);
	free(s);
	return rc;
}

struct ct_sqlite *ct_sqlite_open(const char *path, const char *host)
{
	struct ct_sqlite *s = calloc(1, sizeof(*s));
	int i;

	if (!s || !(s->path = strdup(path))) {
		free(s);
		fprintf(stderr, "cudatrace: out of memory\n");
		return NULL;
	}
	if (host) {
		snprintf(s->host, sizeof(s->host), "%s", host);
		s->host_fixed = true;
	}
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		db_error(s, "cannot open it (a directory that exists, a file SQLite can write?)");
		ct_sqlite_close(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, 5000);   /* another cudatrace appending */
	if (!exec(s, "PRAGMA synchronous=NORMAL") || !exec(s, schema))
		goto fail;
	for (i = 0; i < S_MAX; i++)
		if (sqlite3_prepare_v2(s->db, sql[i], -1, &s->st[i], NULL) != SQLITE_OK) {
			db_error(s, sql[i]);
			goto fail;
		}
	return s;
fail:
	fprintf(stderr, "cudatrace: is %s an SQLite database of this cudatrace?\n", path);
	ct_sqlite_close(s);
	return NULL;
}

/* --- rows ------------------------------------------------------------------ */

/* Opens the batch's transaction; commits it when it is full or old. */
static void batch(struct ct_sqlite *s)
{
	uint64_t now = mono_ns();

	if (s->in_tx && (s->rows >= CT_SQLITE_BATCH || now - s->batch_start_ns > 1000000000ull)) {
		exec(s, "COMMIT");
		s->in_tx = false;
	}
	if (!s->in_tx && exec(s, "BEGIN")) {
		s->in_tx = true;
		s->rows = 0;
		s->batch_start_ns = now;
	}
	s->rows++;
}

static void step(struct ct_sqlite *s, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		db_error(s, "writing a row failed");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* A trace without a header still gets its traces row, at its first row. */
static void ensure_trace(struct ct_sqlite *s)
{
	if (s->trace_id || s->failed)
		return;
	batch(s);
	if (s->host[0])
		sqlite3_bind_text(s->st[S_TRACE], 1, s->host, -1, SQLITE_TRANSIENT);
	step(s, s->st[S_TRACE]);
	s->trace_id = sqlite3_last_insert_rowid(s->db);
}

/* Binds trace_id and host at 1 and 2. */
static sqlite3_stmt *row(struct ct_sqlite *s, enum stmt k)
{
	sqlite3_stmt *st = s->st[k];

	ensure_trace(s);
	batch(s);
	sqlite3_bind_int64(st, 1, s->trace_id);
	if (s->host[0])
		sqlite3_bind_text(st, 2, s->host, -1, SQLITE_TRANSIENT);
	return st;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* --- the header ------------------------------------------------------------ */

/* Header values that get a column of their own in traces (bound there at
 * 2..7; 1 is host). */
static const char *const trace_cols[] = {
	"driver", "kernel", "producer", "options", "start_realtime_ns", "start_monotonic_ns",
};
#define N_TRACE_COLS (sizeof(trace_cols) / sizeof(trace_cols[0]))

struct meta_ctx {
	struct ct_sqlite *s;
	char *vals[N_TRACE_COLS];
};

static void meta_collect(const char *key, const char *val, void *ctx)
{
	struct meta_ctx *m = ctx;
	size_t i;

	if (strcmp(key, "host") == 0 && !m->s->host_fixed)
		snprintf(m->s->host, sizeof(m->s->host), "%s", val);
	for (i = 0; i < N_TRACE_COLS; i++)
		if (strcmp(key, trace_cols[i]) == 0 && !m->vals[i])
			m->vals[i] = strdup(val);
}

static void meta_row(const char *key, const char *val, void *ctx)
{
	struct ct_sqlite *s = ctx;
	sqlite3_stmt *st = row(s, S_HEADER);

	bind_str(st, 3, key);
	bind_str(st, 4, val);
	step(s, st);
}

/* Each header starts a trace (a new traces.id). */
static void on_meta(struct ct_sqlite *s, const struct ct_rec *r)
{
	struct meta_ctx m = { .s = s };
	sqlite3_stmt *st = s->st[S_TRACE];
	size_t i;

	ct_meta_foreach(r, meta_collect, &m);
	batch(s);
	bind_str(st, 1, s->host[0] ? s->host : NULL);
	for (i = 0; i < N_TRACE_COLS; i++) {
		if (m.vals[i] && strstr(trace_cols[i], "_ns"))
			bind_u64(st, (int)i + 2, strtoull(m.vals[i], NULL, 10));
		else
			bind_str(st, (int)i + 2, m.vals[i]);
		free(m.vals[i]);
	}
	step(s, st);
	s->trace_id = sqlite3_last_insert_rowid(s->db);
	ct_meta_foreach(r, meta_row, s);
}

/* --- records and calls ----------------------------------------------------- */

static const char *const proc_sources[] = { "?", "exec", "attach", "seen" };

static void on_proc(struct ct_sqlite *s, const struct ct_proc *p)
{
	sqlite3_stmt *st = row(s, S_PROC);
	char *argv = malloc(p->argv_size + 1);
	uint32_t i;

	bind_u64(st, 3, p->h.ts_ns);
	bind_u64(st, 4, p->h.pid);
	bind_u64(st, 5, p->ppid);
	bind_str(st, 6, proc_sources[p->source < 4 ? p->source : 0]);
	sqlite3_bind_text(st, 7, p->comm, (int)strnlen(p->comm, CT_COMM_LEN), SQLITE_TRANSIENT);
	if (argv) {   /* NUL-separated: one line, blank-separated */
		memcpy(argv, p + 1, p->argv_size);
		for (i = 0; i < p->argv_size; i++)
			argv[i] = argv[i] ? argv[i] : ' ';
		while (i > 0 && argv[i - 1] == ' ')
			i--;
		argv[i] = 0;
		bind_str(st, 8, argv);
		free(argv);
	}
	step(s, st);
}

static void on_exit_rec(struct ct_sqlite *s, const struct ct_rec *r)
{
	sqlite3_stmt *st = s->st[S_EXIT];

	ensure_trace(s);
	batch(s);
	bind_u64(st, 1, r->ts_ns);
	sqlite3_bind_int64(st, 2, s->trace_id);
	bind_u64(st, 3, r->pid);
	step(s, st);
}

static void view_record(void *ctx, const struct ct_rec *r)
{
	struct ct_sqlite *s = ctx;

	if (s->failed)
		return;
	switch (r->type) {
	case CT_REC_META:
		on_meta(s, r);
		break;
	case CT_REC_PROC:
		on_proc(s, (const struct ct_proc *)r);
		break;
	case CT_REC_PROC_EXIT:
		on_exit_rec(s, r);
		break;
	}
}

/* RM objects: a row per creation; RM_FREE stamps freed_ns on the handle
 * it names (objects under it are freed too, but keep freed_ns NULL). */
static void on_object(struct ct_sqlite *s, const struct ct_call *c)
{
	const struct ct_layout *l = c->layout;
	const unsigned char *arg = ct_ioctl_arg(c->ex);
	uint32_t len = c->ex->arg_size;
	uint64_t client, h, parent, cls, size;
	const struct nv_class_info *ci;
	enum ct_mem_kind kind;
	sqlite3_stmt *st;

	if (!ct_read_u64(l, arg, len, "hRoot", &client))
		return;
	if (c->esc_nr == NV_ESC_RM_FREE) {
		if (!ct_read_u64(l, arg, len, "hObjectOld", &h))
			return;
		st = s->st[S_FREE];
		batch(s);
		bind_u64(st, 1, c->ts_ns + c->duration_ns);
		sqlite3_bind_int64(st, 2, s->trace_id);
		bind_u64(st, 3, client);
		bind_u64(st, 4, h);
		step(s, st);
		return;
	}
	if (!ct_read_u64(l, arg, len, "hObjectNew", &h) ||
	    !ct_read_u64(l, arg, len, "hObjectParent", &parent) ||
	    !ct_read_u64(l, arg, len, "hClass", &cls))
		return;
	st = row(s, S_OBJ);
	bind_u64(st, 3, c->ts_ns + c->duration_ns);
	bind_u64(st, 4, c->pid);
	bind_u64(st, 5, client);
	bind_u64(st, 6, h);
	bind_u64(st, 7, parent);
	bind_u64(st, 8, cls);
	ci = nv_class_lookup((uint32_t)cls);
	bind_str(st, 9, ci ? ci->name : NULL);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 10, c->gpu);
	if (ct_mem_kind_of((uint32_t)cls, &kind)) {
		if (ct_mem_alloc_size(c, &size))
			bind_u64(st, 11, size);
		bind_str(st, 12, ct_mem_kind_names[kind]);
	}
	step(s, st);
}

static void on_mmap(struct ct_sqlite *s, const struct ct_call *c)
{
	const struct ct_mmap *m = c->mmap;
	sqlite3_stmt *st = row(s, S_MMAP);

	bind_u64(st, 3, c->ts_ns);
	bind_u64(st, 4, c->pid);
	bind_u64(st, 5, c->tid);
	bind_str(st, 6, c->comm);
	bind_u64(st, 7, m->addr);
	bind_u64(st, 8, m->len);
	bind_u64(st, 9, m->prot);
	bind_u64(st, 10, m->mflags);
	bind_u64(st, 11, m->off);
	sqlite3_bind_int64(st, 12, m->ret);
	bind_u64(st, 13, c->duration_ns);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 14, c->gpu);
	bind_str(st, 15, c->path);
	step(s, st);
}

static void view_call(void *ctx, const struct ct_call *c)
{
	static const char *const syscalls[] = { "ioctl", "mmap", "munmap" };
	struct ct_sqlite *s = ctx;
	sqlite3_stmt *st;
	char name[96], esc[96];

	if (s->failed)
		return;
	st = row(s, S_CALL);
	bind_u64(st, 3, c->ts_ns);
	bind_u64(st, 4, c->pid);
	bind_u64(st, 5, c->tid);
	bind_str(st, 6, c->comm);
	bind_str(st, 7, syscalls[c->kind]);
	bind_str(st, 8, ct_call_specific_name(c, name, sizeof(name)));
	bind_str(st, 9, c->kind == CT_CALL_IOCTL ?
		 ct_request_label(c->request, c->name, esc, sizeof(esc)) : c->name);
	if (c->kind == CT_CALL_IOCTL)
		bind_u64(st, 10, c->request);
	if (c->has_ctrl)
		bind_u64(st, 11, c->ctrl);
	if (c->has_class)
		bind_u64(st, 12, c->hclass);
	if (c->has_status) {
		bind_u64(st, 13, c->status);
		bind_str(st, 14, c->status_name);
	}
	if (c->finished)
		sqlite3_bind_int64(st, 15, c->ret);
	sqlite3_bind_int(st, 16, c->failed);
	sqlite3_bind_int(st, 17, c->finished);
	if (c->finished && c->kind != CT_CALL_MUNMAP)   /* munmap: not timed */
		bind_u64(st, 18, c->duration_ns);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 19, c->gpu);
	bind_str(st, 20, c->path);
	step(s, st);
	if (c->kind == CT_CALL_MMAP)
		on_mmap(s, c);
	else if (c->kind == CT_CALL_IOCTL && c->ex && !c->failed &&
		 (c->esc_nr == NV_ESC_RM_ALLOC || c->esc_nr == NV_ESC_RM_ALLOC_MEMORY ||
		  c->esc_nr == NV_ESC_RM_FREE))
		on_object(s, c);
}

static void view_finish(void *ctx)
{
	ct_sqlite_close(ctx);
}

struct ct_view ct_sqlite_view(struct ct_sqlite *s)
{
	return (struct ct_view){ .call = view_call, .record = view_record,
				 .finish = view_finish, .ctx = s };
}
