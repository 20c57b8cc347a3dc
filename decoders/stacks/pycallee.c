// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>

#include "pycallee.h"
#include "stack.h"

/* A frame of the interpreter: its file is named as CPython names them. */
static bool in_cpython(const struct ct_frames *f, const struct ct_frame *fr)
{
	const char *base = ct_base_name(ct_frame_str(f, fr->module));

	return ct_has_prefix(base, "python3") || ct_has_prefix(base, "libpython3");
}

const char *ct_python_callee(const struct ct_frames *f, char *buf, size_t n)
{
	const struct ct_frame *fr;
	const char *module, *sym;
	uint32_t i;

	if (!f || !n)
		return NULL;
	fr = ct_frames_at(f);
	/* Frames innermost first: the first interpreter frame's inner neighbour. */
	for (i = 1; i < f->nframes && !in_cpython(f, &fr[i]); i++)
		;
	if (i == f->nframes || in_cpython(f, &fr[i - 1]))
		return NULL;
	module = ct_base_name(ct_frame_str(f, fr[i - 1].module));
	sym = ct_frame_str(f, fr[i - 1].sym);
	if (sym)
		snprintf(buf, n, "%s(%s)", module ? module : "?", sym);
	else
		snprintf(buf, n, "%s", module ? module : "?");
	return buf;
}
