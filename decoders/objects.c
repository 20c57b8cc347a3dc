// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "nvtables.h"
#include "objects.h"
#include "record.h"


/* Escapes and the 580 offsets read here (decoders/layouts/escape_fields.tsv). */
enum {
	ESC_ALLOC_MEMORY = 0x27, ESC_ALLOC_OBJECT = 0x28, ESC_FREE = 0x29,
	ESC_ALLOC = 0x2b, ESC_DUP = 0x34, ESC_MAP_MEMORY = 0x4e,
};
#define CLASS_DEVICE    0x0080  /* NV01_DEVICE_0: NV0080_ALLOC_PARAMETERS.deviceId @0 */
#define CLASS_SUBDEVICE 0x2080  /* NV20_SUBDEVICE_0: NV2080_ALLOC_PARAMETERS.subDeviceId @0 */

struct object {
	uint32_t client, handle, parent, cls;
	int32_t instance;          /* device / subdevice number, -1 if none */
};

struct mapping {
	uint32_t client, hmemory;
};

struct ct_objects {
	struct idmap objs;         /* client << 32 | handle -> struct object */
	struct idmap maps;         /* pid << 32 | fd -> struct mapping */
};

static uint64_t key(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
}

static uint32_t u32_at(const unsigned char *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

struct ct_objects *ct_objects_new(void)
{
	return calloc(1, sizeof(struct ct_objects));
}

static void free_val(uint64_t k, void *v, void *ctx)
{
	(void)k;
	(void)ctx;
	free(v);
}

void ct_objects_free(struct ct_objects *o)
{
	if (!o)
		return;
	idmap_drain(&o->objs, free_val, NULL);
	idmap_free(&o->objs);
	idmap_drain(&o->maps, free_val, NULL);
	idmap_free(&o->maps);
	free(o);
}

static void add(struct ct_objects *o, uint32_t client, uint32_t h, uint32_t parent,
		uint32_t cls, int32_t instance)
{
	struct object *ob = malloc(sizeof(*ob));

	if (!ob || !h)
		return free(ob);
	*ob = (struct object){ client, h, parent, cls, instance };
	free(idmap_put(&o->objs, key(client, h), ob));
}

/* Did the call succeed: ret 0 and the struct's NV_STATUS NV_OK. */
static bool succeeded(const struct ct_ioctl *ex, size_t status_off)
{
	return ex->ret == 0 && ex->arg_size >= status_off + 4 &&
	       u32_at(ct_ioctl_arg(ex), status_off) == 0;
}

static void learn_alloc(struct ct_objects *o, const struct ct_ioctl *ex)
{
	const unsigned char *a = ct_ioctl_arg(ex);
	size_t status_off = ex->arg_size == 48 ? 40 : 28;  /* NVOS64 : NVOS21 */
	uint32_t client, parent, h, cls;
	int32_t instance = -1;

	if ((ex->arg_size != 48 && ex->arg_size != 32) || !succeeded(ex, status_off))
		return;
	client = u32_at(a, 0);
	parent = u32_at(a, 4);
	h = u32_at(a, 8);
	cls = u32_at(a, 12);
	if ((cls == CLASS_DEVICE || cls == CLASS_SUBDEVICE) && ex->nest_size >= 4)
		instance = (int32_t)u32_at(ct_ioctl_nested(ex), 0);
	/* A root allocation names the new client itself. */
	if (client == 0 && parent == 0)
		client = h;
	add(o, client, h, parent, cls, instance);
}

void ct_objects_learn_created(struct ct_objects *o, const struct ct_ioctl *ex)
{
	const unsigned char *a = ct_ioctl_arg(ex);
	const struct object *src;
	struct mapping *m;

	if (IOC_TYPE(ex->cmd) != 'F')
		return;
	switch (IOC_NR(ex->cmd)) {
	case ESC_ALLOC:
		learn_alloc(o, ex);
		break;
	case ESC_ALLOC_MEMORY:   /* nv_ioctl_nvos02_parameters_with_fd */
		if (ex->arg_size == 56 && succeeded(ex, 40))
			add(o, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4), u32_at(a, 12), -1);
		break;
	case ESC_ALLOC_OBJECT:   /* NVOS05 */
		if (ex->arg_size == 20 && succeeded(ex, 16))
			add(o, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4), u32_at(a, 12), -1);
		break;
	case ESC_DUP:            /* NVOS55: the new handle is the source object */
		if (ex->arg_size != 28 || !succeeded(ex, 24))
			break;
		src = idmap_get(&o->objs, key(u32_at(a, 12), u32_at(a, 16)));
		add(o, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4), src ? src->cls : 0,
		    src ? src->instance : -1);
		break;
	case ESC_MAP_MEMORY:     /* nv_ioctl_nvos33_parameters_with_fd */
		if (ex->arg_size != 56 || !succeeded(ex, 40))
			break;
		m = malloc(sizeof(*m));
		if (!m)
			break;
		m->client = u32_at(a, 0);
		m->hmemory = u32_at(a, 8);
		free(idmap_put(&o->maps, key(ex->h.pid, u32_at(a, 48)), m));
		break;
	}
}

/* Frees (client, h) and, the RM way, every object below it. */
static void free_tree(struct ct_objects *o, uint32_t client, uint32_t h, int depth)
{
	uint32_t *kids = NULL;
	size_t i, n = 0, cap = 0;

	if (depth > 64)
		return;   /* handles from a corrupt trace could form a cycle */
	/* Collect first: freeing while scanning would move entries under us. */
	for (i = 0; i < o->objs.cap; i++) {
		const struct object *ob = o->objs.keys[i] ? o->objs.vals[i] : NULL;

		if (!ob || ob->client != client || ob->parent != h || ob->handle == h)
			continue;
		if (n == cap) {
			uint32_t *nk = realloc(kids, (cap = cap ? cap * 2 : 16) * sizeof(*kids));

			if (!nk)
				break;
			kids = nk;
		}
		kids[n++] = ob->handle;
	}
	for (i = 0; i < n; i++)
		free_tree(o, client, kids[i], depth + 1);
	free(kids);
	free(idmap_del(&o->objs, key(client, h)));
}

void ct_objects_learn_freed(struct ct_objects *o, const struct ct_ioctl *ex)
{
	const unsigned char *a = ct_ioctl_arg(ex);

	if (IOC_TYPE(ex->cmd) != 'F' || IOC_NR(ex->cmd) != ESC_FREE || ex->arg_size != 16 ||
	    !succeeded(ex, 12))
		return;
	free_tree(o, u32_at(a, 0), u32_at(a, 8), 0);
}

static int describe_one(const struct object *ob, char *buf, size_t len)
{
	const struct nv_class_info *ci = nv_class_lookup(ob->cls);
	char cls[32];

	if (!ci)
		snprintf(cls, sizeof(cls), "class 0x%x", ob->cls);
	if (ob->instance >= 0)
		return snprintf(buf, len, "%s #%d", ci ? ci->name : cls, ob->instance);
	return snprintf(buf, len, "%s", ci ? ci->name : cls);
}

const char *ct_objects_describe(struct ct_objects *o, uint32_t client, uint32_t h,
				char *buf, size_t len)
{
	const struct object *ob = idmap_get(&o->objs, key(client, h));
	const struct object *parent;
	int n;

	if (!ob || !len)
		return NULL;
	n = describe_one(ob, buf, len);
	parent = ob->parent != ob->client && ob->parent != h ?
		 idmap_get(&o->objs, key(client, ob->parent)) : NULL;
	if (parent && n > 0 && (size_t)n < len) {
		n += snprintf(buf + n, len - (size_t)n, " of ");
		if ((size_t)n < len)
			describe_one(parent, buf + n, len - (size_t)n);
	}
	return buf;
}

int ct_objects_mmap_target(struct ct_objects *o, uint32_t pid, int fd,
			   uint32_t *client, uint32_t *hmemory)
{
	const struct mapping *m = idmap_get(&o->maps, key(pid, (uint32_t)fd));

	if (!m)
		return 0;
	*client = m->client;
	*hmemory = m->hmemory;
	return 1;
}

int ct_objects_gpu(struct ct_objects *o, uint32_t client, uint32_t h)
{
	int depth;

	for (depth = 0; depth < 32; depth++) {
		const struct object *ob = idmap_get(&o->objs, key(client, h));

		if (!ob)
			return -1;
		if (ob->cls == CLASS_DEVICE)
			return ob->instance;
		if (ob->parent == h)
			return -1;
		h = ob->parent;
	}
	return -1;
}
