/* SPDX-License-Identifier: MIT */
/*
 * The label of a launch whose code several functions have (docs/
 * KERNELS.md, "Never a wrong name"): what their names share, with the
 * parts that differ as alternatives, cut between words:
 *   at::native::FillFunctor<{int|float|unsigned int}>
 * so that it says what is known and no more.  Pure.
 */
#ifndef CT_KNAME_MERGE_H
#define CT_KNAME_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#define CT_KNAME_MERGE_MAX 8   /* names a record keeps (CT_KINDEX_CANDS) */

/* names[0..n), distinct, 2 <= n <= CT_KNAME_MERGE_MAX; total: how many
 * matched in all (past n too).  Returns a malloc'd label, or NULL. */
char *ct_kname_merge(const char *const *names, uint32_t n, uint32_t total);

#endif
