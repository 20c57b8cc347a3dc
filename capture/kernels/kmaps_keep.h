/* SPDX-License-Identifier: MIT */
/*
 * The code mappings of each traced process, read while the process lives
 * (asked for by the reader thread as records come, read on a thread of
 * their own), for the kernel namer that runs later on the record loop: a
 * program that exits right after its work is gone (its /proc/PID/maps
 * empty) by the time the record loop names its launches.  The files stay
 * open, so they can be read after the process is gone.
 */
#ifndef CT_KMAPS_KEEP_H
#define CT_KMAPS_KEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "codemaps.h"
#include "cudatrace.h"

struct ct_kmaps_keep;

struct ct_kmaps_keep *ct_kmaps_keep_new(const char *proc_root);
void ct_kmaps_keep_free(struct ct_kmaps_keep *k);
/* Reader thread: a record of pid; its mappings are read again (by the
 * keeper thread) when the last ask is older than CT_KMAPS_EVERY_NS.  It
 * never waits: not on the reading, nor on the namer. */
void ct_kmaps_keep_watch(struct ct_kmaps_keep *k, const struct ct_rec *r, uint64_t now_ns);
/* Record loop: fn(ctx, maps) with the mappings last read of pid; false
 * when none were.  Waits while the keeper reads a process's mappings (the
 * record loop may wait: the reader thread never does). */
bool ct_kmaps_keep_use(struct ct_kmaps_keep *k, uint32_t pid,
		       void (*fn)(void *ctx, const struct ct_codemaps *maps), void *ctx);
/* Record loop: pid exited and its launches are named: drop its mappings. */
void ct_kmaps_keep_forget(struct ct_kmaps_keep *k, uint32_t pid);

#endif
