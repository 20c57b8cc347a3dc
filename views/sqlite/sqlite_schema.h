/* SPDX-License-Identifier: MIT */
/*
 * The --sqlite schema (docs/SQLITE.md describes it): the tables, their
 * indexes and views, and the statements that fill them.  Every *_ns
 * column is CLOCK_MONOTONIC at the start of what the row describes; no
 * column is named with an SQL keyword.
 */
#ifndef CT_SQLITE_SCHEMA_H
#define CT_SQLITE_SCHEMA_H

/* PRAGMA user_version of a database with this schema. */
#define CT_SQLITE_SCHEMA_VERSION 3

extern const char ct_sqlite_schema[];

enum ct_sql {
	CT_SQL_FIND_TRACE,   /* the traces row of a trace id, if added before */
	CT_SQL_TRACE, CT_SQL_COMPLETE, CT_SQL_HEADER, CT_SQL_CALL, CT_SQL_FRAME,
	CT_SQL_PROC, CT_SQL_EXIT, CT_SQL_OBJ, CT_SQL_FREE, CT_SQL_MMAP, CT_SQL_MEM,
	CT_SQL_LAUNCH,
	CT_SQL_COUNT
};

extern const char *const ct_sql_text[CT_SQL_COUNT];

#endif
