/* SPDX-License-Identifier: MIT */
/*
 * What a live capture says about itself on stderr (capture_status.c): the
 * status line while it writes a file, the counts when it ends.
 */
#ifndef CT_CAPTURE_STATUS_H
#define CT_CAPTURE_STATUS_H

#include <stdbool.h>
#include <stdint.h>

struct ct_capture;

/* With -w on a terminal: events, rate, bytes and losses, once a second;
 * last: the line is cleared. */
void ct_status_line(struct ct_capture *c, bool last);
/* The closing lines: events captured and lost (as the trailer counted
 * them), then the GPU work, stacks and Python frames read. */
void ct_status_report(const struct ct_capture *c, uint64_t lost, uint64_t lost_inflight);

#endif
