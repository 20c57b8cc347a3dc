// SPDX-License-Identifier: MIT
/*
 * Which channels exist and where their USERD is mapped, from the records:
 * an RM_ALLOC of a host channel class (one the --gpu-work tables know)
 * that succeeded gives the ring; RM_MAP_MEMORY then the mmap of the same
 * fd give the CPU address of a memory object; RM_FREE, exec and exit end
 * things.  Structs are read by field name through the layouts.  A call on
 * a --device stand-in file fails with ENOTTY: there the NV_STATUS alone
 * says whether it succeeded (the stand-in writes it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuwork.h"
#include "gpuwork_chans.h"
#include "layouts.h"
#include "nvfacts.h"
#include "nvtables.h"
#include "objects.h"
#include "record.h"
#include "msg.h"
#include "grow.h"

#define GW_MAX_RINGS 4096
#define GW_MAX_MAPS  65536
#define GW_SAY_UNFOLLOWED 8   /* lines at once; the rest counted */

struct gw_map { uint32_t pid, client, hmem; uint64_t addr, len; };
struct gw_pending { uint32_t pid, client, hmem; int32_t fd; };

static bool grow(void **p, size_t *cap, size_t n, size_t size, size_t max)
{
	void *np;

	if (n < *cap)
		return true;
	if (n >= max)
		return false;
	np = ct_grow(*p, cap, n + 1, size, 16);
	if (!np)
		return false;
	*p = np;
	return true;
}

static bool call_ok(const struct ct_ioctl *ex, const struct ct_layout *l, const char *status)
{
	uint32_t st;

	return (ex->ret == 0 || (ex->flags & CT_F_REGFILE)) &&
	       ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, status, &st) && st == NV_OK;
}

static const struct ct_layout *arg_layout(const struct gw_chans *c, const struct ct_ioctl *ex)
{
	return ct_layout_find(CT_LAYOUT_ESCAPE, IOC_NR(ex->cmd), ex->arg_size, c->driver);
}

/* A channel allocation that cannot be followed: said (the first few) and
 * counted, with the last reason kept for the closing line. */
static bool not_followed(struct gw_chans *c, const struct gw_ring *r, const char *fmt, ...)
{
	const struct nv_class_info *k = nv_class_lookup(r->cls);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->unfollowed_why, sizeof(c->unfollowed_why), fmt, ap);
	va_end(ap);
	if (c->unfollowed++ < GW_SAY_UNFOLLOWED)
		ct_err("gpu-work: channel 0x%x (%s) of process %u is not "
			"followed: %s\n", r->handle, k ? k->name : "?", r->pid, c->unfollowed_why);
	return false;
}

static uint32_t major_of(uint32_t drv)
{
	return drv / 1000000;   /* ct_driver_version(): major * 10^6 + minor * 10^3 + patch */
}

/*
 * The layout of class cls's allocation parameters: the one of the size
 * copied when the driver is not known (a stand-in, an old trace), else
 * the newest one whose first driver is not newer than the trace's.  The
 * struct changes between major releases (570 added tpcConfigId, 610
 * hHandleVASpace before hUserdMemory): a driver of a major release newer
 * than every layout's gets none, and *why says so.
 */
static const struct ct_layout *alloc_layout(const struct gw_chans *c, uint32_t cls,
					    uint32_t copied, char *why, size_t n)
{
	const struct ct_layout *all[16], *best = NULL, *newest = NULL;
	size_t k = ct_layout_sizes(CT_LAYOUT_ALLOC, cls, c->driver, all, 16), i;

	if (k > 16)
		k = 16;
	for (i = 0; i < k; i++) {
		if (!newest || all[i]->until > newest->until)
			newest = all[i];
		if (c->driver && all[i]->since <= c->driver && (!best || all[i]->since > best->since))
			best = all[i];
	}
	if (!c->driver)
		best = ct_layout_find(CT_LAYOUT_ALLOC, cls, copied, 0);
	if (!newest)
		snprintf(why, n, "the tables have no layout of its allocation parameters");
	else if (!c->driver && !best)
		snprintf(why, n, "%u bytes of parameters, and the tables have no %s of that size "
			 "(the driver is not known)", copied, newest->name);
	else if (c->driver && (!best || (best == newest &&
					 major_of(c->driver) > major_of(newest->until))))
		snprintf(why, n, "driver %u.%02u.%02u is %s every %s layout the tables hold (the "
			 "newest is of %u.%02u.%02u, %u bytes): its fields move between major "
			 "releases, so the ring's address cannot be trusted", major_of(c->driver),
			 c->driver / 1000 % 1000, c->driver % 1000, best ? "newer than" : "older than",
			 newest->name, major_of(newest->until), newest->until / 1000 % 1000,
			 newest->until % 1000, newest->size);
	else
		return best;
	return NULL;
}

static bool learn_channel(struct gw_chans *c, const struct ct_ioctl *ex)
{
	const struct ct_layout *l = arg_layout(c, ex), *pl;
	const unsigned char *nest = ct_ioctl_nested(ex);
	/* no entry can be put before the channel exists */
	struct gw_ring r = { .pid = ex->h.pid, .gpu = -1, .put_seen_ns = ex->h.ts_ns };
	char why[sizeof(c->unfollowed_why)];

	if (!call_ok(ex, l, "status") ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "hClass", &r.cls) ||
	    gw_engine_of(r.cls) != GW_ENG_HOST ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "hRoot", &r.client) ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "hObjectNew", &r.handle))
		return false;   /* not a channel made */
	if (!(pl = alloc_layout(c, r.cls, ex->nest_size, why, sizeof(why))))
		return not_followed(c, &r, "%s", why);
	if (!ct_read_u64(pl, nest, ex->nest_size, "gpFifoOffset", &r.ring_va) ||
	    !ct_read_u32(pl, nest, ex->nest_size, "gpFifoEntries", &r.entries) ||
	    !ct_read_u32(pl, nest, ex->nest_size, "hUserdMemory[0]", &r.userd_mem) ||
	    !ct_read_u64(pl, nest, ex->nest_size, "userdOffset[0]", &r.userd_off))
		return not_followed(c, &r, "%u bytes of its parameters were read (%s%s), too few "
				    "for the ring's fields in %s of %u bytes", ex->nest_size,
				    ex->flags & CT_F_NEST_FAULT ? "reading them faulted" : "cut",
				    ex->flags & CT_F_NEST_TRUNC ? " at the bound" : "", pl->name,
				    pl->size);
	if (r.entries == 0 || r.entries > GW_RING_MAX)
		return not_followed(c, &r, "its ring has %u entries (followed: 1 to %u)",
				    r.entries, GW_RING_MAX);
	if (!grow((void **)&c->rings, &c->cap, c->nrings, sizeof(r), GW_MAX_RINGS))
		return not_followed(c, &r, "%zu channels are followed already (at most %u)",
				    c->nrings, GW_MAX_RINGS);
	if (c->objs)
		r.gpu = ct_objects_gpu(c->objs, r.client, r.handle);
	c->rings[c->nrings++] = r;
	c->learned++;
	return true;
}

static void learn_map_memory(struct gw_chans *c, const struct ct_ioctl *ex)
{
	const struct ct_layout *l = arg_layout(c, ex);
	struct gw_pending p = { .pid = ex->h.pid };
	uint32_t fd;

	if (!call_ok(ex, l, "params.status") ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "params.hClient", &p.client) ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "params.hMemory", &p.hmem) ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "fd", &fd))
		return;
	p.fd = (int32_t)fd;
	for (size_t i = 0; i < c->npending; i++)
		if (c->pending[i].pid == p.pid && c->pending[i].fd == p.fd) {
			c->pending[i] = p;
			return;
		}
	if (grow((void **)&c->pending, &c->pendcap, c->npending, sizeof(p), GW_MAX_MAPS))
		c->pending[c->npending++] = p;
}

static void learn_mmap(struct gw_chans *c, const struct ct_mmap *m)
{
	for (size_t i = 0; i < c->npending; i++) {
		struct gw_pending *p = &c->pending[i];

		if (p->pid != m->h.pid || p->fd != m->fd)
			continue;
		if (m->ret > 0 && grow((void **)&c->maps, &c->mapcap, c->nmaps, sizeof(*c->maps),
				       GW_MAX_MAPS))
			c->maps[c->nmaps++] = (struct gw_map){ p->pid, p->client, p->hmem,
							       (uint64_t)m->ret, m->len };
		c->pending[i] = c->pending[--c->npending];
		return;
	}
}

/* RM_FREE of a channel or of its client. */
static void learn_free(struct gw_chans *c, const struct ct_ioctl *ex)
{
	const struct ct_layout *l = arg_layout(c, ex);
	uint32_t client, h;

	if (!call_ok(ex, l, "status") ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "hRoot", &client) ||
	    !ct_read_u32(l, ct_ioctl_arg(ex), ex->arg_size, "hObjectOld", &h))
		return;
	for (size_t i = 0; i < c->nrings; i++)
		if (c->rings[i].client == client && (c->rings[i].handle == h || client == h))
			c->rings[i].dead = true;
}

/* A process that exits or runs a new program: its rings and mappings go. */
static void forget_pid(struct gw_chans *c, uint32_t pid)
{
	size_t i;

	for (i = 0; i < c->nrings; i++)
		if (c->rings[i].pid == pid)
			c->rings[i].dead = true;
	for (i = 0; i < c->nmaps;)
		if (c->maps[i].pid == pid)
			c->maps[i] = c->maps[--c->nmaps];
		else
			i++;
	for (i = 0; i < c->npending;)
		if (c->pending[i].pid == pid)
			c->pending[i] = c->pending[--c->npending];
		else
			i++;
}

bool gw_chans_learn(struct gw_chans *c, const struct ct_rec *r)
{
	const struct ct_ioctl *ex = (const struct ct_ioctl *)r;

	bool added;

	if (!c->objs)
		c->objs = ct_objects_new();
	switch (r->type) {
	case CT_REC_IOCTL_EXIT:
		if (IOC_TYPE(ex->cmd) != NV_IOCTL_MAGIC)
			return false;
		if (c->objs)
			ct_objects_learn_created(c->objs, ex);
		added = IOC_NR(ex->cmd) == NV_ESC_RM_ALLOC && learn_channel(c, ex);
		if (c->objs)
			ct_objects_learn_freed(c->objs, ex);
		if (added)
			return true;
		if (IOC_NR(ex->cmd) == NV_ESC_RM_MAP_MEMORY)
			learn_map_memory(c, ex);
		else if (IOC_NR(ex->cmd) == NV_ESC_RM_FREE)
			learn_free(c, ex);
		return false;
	case CT_REC_MMAP:
		learn_mmap(c, (const struct ct_mmap *)r);
		return false;
	case CT_REC_PROC:
		if (((const struct ct_proc *)r)->source == CT_PROC_EXEC)
			forget_pid(c, r->pid);
		return false;
	case CT_REC_PROC_EXIT:
		forget_pid(c, r->pid);
		if (c->objs)
			ct_objects_forget_pid(c->objs, r->pid);
		return false;
	}
	return false;
}

bool gw_chans_resolve(struct gw_chans *c, struct gw_ring *r)
{
	if (r->userd_cpu)
		return true;
	for (size_t i = 0; i < c->nmaps; i++) {
		const struct gw_map *m = &c->maps[i];

		if (m->pid == r->pid && m->client == r->client && m->hmem == r->userd_mem &&
		    r->userd_off < m->len) {
			r->userd_cpu = m->addr + r->userd_off;
			return true;
		}
	}
	return false;
}

void gw_chans_sweep(struct gw_chans *c)
{
	for (size_t i = 0; i < c->nrings;)
		if (c->rings[i].dead)
			c->rings[i] = c->rings[--c->nrings];
		else
			i++;
}

void gw_chans_free(struct gw_chans *c)
{
	free(c->rings);
	free(c->maps);
	free(c->pending);
	ct_objects_free(c->objs);
	memset(c, 0, sizeof(*c));
}

void gw_chans_report(const struct gw_chans *c)
{
	if (c->unfollowed)
		ct_err("gpu-work: %llu channel allocations not followed (their "
			"work is unseen); the last: %s\n", (unsigned long long)c->unfollowed,
			c->unfollowed_why);
}
