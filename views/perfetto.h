/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto view (--perfetto FILE): the calls as a Chrome/Perfetto
 * trace-event JSON file ({"traceEvents":[...]}) that ui.perfetto.dev and
 * Chromium's DevTools Performance panel ("Load profile") open.  One slice per ioctl on its thread's track,
 * mmap/munmap as instants, a calls-per-second counter per process.
 * Written as the calls come (nothing buffered but one open call per
 * thread); docs/VIEWS.md describes the file.
 */
#ifndef CT_PERFETTO_H
#define CT_PERFETTO_H

#include "call.h"

struct ct_perfetto;

/* Starts the file (whole_file.h: under a temporary name until it is
 * complete; "-" is standard output) with its head; NULL with errno set if
 * it cannot be created. */
struct ct_perfetto *ct_perfetto_open(const char *path);
/* The view for ct_decoder_add_view(); its finish completes and closes the
 * file and frees the view.  Without the view added: ct_perfetto_close. */
struct ct_view ct_perfetto_view(struct ct_perfetto *p);
void ct_perfetto_add(struct ct_perfetto *p, const struct ct_call *c);
/* Ends open slices at the last time seen, writes the tail, puts the file
 * in place; returns 0, or -1 after saying on stderr what failed (a file
 * that could not be written whole is removed). */
int ct_perfetto_close(struct ct_perfetto *p);
/* Drops the file unfinished (cudatrace stopped before decoding). */
void ct_perfetto_discard(struct ct_perfetto *p);

#endif
