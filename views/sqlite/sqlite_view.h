/* SPDX-License-Identifier: MIT */
/*
 * --sqlite OUT.db: every call (with its stack, -k), process, RM object,
 * mmap, device memory change and the trace header as rows of an SQLite
 * database, live or from -r.  An existing database is added to: each
 * trace gets a new traces.id, and every row carries trace_id and host, so
 * captures of many machines share one file; a trace it holds already is
 * refused unless asked for again.  A new database is written under a
 * temporary name and appears only when complete; from -r, an existing one
 * gets the trace in one transaction, all or nothing.  docs/SQLITE.md
 * gives the schema.
 */
#ifndef CT_SQLITE_VIEW_H
#define CT_SQLITE_VIEW_H

#include <stdbool.h>
#include "call.h"

struct ct_sqlite;

struct ct_sqlite_opts {
	const char *host;   /* the host column; NULL: the trace header's */
	bool live;          /* commit a batch each second, for queries during the capture */
	bool again;         /* --sqlite-again: add a trace the database holds already */
};

/* 0, or -1 after saying so when the database at path (if there is one)
 * holds the trace whose id is uid (16 hex digits) already. */
int ct_sqlite_check_trace(const char *path, const char *uid);
/* Opens (creates) path and its tables.  NULL after saying why on stderr. */
struct ct_sqlite *ct_sqlite_open(const char *path, const struct ct_sqlite_opts *o);
/* Its finish commits and closes it; close by hand only if never added. */
struct ct_view ct_sqlite_view(struct ct_sqlite *s);
/* Commits what is pending and closes; 0, or -1 after saying why (then a
 * new database is removed, an existing one keeps what was committed). */
int ct_sqlite_close(struct ct_sqlite *s);
/* Closes without committing what is pending (setup failed). */
void ct_sqlite_discard(struct ct_sqlite *s);

#endif
