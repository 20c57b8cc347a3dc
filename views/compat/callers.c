// SPDX-License-Identifier: MIT
/*
 * --compat: who made the calls.  -k stacks give each row its driver entry
 * point and tell whether its known caller (known_callers.tsv) is the one;
 * the driver libraries the trace uses give the capabilities a container
 * needs to have them at all (driver_libs.tsv).
 */
#include <stdio.h>
#include <string.h>

#include "report_rows.h"
#include "stack.h"

/* The driver library a frame's module is (ct_driver_libs index, -1 none),
 * remembered by name: a trace has few modules and many frames. */
static int frame_lib(struct ct_compat *c, const char *base)
{
	unsigned i, n = sizeof(c->lib_memo) / sizeof(c->lib_memo[0]);

	for (i = 0; i < n; i++)
		if (c->lib_memo[i].name[0] && strcmp(c->lib_memo[i].name, base) == 0)
			return c->lib_memo[i].lib;
	i = c->lib_memo_next++ % n;
	snprintf(c->lib_memo[i].name, sizeof(c->lib_memo[i].name), "%s", base);
	c->lib_memo[i].lib = ct_driver_lib_of(base);
	return c->lib_memo[i].lib;
}

static bool frame_is(const struct ct_frames *f, const struct ct_frame *fr, const char *fn)
{
	const char *sym = ct_frame_str(f, fr->sym), *exp = ct_frame_str(f, fr->exp);

	return (sym && strcmp(sym, fn) == 0) || (exp && strcmp(exp, fn) == 0);
}

/* A -k stack: the driver libraries it passes through, its entry point (for
 * the row's first stacked call), and whether it shows the known caller. */
void ct_compat_read_stack(struct ct_compat *c, struct row *r, const struct ct_call *call)
{
	const struct ct_frames *f = call->stack;
	const struct ct_frame *fr = ct_frames_at(f);
	bool seen = false;
	uint32_t i;

	for (i = 0; i < f->nframes; i++) {
		const char *base = ct_base_name(ct_frame_str(f, fr[i].module));
		int lib = base && strlen(base) < ROW_NAME_MAX ? frame_lib(c, base) : -1;

		if (lib >= 0)
			c->libs_stacked |= 1ull << lib;
		if (r->known && ct_module_is(base, r->known->module) &&
		    frame_is(f, &fr[i], r->known->function))
			seen = true;
		if (!r->api_module[0] && r->api[0] && base && frame_is(f, &fr[i], r->api))
			snprintf(r->api_module, sizeof(r->api_module), "%s", base);
	}
	r->known_seen += seen;
}

/* The capabilities that bring the driver libraries the trace uses into a
 * container (driver_libs.tsv): seen in -k stacks, or the known callers of
 * its rows. */
uint16_t ct_compat_lib_caps(const struct ct_compat *c)
{
	uint64_t libs = c->libs_stacked | c->libs_known;
	uint16_t caps = 0, one;
	const char *bad;
	unsigned i;

	for (i = 0; c->snap->ncaps && i < ct_ndriver_libs; i++)
		if ((libs >> i & 1) && ct_gv_caps_parse(c->snap, ct_driver_libs[i].cap, &one, &bad))
			caps |= one;
	return caps;
}

/* Not fatal only where the known caller carries on and no stack says the
 * call came from elsewhere. */
enum refusal_effect ct_compat_effect(const struct row *r)
{
	if (!r->known || r->known_seen != r->stacked)
		return RE_UNKNOWN;
	return r->known->effect == CT_CARRIES_ON ? RE_NOT_FATAL
	       : r->known->effect == CT_STOPS ? RE_FATAL : RE_UNKNOWN;
}
