/* SPDX-License-Identifier: MIT */
/* Process records: read from /proc, and env filtering for all of them. */
#ifndef CT_PROCINFO_H
#define CT_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include "cudatrace.h"

/*
 * Fills buf (at least sizeof(struct ct_proc) + argv and env maxima) with a
 * CT_REC_PROC for pid read from proc_root.  Returns 0, or -errno when the
 * process is gone.  The environment is already filtered.
 */
int ct_proc_from_procfs(const char *proc_root, uint32_t pid, uint32_t source,
			uint64_t ts_ns, void *buf);

/*
 * Keeps only the variables that change what the driver is asked
 * (CUDA_*, NVIDIA_*, NCCL_*, ...): trace files travel, secrets must not.
 * Rewrites the record in place and updates its sizes.
 */
void ct_proc_filter_env(struct ct_proc *p);

/* Bytes a buffer for ct_proc_from_procfs needs. */
#define CT_PROC_BUF_SIZE (sizeof(struct ct_proc) + CT_PROC_ARGV_MAX + CT_PROC_ENV_MAX)

#endif
