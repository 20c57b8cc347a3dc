// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "latest.h"
#include "pystack.h"
#include "stack.h"

struct ct_pystacks {
	char *py_user;             /* NULL: the default rule */
	struct ct_latest frames;   /* each thread's latest Python frames record */
};

struct ct_pystacks *ct_pystacks_new(const char *py_user)
{
	struct ct_pystacks *s = calloc(1, sizeof(*s));

	if (s && py_user && !(s->py_user = strdup(py_user))) {
		free(s);
		return NULL;
	}
	return s;
}

void ct_pystacks_free(struct ct_pystacks *s)
{
	if (!s)
		return;
	ct_latest_free(&s->frames);
	free(s->py_user);
	free(s);
}

void ct_pystacks_learn(struct ct_pystacks *s, const struct ct_pyframes *f)
{
	ct_latest_put(&s->frames, &f->h);
}

void ct_pystacks_forget(struct ct_pystacks *s, uint32_t tid)
{
	ct_latest_forget(&s->frames, tid);
}

const char *ct_pyframe_str(const struct ct_pyframes *f, uint32_t off)
{
	const char *strings = (const char *)(ct_pyframes_at(f) + f->nframes);

	return off == CT_NOSTR || off >= f->strings_size ? NULL : strings + off;
}

static bool any_glob(const char *globs, const char *file)
{
	char glob[256];

	while (*globs) {
		size_t n = strcspn(globs, ",");

		if (n < sizeof(glob)) {
			memcpy(glob, globs, n);
			glob[n] = 0;
			if (fnmatch(glob, file, 0) == 0 || fnmatch(glob, ct_base_name(file), 0) == 0)
				return true;
		}
		globs += n + (globs[n] == ',');
	}
	return false;
}

/* The standard library's folder: .../lib/python3.X/ (site-packages is inside). */
static bool in_stdlib(const char *file)
{
	const char *p = strstr(file, "/lib/python3.");

	return p && strchr(p + strlen("/lib/python3."), '/');
}

static bool is_user_file(const struct ct_pystacks *s, const char *file)
{
	if (s->py_user)
		return any_glob(s->py_user, file);
	return !strstr(file, "/site-packages/") && !strstr(file, "/dist-packages/") &&
	       !in_stdlib(file) && strncmp(file, "<frozen ", 8) != 0;
}

/*
 * The innermost frame of the user's code; else the innermost named frame.
 * None when a frame that could not be named comes first: it may have been
 * the user's.
 */
static const struct ct_pyframe *charged_frame(const struct ct_pystacks *s,
					      const struct ct_pyframes *f)
{
	const struct ct_pyframe *fr = ct_pyframes_at(f), *named = NULL;

	for (uint32_t i = 0; i < f->nframes; i++) {
		const char *file = ct_pyframe_str(f, fr[i].file);

		if (!file)
			return NULL;
		if (is_user_file(s, file))
			return &fr[i];
		if (!named)
			named = &fr[i];
	}
	return named;
}

void ct_pystacks_describe(struct ct_pystacks *s, struct ct_call *c)
{
	const struct ct_pyframes *f;

	c->pystack = NULL;
	c->py = NULL;
	c->py_file = c->py_func = NULL;
	if (!s || !(f = ct_latest_for(&s->frames, c->tid, c->pid, c->ts_ns)))
		return;
	c->pystack = f;
	c->py = charged_frame(s, f);
	if (c->py) {
		c->py_file = ct_pyframe_str(f, c->py->file);
		c->py_func = ct_pyframe_str(f, c->py->qualname);
	}
}

/* --- merging with the native stack --------------------------------------- */

/* The interpreter's own function (and its .cold part) ... */
static bool is_eval(const struct ct_frames *nf, uint32_t i)
{
	return ct_has_prefix(ct_frame_str(nf, ct_frames_at(nf)[i].sym), "_PyEval_EvalFrameDefault");
}

/* ... and, in 3.14's tail-calling build, the opcode handlers above it. */
static bool is_tail_call(const struct ct_frames *nf, uint32_t i)
{
	return ct_has_prefix(ct_frame_str(nf, ct_frames_at(nf)[i].sym), "_TAIL_CALL_");
}

/* Whether native frame i belongs to the eval site whose _PyEval_EvalFrameDefault is further out. */
static bool absorbed(const struct ct_frames *nf, uint32_t i)
{
	while (i < nf->nframes && is_tail_call(nf, i))
		i++;
	return i < nf->nframes && is_eval(nf, i);
}

/* Python frames in runs, one per C-level call into the interpreter: each
 * run ends with its entry frame.  Returns the number of runs. */
static uint32_t count_runs(const struct ct_pyframes *pf)
{
	const struct ct_pyframe *fr = ct_pyframes_at(pf);
	uint32_t runs = 0;

	for (uint32_t i = 0; i < pf->nframes; i++)
		if ((fr[i].marks & CT_PYF_ENTRY) || i + 1 == pf->nframes)
			runs++;
	return runs;
}

static size_t add_run(const struct ct_pyframes *pf, uint32_t *j, struct ct_stack_item *items,
		      size_t n)
{
	const struct ct_pyframe *fr = ct_pyframes_at(pf);

	while (*j < pf->nframes) {
		uint32_t k = (*j)++;

		items[n++] = (struct ct_stack_item){ .python = true, .i = k };
		if (fr[k].marks & CT_PYF_ENTRY)
			break;
	}
	return n;
}

static uint32_t count_eval(const struct ct_frames *nf)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < nf->nframes; i++)
		n += is_eval(nf, i);
	return n;
}

size_t ct_stack_merge(const struct ct_call *c, struct ct_stack_item *items, bool *appended)
{
	const struct ct_frames *nf = c->stack;
	const struct ct_pyframes *pf = c->pystack;
	uint32_t j = 0, evals, runs;
	size_t n = 0;
	bool merge;

	*appended = false;
	if (!pf) {
		for (uint32_t i = 0; nf && i < nf->nframes; i++)
			items[n++] = (struct ct_stack_item){ .i = i };
		return n;
	}
	if (!nf) {
		while (j < pf->nframes)
			n = add_run(pf, &j, items, n);
		return n;
	}
	evals = count_eval(nf);
	runs = count_runs(pf);
	/* A native stack cut short has fewer eval frames than there are runs:
	 * the outer runs then follow it, in order. */
	merge = evals == runs || (evals < runs && nf->status != CT_UNWIND_END);
	*appended = !merge && pf->nframes > 0;
	for (uint32_t i = 0; i < nf->nframes; i++) {
		if (merge && absorbed(nf, i)) {
			while (!is_eval(nf, i))
				i++;
			n = add_run(pf, &j, items, n);
			continue;
		}
		items[n++] = (struct ct_stack_item){ .i = i };
	}
	while (j < pf->nframes)
		n = add_run(pf, &j, items, n);
	return n;
}

bool ct_stack_interp_unnamed(const struct ct_call *c)
{
	const struct ct_frames *nf = c->stack;

	if (!nf || count_eval(nf))
		return false;
	for (uint32_t i = 0; i < nf->nframes; i++)
		if (ct_frames_at(nf)[i].sym == CT_NOSTR)
			return true;
	return false;
}

/* --- output -------------------------------------------------------------- */

static void text(struct ct_out *out, const char *s)
{
	em_text(out, s, strlen(s));
}

void ct_py_print_where(struct ct_out *out, const struct ct_call *c)
{
	text(out, ct_base_name(c->py_file));
	if (c->py->line >= 0)
		out_printf(out, ":%d", c->py->line);
	out_putc(out, ' ');
	text(out, c->py_func ? c->py_func : "?");
}

void ct_py_print_frame(struct ct_out *out, const struct ct_pyframes *f, uint32_t i)
{
	const struct ct_pyframe *fr = &ct_pyframes_at(f)[i];
	const char *file = ct_pyframe_str(f, fr->file), *qual = ct_pyframe_str(f, fr->qualname);

	out_puts(out, " > ");
	if (!file) {
		out_printf(out, "?? (Python code object 0x%llx could not be read)\n",
			   (unsigned long long)fr->code);
		return;
	}
	text(out, file);
	if (fr->line >= 0)
		out_printf(out, ":%d", fr->line);
	out_putc(out, ' ');
	text(out, qual ? qual : "?");
	out_putc(out, '\n');
}

void ct_py_emit_frame(struct emit *e, const struct ct_pyframes *f, uint32_t i)
{
	const struct ct_pyframe *fr = &ct_pyframes_at(f)[i];
	const char *s;

	em_open(e, NULL);
	em_str(e, "kind", "python");
	if ((s = ct_pyframe_str(f, fr->file)))
		em_str(e, "file", s);
	if (fr->line >= 0)
		em_i64(e, "line", fr->line);
	if ((s = ct_pyframe_str(f, fr->qualname)))
		em_str(e, "func", s);
	em_hex(e, "code", fr->code);
	if (fr->marks & CT_PYF_UNNAMED)
		em_bool(e, "unnamed", true);
	em_close(e);
}

void ct_py_emit_json(struct emit *e, const struct ct_call *c)
{
	if (!c->py)
		return;
	em_open(e, "py");
	em_str(e, "file", c->py_file);
	if (c->py->line >= 0)
		em_i64(e, "line", c->py->line);
	if (c->py_func)
		em_str(e, "func", c->py_func);
	em_close(e);
}
