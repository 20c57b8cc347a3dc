// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "latest.h"
#include "pystack.h"
#include "stack.h"
#include "stack_end.h"

#define NAME_MAX_LEN 512

/* Module names matched against --api-lib's globs before: a frame's
 * module is matched for every stack (the capture's closing count of stack
 * ends does it at each call), and fnmatch was most of that. */
#define API_MEMO 16
struct api_memo {
	char name[64];
	bool in;
};

struct api_memos {
	struct api_memo m[API_MEMO];
	unsigned next;
};

struct ct_stacks {
	char *api_lib;
	struct api_memos *memo;   /* behind a pointer: filled by const lookups */
	struct ct_latest frames;   /* each thread's latest frames record */
	struct ct_latest ends;     /* and that stack's end record */
	char api[NAME_MAX_LEN], caller[NAME_MAX_LEN];
};

struct ct_stacks *ct_stacks_new(const char *api_lib)
{
	struct ct_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->api_lib = strdup(api_lib ? api_lib : CT_API_LIB_DEFAULT);
	s->memo = calloc(1, sizeof(*s->memo));
	if (!s->api_lib || !s->memo) {
		free(s->api_lib);
		free(s->memo);
		free(s);
		return NULL;
	}
	return s;
}

void ct_stacks_free(struct ct_stacks *s)
{
	if (!s)
		return;
	ct_latest_free(&s->frames);
	ct_latest_free(&s->ends);
	free(s->api_lib);
	free(s->memo);
	free(s);
}

void ct_stacks_learn(struct ct_stacks *s, const struct ct_frames *f)
{
	ct_latest_put(&s->frames, &f->h);
	ct_latest_forget(&s->ends, f->h.tid);
}

void ct_stacks_learn_end(struct ct_stacks *s, const struct ct_stack_end *e)
{
	if (ct_latest_for(&s->frames, e->h.tid, e->h.pid, e->h.ts_ns))
		ct_latest_put(&s->ends, &e->h);
}

void ct_stacks_forget(struct ct_stacks *s, uint32_t tid)
{
	ct_latest_forget(&s->frames, tid);
	ct_latest_forget(&s->ends, tid);
}

/* The end record of the kept stack f, NULL if none came (an old trace). */
static const struct ct_stack_end *end_of(const struct ct_stacks *s, const struct ct_frames *f)
{
	return ct_latest_for(&s->ends, f->h.tid, f->h.pid, f->h.ts_ns);
}

static uint32_t suggest(const struct ct_stacks *s, const struct ct_frames *f)
{
	const struct ct_stack_end *e = end_of(s, f);

	return ct_stack_suggest(e ? e->need_bytes : 0, f->stack_size);
}

const char *ct_frame_str(const struct ct_frames *f, uint32_t off)
{
	const char *strings = (const char *)(ct_frames_at(f) + f->nframes);

	return off == CT_NOSTR || off >= f->strings_size ? NULL : strings + off;
}

const char *ct_base_name(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	return b ? b + 1 : path;
}

static bool matches_api_lib(const struct ct_stacks *s, const char *m)
{
	const char *p = s->api_lib;
	char glob[256];

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n < sizeof(glob)) {
			memcpy(glob, p, n);
			glob[n] = 0;
			if (fnmatch(glob, m, 0) == 0)
				return true;
		}
		p += n + (p[n] == ',');
	}
	return false;
}

static bool in_api_lib(const struct ct_stacks *s, const struct ct_frames *f,
		       const struct ct_frame *fr)
{
	const char *m = ct_base_name(ct_frame_str(f, fr->module));
	struct api_memo *e;

	if (!m)
		return false;
	for (unsigned i = 0; i < API_MEMO; i++)
		if (s->memo->m[i].name[0] && strcmp(s->memo->m[i].name, m) == 0)
			return s->memo->m[i].in;
	if (strlen(m) >= sizeof(e->name))
		return matches_api_lib(s, m);
	e = &s->memo->m[s->memo->next++ % API_MEMO];
	strcpy(e->name, m);
	e->in = matches_api_lib(s, m);
	return e->in;
}

/* "module+0xOFF": where a frame has no name. */
static void name_by_offset(char *buf, const struct ct_frames *f, const struct ct_frame *fr)
{
	const char *m = ct_base_name(ct_frame_str(f, fr->module));

	if (m)
		snprintf(buf, NAME_MAX_LEN, "%s+0x%" PRIx64, m, (uint64_t)fr->offset);
	else
		snprintf(buf, NAME_MAX_LEN, "0x%" PRIx64, (uint64_t)fr->pc);
}

bool ct_has_prefix(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_thread_start(const char *sym)
{
	static const char *const starts[] = { "start_thread", "clone", "clone3", "__clone",
					      "__clone3", "_start" };

	for (size_t i = 0; sym && i < sizeof(starts) / sizeof(starts[0]); i++)
		if (strcmp(sym, starts[i]) == 0)
			return true;
	return false;
}

/*
 * The name of frame i, or where it has none (a static function of a
 * stripped library: cudart's), of the nearest named frame further out in
 * the same module: cudaMalloc for libcudart.so.13+0x41b5e called by it.
 */
static const char *named_in_module(const struct ct_frames *f, uint32_t i)
{
	const struct ct_frame *fr = ct_frames_at(f);
	const char *m = ct_frame_str(f, fr[i].module), *mj;
	uint32_t j;

	for (j = i; j < f->nframes; j++) {
		mj = ct_frame_str(f, fr[j].module);
		if (j > i && (!m || !mj || strcmp(m, mj) != 0))
			break;
		if (fr[j].sym != CT_NOSTR)
			return ct_frame_str(f, fr[j].sym);
	}
	return NULL;
}

/* The outermost frame of the first run of driver-library frames;
 * f->nframes if there is none. */
static uint32_t api_run_end(const struct ct_stacks *s, const struct ct_frames *f)
{
	const struct ct_frame *fr = ct_frames_at(f);
	uint32_t i = 0;

	while (i < f->nframes && !in_api_lib(s, f, &fr[i]))
		i++;
	if (i == f->nframes)
		return i;
	while (i + 1 < f->nframes && in_api_lib(s, f, &fr[i + 1]))
		i++;
	return i;
}

/*
 * Whether only the C library's thread start lies beyond the driver's frames
 * (from last + 1 on): by name, or where libc has no symbols (Debian's has
 * none for start_thread), a complete walk of a thread that is not the
 * process's first with nothing but libc frames beyond: no program frame.
 */
static bool started_by_thread(const struct ct_frames *f, uint32_t last)
{
	const struct ct_frame *fr = ct_frames_at(f);

	if (last + 1 >= f->nframes)
		return false;
	if (is_thread_start(ct_frame_str(f, fr[last + 1].sym)))
		return true;
	if (f->status != CT_UNWIND_END || f->h.tid == f->h.pid)
		return false;
	for (uint32_t i = last + 1; i < f->nframes; i++)
		if (!ct_has_prefix(ct_base_name(ct_frame_str(f, fr[i].module)), "libc.so"))
			return false;
	return true;
}

enum ct_stack_why ct_stacks_why(const struct ct_stacks *s, const struct ct_frames *f)
{
	uint32_t last = api_run_end(s, f);

	/* The library's frames start the thread: its own, however the walk
	 * ended beyond. */
	if (started_by_thread(f, last))
		return CT_WHY_DRIVER_THREAD;
	return ct_stack_why_of(f, end_of(s, f), last + 1 == f->nframes);
}

/*
 * api: the exported function holding the outermost frame of the first run
 * of driver-library frames; caller: the frame just outside that run (named
 * as named_in_module says), or, where the stack ends in the library, why.
 */
static void attribute(struct ct_stacks *s, const struct ct_frames *f, struct ct_call *c)
{
	const struct ct_frame *fr = ct_frames_at(f);
	uint32_t last = api_run_end(s, f);
	const char *name;

	if (last == f->nframes)
		return;   /* not a call through the driver library */
	name = ct_frame_str(f, fr[last].exp);
	if (name)
		snprintf(s->api, sizeof(s->api), "%s", name);
	else
		name_by_offset(s->api, f, &fr[last]);
	c->api = s->api;
	if (last + 1 == f->nframes || started_by_thread(f, last)) {
		/* The stack ends in the library: its own thread, or why it stopped. */
		char buf[80];

		snprintf(s->caller, sizeof(s->caller), "%s",
			 ct_stack_why_tag(ct_stacks_why(s, f), suggest(s, f), buf, sizeof(buf)));
	} else if ((name = named_in_module(f, last + 1))) {
		snprintf(s->caller, sizeof(s->caller), "%s", name);
	} else {
		name_by_offset(s->caller, f, &fr[last + 1]);
	}
	c->caller = s->caller;
	if (last + 1 < f->nframes)
		c->caller_pc = fr[last + 1].pc;
}

void ct_stacks_describe(struct ct_stacks *s, struct ct_call *c)
{
	const struct ct_frames *f;

	c->stack = NULL;
	c->stack_end = NULL;
	c->api = c->caller = NULL;
	c->caller_pc = 0;
	if (!s || !(f = ct_latest_for(&s->frames, c->tid, c->pid, c->ts_ns)))
		return;
	c->stack = f;
	c->stack_end = end_of(s, f);
	attribute(s, f, c);
}

/* An untrusted name, control bytes escaped (em_text). */
static void text(struct ct_out *out, const char *s)
{
	em_text(out, s, strlen(s));
}

void ct_stack_print_tag(struct ct_out *out, const struct ct_call *c)
{
	bool native = c->stack && c->api;

	if (!native && !c->py)
		return;
	out_puts(out, " [");
	if (native) {
		text(out, c->api);
		out_puts(out, " <- ");
		text(out, c->caller ? c->caller : "?");
	}
	if (c->py) {
		if (native)
			out_puts(out, " <- ");
		ct_py_print_where(out, c);
	}
	out_putc(out, ']');
}

static const char *const status_text[] = {
	[CT_UNWIND_END] = NULL,
	[CT_UNWIND_NO_STACK] = "ran out of captured stack bytes (a larger -k=BYTES goes further)",
	[CT_UNWIND_NO_CFI] = "a return address in no known module",
	[CT_UNWIND_MAX_FRAMES] = "frame limit reached",
	[CT_UNWIND_NO_MAPS] = "the process was gone before its mappings could be read",
	[CT_UNWIND_ERROR] = "no unwind information for this frame",
};

static const char *status_name(uint32_t st)
{
	static const char *const names[] = { "end", "no_stack", "no_cfi", "max_frames",
					     "no_maps", "error" };

	return st < sizeof(names) / sizeof(names[0]) ? names[st] : "unknown";
}

static void print_native_frame(struct ct_out *out, const struct ct_frames *f, uint32_t i)
{
	const struct ct_frame *fr = ct_frames_at(f);
	const char *m = ct_base_name(ct_frame_str(f, fr[i].module));
	const char *sym = ct_frame_str(f, fr[i].sym);
	const char *src = ct_frame_str(f, fr[i].src);

	out_puts(out, " > ");
	if (!m) {
		out_puts(out, "??");
	} else if (sym) {
		text(out, m);
		out_putc(out, '(');
		text(out, sym);
		out_printf(out, "+0x%" PRIx64 ")", (uint64_t)fr[i].sym_off);
	} else {
		text(out, m);
		out_printf(out, "(+0x%" PRIx64 ")", (uint64_t)fr[i].offset);
	}
	out_printf(out, " [0x%" PRIx64 "]", (uint64_t)fr[i].pc);
	if (src) {
		out_putc(out, ' ');
		text(out, src);
	}
	out_putc(out, '\n');
}

static const char appended_text[] =
	"the Python frames do not line up with the interpreter's native frames; listed after them";
static const char unnamed_text[] =
	"the interpreter's native frames have no symbols (install its debug symbols, or use a "
	"python that keeps them); the Python frames are listed after them";

void ct_stack_print_frames(struct ct_out *out, const struct ct_call *c)
{
	static struct ct_stack_item items[CT_FRAMES_MAX + CT_PY_FRAMES_MAX];
	const struct ct_frames *f = c->stack;
	bool appended;
	size_t n = ct_stack_merge(c, items, &appended);

	for (size_t k = 0; k < n; k++) {
		if (appended && items[k].python && (k == 0 || !items[k - 1].python))
			out_printf(out, " > (%s)\n", ct_stack_interp_unnamed(c) ? unnamed_text :
							      appended_text);
		if (items[k].python)
			ct_py_print_frame(out, c->pystack, items[k].i);
		else
			print_native_frame(out, f, items[k].i);
	}
	if (c->pystack && (c->pystack->flags & CT_PY_TRUNC))
		out_puts(out, " > (Python frame limit reached)\n");
	if (c->pystack && (c->pystack->flags & CT_PY_OUTER_LOST))
		out_puts(out, " > (outer Python frames lost: the capture did not keep the "
			      "record that had them)\n");
	if (!f)
		return;
	if (c->stack_end) {
		char buf[120];
		const char *why = ct_stack_why_text(ct_stack_why_of(f, c->stack_end, false),
						    ct_stack_suggest(c->stack_end->need_bytes,
								     f->stack_size),
						    buf, sizeof(buf));

		if (why)
			out_printf(out, " > (unwinding stopped: %s)\n", why);
		else if (ct_stack_why_of(f, c->stack_end, false) == CT_WHY_COMPLETE_FP)
			out_puts(out, " > (complete: code without unwind information walked by its "
				 "frame pointer)\n");
	} else if (f->status < sizeof(status_text) / sizeof(status_text[0]) &&
		   status_text[f->status]) {
		out_printf(out, " > (unwinding stopped: %s)\n", status_text[f->status]);
	}
}

static void emit_native_frame(struct emit *e, const struct ct_frames *f, uint32_t i)
{
	const struct ct_frame *fr = ct_frames_at(f);
	const char *s;

	em_open(e, NULL);
	em_hex(e, "pc", fr[i].pc);
	if ((s = ct_frame_str(f, fr[i].module))) {
		em_str(e, "module", ct_base_name(s));
		em_str(e, "path", s);
		em_hex(e, "offset", fr[i].offset);
	}
	if ((s = ct_frame_str(f, fr[i].sym))) {
		em_str(e, "sym", s);
		em_hex(e, "sym_off", fr[i].sym_off);
	}
	if ((s = ct_frame_str(f, fr[i].exp)))
		em_str(e, "export", s);
	if ((s = ct_frame_str(f, fr[i].src)))
		em_str(e, "src", s);
	em_close(e);
}

void ct_stack_emit_json(struct emit *e, const struct ct_call *c)
{
	static struct ct_stack_item items[CT_FRAMES_MAX + CT_PY_FRAMES_MAX];
	const struct ct_frames *f = c->stack;
	bool appended;
	size_t n;

	if (!f && !c->pystack)
		return;
	if (c->api)
		em_str(e, "api", c->api);
	if (c->caller)
		em_str(e, "caller", c->caller);
	ct_py_emit_json(e, c);
	n = ct_stack_merge(c, items, &appended);
	em_str_list_begin(e, "stack");
	for (size_t k = 0; k < n; k++) {
		if (items[k].python)
			ct_py_emit_frame(e, c->pystack, items[k].i);
		else
			emit_native_frame(e, f, items[k].i);
	}
	em_str_list_end(e);
	if (appended)
		em_str(e, "py_merge", "appended");
	if (appended && ct_stack_interp_unnamed(c))
		em_str(e, "py_merge_why", "interpreter without symbols");
	if (c->pystack && (c->pystack->flags & CT_PY_NO_TSTATE))
		em_bool(e, "py_no_thread_state", true);
	if (c->pystack && (c->pystack->flags & CT_PY_OUTER_LOST))
		em_bool(e, "py_outer_frames_lost", true);
	if (!f)
		return;
	if (c->stack_end) {
		em_str(e, "stack_end", ct_stack_why_name(ct_stack_why_of(f, c->stack_end, false)));
		if (c->stack_end->kind == CT_STACK_END_COPY_SHORT ||
		    c->stack_end->kind == CT_STACK_END_MAX_BYTES)
			em_u64(e, "stack_need_bytes", c->stack_end->need_bytes);
	} else {
		em_str(e, "stack_end", status_name(f->status));
	}
	em_u64(e, "stack_bytes", f->stack_size);
}

void ct_stack_print_mapping(struct emit *e, const struct ct_mapping *m)
{
	char id[2 * CT_BUILD_ID_MAX + 1] = "";
	uint32_t i;

	for (i = 0; i < m->build_id_size && i < CT_BUILD_ID_MAX; i++)
		snprintf(id + 2 * i, 3, "%02x", m->build_id[i]);
	if (e->json) {
		em_strn(e, "path", (const char *)(m + 1), m->path_size);
		em_hex(e, "start", m->start);
		em_hex(e, "end", m->end);
		em_hex(e, "pgoff", m->pgoff);
		em_hex(e, "bias", m->bias);
		if (id[0])
			em_str(e, "build_id", id);
		return;
	}
	out_printf(e->out, "+++ maps %#" PRIx64 "-%#" PRIx64 " off %#" PRIx64 " ",
		   (uint64_t)m->start, (uint64_t)m->end, (uint64_t)m->pgoff);
	em_text(e->out, (const char *)(m + 1), m->path_size);
	if (id[0])
		out_printf(e->out, " build-id %s", id);
}
