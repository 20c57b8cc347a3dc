/* SPDX-License-Identifier: MIT */
/*
 * Python frames on the decoder side: the CT_REC_PYFRAMES record that
 * follows a call's entry is joined to the call, which is charged to one
 * Python frame (c->py: the innermost frame of the user's code, --py-user),
 * and its frames are merged into the native stack where -k took one: the
 * Python frames of each C-level call into the interpreter take the place
 * of its _PyEval_EvalFrameDefault frame, as py-spy --native and pystack do.
 * Where the counts do not agree the native stack stays whole and the Python
 * frames follow it, and the output says so: never a guess.
 */
#ifndef CT_PYSTACK_H
#define CT_PYSTACK_H

#include <stdbool.h>
#include "call.h"
#include "emit.h"

struct ct_pystacks;

/* py_user: shell patterns, comma-separated, for the user's files (NULL:
 * any file outside site-packages, dist-packages, lib/python3.X, <frozen>). */
struct ct_pystacks *ct_pystacks_new(const char *py_user);
void ct_pystacks_free(struct ct_pystacks *s);
void ct_pystacks_learn(struct ct_pystacks *s, const struct ct_pyframes *f);
/* Joins the call with its Python frames, if any: sets c->pystack and c->py
 * (valid until the next call of this function). */
void ct_pystacks_describe(struct ct_pystacks *s, struct ct_call *c);
void ct_pystacks_forget(struct ct_pystacks *s, uint32_t tid);

/* Frame strings (NULL where none). */
const char *ct_pyframe_str(const struct ct_pyframes *f, uint32_t off);
static inline const struct ct_pyframe *ct_pyframes_at(const struct ct_pyframes *f)
{
	return (const struct ct_pyframe *)(f + 1);
}

/* One item of a merged stack, innermost first. */
struct ct_stack_item {
	bool python;
	uint32_t i;                  /* index into the native or the Python frames */
};
/*
 * The merged frames of a call into items[] (room for CT_FRAMES_MAX +
 * CT_PY_FRAMES_MAX); returns how many.  *appended: the counts did not agree,
 * so the Python frames come after the native ones.
 */
size_t ct_stack_merge(const struct ct_call *c, struct ct_stack_item *items, bool *appended);

/* Why a merge appended: no native frame is named as the interpreter's and
 * some have no name at all (a python without symbols), rather than counts
 * that disagree. */
bool ct_stack_interp_unnamed(const struct ct_call *c);

/* Text: "model.py:42 Net.forward" of the call's Python frame. */
void ct_py_print_where(struct ct_out *out, const struct ct_call *c);
/* Text: one " > file:line qualname" line for Python frame i. */
void ct_py_print_frame(struct ct_out *out, const struct ct_pyframes *f, uint32_t i);
/* JSON: Python frame i as an object of a "stack" list. */
void ct_py_emit_frame(struct emit *e, const struct ct_pyframes *f, uint32_t i);
/* JSON: "py": {file, line, func} of the call. */
void ct_py_emit_json(struct emit *e, const struct ct_call *c);

#endif
