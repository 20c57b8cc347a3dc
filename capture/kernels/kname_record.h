/* SPDX-License-Identifier: MIT */
/*
 * The CT_REC_KERNEL_NAME record of what the namer found at a program
 * address (bpf/cudatrace.h, docs/FORMAT.md): the name, or for code several
 * functions have, each of their names (CT_KN_NAMES, as many as the record
 * holds), and the file it came from.
 */
#ifndef CT_KNAME_RECORD_H
#define CT_KNAME_RECORD_H

#include <stdint.h>

#include "cudatrace.h"
#include "kindex.h"

/* name: r->f's, or a jit: id (size: its code's bytes where r has no
 * function).  Returns a malloc'd record of h.size bytes, or NULL. */
struct ct_kernel_name *ct_kname_record(const struct ct_kindex *x, uint32_t pid, uint64_t program,
				       uint32_t how, const struct ct_kfound *r, const char *name,
				       uint32_t size);

#endif
