/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work's kernel names in a live capture: the namer (knamer.h) given
 * the files each process maps (/proc/PID/maps, opened through
 * /proc/PID/map_files or /proc/PID/root, so containers work) and its
 * memory (/proc/PID/mem).
 */
#ifndef CT_KNAMES_LIVE_H
#define CT_KNAMES_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "cudatrace.h"

struct ct_knames;
typedef void (*ct_knames_sink_fn)(void *ctx, const struct ct_rec *r);

struct ct_knames *ct_knames_new(const char *proc_root, ct_knames_sink_fn sink, void *ctx);
void ct_knames_free(struct ct_knames *n);
/* Every record the GPU-work reader makes (segments, windows), in place of
 * the sink: a segment's launches may make CT_REC_KERNEL_NAME records, sent
 * first.  A launch whose upload was not seen yet (a copy engine upload,
 * read from another channel later: in the same poll, or in a later one
 * where that ring was not due) has its segment, and every record after
 * it, held until the upload names it, so the name goes before the
 * launch's line and nothing changes order; at most HOLD_RECORDS,
 * HOLD_BYTES or HOLD_NS of the records' time. */
void ct_knames_gpu(struct ct_knames *n, const struct ct_rec *r);
/* Any other record on its way to the sink: true if it was held behind a
 * waiting launch (it goes with the rest, in order), false if it goes now
 * (what was held went first). */
bool ct_knames_hold_other(struct ct_knames *n, const struct ct_rec *r);
/* Sends what is held, in order (when the record loop is idle, and at the
 * end). */
void ct_knames_flush(struct ct_knames *n);
/* Every record of the capture: a process's exit drops what it kept. */
void ct_knames_learn(struct ct_knames *n, const struct ct_rec *r);
/* Reader thread, every record of the kernel: keeps each process's code
 * mappings while it lives (kmaps_keep.h), for naming after it is gone. */
void ct_knames_watch(struct ct_knames *n, const struct ct_rec *r, uint64_t now_ns);
/* Reader thread, every GPU-work record as it is read: the sources of
 * the copies its segments make are kept at once (copy_snaps.h). */
void ct_knames_watch_gpu(struct ct_knames *n, const struct ct_rec *r);
/* The closing line. */
void ct_knames_report(const struct ct_knames *n);

#endif
