// SPDX-License-Identifier: MIT
/*
 * Python frames on the decoder side (decoders/stacks/pystack.c): the frame a call
 * is charged to (the default rule, --py-user, an unnamed frame first), the
 * merge with the native stack (runs of Python frames in place of
 * _PyEval_EvalFrameDefault, 3.14's _TAIL_CALL_ handlers, a native stack cut
 * short, counts that disagree), the checker's rules for the new records,
 * and UTF-8 names through JSON.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "outbuf.h"
#include "pystack.h"
#include "record.h"
#include "stack.h"
#include "tap.h"

struct pydesc {
	const char *file, *func;
	int line;
	uint32_t marks;
};

/* A PYFRAMES record of pid 7, tid 8 at ts, innermost first; file NULL: unnamed. */
static struct ct_pyframes *pyrec(const struct pydesc *d, uint32_t n, uint64_t ts)
{
	static unsigned char buf[65536];
	struct ct_pyframes *f = (struct ct_pyframes *)buf;
	struct ct_pyframe *fr = (struct ct_pyframe *)(f + 1);
	char *strings = (char *)(fr + n);
	uint32_t used = 0;

	memset(buf, 0, sizeof(buf));
	for (uint32_t i = 0; i < n; i++) {
		fr[i].code = 0x1000 + i;
		fr[i].line = d[i].line;
		fr[i].marks = d[i].marks;
		fr[i].file = fr[i].qualname = CT_NOSTR;
		if (!d[i].file) {
			fr[i].marks |= CT_PYF_UNNAMED;
			continue;
		}
		fr[i].file = used;
		strcpy(strings + used, d[i].file);
		used += (uint32_t)strlen(d[i].file) + 1;
		fr[i].qualname = used;
		strcpy(strings + used, d[i].func);
		used += (uint32_t)strlen(d[i].func) + 1;
	}
	f->h.type = CT_REC_PYFRAMES;
	f->h.ts_ns = ts;
	f->h.pid = 7;
	f->h.tid = 8;
	f->nframes = n;
	f->strings_size = used;
	f->h.size = (uint32_t)(sizeof(*f) + n * sizeof(*fr) + used);
	return f;
}

/* A FRAMES record of native frames named syms[] (innermost first). */
static struct ct_frames *nativerec(const char *const *syms, uint32_t n, uint32_t status,
				   uint64_t ts)
{
	static unsigned char buf[65536];
	struct ct_frames *f = (struct ct_frames *)buf;
	struct ct_frame *fr = (struct ct_frame *)(f + 1);
	char *strings = (char *)(fr + n);
	uint32_t used = 0;

	memset(buf, 0, sizeof(buf));
	strcpy(strings, "libpython3.12.so");
	used = (uint32_t)strlen(strings) + 1;
	for (uint32_t i = 0; i < n; i++) {
		fr[i].pc = 0x1000 + i;
		fr[i].module = 0;
		fr[i].exp = fr[i].src = CT_NOSTR;
		fr[i].sym = used;
		strcpy(strings + used, syms[i]);
		used += (uint32_t)strlen(syms[i]) + 1;
	}
	f->h.type = CT_REC_FRAMES;
	f->h.ts_ns = ts;
	f->h.pid = 7;
	f->h.tid = 8;
	f->nframes = n;
	f->status = status;
	f->strings_size = used;
	f->h.size = (uint32_t)(sizeof(*f) + n * sizeof(*fr) + used);
	return f;
}

static struct ct_call describe(struct ct_pystacks *ps, const struct ct_pyframes *pf)
{
	struct ct_call c = { .pid = 7, .tid = 8, .ts_ns = 1000 };

	ct_record_check(pf, pf->h.size);
	ct_pystacks_learn(ps, pf);
	ct_pystacks_describe(ps, &c);
	return c;
}

static void charged(const char *user, const struct pydesc *d, uint32_t n, const char *want_func,
		    int want_line, const char *what)
{
	struct ct_pystacks *ps = ct_pystacks_new(user);
	struct ct_call c = describe(ps, pyrec(d, n, 1000));
	bool good = want_func ? c.py && c.py_func && strcmp(c.py_func, want_func) == 0 &&
				c.py->line == want_line
			      : c.py == NULL;

	ok(good, "%s: charged to %s", what, want_func ? want_func : "none");
	ct_pystacks_free(ps);
}

static void test_charged(void)
{
	const struct pydesc torch[] = {
		{ "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", "Linear.forward", 125 },
		{ "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py",
		  "Module._call_impl", 1747 },
		{ "/home/me/model.py", "Net.forward", 42 },
		{ "/home/me/train.py", "main", 7 },
	};
	const struct pydesc stdlib[] = {
		{ "/usr/lib/python3.11/threading.py", "Thread.run", 975 },
		{ "<frozen importlib._bootstrap>", "_call_with_frames_removed", 241 },
		{ "/srv/app.py", "worker", 3 },
	};
	const struct pydesc unnamed_first[] = {
		{ NULL, NULL, -1 },
		{ "/home/me/model.py", "Net.forward", 42 },
	};
	const struct pydesc all_lib[] = {
		{ "/x/site-packages/jax/_src/api.py", "jit", 10 },
		{ "/x/site-packages/jax/_src/core.py", "bind", 20 },
	};

	charged(NULL, torch, 4, "Net.forward", 42, "site- and dist-packages are not the user's");
	charged(NULL, stdlib, 3, "worker", 3, "lib/python3.X and <frozen> are not the user's");
	charged("*/module.py", torch, 4, "Module._call_impl", 1747, "--py-user by path pattern");
	charged("linear.py,train.py", torch, 4, "Linear.forward", 125, "--py-user by base name");
	charged(NULL, unnamed_first, 2, NULL, 0, "an unnamed frame first: charged to none");
	charged(NULL, all_lib, 2, "jit", 10, "no user frame: the innermost named one");
}

/* The merged stack as "n:sym" / "p:func" items. */
static void merged(const char *const *syms, uint32_t nn, uint32_t status, const struct pydesc *d,
		   uint32_t np, const char *want, bool want_appended, const char *what)
{
	static struct ct_stack_item items[CT_FRAMES_MAX + CT_PY_FRAMES_MAX];
	struct ct_pystacks *ps = ct_pystacks_new(NULL);
	struct ct_frames *nf = malloc(65536);
	struct ct_call c;
	char got[1024] = "";
	bool appended;
	size_t n;

	memcpy(nf, nativerec(syms, nn, status, 1000), 65536);
	c = describe(ps, pyrec(d, np, 1000));
	c.stack = nf;
	n = ct_stack_merge(&c, items, &appended);
	for (size_t k = 0; k < n; k++) {
		const char *name = items[k].python
			? ct_pyframe_str(c.pystack, ct_pyframes_at(c.pystack)[items[k].i].qualname)
			: ct_frame_str(nf, ct_frames_at(nf)[items[k].i].sym);

		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%c:%s", k ? " " : "",
			 items[k].python ? 'p' : 'n', name ? name : "?");
	}
	ok(appended == want_appended, "%s: %s", what, want_appended ? "appended" : "merged");
	ok_str(got, want, what);
	free(nf);
	ct_pystacks_free(ps);
}

static void test_merge(void)
{
	const char *const two_evals[] = { "ioctl", "_PyObject_MakeTpCall",
					  "_PyEval_EvalFrameDefault", "PyIter_Send",
					  "_PyEval_EvalFrameDefault.cold", "main" };
	const struct pydesc runs[] = {
		{ "a.py", "inner", 1, 0 }, { "a.py", "mid", 2, CT_PYF_ENTRY },
		{ "a.py", "outer", 3, 0 }, { "a.py", "<module>", 4, CT_PYF_ENTRY },
	};
	const char *const tail[] = { "ioctl", "_TAIL_CALL_CALL", "_TAIL_CALL_LOAD",
				     "_PyEval_EvalFrameDefault", "Py_RunMain" };
	const struct pydesc one_run[] = {
		{ "b.py", "f", 1, 0 }, { "b.py", "<module>", 2, CT_PYF_ENTRY },
	};
	const char *const cut[] = { "ioctl", "_PyEval_EvalFrameDefault", "PyIter_Send" };
	const char *const none[] = { "ioctl", "main" };

	merged(two_evals, 6, CT_UNWIND_END, runs, 4,
	       "n:ioctl n:_PyObject_MakeTpCall p:inner p:mid n:PyIter_Send p:outer p:<module> n:main",
	       false, "two eval frames, two runs: each run in place of its eval frame");
	merged(tail, 5, CT_UNWIND_END, one_run, 2, "n:ioctl p:f p:<module> n:Py_RunMain", false,
	       "3.14: _TAIL_CALL_ handlers above the eval frame go with it");
	merged(cut, 3, CT_UNWIND_NO_STACK, runs, 4,
	       "n:ioctl p:inner p:mid n:PyIter_Send p:outer p:<module>", false,
	       "native stack cut short: the outer runs follow it, in order");
	merged(none, 2, CT_UNWIND_END, one_run, 2, "n:ioctl n:main p:f p:<module>", true,
	       "no eval frame in a whole stack: appended, and said so");
	merged(two_evals, 6, CT_UNWIND_END, one_run, 2,
	       "n:ioctl n:_PyObject_MakeTpCall n:_PyEval_EvalFrameDefault n:PyIter_Send "
	       "n:_PyEval_EvalFrameDefault.cold n:main p:f p:<module>", true,
	       "more eval frames than runs: never a guess");
}

static void test_checker(void)
{
	const struct pydesc d[] = { { "m.py", "f", 3, 0 } };
	struct ct_pyframes *f = pyrec(d, 1, 5);
	unsigned char raw[sizeof(struct ct_pystack) + 2 * sizeof(struct ct_pyframe_raw)] = { 0 };
	struct ct_pystack *s = (struct ct_pystack *)raw;

	ok(ct_record_check(f, f->h.size) == NULL, "a PYFRAMES record passes");
	((struct ct_pyframe *)(f + 1))[0].qualname = f->strings_size;
	ok(ct_record_check(f, f->h.size) != NULL, "a string offset past the table is refused");
	((struct ct_pyframe *)(f + 1))[0].qualname = 0;
	((char *)(ct_pyframes_at(f) + 1))[f->strings_size - 1] = 'x';
	ok(ct_record_check(f, f->h.size) != NULL, "a table without its last NUL is refused");
	f = pyrec(d, 1, 5);
	f->nframes = CT_PY_FRAMES_MAX + 1;
	ok(ct_record_check(f, f->h.size) != NULL, "more frames than any capture sends: refused");
	s->h.type = CT_REC_PYSTACK;
	s->h.size = sizeof(raw);
	s->nframes = 2;
	ok(ct_record_check(s, sizeof(raw)) == NULL, "a PYSTACK record passes");
	s->nframes = 3;
	ok(ct_record_check(s, sizeof(raw)) != NULL, "a PYSTACK whose frames overrun it: refused");
}

static void json_of(const char *in, const char *want, const char *what)
{
	char buf[256] = "";
	FILE *m = fmemopen(buf, sizeof(buf), "w");
	struct ct_out out;

	out_init(&out, m);
	em_json_string(&out, in, strlen(in));
	out_flush(&out);
	fclose(m);
	ok_str(buf, want, what);
}

static void test_utf8(void)
{
	json_of("caf\xc3\xa9", "\"caf\xc3\xa9\"", "JSON: valid UTF-8 goes through");
	json_of("\xe5\xad\xa6", "\"\xe5\xad\xa6\"", "JSON: a 3-byte character goes through");
	json_of("a\xd0", "\"a\\u00d0\"", "JSON: a sequence cut at the end is escaped");
	json_of("\xc0\xaf", "\"\\u00c0\\u00af\"", "JSON: an overlong form is escaped");
	json_of("\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"", "JSON: a surrogate is escaped");
	json_of("\xff", "\"\\u00ff\"", "JSON: 0xff is escaped");
}

int main(void)
{
	test_charged();
	test_merge();
	test_checker();
	test_utf8();
	return tap_done();
}
