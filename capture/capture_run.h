/* SPDX-License-Identifier: MIT */
/* The capture's one entry point, for the command line (user/main.c). */
#ifndef CT_CAPTURE_RUN_H
#define CT_CAPTURE_RUN_H

#include "options.h"

/* Live capture: returns the process exit status for main. */
int ct_capture_run(const struct ct_options *o);

#endif
