/* SPDX-License-Identifier: MIT */
/*
 * --sqlite OUT.db: every call, process, RM object, mmap and the trace
 * header as rows of an SQLite database, live or from -r.  An existing
 * database is added to: each trace gets a new traces.id, and every row
 * carries trace_id and host, so captures of many machines share one file.
 * docs/VIEWS.md gives the schema and example queries.
 */
#ifndef CT_SQLITE_VIEW_H
#define CT_SQLITE_VIEW_H

#include "call.h"

struct ct_sqlite;

/* Opens (creates) path and its tables.  host: the host column, NULL for
 * the trace header's.  NULL after saying why on stderr. */
struct ct_sqlite *ct_sqlite_open(const char *path, const char *host);
/* Its finish commits and closes it; close by hand only if never added. */
struct ct_view ct_sqlite_view(struct ct_sqlite *s);
/* Commits what is pending and closes; 0, or -1 after saying why. */
int ct_sqlite_close(struct ct_sqlite *s);

#endif
