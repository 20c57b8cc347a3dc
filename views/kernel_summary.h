/* SPDX-License-Identifier: MIT */
/*
 * -c with --gpu-work: a table per kernel (launches, distinct grids, blocks
 * and threads launched, first and last seen), by process, from the names
 * the capture found (CT_REC_KERNEL_NAME, docs/KERNELS.md); launches of a
 * program address never named are one row each ("unnamed 0x...").
 * Printed when a launch was named, or with --summary-by=kernel.
 */
#ifndef CT_KERNEL_SUMMARY_H
#define CT_KERNEL_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>
#include "call.h"

struct ct_ksum;

struct ct_ksum *ct_ksum_new(FILE *out, bool json, bool always);
/* The view; its finish prints the table and frees it. */
struct ct_view ct_ksum_view(struct ct_ksum *s);
void ct_ksum_free(struct ct_ksum *s);

#endif
