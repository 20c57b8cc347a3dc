/* SPDX-License-Identifier: MIT */
/*
 * An output file written whole or not at all (--perfetto, --sqlite): it
 * is made under a temporary name in its own directory and renamed over
 * its path only once every byte is written and synced, so a full disk or
 * an interrupted run leaves no cut file.  "-" is standard output, and a
 * path that exists but is not a regular file (/dev/full, a pipe) is
 * written in place: neither can be renamed over.
 */
#ifndef CT_WHOLE_FILE_H
#define CT_WHOLE_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct ct_whole_file {
	FILE *f;            /* NULL once closed (or for a caller that writes tmp itself) */
	char *path;         /* as given */
	char *tmp;          /* the name it is written under; NULL: in place */
};

/* Opens path for writing (see above); the temporary file is made as every
 * output is (owner.h: 0600, under sudo the user's).  Returns 0 or an errno. */
int ct_whole_file_open(struct ct_whole_file *w, const char *path);
/* keep: flushes, syncs and closes the file, then renames it into place;
 * returns 0 or the errno of the first failure, and then, as with !keep,
 * removes the temporary file.  err: a write error the caller saw first
 * (0 none), returned as is. */
int ct_whole_file_close(struct ct_whole_file *w, bool keep, int err);

#endif
