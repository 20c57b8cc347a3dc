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
	ESC_CONTROL = 0x2a, ESC_ALLOC = 0x2b, ESC_DUP = 0x34, ESC_MAP_MEMORY = 0x4e,
};

/*
 * RM controls that move objects through an export fd (ctrl0000unix.h, 580
 * offsets; decoders/layouts/ctrl_fields.tsv).  The exporter puts handles
 * into numbered slots of the fd; the importer, holding the same open file
 * (often under another fd number, in another process), makes new handles
 * of its own client for a range of slots.
 */
enum {
	CTRL_EXPORT_OBJECT_TO_FD   = 0x3d05, /* one object into slot 0 */
	CTRL_IMPORT_OBJECT_FROM_FD = 0x3d06, /* slot 0 as one new handle */
	CTRL_EXPORT_OBJECTS_TO_FD  = 0x3d0b, /* objects[i] into slot index+i */
	CTRL_IMPORT_OBJECTS_FROM_FD = 0x3d0c, /* slot index+i as objects[i] */
};
#define EXPORT1_SIZE  24   /* NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS */
#define IMPORT1_SIZE  20   /* NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS */
#define EXPORTN_SIZE  2128 /* ..._EXPORT_OBJECTS_TO_FD_PARAMS: fd@0 objects@76 num@2124 index@2126 */
#define EXPORTN_MAX   512
#define IMPORTN_SIZE  652  /* ..._IMPORT_OBJECTS_FROM_FD_PARAMS: fd@0 hParent@4 objects@8 num@648 index@650 */
#define IMPORTN_MAX   128
#define EXPORT_TYPE_RM 1   /* NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM */
#define EXPORT_FLAGS_EMPTY_FD 1
#define CLASS_DEVICE    0x0080  /* NV01_DEVICE_0: NV0080_ALLOC_PARAMETERS.deviceId @0 */
#define CLASS_SUBDEVICE 0x2080  /* NV20_SUBDEVICE_0: NV2080_ALLOC_PARAMETERS.subDeviceId @0 */

struct object {
	uint32_t client, handle, parent, cls;
	int32_t instance;          /* device / subdevice number, -1 if none */
	uint32_t pid;              /* the process that made this handle */
	/* Imported or duplicated: the object it stands for. */
	uint32_t from_pid, from_handle;
	bool imported;
};

struct mapping {
	uint32_t client, hmemory;
};

/* What an exporter put into one slot of an export fd. */
struct slot {
	uint64_t file;             /* export file key, see file_key() */
	uint32_t index, pid, client, handle, cls;
	int32_t instance;
};

struct ct_objects {
	struct idmap objs;         /* client << 32 | handle -> struct object */
	struct idmap maps;         /* pid << 32 | fd -> struct mapping */
	struct idmap files;        /* pid << 32 | fd -> file id (from CT_REC_FILEREF) */
	struct idmap slots;        /* slot_key(file, index) -> struct slot */
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
	idmap_drain(&o->files, free_val, NULL);
	idmap_free(&o->files);
	idmap_drain(&o->slots, free_val, NULL);
	idmap_free(&o->slots);
	free(o);
}

static struct object *add(struct ct_objects *o, uint32_t pid, uint32_t client, uint32_t h,
			  uint32_t parent, uint32_t cls, int32_t instance)
{
	struct object *ob = malloc(sizeof(*ob));

	if (!ob || !h) {
		free(ob);
		return NULL;
	}
	*ob = (struct object){ .client = client, .handle = h, .parent = parent, .cls = cls,
			       .instance = instance, .pid = pid };
	free(idmap_put(&o->objs, key(client, h), ob));
	return ob;
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
	add(o, ex->h.pid, client, h, parent, cls, instance);
}

/*
 * Which export an fd named in the params stands for: the open file the
 * capture saw behind it, the same in exporter and importer.  0 when the
 * trace does not say (made before CT_REC_FILEREF, or the record was lost):
 * fd numbers alone cannot tell, since the exporter usually closes its fd
 * and the number comes back for the next one it receives.
 */
static uint64_t file_key(struct ct_objects *o, uint32_t pid, int32_t fd)
{
	const uint64_t *id = idmap_get(&o->files, key(pid, (uint32_t)fd));

	return id ? *id : 0;
}

/* Mixed so that slots of one file do not pile up on one probe chain. */
static uint64_t slot_key(uint64_t file, uint32_t index)
{
	uint64_t k = (file ^ ((uint64_t)index << 40 | index)) * 0xff51afd7ed558ccdULL;

	k ^= k >> 33;
	return k ? k : 1;
}

static void export_slot(struct ct_objects *o, uint32_t pid, uint64_t file, uint32_t index,
			uint32_t client, uint32_t h)
{
	const struct object *ob = idmap_get(&o->objs, key(client, h));
	struct slot *sl;

	if (!file)
		return;
	sl = malloc(sizeof(*sl));
	if (!sl)
		return;
	*sl = (struct slot){ file, index, pid, client, h, ob ? ob->cls : 0,
			     ob ? ob->instance : -1 };
	free(idmap_put(&o->slots, slot_key(file, index), sl));
}

static void import_slot(struct ct_objects *o, uint32_t pid, uint64_t file, uint32_t index,
			uint32_t client, uint32_t parent, uint32_t h)
{
	const struct slot *sl = file ? idmap_get(&o->slots, slot_key(file, index)) : NULL;
	struct object *ob;

	if (sl && (sl->file != file || sl->index != index))
		sl = NULL;   /* a key collision, not this slot */
	ob = add(o, pid, client, h, parent, sl ? sl->cls : 0, sl ? sl->instance : -1);
	if (!ob)
		return;
	ob->imported = true;
	if (sl) {
		ob->from_pid = sl->pid;
		ob->from_handle = sl->handle;
	}
}

static void learn_control(struct ct_objects *o, const struct ct_ioctl *ex)
{
	const unsigned char *a = ct_ioctl_arg(ex), *p = ct_ioctl_nested(ex);
	uint32_t client, cmd, size = ex->nest_size, n, index, i;
	uint64_t file;

	if (ex->arg_size != 32 || !succeeded(ex, 28))
		return;
	client = u32_at(a, 0);
	cmd = u32_at(a, 8);
	if (u32_at(a, 24) != size)
		return;   /* params cut short by -s, or not what the command takes */
	switch (cmd) {
	case CTRL_EXPORT_OBJECT_TO_FD:   /* object{type, hDevice, hParent, hObject}, fd, flags */
		if (size != EXPORT1_SIZE || u32_at(p, 0) != EXPORT_TYPE_RM ||
		    (u32_at(p, 20) & EXPORT_FLAGS_EMPTY_FD))
			return;
		file = file_key(o, ex->h.pid, (int32_t)u32_at(p, 16));
		export_slot(o, ex->h.pid, file, 0, client, u32_at(p, 12));
		break;
	case CTRL_IMPORT_OBJECT_FROM_FD: /* fd, object{type, hDevice, hParent, hObject} */
		if (size != IMPORT1_SIZE || u32_at(p, 4) != EXPORT_TYPE_RM)
			return;
		file = file_key(o, ex->h.pid, (int32_t)u32_at(p, 0));
		import_slot(o, ex->h.pid, file, 0, client, u32_at(p, 12), u32_at(p, 16));
		break;
	case CTRL_EXPORT_OBJECTS_TO_FD:
		if (size != EXPORTN_SIZE)
			return;
		n = u32_at(p, 2124) & 0xffff;
		index = u32_at(p, 2124) >> 16;
		if (n > EXPORTN_MAX)
			return;   /* the RM refuses it and changes nothing */
		file = file_key(o, ex->h.pid, (int32_t)u32_at(p, 0));
		for (i = 0; i < n; i++)
			if (u32_at(p, 76 + 4 * i))
				export_slot(o, ex->h.pid, file, index + i, client, u32_at(p, 76 + 4 * i));
		break;
	case CTRL_IMPORT_OBJECTS_FROM_FD:
		if (size != IMPORTN_SIZE)
			return;
		n = u32_at(p, 648) & 0xffff;
		index = u32_at(p, 648) >> 16;
		if (n > IMPORTN_MAX)
			return;
		file = file_key(o, ex->h.pid, (int32_t)u32_at(p, 0));
		for (i = 0; i < n; i++)
			if (u32_at(p, 8 + 4 * i))   /* 0: slot skipped */
				import_slot(o, ex->h.pid, file, index + i, client, u32_at(p, 4),
					    u32_at(p, 8 + 4 * i));
		break;
	}
}

void ct_objects_learn_fileref(struct ct_objects *o, const struct ct_fileref *f)
{
	uint64_t *id;

	if (!f->file_id) {
		free(idmap_del(&o->files, key(f->h.pid, (uint32_t)f->fd)));
		return;
	}
	id = malloc(sizeof(*id));
	if (!id)
		return;
	*id = f->file_id | 1;
	free(idmap_put(&o->files, key(f->h.pid, (uint32_t)f->fd), id));
}

/* Deletes every entry of m whose key has pid in its high half. */
static void forget_pid_in(struct idmap *m, uint32_t pid)
{
	uint64_t *dead = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i] || m->keys[i] >> 32 != pid || !m->vals[i])
			continue;
		if (n == cap) {
			uint64_t *nd = realloc(dead, (cap = cap ? cap * 2 : 16) * sizeof(*dead));

			if (!nd)
				break;
			dead = nd;
		}
		dead[n++] = m->keys[i];
	}
	for (i = 0; i < n; i++)
		free(idmap_del(m, dead[i]));
	free(dead);
}

void ct_objects_forget_pid(struct ct_objects *o, uint32_t pid)
{
	forget_pid_in(&o->maps, pid);
	forget_pid_in(&o->files, pid);
}

void ct_objects_learn_created(struct ct_objects *o, const struct ct_ioctl *ex)
{
	const unsigned char *a = ct_ioctl_arg(ex);
	const struct object *src;
	struct object *dup;
	struct mapping *m;

	if (IOC_TYPE(ex->cmd) != 'F')
		return;
	switch (IOC_NR(ex->cmd)) {
	case ESC_ALLOC:
		learn_alloc(o, ex);
		break;
	case ESC_ALLOC_MEMORY:   /* nv_ioctl_nvos02_parameters_with_fd */
		if (ex->arg_size == 56 && succeeded(ex, 40))
			add(o, ex->h.pid, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4), u32_at(a, 12), -1);
		break;
	case ESC_ALLOC_OBJECT:   /* NVOS05 */
		if (ex->arg_size == 20 && succeeded(ex, 16))
			add(o, ex->h.pid, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4), u32_at(a, 12), -1);
		break;
	case ESC_CONTROL:        /* NVOS54 */
		learn_control(o, ex);
		break;
	case ESC_DUP:            /* NVOS55: the new handle is the source object */
		if (ex->arg_size != 28 || !succeeded(ex, 24))
			break;
		src = idmap_get(&o->objs, key(u32_at(a, 12), u32_at(a, 16)));
		dup = add(o, ex->h.pid, u32_at(a, 0), u32_at(a, 8), u32_at(a, 4),
			  src ? src->cls : 0, src ? src->instance : -1);
		/* Another process's object: say whose (the RM allows it when the
		 * source client's share policy does). */
		if (dup && src && src->pid != ex->h.pid) {
			dup->from_pid = src->pid;
			dup->from_handle = src->handle;
		}
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
	/* An import whose export is unknown has no class (0 is NV01_ROOT). */
	const struct nv_class_info *ci = ob->imported && !ob->cls ? NULL : nv_class_lookup(ob->cls);
	char cls[32];

	if (!ci && ob->imported && !ob->cls)
		snprintf(cls, sizeof(cls), "imported object");
	else if (!ci)
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
			n += describe_one(parent, buf + n, len - (size_t)n);
	}
	/* Where it came from, when another process (or an export) made it. */
	if (ob->from_handle && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", %s pid %u 0x%x",
			 ob->imported ? "imported from" : "dup of", ob->from_pid, ob->from_handle);
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
