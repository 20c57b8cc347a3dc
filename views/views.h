/* SPDX-License-Identifier: MIT */
/*
 * The views the command line asks for (summary -c/-C, --perfetto, and
 * filters), set up on a decoder the same way for -r and for live capture.
 */
#ifndef CT_VIEWS_H
#define CT_VIEWS_H

#include "decode.h"
#include "options.h"

/* Options that do not go together; says why on stderr and returns -1. */
int ct_views_check(const struct ct_options *o);
/* Before -r decodes: what a view refuses of the trace whose first record
 * is first (--sqlite: a trace its database holds already, without
 * --sqlite-again).  0, or -1 after saying why: decode nothing. */
int ct_views_check_trace(const struct ct_options *o, const struct ct_rec *first);
/* After a trace is read: what the views could not do with it (api and
 * caller of a trace taken without -k), on stderr. */
void ct_views_after(const struct ct_options *o, const struct ct_decode_stats *st);
/* What the views change in the decoder's own options (-c: no events). */
void ct_views_decode_opts(struct ct_decode_opts *dopts, const struct ct_options *o);
/* Adds the views to d, in order: filters first (a filter hides a call from
 * the views after it), then the summary, then the Perfetto file, which is
 * created here.  Returns 0, or -1 after saying why on stderr: then free d
 * without finishing it (no view has run; the Perfetto file is removed). */
int ct_views_setup(struct ct_decoder *d, const struct ct_options *o);

/* The decoder the command line asks for, with its views: what -r and live
 * decoding both start with.  NULL after saying why on stderr. */
struct ct_decoder *ct_views_decoder_new(const struct ct_options *o);
/* The same with first added before every other view (--metrics: it sees
 * every call whatever the filters keep); with -w, a quiet decoder with
 * first as its only view. */
struct ct_decoder *ct_views_decoder_new_with(const struct ct_options *o,
					     const struct ct_view *first);

/* --compat: -1 if no report was printed, else 0 (clean) or 1 (something
 * would be refused): the exit status main gives. */
int ct_views_compat_status(void);

#endif
