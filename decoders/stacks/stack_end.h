/* SPDX-License-Identifier: MIT */
/*
 * -k: why a call's stack ends where it does, in the words of the call's
 * tag ([api <- caller]), its frames, JSON and the capture's summary.  The
 * reason comes from the capture's CT_REC_STACK_END (the copy's flags, the
 * unwinder's failed reads); traces made before it have ct_frames.status
 * only, which called a copy too short the end of the stack.
 */
#ifndef CT_STACK_END_H
#define CT_STACK_END_H

#include <stdbool.h>
#include <stdint.h>
#include "cudatrace.h"

enum ct_stack_why {
	CT_WHY_COMPLETE,        /* the outermost frame (_start, a thread's start) */
	CT_WHY_DRIVER_THREAD,   /* ... of a thread the driver library started */
	CT_WHY_COPY_SHORT,      /* the stack goes on past the -k copy */
	CT_WHY_NO_CFI,          /* a return address with no module or no unwind info */
	CT_WHY_BAD_READ,        /* a read outside the stack, or the copy faulted */
	CT_WHY_MAX_FRAMES,
	CT_WHY_NO_MAPS,
	CT_WHY_ERROR,
	CT_WHY_UNKNOWN,         /* an old trace's "end" inside the driver library */
	CT_WHY_COMPLETE_FP,     /* the outermost frame, through code without unwind
				 * information walked by its frame pointer */
	CT_WHY_NO_FP,           /* code without unwind information or a frame pointer */
	CT_WHY_MAX_BYTES,       /* the kernel's walk: deeper than its bound (CT_KSTACK_BYTES) */
	CT_WHY_COUNT
};

/* The reason in end (NULL: a trace without CT_REC_STACK_END: f->status).
 * complete_in_driver: the walk's last frame is in the driver library. */
enum ct_stack_why ct_stack_why_of(const struct ct_frames *f, const struct ct_stack_end *end,
				  bool complete_in_driver);

/* The -k size that copies the bytes the unwinder asked for (a power of
 * two, at most CT_STACK_MAX); 0 if none can.  need 0: unknown (an old
 * trace): the largest, if larger than what was copied. */
uint32_t ct_stack_suggest(uint32_t need, uint32_t copied);

/* Short words for the caller slot of the tag: "stack copy too short:
 * -k65536", "no CFI", "bad stack read", "driver thread", "?" ... */
const char *ct_stack_why_tag(enum ct_stack_why why, uint32_t suggest, char *buf, size_t size);
/* A sentence for " > (unwinding stopped: ...)"; NULL for a complete stack. */
const char *ct_stack_why_text(enum ct_stack_why why, uint32_t suggest, char *buf, size_t size);
/* JSON's stack_end value: "end", "end_fp", "copy_short", "no_cfi", "no_fp", "bad_read",
 * "max_bytes" ... */
const char *ct_stack_why_name(enum ct_stack_why why);

#endif
