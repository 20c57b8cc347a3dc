/* SPDX-License-Identifier: MIT */
/*
 * A file written whole or not at all: into a temporary file beside it
 * (PATH.PID.tmp, made anew), renamed over PATH once every byte is written,
 * removed otherwise.  A reader of PATH sees the old file or the new one.
 */
#ifndef CT_REPLACE_FILE_H
#define CT_REPLACE_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* write puts the contents to f (false: it failed).  0, or -errno. */
int ct_replace_file(const char *path, bool (*write)(FILE *f, const void *ctx), const void *ctx);

#endif
