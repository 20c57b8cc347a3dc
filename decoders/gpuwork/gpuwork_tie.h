/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work: which driver call a channel's work came after
 * (docs/GPUWORK.md, "After which driver call").  The ring does not say
 * which thread wrote an entry, nor when: only that GPPut moved between two
 * reads (a GPU_PUT record's since_ns and ts_ns).  What can be said for
 * sure is the order against the process's driver calls: a call that ended
 * before the window came before the work; one that ended inside it may
 * have come before or after.  So the work is tied to the process's last
 * call that ended before the window, and called certain only when no call
 * of the process ended inside it.  Its thread is the call's: the work may
 * still have come from another thread.
 */
#ifndef CT_GPUWORK_TIE_H
#define CT_GPUWORK_TIE_H

#include <stdbool.h>
#include <stdint.h>

#include "idmap.h"

#define GW_CALL_NAME 80

struct gw_call {
	uint64_t end_ns;           /* when it returned */
	uint32_t tid;
	char name[GW_CALL_NAME];   /* "NV_ESC_RM_CONTROL NV2080_CTRL_CMD_GR_GET_INFO" */
};

/* The latest driver calls of each process. */
struct gw_calls {
	struct idmap procs;        /* pid -> struct gw_proc_calls */
	uint64_t nprocs;
};

enum gw_tie_kind {
	GW_TIE_NONE,       /* no window (a trace from before GPU_PUT), or no call before it */
	GW_TIE_CERTAIN,    /* call: the process's last driver call before the work */
	GW_TIE_UNKNOWN,    /* calls ended while the work was put: the order is not known */
};

struct gw_tie {
	enum gw_tie_kind kind;
	uint64_t since_ns, until_ns;   /* the window the work was put in */
	struct gw_call call;       /* GW_TIE_CERTAIN */
	uint32_t in_window;        /* GW_TIE_UNKNOWN: calls that ended inside the window */
	bool at_least;             /* ... at least that many (older ones were forgotten) */
};

/* A call of pid (thread tid, named name) that returned at end_ns. */
void gw_calls_note(struct gw_calls *c, uint32_t pid, uint32_t tid, uint64_t end_ns,
		   const char *name);
void gw_calls_forget(struct gw_calls *c, uint32_t pid);
void gw_calls_free(struct gw_calls *c);
/* The tie of work pid put between since_ns and until_ns. */
void gw_tie_find(const struct gw_calls *c, uint32_t pid, uint64_t since_ns, uint64_t until_ns,
		 struct gw_tie *t);

#endif
