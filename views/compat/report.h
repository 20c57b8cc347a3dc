/* SPDX-License-Identifier: MIT */
/*
 * --compat=gvisor[:VERSION]: would these calls run under gVisor's nvproxy
 * (runsc --nvproxy)?  A view: fed the decoded calls (live or -r), it prints
 * one row per distinct (device, kind, number) with nvproxy's verdict, then a
 * summary (docs/COMPAT.md).
 */
#ifndef CT_COMPAT_REPORT_H
#define CT_COMPAT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "call.h"

struct ct_compat_opts {
	FILE *out;
	bool json;
	const char *spec;      /* "gvisor" or "gvisor:VERSION" */
	const char *caps;      /* --compat-caps LIST; NULL: nvproxy's default */
	int *status;           /* set when the report is printed: 0 clean, 1 refused */
};

struct ct_compat;

/* Checks spec and caps (at option parsing): 0, or -1 after saying why. */
int ct_compat_check(const char *spec, const char *caps);
/* Checks spec and caps; NULL after saying why on stderr. */
struct ct_compat *ct_compat_new(const struct ct_compat_opts *o);
/* The view; its finish prints the report and frees c. */
struct ct_view ct_compat_view(struct ct_compat *c);
/* For a c whose view never ran. */
void ct_compat_free(struct ct_compat *c);

#endif
