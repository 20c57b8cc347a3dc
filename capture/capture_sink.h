/* SPDX-License-Identifier: MIT */
/*
 * Where a live capture's records go (capture_sink.c): the trace file (-w,
 * each file opened with its header, rotated at --max-size, closed with its
 * trailer) and the decoder, which feeds the views and --metrics.
 */
#ifndef CT_CAPTURE_SINK_H
#define CT_CAPTURE_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "cudatrace.h"

struct ct_capture;

/* Opens what the options ask for (--metrics first, then the file or the
 * views) and sends the header record.  0, or -1 after saying why. */
int ct_sink_open(struct ct_capture *c);
/* --metrics: serve on the socket bound by ct_sink_open (after the drop of
 * privileges: the server's threads take the starting thread's).  0 or -1. */
int ct_sink_serve(struct ct_capture *c);
/* One record to the file and the decoder.  A failed write, to the file or
 * to the decoded output, is said once and stops the capture
 * (c->sink_error; a closed pipe says nothing: c->output_closed). */
void ct_sink_record(struct ct_capture *c, const struct ct_rec *r);
/* The same, never held behind a launch waiting for its kernel's name
 * (knames_live.h): what is held goes out through it. */
void ct_sink_write(struct ct_capture *c, const struct ct_rec *r);
/* --max-size: the file being written has reached it. */
bool ct_sink_file_at_max(const struct ct_capture *c);
/* Then, with --rotate, close it (trailer and all) and go on in the next
 * (0); without, or if that fails, stop (1). */
int ct_sink_file_full(struct ct_capture *c);
/* The trailer record: the events and the kernel's lost counts, which
 * *lost and *lost_inflight get too. */
void ct_sink_trailer(struct ct_capture *c, uint64_t *lost, uint64_t *lost_inflight);
/* --metrics: the kernel's lost count, at most 5 times a second unless now. */
void ct_sink_update_lost(struct ct_capture *c, bool now);
/* Finishes the decoder and its views, stops --metrics, closes the file:
 * rc, or 1 if any of them failed. */
int ct_sink_close(struct ct_capture *c, int rc);

#endif
