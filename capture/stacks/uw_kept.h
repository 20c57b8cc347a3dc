/* SPDX-License-Identifier: MIT */
/*
 * A file's whole unwind table kept from one capture for the next
 * (uw_kept.c), in cudatrace's cache folder beside the symbol indexes and
 * the asks, named as they are (build-id, size, mtime): the next capture
 * loads the rows at once instead of compiling every FDE of the file again
 * (JAX's ten files: 130,000-170,000 rows, 70-100 ms of a thread's CPU at
 * each capture's start).
 */
#ifndef CT_UW_KEPT_H
#define CT_UW_KEPT_H

#include <stddef.h>

#include "uw_rows.h"

#define CT_UW_KEPT_SUFFIX ".uwrows"

/* The rows kept for the file named id (ct_codemap_file_id) in dir, at
 * most max, into out (out->v malloc'd: ct_uw_rows_free frees it).  0, or
 * -ENOENT (none kept), -EINVAL (not of this format or this build's rows:
 * cut short, unsorted, a kind the whole build makes not, a checksum that
 * does not match; left unused), -E2BIG (more than max), or another
 * -errno. */
int ct_uw_kept_load(const char *dir, const char *id, size_t max, struct ct_uw_rows *out);
/* Keeps r's rows for the file named id in dir (made if missing), whole
 * or not at all.  0, or -errno. */
int ct_uw_kept_save(const char *dir, const char *id, const struct ct_uw_rows *r);

#endif
