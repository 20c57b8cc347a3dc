/* SPDX-License-Identifier: MIT */
/*
 * What the --compat report knows beyond nvproxy's tables, as data
 * (views/compat/tables/known_callers.tsv, driver_libs.tsv, each row with
 * its source): who makes a call nvproxy refuses and whether that caller
 * carries on without it; which capability brings a driver library into a
 * container.
 */
#ifndef CT_COMPAT_KNOWN_H
#define CT_COMPAT_KNOWN_H

#include <stdint.h>

#include "gvisor_abi.h"

enum ct_effect { CT_UNKNOWN_EFFECT, CT_CARRIES_ON, CT_STOPS };

struct ct_known_caller {
	int kind;              /* enum ct_gv_kind */
	uint32_t number;
	const char *module;    /* shell pattern of the library's file name */
	const char *function;  /* the exported function that makes the call */
	enum ct_effect effect; /* what the caller does when refused */
	const char *what, *source;
};

struct ct_driver_lib {
	const char *module;    /* shell pattern of the library's file name */
	const char *cap;       /* the capability that mounts it into a container */
};

extern const struct ct_known_caller ct_known_callers[];
extern const unsigned ct_nknown_callers;
extern const struct ct_driver_lib ct_driver_libs[];
extern const unsigned ct_ndriver_libs;

/* The known caller of (kind, number), NULL if none. */
const struct ct_known_caller *ct_known_caller_find(int kind, uint32_t number);
/* Whether a file name (no directory) matches the shell pattern of a module. */
int ct_module_is(const char *base, const char *pattern);
/* Index in ct_driver_libs of the library a file name is, -1 if none. */
int ct_driver_lib_of(const char *base);
/* Index in ct_driver_libs of the row with this very pattern, -1 if none. */
int ct_driver_lib_by_pattern(const char *pattern);

#endif
