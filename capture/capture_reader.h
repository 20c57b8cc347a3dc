/* SPDX-License-Identifier: MIT */
/*
 * The capture's reader thread (capture_reader.c): the kernel's records,
 * the GPU-work reader, the queue to the record loop.  Only capture.c uses
 * it.
 */
#ifndef CT_CAPTURE_READER_H
#define CT_CAPTURE_READER_H

#include "capture.h"

/* The queue, the ring buffer and (--gpu-work) the GPU-work reader.  0, or
 * -1 after saying why. */
int ct_reader_setup(struct ct_capture *c);
/* Starts the thread: before the capture drops its privileges (it raises
 * its priority, then drops its own); returns once it has.  0 or -1. */
int ct_reader_start(struct ct_capture *c);
/* Asks it to take the kernel's last records, poll every ring a last time,
 * close the queue and end; ct_reader_join waits for that. */
void ct_reader_stop(struct ct_capture *c);
void ct_reader_join(struct ct_capture *c);
/* The closing lines about the queue and the reader's priority. */
void ct_reader_report(struct ct_capture *c);
void ct_reader_free(struct ct_capture *c);

#endif
