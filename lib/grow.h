/* SPDX-License-Identifier: MIT */
/*
 * Room in a growing array (strace's xgrowarray, without the abort): the
 * doubling, its first size and the overflow check are written once, here.
 */
#ifndef CT_GROW_H
#define CT_GROW_H

#include <stddef.h>

/*
 * Returns arr when *cap already holds need elements of elem_size bytes;
 * else arr reallocated to hold at least need (the capacity doubles,
 * starting at first), with *cap set to its new length.  NULL when memory
 * is short or the size would overflow: arr and *cap are then unchanged
 * and arr still the caller's to free.
 */
void *ct_grow(void *arr, size_t *cap, size_t need, size_t elem_size, size_t first);

#endif
