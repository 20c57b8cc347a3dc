// SPDX-License-Identifier: MIT
/*
 * Rows go through prepared statements inside transactions: from -r, one
 * for the whole trace (a failure leaves the database as it was); live,
 * one per CT_SQLITE_BATCH rows or per second, so that the rows can be
 * queried during the capture at one fsync per batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sqlite_db.h"
#include "msg.h"

#define CT_SQLITE_BATCH 50000

/* SQLite's message, and the system's where it has one: "database or disk
 * is full (No space left on device)". */
void ct_sqlite_error(struct ct_sqlite *s, const char *what)
{
	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	if (!s->failed)
		ct_err("--sqlite %s: %s: %s%s%s%s\n", s->path, what,
			s->db ? sqlite3_errmsg(s->db) : "out of memory", sys ? " (" : "",
			sys ? strerror(sys) : "", sys ? ")" : "");
	s->failed = true;
}

void ct_sqlite_say_held(const char *path, const char *uid, sqlite3_stmt *found)
{
	ct_err("--sqlite %s holds this trace already (trace id %s: traces.id %lld, "
			"added %s); give --sqlite-again to add it once more\n", path, uid,
		(long long)sqlite3_column_int64(found, 0),
		(const char *)sqlite3_column_text(found, 1));
}

/* Before the trace is decoded: an existing database that holds it already
 * refuses it, and nothing is printed or written. */
int ct_sqlite_check_trace(const char *path, const char *uid)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = 0;

	if (access(path, F_OK) ||
	    sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, ct_sql_text[CT_SQL_FIND_TRACE], -1, &q, NULL) != SQLITE_OK) {
		sqlite3_close(db);   /* not a database with our tables: ct_sqlite_open says */
		return 0;
	}
	sqlite3_busy_timeout(db, 5000);
	sqlite3_bind_text(q, 1, uid, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(q) == SQLITE_ROW) {
		ct_sqlite_say_held(path, uid, q);
		rc = -1;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc;
}

bool ct_sqlite_exec(struct ct_sqlite *s, const char *q)
{
	char what[40];

	if (sqlite3_exec(s->db, q, NULL, NULL, NULL) == SQLITE_OK)
		return true;
	snprintf(what, sizeof(what), "%.24s%s", q, strlen(q) > 24 ? "..." : "");
	ct_sqlite_error(s, what);
	return false;
}

void ct_sqlite_batch(struct ct_sqlite *s)
{
	uint64_t now = s->live ? ct_now_ns(CLOCK_MONOTONIC_COARSE) : 0;

	if (s->live && s->in_tx &&
	    (s->rows >= CT_SQLITE_BATCH || now - s->batch_start_ns > 1000000000ull)) {
		ct_sqlite_exec(s, "COMMIT");
		s->in_tx = false;
	}
	if (!s->in_tx && ct_sqlite_exec(s, "BEGIN")) {
		s->in_tx = true;
		s->rows = 0;
		s->batch_start_ns = now;
	}
	s->rows++;
}

void ct_sqlite_step(struct ct_sqlite *s, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ct_sqlite_error(s, "writing a row failed");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The database file: a new one under a temporary name, an existing one
 * in place (it must be a regular file: SQLite needs one). */
static int open_file(struct ct_sqlite *s)
{
	struct stat st;
	int err;

	if (stat(s->path, &st) == 0) {
		if (S_ISREG(st.st_mode))
			return 0;
		ct_err("--sqlite %s is not a regular file: give a database "
				"file\n", s->path);
		return -1;
	}
	s->is_new = true;
	err = ct_whole_file_open(&s->file, s->path);
	if (!err && s->file.f) {
		fclose(s->file.f);   /* SQLite writes it by name */
		s->file.f = NULL;
	}
	if (err)
		ct_err("--sqlite %s: cannot create it: %s\n", s->path,
			strerror(err));
	return err ? -1 : 0;
}

/* A database an older cudatrace made has other columns: say so. */
static bool schema_ok(struct ct_sqlite *s)
{
	sqlite3_stmt *q;
	int version = -1, tables = 0;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		version = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master WHERE name = 'calls'",
			       -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		tables = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	if (version < 0) {
		ct_sqlite_error(s, "cannot read it");
		return false;
	}
	if (tables && version != CT_SQLITE_SCHEMA_VERSION) {
		ct_err("--sqlite %s has the tables of another cudatrace "
				"version (schema %d, this one writes %d: docs/SQLITE.md): give a "
				"new file\n", s->path, version, CT_SQLITE_SCHEMA_VERSION);
		s->failed = true;
		return false;
	}
	return true;
}

static int open_db(struct ct_sqlite *s)
{
	char pragma[64];
	int i;

	if (sqlite3_open_v2(s->is_new ? s->file.tmp : s->path, &s->db, SQLITE_OPEN_READWRITE,
			    NULL) != SQLITE_OK) {
		ct_sqlite_error(s, "cannot open it");
		return -1;
	}
	sqlite3_busy_timeout(s->db, 5000);   /* another cudatrace appending */
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", CT_SQLITE_SCHEMA_VERSION);
	if (!ct_sqlite_exec(s, "PRAGMA synchronous=NORMAL") || !schema_ok(s) ||
	    !ct_sqlite_exec(s, ct_sqlite_schema) || !ct_sqlite_exec(s, pragma))
		return -1;
	for (i = 0; i < CT_SQL_COUNT; i++)
		if (sqlite3_prepare_v2(s->db, ct_sql_text[i], -1, &s->st[i], NULL) != SQLITE_OK) {
			ct_sqlite_error(s, "preparing a statement");
			return -1;
		}
	return 0;
}

struct ct_sqlite *ct_sqlite_open(const char *path, const struct ct_sqlite_opts *o)
{
	struct ct_sqlite *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path))) {
		free(s);
		ct_err("out of memory\n");
		return NULL;
	}
	if (o->host) {
		snprintf(s->host, sizeof(s->host), "%s", o->host);
		s->host_fixed = true;
	}
	s->live = o->live;
	s->again = o->again;
	if (open_file(s)) {
		free(s->path);
		free(s);
		return NULL;
	}
	if (open_db(s)) {
		ct_sqlite_discard(s);
		return NULL;
	}
	return s;
}

/* keep: commits and puts a new database in place; else rolls back and
 * removes a new one (its journal too). */
static int finish(struct ct_sqlite *s, bool keep)
{
	char journal[4200];
	int i, err;

	keep = keep && !s->failed;
	if (s->in_tx)
		ct_sqlite_exec(s, keep ? "COMMIT" : "ROLLBACK");
	keep = keep && !s->failed;
	for (i = 0; i < CT_SQL_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK) {
		ct_sqlite_error(s, "close");
		keep = false;
	}
	if (s->is_new) {
		snprintf(journal, sizeof(journal), "%s-journal", s->file.tmp);
		err = ct_whole_file_close(&s->file, keep, 0);
		if (err && keep)
			ct_err("--sqlite %s: %s\n", s->path, strerror(err));
		if (!keep || err)
			unlink(journal);
		keep = keep && !err;
	}
	ct_devmem_free(s->mem);
	free(s->path);
	free(s);
	return keep ? 0 : -1;
}

int ct_sqlite_close(struct ct_sqlite *s)
{
	if (!s)
		return 0;
	if (s->trace_id && !s->failed) {
		ct_sqlite_batch(s);
		sqlite3_bind_int64(s->st[CT_SQL_COMPLETE], 1, s->trace_id);
		ct_sqlite_step(s, s->st[CT_SQL_COMPLETE]);
	}
	return finish(s, true);
}

void ct_sqlite_discard(struct ct_sqlite *s)
{
	if (s)
		finish(s, false);
}
