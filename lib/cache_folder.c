// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache_folder.h"
#include "grow.h"
#include "mkdir_p.h"
#include "replace_file.h"

struct entry {
	char name[256];
	uint64_t bytes;
	struct timespec used;
};

static int by_use(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

int ct_cache_path(char *out, size_t size, const char *dir, const char *name, const char *suffix)
{
	int n = snprintf(out, size, "%s/%s%s", dir, name, suffix);

	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

void ct_cache_dir(char *out, size_t size, const char *env, const char *sub)
{
	const char *dir = getenv(env), *home = getenv("HOME");

	out[0] = 0;
	if (dir && !strcmp(dir, "off"))
		return;
	if (dir && *dir)
		snprintf(out, size, "%s", dir);
	else if (home && *home)
		snprintf(out, size, "%s/.cache/cudatrace/%s", home, sub);
}

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

int ct_cache_bound(const char *dir, const char *suffix, uint64_t max_bytes)
{
	DIR *d = opendir(dir);
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	int removed = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		struct entry *nv;

		if (!has_suffix(de->d_name, suffix) || strlen(de->d_name) >= sizeof(v->name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		nv = ct_grow(v, &cap, n + 1, sizeof(*v), 64);
		if (!nv) {
			closedir(d);
			free(v);
			return -ENOMEM;
		}
		v = nv;
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].bytes = (uint64_t)st.st_size;
		v[n].used = st.st_mtim;
		total += v[n++].bytes;
	}
	qsort(v, n, sizeof(*v), by_use);
	for (size_t i = 0; i < n && total > max_bytes; i++)
		if (!unlinkat(dirfd(d), v[i].name, 0)) {
			total -= v[i].bytes;
			removed++;
		}
	closedir(d);
	free(v);
	return removed;
}

void ct_cache_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

int ct_cache_read(const char *dir, const char *name, const char *suffix,
		  int (*parse)(FILE *f, void *ctx), void *ctx)
{
	char path[4096];
	FILE *fp;
	int err;

	if ((err = ct_cache_path(path, sizeof(path), dir, name, suffix)))
		return err;
	if (!(fp = fopen(path, "re")))
		return -errno;
	err = parse(fp, ctx);
	fclose(fp);
	if (!err)
		ct_cache_touch(path);   /* used now: the folder's bound removes it last */
	return err;
}

int ct_cache_write(const char *dir, const char *name, const char *suffix,
		   bool (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char path[4096];
	int err;

	if ((err = ct_cache_path(path, sizeof(path), dir, name, suffix)))
		return err;
	if (!ct_mkdir_p(dir))
		return -errno;
	return ct_replace_file(path, write, ctx);
}
