// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owner.h"
#include "whole_file.h"

/* DIR/.NAME.XXXXXXXX, created exclusively: an old one is never reused. */
static int create_tmp(struct ct_whole_file *w)
{
	char *d = strdup(w->path), *b = strdup(w->path);
	const char *dir = d ? dirname(d) : NULL, *base = b ? basename(b) : NULL;
	unsigned int r;
	int i, fd = -1, err = ENOMEM;

	for (i = 0; dir && base && i < 100 && fd < 0; i++) {
		free(w->tmp);
		w->tmp = NULL;
		if (getrandom(&r, sizeof(r), 0) != sizeof(r) ||
		    asprintf(&w->tmp, "%s/.%s.%08x", dir, base, r) < 0) {
			w->tmp = NULL;
			break;
		}
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		err = fd < 0 ? errno : (ct_own_file(fd, w->path), 0);
		if (fd < 0 && err != EEXIST)
			break;
	}
	free(d);
	free(b);
	if (fd >= 0 && !(w->f = fdopen(fd, "w"))) {
		err = errno;
		close(fd);
		unlink(w->tmp);
	}
	if (!w->f) {
		free(w->tmp);
		w->tmp = NULL;
	}
	return w->f ? 0 : err;
}

int ct_whole_file_open(struct ct_whole_file *w, const char *path)
{
	struct stat st;
	int err;

	memset(w, 0, sizeof(*w));
	w->path = strdup(path);
	if (!w->path)
		return ENOMEM;
	if (strcmp(path, "-") == 0) {
		w->f = stdout;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		w->f = fopen(path, "we");
		err = w->f ? 0 : errno;
	} else {
		err = create_tmp(w);
	}
	if (err) {
		free(w->path);
		w->path = NULL;
	}
	return err;
}

/* Everything written reaches the file's storage, or the reason it did not. */
static int finish_stream(struct ct_whole_file *w)
{
	int err = 0;

	if (fflush(w->f))
		err = errno;
	if (!err && w->tmp && fsync(fileno(w->f)))
		err = errno;
	if (w->f != stdout && fclose(w->f) && !err)
		err = errno;
	w->f = NULL;
	return err;
}

int ct_whole_file_close(struct ct_whole_file *w, bool keep, int err)
{
	int e = 0;

	if (w->f)
		e = finish_stream(w);
	if (!err)
		err = e;
	if (keep && !err && w->tmp && rename(w->tmp, w->path))
		err = errno;
	if (w->tmp && (!keep || err))
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	w->tmp = w->path = NULL;
	return err;
}
