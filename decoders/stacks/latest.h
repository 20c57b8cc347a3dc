/* SPDX-License-Identifier: MIT */
/*
 * The latest record of one kind per thread (a stack's frames, its end, its
 * Python frames), kept as a copy until the thread's next one or until the
 * thread is forgotten.  A call finds its own by thread, process and entry
 * time: a record of an earlier call is not its.
 */
#ifndef CT_LATEST_H
#define CT_LATEST_H

#include <stdint.h>
#include "cudatrace.h"
#include "idmap.h"

struct ct_latest {
	struct idmap by_tid;    /* tid -> malloc'd copy of the record */
};

/* Keeps a copy of r (r->size bytes, checked) as its thread's latest. */
void ct_latest_put(struct ct_latest *l, const struct ct_rec *r);
/* The thread's latest record if it is of process pid at time ts, else NULL. */
const void *ct_latest_for(const struct ct_latest *l, uint32_t tid, uint32_t pid, uint64_t ts);
void ct_latest_forget(struct ct_latest *l, uint32_t tid);
void ct_latest_free(struct ct_latest *l);

#endif
