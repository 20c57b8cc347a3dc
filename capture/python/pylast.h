/* SPDX-License-Identifier: MIT */
/*
 * Each thread's latest Python stack, whole, as the kernel sent it and as it
 * was named.  The kernel leaves out of a record the outermost frames that
 * are the thread's last record's (ct_pystack.outer_kept: a loop's calls
 * repeat most of a deep stack); they are taken from here, and a stack that
 * repeats the last one takes its named record without naming a frame
 * (its header may be changed: it is the caller's to send).
 */
#ifndef CT_PYLAST_H
#define CT_PYLAST_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"
#include "idmap.h"

#define CT_PYLAST_MAX 4096     /* threads kept; then all forgotten, and counted */

struct ct_pylast {
	struct idmap by_tid;       /* tid -> struct pylast_entry */
	uint64_t forgotten;        /* threads' stacks forgotten at CT_PYLAST_MAX */
};

/*
 * The record's stack whole into out (CT_PY_FRAMES_MAX frames), innermost
 * first: its own frames, then the outer ones it left out, from the thread's
 * last record.  Returns the frames in out.  *lost: those outer frames were
 * in a record that is not the one kept here (lost, or forgotten): out has
 * only the record's own frames.  s: checked by ct_record_check.
 */
uint32_t ct_pylast_whole(const struct ct_pylast *l, const struct ct_pystack *s,
			 struct ct_pyframe_raw *out, bool *lost);
/*
 * The record named for the thread's last stack where this one (n frames
 * whole, flags) is the same; it is then the thread's last (its number
 * taken).  NULL: not the same, or a record the kernel did not number.
 */
struct ct_pyframes *ct_pylast_repeat(struct ct_pylast *l, const struct ct_pystack *s,
				     const struct ct_pyframe_raw *whole, uint32_t n, uint32_t flags);
/*
 * This stack, whole, and its named record: the thread's last now.  One not
 * whole (lost above) drops the thread's last instead: later records that
 * leave frames out are then lost too, never filled from the wrong one (the
 * kernel sends a stack whole every CT_PY_WHOLE_EVERY records).  One the
 * kernel did not number (no thread state) leaves it: so does the kernel.
 */
void ct_pylast_keep(struct ct_pylast *l, const struct ct_pystack *s,
		    const struct ct_pyframe_raw *whole, uint32_t n, bool is_whole,
		    const struct ct_pyframes *named);
/* A process exited or ran another program: its threads' stacks dropped,
 * so that a long capture keeps the threads that still run. */
void ct_pylast_forget_process(struct ct_pylast *l, uint32_t pid);
void ct_pylast_free(struct ct_pylast *l);

#endif
