/* SPDX-License-Identifier: MIT */
/*
 * Copy engine uploads' sources as the reader thread saw them (docs/
 * KERNELS.md, "Copies read when the reader reads them").  A kernel's code
 * copied by the copy engine comes from a staging buffer that the driver
 * reuses for the next upload as soon as this one is done; the namer runs
 * in the record loop, which may come to the copy seconds later (stacks,
 * Python names, a slow sink).  So the reader thread decodes the copies of
 * each segment it reads and queues them; a thread of this file's own reads
 * the first CT_SNAP_BYTES of each one's source at once (the reads cost
 * milliseconds where the memory is write-combined: never on the poller's
 * path); the namer's reads of process memory are served from what was
 * kept, and a read that goes past it is checked against it: a buffer
 * written since is refused (counted), never named from.  A source read
 * after a later copy from the same bytes may have been put (its ring's
 * look before it came earlier than the read ended: the driver fills a
 * staging buffer before it puts the copy) is refused too, where the two
 * overlap.
 *
 * The channels' decoders are the reader thread's alone; the queue and the
 * kept bytes are shared with the snapshot thread and the record loop
 * under a lock.
 */
#ifndef CT_COPY_SNAPS_H
#define CT_COPY_SNAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudatrace.h"

#define CT_SNAP_BYTES  (64u << 10)   /* kept of each copy's source: most kernels whole */
#define CT_SNAPS_MAX   256           /* copies kept at once (16 MiB at most), oldest first out */

struct ct_copy_snaps;

struct ct_copy_snaps_stats {
	uint64_t copies;       /* copies whose source was kept */
	uint64_t unreadable;   /* copies whose source could not be read when seen (device memory) */
	uint64_t served;       /* namer's reads answered from what was kept */
	uint64_t checked;      /* ... read past it, live, and found unchanged */
	uint64_t stale;        /* ... found written since: refused */
	uint64_t evicted;      /* kept copies pushed out, never read (CT_SNAPS_MAX) */
	uint64_t dropped;      /* copies not kept: CT_SNAPS_MAX queued for the thread */
	uint64_t overtaken;    /* kept, but a later copy from some of the same bytes may
				* have been put before they were read */
	uint64_t refused_overtaken;   /* namer's reads of those: refused */
	uint64_t read_ns, read_max_ns, read_bytes;   /* the thread's reads of sources */
};

typedef bool (*ct_snap_read_fn)(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t n);

/* read: how the reader thread reads process memory (and the namer, live). */
struct ct_copy_snaps *ct_copy_snaps_new(ct_snap_read_fn read, void *ctx);
void ct_copy_snaps_free(struct ct_copy_snaps *s);

/* Reader thread: a GPU-work record as it is read (GPU_PUT: when the
 * segments that follow were put; GPU_SEG: its copies queued to be kept). */
void ct_copy_snaps_seg(struct ct_copy_snaps *s, const struct ct_rec *r);
/* Waits until every copy queued has been read (tests). */
void ct_copy_snaps_drain(struct ct_copy_snaps *s);
/* Reader thread: the process exited (its channels' decoders go; what was
 * kept stays for the namer, which is behind). */
void ct_copy_snaps_exited(struct ct_copy_snaps *s, uint32_t pid);

/* Record loop: n bytes at off into the source of pid's copy src -> dst,
 * as the reader thread saw them where it kept them (the newest such
 * copy), else read now; false if they cannot be had, or were written
 * since the reader saw them. */
bool ct_copy_snaps_read(struct ct_copy_snaps *s, uint32_t pid, uint64_t src, uint64_t dst,
			uint64_t off, void *buf, size_t n);
/* Record loop: the namer is done with pid (its exit came through). */
void ct_copy_snaps_forget(struct ct_copy_snaps *s, uint32_t pid);

struct ct_copy_snaps_stats ct_copy_snaps_stats(struct ct_copy_snaps *s);

#endif
