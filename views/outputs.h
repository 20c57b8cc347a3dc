/* SPDX-License-Identifier: MIT */
/*
 * The decoded outputs (-o, --perfetto, --sqlite) against what is read:
 * an output that is the trace being read would destroy it, and "-" is
 * standard output, which only one of them can have.
 */
#ifndef CT_OUTPUTS_H
#define CT_OUTPUTS_H

#include <stdbool.h>
#include "options.h"

/* Checked before any file is opened: says why on stderr and returns -1. */
int ct_outputs_check(const struct ct_options *o);
/* "-": standard output. */
bool ct_is_stdout(const char *path);
/* The decoded output's name in a message: -o's FILE, or "standard output". */
const char *ct_out_name(const struct ct_options *o);
/* --perfetto - without -o: standard output carries the timeline alone. */
bool ct_perfetto_has_stdout(const struct ct_options *o);

#endif
