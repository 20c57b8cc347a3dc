/* SPDX-License-Identifier: MIT */
#ifndef CT_CALL_NAME_H
#define CT_CALL_NAME_H

#include <stddef.h>
#include "call.h"

/* The most specific name of a call, one for --sqlite's name column and
 * the request label of --metrics: the RM control command, the RM class
 * allocated (its name, else "0x..."), the UVM request or escape, "mmap",
 * "munmap"; as -c and the text output name them. */
const char *ct_call_specific_name(const struct ct_call *c, char *buf, size_t n);

#endif
