/* SPDX-License-Identifier: MIT */
/*
 * -k: the capture's count of why its stacks end (complete, in a thread the
 * driver started, stack copy too short, no CFI, a bad read ...), from the
 * frames and end records the unwinder sends, for the end-of-run summary.
 */
#ifndef CT_STACK_TALLY_H
#define CT_STACK_TALLY_H

#include <stdio.h>
#include "cudatrace.h"

struct ct_stack_tally;

/* api_lib: the driver libraries' file name patterns (NULL: the default). */
struct ct_stack_tally *ct_stack_tally_new(const char *api_lib);
void ct_stack_tally_free(struct ct_stack_tally *t);
/* A record from the unwinder: frames are kept, an end record is counted. */
void ct_stack_tally_take(struct ct_stack_tally *t, const struct ct_rec *r);
/* "cudatrace: stack ends: N complete, M stack copy too short (-k65536 copies
 * further), ..." on out; nothing if no stack was counted. */
void ct_stack_tally_print(const struct ct_stack_tally *t, FILE *out);

#endif
