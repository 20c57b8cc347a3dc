// SPDX-License-Identifier: MIT
/*
 * Device memory by process (devmem.h).  Every RM object the capture sees
 * made is kept (client, handle, parent), because freeing a device or a
 * client frees the memory under it; the memory objects also carry their
 * size and the total they count in.
 */
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "nvfacts.h"
#include "idmap.h"
#include "layouts.h"
#include "meta.h"
#include "nvtables.h"
#include "record.h"
#include "grow.h"

const char *const ct_mem_kind_names[CT_MEM_KINDS] = { "video", "system", "virtual" };

struct dobj {
	uint32_t client, handle, parent, pid, hclass;
	uint32_t nchildren;
	bool is_mem;
	size_t total;             /* index into totals, if is_mem */
	uint64_t size, ts_ns;
};

struct ct_devmem {
	ct_devmem_changed_fn changed;
	void *ctx;
	uint64_t start_ns;
	struct idmap objs;        /* client << 32 | handle -> struct dobj */
	struct idmap started;     /* pids whose start the capture saw */
	struct idmap judged;      /* pids whose first call was looked at */
	struct ct_devmem_total *totals;
	size_t ntotals, captotals;
};

/* Memory classes by name (decoders/tables/nv_class.tsv): no numbers here. */
static const struct { const char *prefix; enum ct_mem_kind kind; } mem_classes[] = {
	{ "NV01_MEMORY_LOCAL", CT_MEM_VIDEO },      /* _USER, _PRIVILEGED, _PHYSICAL */
	{ "NV_MEMORY_FABRIC", CT_MEM_VIDEO },
	{ "NV_MEMORY_EXTENDED_USER", CT_MEM_VIDEO },
	{ "NV01_MEMORY_SYSTEM", CT_MEM_SYSTEM },    /* and _OS_DESCRIPTOR, _DYNAMIC */
	{ "NV01_MEMORY_HOST_USER", CT_MEM_SYSTEM },
	{ "NV50_MEMORY_VIRTUAL", CT_MEM_VIRTUAL },
};

bool ct_mem_kind_of(uint32_t hclass, enum ct_mem_kind *kind)
{
	const struct nv_class_info *ci = nv_class_lookup(hclass);
	size_t i;

	if (!ci || !ci->name)
		return false;
	for (i = 0; i < sizeof(mem_classes) / sizeof(mem_classes[0]); i++)
		if (strncmp(ci->name, mem_classes[i].prefix, strlen(mem_classes[i].prefix)) == 0) {
			*kind = mem_classes[i].kind;
			return true;
		}
	return false;
}

struct ct_devmem *ct_devmem_new(ct_devmem_changed_fn changed, void *ctx)
{
	struct ct_devmem *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->changed = changed;
	m->ctx = ctx;
	return m;
}

void ct_devmem_free(struct ct_devmem *m)
{
	if (!m)
		return;
	idmap_free_all(&m->objs);
	idmap_free(&m->started);
	idmap_free(&m->judged);
	free(m->totals);
	free(m);
}

const struct ct_devmem_total *ct_devmem_totals(const struct ct_devmem *m, size_t *n)
{
	*n = m->ntotals;
	return m->totals;
}

uint64_t ct_devmem_start_ns(const struct ct_devmem *m)
{
	return m->start_ns;
}

static uint64_t key_of(uint32_t client, uint32_t handle)
{
	return (uint64_t)client << 32 | handle;
}

/* --- totals ---------------------------------------------------------------- */

static struct ct_devmem_total *total_for(struct ct_devmem *m, const struct ct_call *c,
					 enum ct_mem_kind kind, size_t *idx)
{
	struct ct_devmem_total *t, *nt;
	size_t i;

	for (i = m->ntotals; i-- > 0;) {
		t = &m->totals[i];
		if (t->pid == c->pid && t->gpu == c->gpu && t->kind == kind) {
			if (c->tid == c->pid && c->comm[0])
				memcpy(t->comm, c->comm, sizeof(t->comm));
			*idx = i;
			return t;
		}
	}
	if (!(nt = ct_grow(m->totals, &m->captotals, m->ntotals + 1, sizeof(*nt), 16)))
		return NULL;
	m->totals = nt;
	t = &m->totals[m->ntotals];
	memset(t, 0, sizeof(*t));
	t->pid = c->pid;
	t->gpu = c->gpu;
	t->kind = kind;
	memcpy(t->comm, c->comm, sizeof(t->comm));
	t->seen_start = idmap_get(&m->started, c->pid) != NULL;
	*idx = m->ntotals++;
	return t;
}

/* Keeps the CT_DEVMEM_TOP largest allocations, largest first. */
static void note_top(struct ct_devmem *m, struct ct_devmem_total *t, const struct dobj *o)
{
	const struct dobj *parent = idmap_get(&m->objs, key_of(o->client, o->parent));
	const struct nv_class_info *ci = nv_class_lookup(o->hclass);
	const struct nv_class_info *pi = parent ? nv_class_lookup(parent->hclass) : NULL;
	struct ct_devmem_alloc a = {
		.client = o->client, .handle = o->handle, .parent = o->parent,
		.hclass = o->hclass, .class_name = ci ? ci->name : NULL,
		.parent_class = pi ? pi->name : NULL, .size = o->size, .ts_ns = o->ts_ns,
	};
	int i = t->ntop < CT_DEVMEM_TOP ? t->ntop++ : CT_DEVMEM_TOP - 1;

	if (i == CT_DEVMEM_TOP - 1 && t->ntop == CT_DEVMEM_TOP && t->top[i].size >= a.size &&
	    t->top[i].ts_ns)
		return;
	while (i > 0 && t->top[i - 1].size < a.size) {
		t->top[i] = t->top[i - 1];
		i--;
	}
	t->top[i] = a;
}

static void mark_top_freed(struct ct_devmem_total *t, const struct dobj *o, uint64_t ts)
{
	int i;

	for (i = 0; i < t->ntop; i++)
		if (t->top[i].client == o->client && t->top[i].handle == o->handle &&
		    t->top[i].ts_ns == o->ts_ns)
			t->top[i].freed_ns = ts;
}

/* --- objects ---------------------------------------------------------------- */

static void drop(struct ct_devmem *m, struct dobj *o, uint64_t ts)
{
	struct dobj *parent = idmap_get(&m->objs, key_of(o->client, o->parent));
	struct ct_devmem_total *t;

	if (parent && parent->nchildren)
		parent->nchildren--;
	idmap_del(&m->objs, key_of(o->client, o->handle));
	if (o->is_mem && o->total < m->ntotals) {
		t = &m->totals[o->total];
		t->held = t->held >= o->size ? t->held - o->size : 0;
		t->frees++;
		mark_top_freed(t, o, ts);
		if (m->changed)
			m->changed(m->ctx, t, ts);
	}
	free(o);
}

/* Is anc above o (or o itself)?  Chains are short; a crafted loop stops. */
static bool under(struct ct_devmem *m, const struct dobj *o, uint32_t anc)
{
	int depth;

	for (depth = 0; o && depth < 32; depth++) {
		if (o->handle == anc)
			return true;
		if (o->parent == o->handle)
			return false;
		o = idmap_get(&m->objs, key_of(o->client, o->parent));
	}
	return false;
}

/* Newest first: children before the parents made before them, and an
 * order that does not hang on the map's (its hash is seeded per process). */
static int newest_first(const void *a, const void *b)
{
	const struct dobj *x = *(const struct dobj *const *)a;
	const struct dobj *y = *(const struct dobj *const *)b;

	if (x->ts_ns != y->ts_ns)
		return x->ts_ns > y->ts_ns ? -1 : 1;
	if (x->client != y->client)
		return x->client > y->client ? -1 : 1;
	return x->handle > y->handle ? -1 : x->handle < y->handle;
}

/* Drops every object of client that matches: under handle h, or all
 * (h == 0), or all of a pid (client == 0). */
static void drop_where(struct ct_devmem *m, uint32_t client, uint32_t h, uint32_t pid,
		       uint64_t ts)
{
	struct dobj **victims;
	size_t i, n = 0;

	if (!m->objs.used)
		return;
	victims = malloc(m->objs.used * sizeof(*victims));
	if (!victims)
		return;
	for (i = 0; i < m->objs.cap; i++) {
		struct dobj *o = m->objs.keys[i] ? m->objs.vals[i] : NULL;

		if (!o)
			continue;
		if (client ? (o->client == client && (!h || under(m, o, h))) : o->pid == pid)
			victims[n++] = o;
	}
	qsort(victims, n, sizeof(*victims), newest_first);
	for (i = 0; i < n; i++)
		drop(m, victims[i], ts);
	free(victims);
}

static void on_free(struct ct_devmem *m, const struct ct_call *c, const struct ct_layout *l,
		    const unsigned char *arg, uint32_t len)
{
	uint64_t client, h;
	struct dobj *o;

	if (!ct_read_u64(l, arg, len, "hRoot", &client) ||
	    !ct_read_u64(l, arg, len, "hObjectOld", &h))
		return;
	if (h == client) {
		drop_where(m, (uint32_t)client, 0, 0, c->ts_ns + c->duration_ns);
		return;
	}
	o = idmap_get(&m->objs, key_of((uint32_t)client, (uint32_t)h));
	if (o && !o->nchildren)
		drop(m, o, c->ts_ns + c->duration_ns);
	else if (o)
		drop_where(m, (uint32_t)client, (uint32_t)h, 0, c->ts_ns + c->duration_ns);
}

/* The size an allocation's params give: NV_MEMORY_ALLOCATION_PARAMS.size,
 * or limit + 1 (NVOS02, the older ALLOC_MEMORY). */
bool ct_mem_alloc_size(const struct ct_call *c, uint64_t *size)
{
	const struct ct_ioctl *r = c->ex;
	uint64_t limit;

	if (!r)
		return false;
	if (c->has_class)
		return ct_read_u64(c->nested_layout, ct_ioctl_nested(r), r->nest_size, "size",
				   size) && *size;
	if (ct_read_u64(c->layout, ct_ioctl_arg(r), r->arg_size, "limit", &limit) &&
	    limit != UINT64_MAX) {
		*size = limit + 1;
		return true;
	}
	return false;
}

static void on_alloc(struct ct_devmem *m, const struct ct_call *c, const struct ct_layout *l,
		     const unsigned char *arg, uint32_t len)
{
	uint64_t client, parent, h, cls;
	struct dobj *o, *p;
	enum ct_mem_kind kind;
	struct ct_devmem_total *t;

	if (!ct_read_u64(l, arg, len, "hRoot", &client) ||
	    !ct_read_u64(l, arg, len, "hObjectParent", &parent) ||
	    !ct_read_u64(l, arg, len, "hObjectNew", &h) ||
	    !ct_read_u64(l, arg, len, "hClass", &cls) || !h)
		return;
	o = calloc(1, sizeof(*o));
	if (!o)
		return;
	*o = (struct dobj){ .client = (uint32_t)client, .handle = (uint32_t)h,
			    .parent = (uint32_t)parent, .pid = c->pid, .hclass = (uint32_t)cls,
			    .ts_ns = c->ts_ns + c->duration_ns };
	p = idmap_get(&m->objs, key_of(o->client, o->parent));
	if (p)
		p->nchildren++;
	free(idmap_put(&m->objs, key_of(o->client, o->handle), o));   /* a reused handle */
	if (!ct_mem_kind_of(o->hclass, &kind))
		return;
	t = total_for(m, c, kind, &o->total);
	if (!t)
		return;
	o->is_mem = true;
	t->allocs++;
	if (!ct_mem_alloc_size(c, &o->size)) {
		t->unsized++;
		o->size = 0;
	}
	t->held += o->size;
	if (t->held > t->peak) {
		t->peak = t->held;
		t->peak_ns = o->ts_ns;
	}
	note_top(m, t, o);
	if (m->changed)
		m->changed(m->ctx, t, o->ts_ns);
}

static char marker;

/*
 * Without an exec or fork record (a system-wide capture describes a
 * process at its first call), the first call says whether the capture
 * saw the driver session begin: every client of the driver starts with
 * these (CUDA: SYS_PARAMS, CARD_INFO, then its root client).
 */
static void judge_start(struct ct_devmem *m, const struct ct_call *c)
{
	static const uint32_t openers[] = {
		NV_ESC_SYS_PARAMS, NV_ESC_CHECK_VERSION_STR, NV_ESC_CARD_INFO,
	};
	size_t i;

	if (idmap_get(&m->judged, c->pid))
		return;
	idmap_put(&m->judged, c->pid, &marker);
	for (i = 0; c->esc_nr && i < sizeof(openers) / sizeof(openers[0]); i++)
		if (c->esc_nr == openers[i])
			idmap_put(&m->started, c->pid, &marker);
	if (c->has_class) {
		const struct nv_class_info *ci = nv_class_lookup(c->hclass);

		if (ci && strncmp(ci->name, "NV01_ROOT", 9) == 0)
			idmap_put(&m->started, c->pid, &marker);
	}
}

void ct_devmem_call(struct ct_devmem *m, const struct ct_call *c)
{
	const struct ct_layout *l;
	const unsigned char *arg;
	uint32_t len;

	if (c->kind == CT_CALL_IOCTL)
		judge_start(m, c);

	/* Only calls that completed and succeeded change what is held. */
	if (c->kind != CT_CALL_IOCTL || !c->ex || c->failed)
		return;
	if (c->esc_nr != NV_ESC_RM_ALLOC && c->esc_nr != NV_ESC_RM_ALLOC_MEMORY &&
	    c->esc_nr != NV_ESC_RM_FREE)
		return;
	l = c->layout;
	arg = ct_ioctl_arg(c->ex);
	len = c->ex->arg_size;
	if (c->esc_nr == NV_ESC_RM_FREE)
		on_free(m, c, l, arg, len);
	else
		on_alloc(m, c, l, arg, len);
}

static void meta_line(const char *key, const char *val, void *ctx)
{
	struct ct_devmem *m = ctx;

	if (strcmp(key, "start_monotonic_ns") == 0)
		m->start_ns = strtoull(val, NULL, 10);
}

void ct_devmem_record(struct ct_devmem *m, const struct ct_rec *r)
{
	switch (r->type) {
	case CT_REC_META:
		ct_meta_foreach(r, meta_line, m);
		break;
	case CT_REC_PROC:
		if (((const struct ct_proc *)r)->source == CT_PROC_EXEC)
			idmap_put(&m->started, r->pid, &marker);
		break;
	case CT_REC_FORK:
		idmap_put(&m->started, ((const struct ct_fork *)r)->child_pid, &marker);
		break;
	case CT_REC_PROC_EXIT:
		/* The driver frees what the process's clients held. */
		drop_where(m, 0, 0, r->pid, r->ts_ns);
		idmap_del(&m->started, r->pid);
		idmap_del(&m->judged, r->pid);
		break;
	}
}
