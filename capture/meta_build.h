/* SPDX-License-Identifier: MIT */
/*
 * Builds the CT_REC_META record at capture start: key=value lines that say
 * what produced a trace (driver, kernel, host, GPUs, options, device
 * paths).  format/meta.h parses it.
 */
#ifndef CT_META_BUILD_H
#define CT_META_BUILD_H

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
	const char *api_lib;      /* --api-lib, NULL: not given */
};

/* malloc'd CT_REC_META record; its h.size gives the length. */
struct ct_rec *ct_meta_build(const struct ct_meta_in *in);


#endif
