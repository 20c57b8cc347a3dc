/* SPDX-License-Identifier: MIT */
/*
 * Call stacks (-k) on the decoder side: the CT_REC_FRAMES record that
 * follows a call's entry is joined to the call, which gets its `api` (the
 * exported function of the driver library that the program called) and
 * `caller` (the first frame outside that library), and is printed as
 * strace -k prints stacks.  Frames records passed ct_record_check, so
 * their string offsets are inside their NUL-terminated table.
 */
#ifndef CT_STACK_H
#define CT_STACK_H

#include <stdbool.h>
#include <stdio.h>
#include "call.h"
#include "emit.h"
#include "stack_end.h"

/* NVIDIA's user-space driver libraries that make ioctls: CUDA and NVML. */
#define CT_API_LIB_DEFAULT "libcuda.so*,libnvidia-ml.so*"

struct ct_stacks;

/* api_lib: shell patterns, comma-separated, for the driver libraries' file
 * names (NULL: the default). */
struct ct_stacks *ct_stacks_new(const char *api_lib);
void ct_stacks_free(struct ct_stacks *s);
/* A frames record: kept for the call of the same thread and entry time. */
void ct_stacks_learn(struct ct_stacks *s, const struct ct_frames *f);
/* The end record that follows a frames record: why that stack ends. */
void ct_stacks_learn_end(struct ct_stacks *s, const struct ct_stack_end *e);
/* Why stack f (the latest of its thread, learnt here) ends where it does. */
enum ct_stack_why ct_stacks_why(const struct ct_stacks *s, const struct ct_frames *f);
/* Joins the call with its stack, if there is one: sets c->stack, c->api,
 * c->caller (valid until the next call of this function). */
void ct_stacks_describe(struct ct_stacks *s, struct ct_call *c);
/* A thread is gone: its kept stack goes too. */
void ct_stacks_forget(struct ct_stacks *s, uint32_t tid);

/* Text: " [api <- caller]" on the call's line (nothing without a stack). */
void ct_stack_print_tag(struct ct_out *out, const struct ct_call *c);
/* Text: one " > module(sym+0x..) [0xpc]" line per frame, after the call's line. */
void ct_stack_print_frames(struct ct_out *out, const struct ct_call *c);
/* JSON: "api", "caller", "stack": [...] in the call's object. */
void ct_stack_emit_json(struct emit *e, const struct ct_call *c);

/* A mapping record's fields (after the decoder's line head). */
void ct_stack_print_mapping(struct emit *e, const struct ct_mapping *m);

/* The file name of a path (after its last '/'); NULL for NULL. */
const char *ct_base_name(const char *path);
/* Whether s (NULL: no) starts with prefix. */
bool ct_has_prefix(const char *s, const char *prefix);

/* Frame i's strings (NULL where the frame has none). */
const char *ct_frame_str(const struct ct_frames *f, uint32_t off);
static inline const struct ct_frame *ct_frames_at(const struct ct_frames *f)
{
	return (const struct ct_frame *)(f + 1);
}

#endif
