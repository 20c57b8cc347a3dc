// SPDX-License-Identifier: MIT
/*
 * --compat: collect one row per (device, kind, number) from the decoded
 * calls, then judge each row by nvproxy's rules as the snapshot's data
 * states them (gvisor_abi.h): its tables, the capability masks, the control
 * commands it forwards unread, the NV01_EVENT class rewrite.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "layouts.h"
#include "meta.h"
#include "nvtables.h"
#include "record.h"
#include "report_rows.h"
#include "stack.h"
#include "msg.h"
#include "grow.h"

const char *const ct_compat_kind_names[RK_COUNT] = {
	[RK_FRONTEND] = "frontend", [RK_UVM] = "uvm", [RK_CONTROL] = "control",
	[RK_CLASS] = "class", [RK_MMAP] = "mmap", [RK_IOCTL] = "ioctl",
};

const char *const ct_compat_verdict_names[V_COUNT] = {
	[V_SUPPORTED] = "supported", [V_PASSED_THROUGH] = "passed through",
	[V_HARMLESS] = "unsupported, harmless", [V_NEEDS_CAP] = "needs capability",
	[V_UNSUPPORTED] = "unsupported", [V_NOT_EXPOSED] = "device not exposed",
};

bool ct_compat_refused(enum verdict v)
{
	return v == V_NEEDS_CAP || v == V_UNSUPPORTED || v == V_NOT_EXPOSED;
}

/* --- the call -> rows ------------------------------------------------------ */

/* nvproxy's devices: nvidiactl and nvidiaN (the frontend), and nvidia-uvm.
 * Anything else (nvidia-modeset, nvidia-uvm-tools, nvidia-caps/...) it does
 * not expose to ioctl or mmap.  By the file's name, so that stand-ins
 * (--device /tmp/x/nvidiactl) are judged as the devices they stand for. */
static enum row_kind device_kind(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL, *p;

	base = base ? base + 1 : path;
	if (!base)
		return RK_IOCTL;
	if (strcmp(base, "nvidiactl") == 0)
		return RK_FRONTEND;
	if (strcmp(base, "nvidia-uvm") == 0)
		return RK_UVM;
	if (strncmp(base, "nvidia", 6) != 0 || !base[6])
		return RK_IOCTL;
	for (p = base + 6; *p; p++)
		if (*p < '0' || *p > '9')
			return RK_IOCTL;
	return RK_FRONTEND;
}

static const char *our_name(enum row_kind k, uint32_t n)
{
	const struct nv_esc_info *e;
	const struct uvm_ioctl_info *u;
	const struct nv_ctrl_info *ct;
	const struct nv_class_info *cl;

	switch (k) {
	case RK_FRONTEND: return (e = nv_esc_lookup(n)) ? e->name : NULL;
	case RK_UVM: return (u = uvm_ioctl_lookup(n)) ? u->name : NULL;
	case RK_CONTROL: return (ct = nv_ctrl_lookup(n)) ? ct->name : NULL;
	case RK_CLASS: return (cl = nv_class_lookup(n)) ? cl->name : NULL;
	default: return NULL;
	}
}

static struct row *row_for(struct ct_compat *c, const char *dev, enum row_kind k, uint32_t n)
{
	struct row *r, *more;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		r = &c->rows[i];
		if (r->kind == k && r->number == n && strcmp(r->dev, dev) == 0)
			return r;
	}
	if (!(more = ct_grow(c->rows, &c->cap, c->nrows + 1, sizeof(*more), 64)))
		return NULL;
	c->rows = more;
	r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->dev, sizeof(r->dev), "%s", dev);
	r->kind = k;
	r->number = n;
	r->ours = our_name(k, n);
	if (k < RK_MMAP)
		r->known = ct_known_caller_find((int)k, n);
	return r;
}

/* The host's answer: "NV_ERR_..." for a status, else the errno name.  A
 * call the host refused with the very status nvproxy gives for what it does
 * not know (NV_ERR_NOT_SUPPORTED, NV_ERR_INVALID_CLASS) is counted apart. */
static void note_answer(const struct ct_compat *c, struct row *r, const struct ct_call *call)
{
	const char *st = call->has_status && call->status ? call->status_name : NULL;
	const char *refusal = r->kind < RK_MMAP ? c->snap->refusal[r->kind] : NULL;

	if (!call->failed)
		return;
	r->failed++;
	if (st && refusal && strcmp(st, refusal) == 0)
		r->refused_by_host++;
	if (r->answer[0])
		return;
	if (st)
		snprintf(r->answer, sizeof(r->answer), "%s", st);
	else if (call->has_status && call->status)
		snprintf(r->answer, sizeof(r->answer), "status 0x%x", call->status);
	else if (call->ret < 0 && call->ret > -4096 && strerrorname_np((int)-call->ret))
		snprintf(r->answer, sizeof(r->answer), "%s", strerrorname_np((int)-call->ret));
	else
		snprintf(r->answer, sizeof(r->answer), "returned %lld", (long long)call->ret);
}

/* ioctl_sniffer wraps libc's ioctl(): with -k, a call whose innermost frame
 * is not that function did not go through it. */
static bool through_libc_ioctl(const struct ct_call *call)
{
	const struct ct_frames *f = call->stack;
	const char *sym;

	if (!f || f->nframes == 0)
		return true;
	sym = ct_frame_str(f, ct_frames_at(f)[0].sym);
	return sym && strcmp(sym, "ioctl") == 0;
}

static void count(struct ct_compat *c, struct row *r, const struct ct_call *call)
{
	if (!r)
		return;
	if (r->calls++ == 0) {
		r->first_pid = call->pid;
		memcpy(r->first_comm, call->comm, sizeof(r->first_comm));
	}
	note_answer(c, r, call);
	if (call->stack) {
		c->have_stacks = true;
		r->unseen_by_libc += call->kind == CT_CALL_IOCTL && !through_libc_ioctl(call);
		if (r->stacked++ == 0 && call->api)
			snprintf(r->api, sizeof(r->api), "%s", call->api);
		ct_compat_read_stack(c, r, call);
	}
	if (r->known && ct_driver_lib_by_pattern(r->known->module) >= 0)
		c->libs_known |= 1ull << ct_driver_lib_by_pattern(r->known->module);
}

/* NV01_EVENT: nvproxy judges the class named in its NV0005 params. */
static uint32_t alloc_class(const struct ct_compat *c, const struct ct_call *call, bool *rew)
{
	const struct ct_ioctl *en = call->en ? call->en : call->rec;
	uint32_t inner;

	*rew = false;
	if (!c->snap->rewrite_class || call->hclass != c->snap->rewrite_class ||
	    !call->nested_layout)
		return call->hclass;
	if (!ct_read_u32(call->nested_layout, ct_ioctl_nested(en), en->nest_size, "hClass", &inner))
		return call->hclass;
	*rew = inner != call->hclass;
	return inner;
}

/* A control or class row: the escape that carried it (nvproxy lets the
 * escape in first, by its own capabilities). */
static struct row *carried(struct row *r, const struct ct_call *call)
{
	if (r)
		r->escape = IOC_NR(call->request);
	return r;
}

static void on_call(void *ctx, const struct ct_call *call)
{
	struct ct_compat *c = ctx;
	const char *dev = call->path ? call->path : "(unknown device)";
	enum row_kind k = device_kind(call->path);
	bool rew;

	if (call->kind == CT_CALL_MUNMAP)
		return;
	if (call->kind == CT_CALL_MMAP) {
		count(c, row_for(c, dev, k == RK_IOCTL ? RK_IOCTL : RK_MMAP, 0), call);
		return;
	}
	if (k == RK_IOCTL) {
		count(c, row_for(c, dev, RK_IOCTL, call->request), call);
		return;
	}
	/* nvproxy keys frontend ioctls on IOC_NR alone, whatever the type. */
	count(c, row_for(c, dev, k, k == RK_FRONTEND ? IOC_NR(call->request) : call->request), call);
	if (call->has_ctrl)
		count(c, carried(row_for(c, dev, RK_CONTROL, call->ctrl), call), call);
	if (call->has_class) {
		uint32_t cls = alloc_class(c, call, &rew);
		struct row *r = carried(row_for(c, dev, RK_CLASS, cls), call);

		count(c, r, call);
		if (r && rew)
			r->rewritten++;
	}
}

static void meta_line(const char *key, const char *val, void *ctx)
{
	struct ct_compat *c = ctx;

	if (strcmp(key, "driver") != 0)
		return;
	c->driver = ct_driver_version(val);
}

/* A process: what it asks of the container stack (NVIDIA_DRIVER_CAPABILITIES). */
static void proc_env(struct ct_compat *c, const struct ct_proc *p)
{
	char v[sizeof(c->asked)];

	if (!c->snap->caps_env || !ct_caps_asked_env(p, c->snap->caps_env, v, sizeof(v)))
		return;
	if (!c->asked_pid) {
		memcpy(c->asked, v, sizeof(v));
		c->asked_pid = p->h.pid;
	} else if (strcmp(v, c->asked) != 0) {
		c->asked_differs++;
	}
}

static void on_record(void *ctx, const struct ct_rec *r)
{
	if (r->type == CT_REC_META)
		ct_meta_foreach(r, meta_line, ctx);
	else if (r->type == CT_REC_PROC)
		proc_env(ctx, (const struct ct_proc *)r);
}

/* --- judging --------------------------------------------------------------- */

static bool passed_through(const struct ct_compat *c, uint32_t cmd)
{
	const struct ct_gv_snapshot *s = c->snap;

	return (s->passthrough_mask && (cmd & s->passthrough_mask)) ||
	       (s->passthrough_class && (cmd >> 16) == s->passthrough_class);
}

static void judge(struct ct_compat *c, struct row *r)
{
	if (r->kind == RK_IOCTL) {
		r->verdict = V_NOT_EXPOSED;
		return;
	}
	if (r->kind == RK_MMAP) {
		r->verdict = V_SUPPORTED;   /* nvproxy maps frontend and UVM fds */
		return;
	}
	r->first = ct_gv_first_with(c->snap, (int)r->kind, r->number);
	r->last = ct_gv_last_with(c->snap, (int)r->kind, r->number, &r->dropped);
	if (r->kind == RK_CONTROL && passed_through(c, r->number)) {
		/* Forwarded unread, but only once its escape is let in. */
		r->via = ct_gv_lookup(c->node, CT_GV_FRONTEND, r->escape);
		r->verdict = V_PASSED_THROUGH;
		if (r->via && r->via->caps && !(r->via->caps & c->caps)) {
			r->verdict = V_NEEDS_CAP;
			r->caps_needed = r->via->caps;
		}
		return;
	}
	r->op = ct_gv_lookup(c->node, (int)r->kind, r->number);
	if (r->op && r->op->caps && !(r->op->caps & c->caps)) {
		r->verdict = V_NEEDS_CAP;
		r->caps_needed = r->op->caps;
	} else if (r->op) {
		r->verdict = V_SUPPORTED;
	} else if (r->calls && r->refused_by_host == r->calls) {
		r->verdict = V_HARMLESS;   /* nvproxy answers as the host did */
	} else {
		r->verdict = V_UNSUPPORTED;
	}
}

static int row_order(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int d = strcmp(x->dev, y->dev);

	if (d)
		return d;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->number < y->number ? -1 : x->number > y->number;
}

/* The capabilities the trace needs: each row's entry wants any one of its
 * set; take the rows with one choice first, then prefer what is already
 * taken, then nvproxy's defaults, then the lowest bit. */
uint16_t ct_compat_caps_needed(const struct ct_compat *c)
{
	uint16_t need = 0, dflt = ct_gv_caps_default(c->snap);
	int pass;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < c->nrows; i++) {
			const struct row *r = &c->rows[i];
			uint16_t m = r->op && r->verdict != V_UNSUPPORTED ? r->op->caps
				   : r->via ? r->via->caps : 0;

			if (!m || (m & need) || (pass == 0 && (m & (m - 1))))
				continue;
			if (m & dflt)
				m &= dflt;
			need |= (uint16_t)(m & -m);
		}
	return need;
}

const char *ct_compat_sniffer_note(const struct row *r)
{
	if (r->unseen_by_libc)
		return "not made through libc's ioctl(): ioctl_sniffer does not see it";
	if (r->verdict == V_NEEDS_CAP)
		return "ioctl_sniffer ignores capabilities: it says supported";
	if (r->rewritten)
		return "ioctl_sniffer judges the outer class NV01_EVENT, not the class inside";
	return NULL;
}

static int finish(void *ctx)
{
	struct ct_compat *c = ctx;
	size_t i;
	int status = 0;

	c->node = ct_gv_node_for(c->snap, c->driver, &c->match);
	for (i = 0; i < c->nrows; i++) {
		judge(c, &c->rows[i]);
		status |= ct_compat_refused(c->rows[i].verdict);
	}
	if (c->nrows)
		qsort(c->rows, c->nrows, sizeof(*c->rows), row_order);
	ct_compat_print(c);
	if (c->o.status)
		*c->o.status = status;
	ct_compat_free(c);
	return 0;
}

struct ct_view ct_compat_view(struct ct_compat *c)
{
	struct ct_view v = { .call = on_call, .finish = finish, .record = on_record, .ctx = c };

	return v;
}

/* --- set-up ---------------------------------------------------------------- */

static const struct ct_gv_snapshot *parse_spec(const char *spec)
{
	const struct ct_gv_snapshot *s;

	if (strncmp(spec, "gvisor", 6) != 0 || (spec[6] && spec[6] != ':')) {
		ct_err("--compat=%s: the one sandbox known is gvisor "
				"(--compat=gvisor or --compat=gvisor:VERSION)\n", spec);
		return NULL;
	}
	s = ct_gv_snapshot_find(spec[6] ? spec + 7 : NULL);
	if (!s) {
		unsigned i;

		ct_err("--compat: no gVisor snapshot %s in the tables; "
				"known (id or commit):\n", spec + 7);
		for (i = 0; i < ct_gv_nsnapshots; i++)
			fprintf(stderr, "  %-20s %.12s  %s\n", ct_gv_snapshots[i].id,
				ct_gv_snapshots[i].commit, ct_gv_snapshots[i].role);
	}
	return s;
}

/* The snapshot and the enabled capabilities; false after saying why. */
static bool parse_opts(const char *spec, const char *list, const struct ct_gv_snapshot **s,
		       uint16_t *caps)
{
	const char *bad = NULL;
	char known[256];

	if (!(*s = parse_spec(spec)))
		return false;
	*caps = ct_gv_caps_default(*s);
	if (list && (*s)->ncaps && !ct_gv_caps_parse(*s, list, caps, &bad)) {
		ct_err("--compat-caps: unknown capability '%s' (gVisor %s "
				"knows: %s, all)\n", bad, (*s)->id,
			ct_gv_caps_str(*s, 0xffff, known, sizeof(known)));
		return false;
	}
	return true;
}

int ct_compat_check(const char *spec, const char *caps)
{
	const struct ct_gv_snapshot *s;
	uint16_t bits;

	return parse_opts(spec, caps, &s, &bits) ? 0 : -1;
}

struct ct_compat *ct_compat_new(const struct ct_compat_opts *o)
{
	const struct ct_gv_snapshot *s;
	struct ct_compat *c;
	uint16_t caps;

	if (!parse_opts(o->spec, o->caps, &s, &caps))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		ct_err("out of memory\n");
		return NULL;
	}
	c->o = *o;
	c->snap = s;
	c->caps = caps;
	c->caps_given = o->caps != NULL;
	return c;
}

void ct_compat_free(struct ct_compat *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c);
}
