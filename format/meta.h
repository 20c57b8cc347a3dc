/* SPDX-License-Identifier: MIT */
/*
 * The CT_REC_META record: key=value lines that say what produced a trace
 * (driver, kernel, host, GPUs, options, device paths).  Built by the
 * capture (capture/meta_build.c); parsed here, for the decoder, live and
 * offline alike.
 */
#ifndef CT_META_H
#define CT_META_H

#include <stdint.h>
#include "cudatrace.h"

/* Calls fn for each key=value line of a META record (checked by
 * ct_record_check()); lines longer than 1199 bytes are skipped. */
void ct_meta_foreach(const struct ct_rec *meta,
		     void (*fn)(const char *key, const char *value, void *ctx), void *ctx);
/* The trace's id: FNV-1a (64 bits) of the META record's text.  The header
 * holds the capture's start in nanoseconds (start_realtime_ns,
 * start_monotonic_ns) and the host, so two captures, or two files of one
 * --rotate capture, never share it, while every reading of one file, and
 * the live decoding of its capture, gives the same. */
uint64_t ct_meta_id(const struct ct_rec *meta);

#endif
