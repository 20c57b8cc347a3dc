/* SPDX-License-Identifier: MIT */
/*
 * -c --summary-by=api|caller (-k traces): one row per driver entry point
 * (or per caller of the driver library): calls, errors, time in the
 * driver, and which requests it made most.  Calls without a stack, or
 * not made through the driver library, share one row ("(no api)").
 */
#ifndef CT_APISUM_H
#define CT_APISUM_H

#include <stdbool.h>
#include <stdio.h>
#include "call.h"

struct ct_apisum;

/* What a row is: the driver entry point, the frame that called it (-k),
 * or the user's Python line (Python frames). */
enum ct_apisum_by { CT_SUM_BY_API = 1, CT_SUM_BY_CALLER = 2, CT_SUM_BY_PY = 3 };

struct ct_apisum *ct_apisum_new(FILE *out, bool json, enum ct_apisum_by by);
/* Its finish prints the table and frees it. */
struct ct_view ct_apisum_view(struct ct_apisum *s);
void ct_apisum_free(struct ct_apisum *s);

#endif
