/* SPDX-License-Identifier: MIT */
/*
 * A large file's unwind table, built lazily (ktables.c): only the FDEs
 * that stacks passed through, each as the whole build makes it
 * (uw_rows.h); the rest of the file, from its first FDE on, rows of kind
 * CT_UW_NOT_BUILT, which the kernel leaves to the copy, whose unwinding
 * asks for the FDEs it needs.  Code before the first FDE has no row, as
 * in a whole table (walked by frame pointer).
 */
#ifndef CT_UW_LAZY_H
#define CT_UW_LAZY_H

#include <stddef.h>
#include <stdint.h>
#include "uw_rows.h"

struct ct_uw_lazy;

/* The file open on fd (read, not taken; it must stay open); NULL with
 * *why where it can have no table. */
struct ct_uw_lazy *ct_uw_lazy_open(int fd, enum ct_uw_rows_fail *why);
/* Builds the FDEs that hold these ELF addresses, those not built yet (an
 * FDE that cannot be built becomes one CT_UW_OTHER row: its stacks are
 * copied, and it is not asked for again); how many were built. */
size_t ct_uw_lazy_add(struct ct_uw_lazy *l, const uint64_t *addrs, size_t n);
/* The table now: the built FDEs' rows and CT_UW_NOT_BUILT rows, sorted;
 * valid until the next add.  NULL when out of memory. */
const struct ct_uw_rows *ct_uw_lazy_run(struct ct_uw_lazy *l);
size_t ct_uw_lazy_built(const struct ct_uw_lazy *l);
void ct_uw_lazy_close(struct ct_uw_lazy *l);

#endif
