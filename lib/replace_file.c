// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "replace_file.h"

int ct_replace_file(const char *path, bool (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "wbxe");
	if (!f)
		return -errno;
	errno = 0;
	if (!write(f, ctx) || ferror(f))
		err = errno ? -errno : -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
