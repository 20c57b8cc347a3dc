/* SPDX-License-Identifier: MIT */
/*
 * The CT_REC_META record: key=value lines that say what produced a trace
 * (driver, kernel, host, GPUs, options, device paths).  Built at capture
 * start; parsed by the decoder, live and offline alike.
 */
#ifndef CT_META_H
#define CT_META_H

#include <stddef.h>
#include <stdint.h>
#include "devices.h"

struct ct_meta_in {
	const struct ct_devices *devs;
	const char *options;      /* the command line, for the record */
	uint32_t nest_max;
	uint64_t start_realtime_ns;
	uint64_t start_monotonic_ns;
	const char *proc_root;    /* "/proc", or a test fixture */
};

/* malloc'd CT_REC_META record; its h.size gives the length. */
struct ct_rec *ct_meta_build(const struct ct_meta_in *in);

/* Calls fn for each key=value line of a META record. */
void ct_meta_foreach(const struct ct_rec *meta,
		     void (*fn)(const char *key, const char *value, void *ctx), void *ctx);

#endif
