// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "stack_end.h"

enum ct_stack_why ct_stack_why_of(const struct ct_frames *f, const struct ct_stack_end *end,
				  bool complete_in_driver)
{
	static const enum ct_stack_why of_kind[CT_STACK_END_KINDS] = {
		[CT_STACK_END_COMPLETE] = CT_WHY_COMPLETE,
		[CT_STACK_END_COPY_SHORT] = CT_WHY_COPY_SHORT,
		[CT_STACK_END_NO_CFI] = CT_WHY_NO_CFI,
		[CT_STACK_END_BAD_READ] = CT_WHY_BAD_READ,
		[CT_STACK_END_MAX_FRAMES] = CT_WHY_MAX_FRAMES,
		[CT_STACK_END_NO_MAPS] = CT_WHY_NO_MAPS,
		[CT_STACK_END_ERROR] = CT_WHY_ERROR,
		[CT_STACK_END_COMPLETE_FP] = CT_WHY_COMPLETE_FP,
		[CT_STACK_END_NO_FP] = CT_WHY_NO_FP,
		[CT_STACK_END_MAX_BYTES] = CT_WHY_MAX_BYTES,
	};
	static const enum ct_stack_why of_status[] = {
		[CT_UNWIND_END] = CT_WHY_COMPLETE,
		[CT_UNWIND_NO_STACK] = CT_WHY_COPY_SHORT,
		[CT_UNWIND_NO_CFI] = CT_WHY_NO_CFI,
		[CT_UNWIND_MAX_FRAMES] = CT_WHY_MAX_FRAMES,
		[CT_UNWIND_NO_MAPS] = CT_WHY_NO_MAPS,
		[CT_UNWIND_ERROR] = CT_WHY_NO_CFI,
	};
	enum ct_stack_why why;

	if (end)
		why = end->kind < CT_STACK_END_KINDS ? of_kind[end->kind] : CT_WHY_ERROR;
	else
		why = f->status < sizeof(of_status) / sizeof(of_status[0]) ?
			of_status[f->status] : CT_WHY_ERROR;
	/* A walk that ends inside the driver library with no thread start
	 * after it: the driver's own thread, if the capture said the stack
	 * ended there and the thread is not the process's first; an old
	 * trace's "end" there may have been a copy too short. */
	if ((why == CT_WHY_COMPLETE || why == CT_WHY_COMPLETE_FP) && complete_in_driver)
		return end && f->h.tid != f->h.pid ? CT_WHY_DRIVER_THREAD : CT_WHY_UNKNOWN;
	return why;
}

uint32_t ct_stack_suggest(uint32_t need, uint32_t copied)
{
	uint32_t k = 64;

	if (!need)
		return copied < CT_STACK_MAX ? CT_STACK_MAX : 0;
	if (need > CT_STACK_MAX)
		return 0;
	while (k < need)
		k *= 2;
	return k;
}

const char *ct_stack_why_tag(enum ct_stack_why why, uint32_t suggest, char *buf, size_t size)
{
	switch (why) {
	case CT_WHY_DRIVER_THREAD:
		return "driver thread";
	case CT_WHY_COPY_SHORT:
		if (suggest)
			snprintf(buf, size, "stack copy too short: -k%u", suggest);
		else
			snprintf(buf, size, "stack copy too short: deeper than -k%u", CT_STACK_MAX);
		return buf;
	case CT_WHY_NO_CFI:
		return "no CFI";
	case CT_WHY_NO_FP:
		return "no CFI, no frame pointer";
	case CT_WHY_BAD_READ:
		return "bad stack read";
	case CT_WHY_MAX_FRAMES:
		return "frame limit";
	case CT_WHY_MAX_BYTES:
		snprintf(buf, size, "stack deeper than %u MiB", CT_KSTACK_BYTES >> 20);
		return buf;
	case CT_WHY_NO_MAPS:
		return "no mappings";
	case CT_WHY_ERROR:
		return "unwinding failed";
	default:
		return "?";
	}
}

const char *ct_stack_why_text(enum ct_stack_why why, uint32_t suggest, char *buf, size_t size)
{
	switch (why) {
	case CT_WHY_COPY_SHORT:
		if (suggest)
			snprintf(buf, size, "the stack goes on past the bytes copied: -k%u copies "
				 "further", suggest);
		else
			snprintf(buf, size, "the stack goes on past the bytes copied, deeper "
				 "than -k%u", CT_STACK_MAX);
		return buf;
	case CT_WHY_NO_CFI:
		return "a return address with no module or no unwind information (CFI)";
	case CT_WHY_NO_FP:
		return "code without unwind information (CFI), and rbp is not a frame pointer "
		       "to follow";
	case CT_WHY_BAD_READ:
		return "a read outside the stack (below sp, past its mapping, or a fault)";
	case CT_WHY_MAX_FRAMES:
		return "frame limit reached";
	case CT_WHY_MAX_BYTES:
		snprintf(buf, size, "the stack goes on past the walk's bound, %u MiB above the "
			 "stack pointer", CT_KSTACK_BYTES >> 20);
		return buf;
	case CT_WHY_NO_MAPS:
		return "the process was gone before its mappings could be read";
	case CT_WHY_ERROR:
		return "the unwinder failed";
	default:
		return NULL;
	}
}

const char *ct_stack_why_name(enum ct_stack_why why)
{
	static const char *const names[CT_WHY_COUNT] = {
		[CT_WHY_COMPLETE] = "end", [CT_WHY_DRIVER_THREAD] = "end",
		[CT_WHY_COPY_SHORT] = "copy_short", [CT_WHY_NO_CFI] = "no_cfi",
		[CT_WHY_BAD_READ] = "bad_read", [CT_WHY_MAX_FRAMES] = "max_frames",
		[CT_WHY_NO_MAPS] = "no_maps", [CT_WHY_ERROR] = "error", [CT_WHY_UNKNOWN] = "end",
		[CT_WHY_COMPLETE_FP] = "end_fp", [CT_WHY_NO_FP] = "no_fp",
		[CT_WHY_MAX_BYTES] = "max_bytes",
	};

	return why < CT_WHY_COUNT ? names[why] : "unknown";
}
