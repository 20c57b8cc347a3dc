/* SPDX-License-Identifier: MIT */
/*
 * Inside the SQLite view: the database it writes and the rules it is
 * written by (sqlite_db.c: opening, batches, errors, closing), shared with
 * the rows (sqlite_view.c).
 */
#ifndef CT_SQLITE_DB_H
#define CT_SQLITE_DB_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#include "devmem.h"
#include "sqlite_schema.h"
#include "sqlite_view.h"
#include "whole_file.h"

struct ct_sqlite {
	sqlite3 *db;
	char *path;               /* as given */
	struct ct_whole_file file; /* a new database: written as file.tmp until complete */
	bool is_new;
	char host[256];
	bool host_fixed;          /* given on the command line */
	bool live, again;
	sqlite3_stmt *st[CT_SQL_COUNT];
	sqlite3_int64 trace_id;   /* 0 until the header (or the first row) */
	sqlite3_int64 call_id;    /* the call being added (its rows point to it), 0 none */
	uint64_t call_start;      /* its start */
	struct ct_devmem *mem;    /* device memory per process: device_memory rows */
	uint64_t rows;            /* in the open transaction */
	uint64_t batch_start_ns;
	bool in_tx, failed;
};

/* "holds this trace already", from a FIND_TRACE row (id, added_at). */
void ct_sqlite_say_held(const char *path, const char *uid, sqlite3_stmt *found);
/* Says what failed (once) and stops the view: no row is added after. */
void ct_sqlite_error(struct ct_sqlite *s, const char *what);
bool ct_sqlite_exec(struct ct_sqlite *s, const char *q);
/* A row is coming: opens the transaction; live, commits a full or old one. */
void ct_sqlite_batch(struct ct_sqlite *s);
/* Runs a bound statement and clears it for the next row. */
void ct_sqlite_step(struct ct_sqlite *s, sqlite3_stmt *st);

#endif
