/* SPDX-License-Identifier: MIT */
#ifndef CT_HEAP_PREFAULT_H
#define CT_HEAP_PREFAULT_H

#include <stddef.h>

/* Faults in `bytes` of heap at once, for the big allocations that follow. */
void ct_heap_prefault(size_t bytes);
/* Gives what they left back to the system. */
void ct_heap_release(void);

#endif
