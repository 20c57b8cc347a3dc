/* SPDX-License-Identifier: MIT */
/*
 * The device memory table that -c and -C print after the call table: per
 * process, GPU and kind, what was held at the end, the peak and when, and
 * the largest allocations with the object that holds them (devmem.h).
 * docs/VIEWS.md describes it.
 */
#ifndef CT_DEVMEM_VIEW_H
#define CT_DEVMEM_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include "call.h"

struct ct_devmem_view;

struct ct_devmem_view *ct_devmem_view_new(FILE *out, bool json);
/* Two views: the feed (add it before any filter: it sees every call and
 * drops none) and the printer (add it where the table should come: its
 * finish prints and frees).  Free by hand only if neither was added. */
struct ct_view ct_devmem_view_feed(struct ct_devmem_view *v);
struct ct_view ct_devmem_view_print(struct ct_devmem_view *v);
void ct_devmem_view_free(struct ct_devmem_view *v);

#endif
