// SPDX-License-Identifier: MIT
/* The SQLite view's rows: what each record and call adds (sqlite_db.c
 * opens, batches and closes; sqlite_schema.c has the tables). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvfacts.h"
#include "call_name.h"
#include "gpuwork.h"
#include "gpuwork_kop.h"
#include "kname.h"
#include "labels.h"
#include "meta.h"
#include "nvtables.h"
#include "record.h"
#include "sqlite_db.h"
#include "pystack.h"
#include "stack.h"
#include "msg.h"

/* A trace without a header still gets its traces row, at its first row. */
static void ensure_trace(struct ct_sqlite *s)
{
	if (s->trace_id || s->failed)
		return;
	ct_sqlite_batch(s);
	if (s->host[0])
		sqlite3_bind_text(s->st[CT_SQL_TRACE], 1, s->host, -1, SQLITE_TRANSIENT);
	ct_sqlite_step(s, s->st[CT_SQL_TRACE]);
	s->trace_id = sqlite3_last_insert_rowid(s->db);
}

/* Binds trace_id and host at 1 and 2. */
static sqlite3_stmt *row(struct ct_sqlite *s, enum ct_sql k)
{
	sqlite3_stmt *st = s->st[k];

	ensure_trace(s);
	ct_sqlite_batch(s);
	sqlite3_bind_int64(st, 1, s->trace_id);
	if (s->host[0])
		sqlite3_bind_text(st, 2, s->host, -1, SQLITE_TRANSIENT);
	return st;
}

static void bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	sqlite3_bind_int64(st, i, (sqlite3_int64)v);
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

/* The call being added, for the rows that point to it; 0: none. */
static void bind_call_id(struct ct_sqlite *s, sqlite3_stmt *st, int i)
{
	if (s->call_id)
		sqlite3_bind_int64(st, i, s->call_id);
}

/* --- the header ------------------------------------------------------------ */

/* Header values that get a column of their own in traces (bound there at
 * 3..8; 1 is host, 2 the trace id). */
static const char *const trace_cols[] = {
	"driver", "kernel", "producer", "options", "start_realtime_ns", "start_monotonic_ns",
};
#define N_TRACE_COLS (sizeof(trace_cols) / sizeof(trace_cols[0]))

struct meta_ctx {
	struct ct_sqlite *s;
	char *vals[N_TRACE_COLS];
};

static void meta_collect(const char *key, const char *val, void *ctx)
{
	struct meta_ctx *m = ctx;
	size_t i;

	if (strcmp(key, "host") == 0 && !m->s->host_fixed)
		snprintf(m->s->host, sizeof(m->s->host), "%s", val);
	for (i = 0; i < N_TRACE_COLS; i++)
		if (strcmp(key, trace_cols[i]) == 0 && !m->vals[i])
			m->vals[i] = strdup(val);
}

static void meta_row(const char *key, const char *val, void *ctx)
{
	struct ct_sqlite *s = ctx;
	sqlite3_stmt *st = row(s, CT_SQL_HEADER);

	bind_str(st, 3, key);
	bind_str(st, 4, val);
	ct_sqlite_step(s, st);
}

/* A trace the database holds already is added again only when asked. */
static bool already_added(struct ct_sqlite *s, const char *uid)
{
	sqlite3_stmt *q = s->st[CT_SQL_FIND_TRACE];
	bool found = false;

	bind_str(q, 1, uid);
	if (sqlite3_step(q) == SQLITE_ROW) {
		found = true;
		if (!s->again)
			ct_sqlite_say_held(s->path, uid, q);
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return found && !s->again;
}

/* Each header starts a trace (a new traces.id). */
static void on_meta(struct ct_sqlite *s, const struct ct_rec *r)
{
	struct meta_ctx m = { .s = s };
	sqlite3_stmt *st = s->st[CT_SQL_TRACE];
	char uid[24];
	size_t i;

	snprintf(uid, sizeof(uid), "%016" PRIx64, ct_meta_id(r));
	if (already_added(s, uid)) {
		s->failed = true;   /* said why; nothing was added */
		return;
	}
	ct_meta_foreach(r, meta_collect, &m);
	ct_sqlite_batch(s);
	bind_str(st, 1, s->host[0] ? s->host : NULL);
	bind_str(st, 2, uid);
	for (i = 0; i < N_TRACE_COLS; i++) {
		if (m.vals[i] && strstr(trace_cols[i], "_ns"))
			bind_u64(st, (int)i + 3, strtoull(m.vals[i], NULL, 10));
		else
			bind_str(st, (int)i + 3, m.vals[i]);
		free(m.vals[i]);
	}
	ct_sqlite_step(s, st);
	s->trace_id = sqlite3_last_insert_rowid(s->db);
	ct_meta_foreach(r, meta_row, s);
}

/* --- records --------------------------------------------------------------- */

static const char *const proc_sources[] = { "?", "exec", "attach", "seen" };

static void on_proc(struct ct_sqlite *s, const struct ct_proc *p)
{
	sqlite3_stmt *st = row(s, CT_SQL_PROC);
	char *argv = malloc(p->argv_size + 1);
	uint32_t i;

	bind_u64(st, 3, p->h.ts_ns);
	bind_u64(st, 4, p->h.pid);
	bind_u64(st, 5, p->ppid);
	bind_str(st, 6, proc_sources[p->source < 4 ? p->source : 0]);
	sqlite3_bind_text(st, 7, p->comm, (int)strnlen(p->comm, CT_COMM_LEN), SQLITE_TRANSIENT);
	if (argv) {   /* NUL-separated: one line, blank-separated */
		memcpy(argv, p + 1, p->argv_size);
		for (i = 0; i < p->argv_size; i++)
			argv[i] = argv[i] ? argv[i] : ' ';
		while (i > 0 && argv[i - 1] == ' ')
			i--;
		argv[i] = 0;
		bind_str(st, 8, argv);
		free(argv);
	}
	ct_sqlite_step(s, st);
}

static void on_exit_rec(struct ct_sqlite *s, const struct ct_rec *r)
{
	sqlite3_stmt *st = s->st[CT_SQL_EXIT];

	ensure_trace(s);
	ct_sqlite_batch(s);
	bind_u64(st, 1, r->ts_ns);
	sqlite3_bind_int64(st, 2, s->trace_id);
	bind_u64(st, 3, r->pid);
	ct_sqlite_step(s, st);
}

static void view_record(void *ctx, const struct ct_rec *r)
{
	struct ct_sqlite *s = ctx;

	if (s->failed)
		return;
	switch (r->type) {
	case CT_REC_META:
		on_meta(s, r);
		break;
	case CT_REC_PROC:
		on_proc(s, (const struct ct_proc *)r);
		break;
	case CT_REC_PROC_EXIT:
		on_exit_rec(s, r);
		break;
	}
	if (!s->failed)
		ct_devmem_record(s->mem, r);   /* an exit frees: device_memory rows */
}

/* --- device memory --------------------------------------------------------- */

/* What a process holds changed: at the call being added, or at its exit. */
static void memory_changed(void *ctx, const struct ct_devmem_total *t, uint64_t ts_ns)
{
	struct ct_sqlite *s = ctx;
	sqlite3_stmt *st;

	if (s->failed)
		return;
	st = row(s, CT_SQL_MEM);
	bind_call_id(s, st, 3);
	bind_u64(st, 4, s->call_id ? s->call_start : ts_ns);
	bind_u64(st, 5, t->pid);
	if (t->gpu >= 0)
		sqlite3_bind_int(st, 6, t->gpu);
	bind_str(st, 7, ct_mem_kind_names[t->kind]);
	bind_u64(st, 8, t->held);
	ct_sqlite_step(s, st);
}

/* --- calls ----------------------------------------------------------------- */

/* RM objects: a row per creation; RM_FREE stamps freed_ns on the handle
 * it names (objects under it are freed too, but keep freed_ns NULL). */
static void on_object(struct ct_sqlite *s, const struct ct_call *c)
{
	const struct ct_layout *l = c->layout;
	const unsigned char *arg = ct_ioctl_arg(c->ex);
	uint32_t len = c->ex->arg_size;
	uint64_t client, h, parent, cls, size;
	const struct nv_class_info *ci;
	enum ct_mem_kind kind;
	sqlite3_stmt *st;

	if (!ct_read_u64(l, arg, len, "hRoot", &client))
		return;
	if (c->esc_nr == NV_ESC_RM_FREE) {
		if (!ct_read_u64(l, arg, len, "hObjectOld", &h))
			return;
		st = s->st[CT_SQL_FREE];
		ct_sqlite_batch(s);
		bind_u64(st, 1, c->ts_ns);
		sqlite3_bind_int64(st, 2, s->trace_id);
		bind_u64(st, 3, client);
		bind_u64(st, 4, h);
		ct_sqlite_step(s, st);
		return;
	}
	if (!ct_read_u64(l, arg, len, "hObjectNew", &h) ||
	    !ct_read_u64(l, arg, len, "hObjectParent", &parent) ||
	    !ct_read_u64(l, arg, len, "hClass", &cls))
		return;
	st = row(s, CT_SQL_OBJ);
	bind_call_id(s, st, 3);
	bind_u64(st, 4, c->ts_ns);
	bind_u64(st, 5, c->pid);
	bind_u64(st, 6, client);
	bind_u64(st, 7, h);
	bind_u64(st, 8, parent);
	bind_u64(st, 9, cls);
	ci = nv_class_lookup((uint32_t)cls);
	bind_str(st, 10, ci ? ci->name : NULL);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 11, c->gpu);
	if (ct_mem_kind_of((uint32_t)cls, &kind)) {
		if (ct_mem_alloc_size(c, &size))
			bind_u64(st, 12, size);
		bind_str(st, 13, ct_mem_kind_names[kind]);
	}
	ct_sqlite_step(s, st);
}

static void on_mmap(struct ct_sqlite *s, const struct ct_call *c)
{
	const struct ct_mmap *m = c->mmap;
	sqlite3_stmt *st = row(s, CT_SQL_MMAP);

	bind_call_id(s, st, 3);
	bind_u64(st, 4, c->ts_ns);
	bind_u64(st, 5, c->duration_ns);
	bind_u64(st, 6, c->pid);
	bind_u64(st, 7, c->tid);
	bind_str(st, 8, c->comm);
	bind_u64(st, 9, m->addr);
	bind_u64(st, 10, m->len);
	bind_u64(st, 11, m->prot);
	bind_u64(st, 12, m->mflags);
	bind_u64(st, 13, m->off);
	sqlite3_bind_int64(st, 14, m->ret);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 15, c->gpu);
	bind_str(st, 16, c->path);
	ct_sqlite_step(s, st);
}

/* "file:line" of DWARF: the file, and the line where there is one. */
static void bind_source(sqlite3_stmt *st, int i, const char *src)
{
	const char *colon = src ? strrchr(src, ':') : NULL;
	char *end;
	long line;

	if (!src)
		return;
	line = colon ? strtol(colon + 1, &end, 10) : 0;
	if (colon && colon[1] && !*end && line > 0) {
		sqlite3_bind_text(st, i, src, (int)(colon - src), SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, i + 1, line);
	} else {
		bind_str(st, i, src);
	}
}

/* A native frame of -k. */
static void bind_native(sqlite3_stmt *st, const struct ct_frames *f, uint32_t i)
{
	const struct ct_frame *fr = ct_frames_at(f);

	bind_u64(st, 3, fr[i].pc);
	bind_str(st, 4, ct_frame_str(f, fr[i].module));
	bind_u64(st, 5, fr[i].offset);
	if (ct_frame_str(f, fr[i].sym)) {
		bind_str(st, 6, ct_frame_str(f, fr[i].sym));
		bind_u64(st, 7, fr[i].sym_off);
	}
	bind_source(st, 8, ct_frame_str(f, fr[i].src));
	bind_str(st, 10, "native");
}

/* A Python frame: its function in sym, its file and line. */
static void bind_python(sqlite3_stmt *st, const struct ct_pyframes *f, uint32_t i)
{
	const struct ct_pyframe *fr = &ct_pyframes_at(f)[i];

	bind_str(st, 6, ct_pyframe_str(f, fr->qualname));
	bind_str(st, 8, ct_pyframe_str(f, fr->file));
	if (fr->line >= 0)
		sqlite3_bind_int(st, 9, fr->line);
	bind_str(st, 10, "python");
}

/* One row per frame of the merged stack (pystack.h), innermost first (depth 0). */
static void on_frames(struct ct_sqlite *s, const struct ct_call *c)
{
	static struct ct_stack_item items[CT_FRAMES_MAX + CT_PY_FRAMES_MAX];
	sqlite3_stmt *st = s->st[CT_SQL_FRAME];
	bool appended;
	size_t n = ct_stack_merge(c, items, &appended);

	for (size_t i = 0; i < n && !s->failed; i++) {
		ct_sqlite_batch(s);
		sqlite3_bind_int64(st, 1, s->call_id);
		sqlite3_bind_int(st, 2, (int)i);
		if (items[i].python)
			bind_python(st, c->pystack, items[i].i);
		else
			bind_native(st, c->stack, items[i].i);
		ct_sqlite_step(s, st);
	}
}

/* The first of names the argument's layout has, bound at i. */
static void bind_field(sqlite3_stmt *st, int i, const struct ct_call *c,
		       const char *const *names, size_t n)
{
	const unsigned char *arg = ct_ioctl_arg(c->rec);
	uint64_t v;

	while (n--)
		if (ct_read_u64(c->layout, arg, c->rec->arg_size, *names++, &v)) {
			bind_u64(st, i, v);
			return;
		}
}

/* The client and the object an RM call acts on, so that calls join
 * objects on (client, handle): the control's object, the one made, the
 * one freed, the memory mapped.  Field names of the argument's layout
 * (hRoot is 0 where the call makes a client: so is its objects row's). */
static void bind_handles(sqlite3_stmt *st, const struct ct_call *c)
{
	static const char *const clients[] = { "hClient", "hRoot" };
	static const char *const objects[] = { "hObject", "hObjectNew", "hObjectOld", "hMemory" };

	if (c->kind != CT_CALL_IOCTL || !c->layout || !c->rec)
		return;
	bind_field(st, 14, c, clients, 2);
	bind_field(st, 15, c, objects, 4);
}

/* name: a name or NULL; an id without one says so in note. */
static void bind_names(sqlite3_stmt *st, const struct ct_call *c, char *note, size_t n)
{
	char label[96];

	note[0] = 0;
	if (c->kind != CT_CALL_IOCTL) {
		bind_str(st, 9, c->name);
		return;
	}
	bind_u64(st, 10, c->request);
	bind_str(st, 11, c->name);
	if (c->has_ctrl) {
		bind_u64(st, 12, c->ctrl);
		bind_str(st, 9, c->ctrl_name);
		if (!c->ctrl_name)
			snprintf(note, n, "RM control %s", ct_ctrl_label(c->ctrl, NULL, label,
									  sizeof(label)));
	} else if (c->has_class) {
		bind_str(st, 9, c->class_name);
		if (!c->class_name)
			snprintf(note, n, "RM class 0x%x (no name in cudatrace's tables)",
				 c->hclass);
	} else {
		bind_str(st, 9, c->name);
	}
	if (c->has_class)
		bind_u64(st, 13, c->hclass);
	if (!c->name)
		snprintf(note, n, "request %s (no name in cudatrace's tables)",
			 ct_request_label(c->request, NULL, label, sizeof(label)));
	bind_str(st, 25, note[0] ? note : NULL);
}

static void add_call(struct ct_sqlite *s, const struct ct_call *c)
{
	static const char *const syscalls[] = { "ioctl", "mmap", "munmap" };
	sqlite3_stmt *st = row(s, CT_SQL_CALL);
	char note[160];

	bind_u64(st, 3, c->ts_ns);
	if (c->finished && c->kind != CT_CALL_MUNMAP)   /* munmap: not timed */
		bind_u64(st, 4, c->duration_ns);
	bind_u64(st, 5, c->pid);
	bind_u64(st, 6, c->tid);
	bind_str(st, 7, c->comm[0] ? c->comm : NULL);
	bind_str(st, 8, syscalls[c->kind]);
	bind_names(st, c, note, sizeof(note));
	bind_handles(st, c);
	if (c->has_status) {
		bind_u64(st, 16, c->status);
		bind_str(st, 17, c->status_name);
	}
	if (c->finished)
		sqlite3_bind_int64(st, 18, c->ret);
	sqlite3_bind_int(st, 19, c->failed);
	sqlite3_bind_int(st, 20, c->finished);
	if (c->gpu >= 0)
		sqlite3_bind_int(st, 21, c->gpu);
	bind_str(st, 22, c->path);
	bind_str(st, 23, c->api);
	bind_str(st, 24, c->caller);
	if (c->py) {
		bind_str(st, 26, c->py_file);
		if (c->py->line >= 0)
			sqlite3_bind_int(st, 27, c->py->line);
		bind_str(st, 28, c->py_func);
	}
	ct_sqlite_step(s, st);
	s->call_id = sqlite3_last_insert_rowid(s->db);
	s->call_start = c->ts_ns;
}

static void view_call(void *ctx, const struct ct_call *c)
{
	struct ct_sqlite *s = ctx;

	if (s->failed)
		return;
	add_call(s, c);
	if (c->stack || c->pystack)
		on_frames(s, c);
	if (c->kind == CT_CALL_MMAP)
		on_mmap(s, c);
	else if (c->kind == CT_CALL_IOCTL && c->ex && !c->failed &&
		 (c->esc_nr == NV_ESC_RM_ALLOC || c->esc_nr == NV_ESC_RM_ALLOC_MEMORY ||
		  c->esc_nr == NV_ESC_RM_FREE))
		on_object(s, c);
	ct_devmem_call(s->mem, c);   /* may add device_memory rows */
	s->call_id = 0;
}

/* --- GPU work ---------------------------------------------------------------- */

/* The launch's parameters, as uploaded (bytes in memory order). */
static void bind_params(sqlite3_stmt *st, int i, const struct gw_event *e)
{
	uint8_t b[GW_UPLOAD_KEEP_DW * 4];
	size_t n = gw_params_bytes(e, b, sizeof(b));

	if (n)
		sqlite3_bind_blob(st, i, b, (int)n, SQLITE_TRANSIENT);
}

/* What one of CUDA's own copy or memset kernels did: op, op_bytes,
 * op_src, op_dst, op_fill from column i. */
static void bind_op(sqlite3_stmt *st, int i, const struct gw_event *e)
{
	const struct gw_kop *op = e->op;

	if (!op)
		return;
	bind_str(st, i, op->what);
	bind_u64(st, i + 1, op->bytes);
	if (!strcmp(op->what, "copy"))
		bind_u64(st, i + 2, op->src);
	bind_u64(st, i + 3, op->dst);
	if (strcmp(op->what, "copy"))
		bind_u64(st, i + 4, op->fill);
}

/* A launch read from a channel, with its kernel when it was named. */
static void view_gpu_work(void *ctx, const struct ct_gpu_seg *g, const struct gw_event *e)
{
	struct ct_sqlite *s = ctx;
	const struct ct_kname *k;
	sqlite3_stmt *st;
	int i;

	if (s->failed || !e || e->kind != GW_LAUNCH || !e->have_qmd)
		return;
	st = row(s, CT_SQL_LAUNCH);
	bind_u64(st, 3, g->h.ts_ns);
	bind_u64(st, 4, g->h.pid);
	if (g->gpu >= 0)
		sqlite3_bind_int(st, 5, g->gpu);
	bind_u64(st, 6, g->channel);
	for (i = 0; i < 3; i++) {
		bind_u64(st, 7 + i, e->grid[i]);
		bind_u64(st, 10 + i, e->block[i]);
	}
	bind_u64(st, 13, e->smem);
	bind_u64(st, 14, e->program);
	if ((k = e->kernel)) {
		bind_str(st, 15, ct_kname_label(k) ? ct_kname_label(k) : "?");
		bind_str(st, 16, k->mangled);
		bind_str(st, 17, k->module[0] ? k->module : NULL);
		bind_str(st, 18, ct_kname_how(k->how));
	}
	bind_params(st, 19, e);
	bind_op(st, 20, e);
	ct_sqlite_step(s, st);
}

static int view_finish(void *ctx)
{
	return ct_sqlite_close(ctx);
}

struct ct_view ct_sqlite_view(struct ct_sqlite *s)
{
	s->mem = ct_devmem_new(memory_changed, s);
	if (!s->mem) {   /* no row will be added: the view only closes */
		ct_err("--sqlite %s: out of memory\n", s->path);
		s->failed = true;
	}
	return (struct ct_view){ .call = view_call, .record = view_record,
				 .gpu_work = view_gpu_work, .finish = view_finish, .ctx = s };
}
