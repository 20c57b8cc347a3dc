// SPDX-License-Identifier: MIT
/* Lookups in the report's own knowledge (known.h): a handful of rows, so
 * plain scans. */
#include <fnmatch.h>
#include <stddef.h>
#include <string.h>

#include "known.h"

const struct ct_known_caller *ct_known_caller_find(int kind, uint32_t number)
{
	unsigned i;

	for (i = 0; i < ct_nknown_callers; i++)
		if (ct_known_callers[i].kind == kind && ct_known_callers[i].number == number)
			return &ct_known_callers[i];
	return NULL;
}

int ct_module_is(const char *base, const char *pattern)
{
	return base && pattern && fnmatch(pattern, base, 0) == 0;
}

int ct_driver_lib_of(const char *base)
{
	unsigned i;

	for (i = 0; base && i < ct_ndriver_libs; i++)
		if (ct_module_is(base, ct_driver_libs[i].module))
			return (int)i;
	return -1;
}

int ct_driver_lib_by_pattern(const char *pattern)
{
	unsigned i;

	for (i = 0; pattern && i < ct_ndriver_libs; i++)
		if (strcmp(pattern, ct_driver_libs[i].module) == 0)
			return (int)i;
	return -1;
}
