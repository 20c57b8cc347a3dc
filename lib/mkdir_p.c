// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "mkdir_p.h"

bool ct_mkdir_p(const char *path)
{
	char p[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(p)) {
		errno = ENAMETOOLONG;
		return false;
	}
	memcpy(p, path, n + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, 0700) && errno != EEXIST)
			return false;
		*s = '/';
	}
	return !mkdir(p, 0700) || errno == EEXIST;
}
