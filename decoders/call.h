/* SPDX-License-Identifier: MIT */
/*
 * A call as views see it: the decoder pairs entry and exit records, names
 * what it can, and hands each call to the views (filters, summary,
 * timeline) before printing it.
 */
#ifndef CT_CALL_H
#define CT_CALL_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"
#include "layouts.h"

struct ct_special;
struct gw_event;

enum ct_call_kind { CT_CALL_IOCTL, CT_CALL_MMAP, CT_CALL_MUNMAP };

struct ct_call {
	enum ct_call_kind kind;
	const struct ct_ioctl *en, *ex;   /* ioctl: either may be NULL, not both */
	const struct ct_mmap *mmap;       /* CT_CALL_MMAP */
	const struct ct_munmap *munmap;   /* CT_CALL_MUNMAP */
	uint32_t pid, tid;
	char comm[CT_COMM_LEN + 1];
	int fd;                           /* the call's fd, -1 for munmap */
	const char *path;                 /* device path, NULL if unknown */
	int gpu;                          /* GPU (device instance) concerned, -1 unknown */
	uint64_t ts_ns;                   /* entry time */
	uint64_t duration_ns;             /* 0 if unfinished */
	bool finished;
	int64_t ret;
	uint32_t request;                 /* ioctl request */
	const char *name;                 /* "NV_ESC_RM_CONTROL", "UVM_FREE", "mmap" ... */
	bool has_ctrl;                    /* RM_CONTROL: its command */
	uint32_t ctrl;
	const char *ctrl_name;            /* NULL if it has no public name */
	bool has_class;                   /* RM_ALLOC: its class */
	uint32_t hclass;
	const char *class_name;
	bool has_status;                  /* NV_STATUS written back by the driver */
	uint32_t status;
	const char *status_name;
	bool failed;                      /* ret != 0, or status != NV_OK */
	bool written_back;                /* finished with ret >= 0: the driver's out
					   * fields are there (describe.c) */

	/* An ioctl's argument, parsed once for every printer and view. */
	const struct ct_ioctl *rec;       /* ex ? ex : en: the buffers to show */
	const struct ct_layout *layout;   /* the argument's, NULL if none of its size */
	const struct ct_layout *nested_layout;  /* the nested params', NULL if none */
	const char *nested_name;          /* "*params", "*pAllocParms", "*ptr" */
	uint32_t esc_nr;                  /* the 'F' escape, 0 for other requests */
	uint32_t xfer_nr;                 /* NV_ESC_IOCTL_XFER_CMD: the escape it wraps */
	uint32_t client;                  /* the argument's first handle (hClient, hRoot) */
	const struct ct_special *special; /* its entry in special.c's table, or NULL */

	const struct ct_frames *stack;    /* -k: its call stack, NULL if none (stack.h) */
	const struct ct_stack_end *stack_end;   /* why that stack ends; NULL: not recorded */
	const char *api;                  /* driver entry point it came through, or NULL */
	const char *caller;               /* first frame outside the driver library */
	uint64_t caller_pc;               /* that frame's pc (0: none) */
	const struct ct_pyframes *pystack; /* its Python frames, NULL if none (pystack.h) */
	const struct ct_pyframe *py;      /* the Python frame it is charged to, or NULL */
	const char *py_file, *py_func;    /* that frame's strings */
};

/* Views run in order; a filter that returns false drops the call for the
 * views after it and for the printed output. */
struct ct_view {
	bool (*filter)(void *ctx, const struct ct_call *c);
	void (*call)(void *ctx, const struct ct_call *c);
	/* At the end: 0, or -1 after saying on stderr what failed (an
	 * output that could not be written); the decoder counts failures. */
	int (*finish)(void *ctx);
	/* Optional: every checked record, before the decoder acts on it
	 * (the header, processes, exits, the trailer ...), for views that
	 * keep more than calls (device memory, SQLite). */
	void (*record)(void *ctx, const struct ct_rec *r);
	/* Optional: --gpu-work, each event decoded from a segment record;
	 * e is NULL for a record of entries lost or unreadable (gpuwork.h). */
	void (*gpu_work)(void *ctx, const struct ct_gpu_seg *s, const struct gw_event *e);
	/* Optional: false drops a --gpu-work event (-e kernel=): no view gets
	 * it, it is not printed.  e is never NULL here. */
	bool (*gpu_filter)(void *ctx, const struct ct_gpu_seg *s, const struct gw_event *e);
	void *ctx;
};

#endif
