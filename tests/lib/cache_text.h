/* SPDX-License-Identifier: MIT */
/* For the tests of files kept in a cache folder: one written by hand. */
#ifndef CT_TEST_CACHE_TEXT_H
#define CT_TEST_CACHE_TEXT_H

#include <errno.h>
#include <stdio.h>

/* Writes text as dir/NAME+suffix: 0, or -errno. */
static inline int put_cache_text(const char *dir, const char *name, const char *suffix,
				 const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s%s", dir, name, suffix);
	fp = fopen(path, "w");
	if (!fp)
		return -errno;
	fputs(text, fp);
	return fclose(fp) ? -errno : 0;
}

#endif
