// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "layouts.h"
#include "nvfacts.h"
#include "nvtables.h"
#include "objects.h"
#include "record.h"
#include "grow.h"


/*
 * Every NVIDIA number here comes by name from nvfacts.h, and every struct
 * field by name through the layout of the trace's driver (layouts.h), so
 * that a 515 trace (NVOS64 of 40 bytes, status at 32) is read as right as
 * a 580 one.
 *
 * The RM controls that move objects through an export fd (ctrl0000unix.h):
 * the exporter puts handles into numbered slots of the fd; the importer,
 * holding the same open file (often under another fd number, in another
 * process), makes new handles of its own client for a range of slots.
 */

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
	uint32_t driver;           /* ct_driver_version() of the trace, 0 unknown */
	struct idmap objs;         /* client << 32 | handle -> struct object */
	struct idmap maps;         /* pid << 32 | fd -> struct mapping */
	struct idmap files;        /* pid << 32 | fd -> file id (from CT_REC_FILEREF) */
	struct idmap slots;        /* slot_key(file, index) -> struct slot */
};

static uint64_t key(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
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

/* A struct as copied from the traced process, with its layout at the
 * trace's driver; l is NULL when no layout has its size. */
struct params {
	const struct ct_layout *l;
	const unsigned char *p;
	uint32_t len;
};

static struct params escape_params(const struct ct_objects *o, const struct ct_ioctl *ex)
{
	return (struct params){ ct_layout_find(CT_LAYOUT_ESCAPE, IOC_NR(ex->cmd), ex->arg_size,
					       o->driver),
				ct_ioctl_arg(ex), ex->arg_size };
}

/* Reads the n fields named into out; false if any is missing or cut short. */
static bool read_fields(const struct params *pa, const char *const *names, size_t n,
			uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (!ct_read_u32(pa->l, pa->p, pa->len, names[i], &out[i]))
			return false;
	return true;
}

/* Did the call succeed: ret 0 and the struct's NV_STATUS (field status) NV_OK. */
static bool succeeded(const struct ct_ioctl *ex, const struct params *pa, const char *status)
{
	uint32_t st;

	return ex->ret == 0 && ct_read_u32(pa->l, pa->p, pa->len, status, &st) && st == NV_OK;
}

/* The device or subdevice number an RM_ALLOC of cls gives, from its alloc
 * params (nested, nest_size bytes); -1 if none.  The capture copies the
 * size the class table gives, which need not be this driver's. */
static int32_t alloc_instance(const struct ct_objects *o, const struct ct_ioctl *ex, uint32_t cls)
{
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ALLOC, cls, ex->nest_size, o->driver);
	const char *field = cls == NV01_DEVICE_0 ? "deviceId" :
			    cls == NV20_SUBDEVICE_0 ? "subDeviceId" : NULL;
	uint32_t v;

	if (!field)
		return -1;
	if (!l)
		ct_layout_sizes(CT_LAYOUT_ALLOC, cls, o->driver, &l, 1);
	return ct_read_u32(l, ct_ioctl_nested(ex), ex->nest_size, field, &v) ? (int32_t)v : -1;
}

/* NVOS21 or NVOS64, as the driver and size say. */
static void learn_alloc(struct ct_objects *o, const struct ct_ioctl *ex)
{
	static const char *const names[] = { "hRoot", "hObjectParent", "hObjectNew", "hClass" };
	struct params pa = escape_params(o, ex);
	uint32_t f[4];

	if (!succeeded(ex, &pa, "status") || !read_fields(&pa, names, 4, f))
		return;
	/* A root allocation names the new client itself. */
	if (f[0] == 0 && f[1] == 0)
		f[0] = f[2];
	add(o, ex->h.pid, f[0], f[2], f[1], f[3], alloc_instance(o, ex, f[3]));
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

/* One object through slot 0 of an export fd (NV0000_CTRL_CMD_OS_UNIX_
 * EXPORT_OBJECT_TO_FD / IMPORT_OBJECT_FROM_FD). */
static void control_one(struct ct_objects *o, const struct ct_ioctl *ex, uint32_t client,
			uint32_t cmd, const struct params *pa)
{
	static const char *const exp[] = { "object.type", "flags", "fd",
					   "object.data.rmObject.hObject" };
	static const char *const imp[] = { "object.type", "fd", "object.data.rmObject.hParent",
					   "object.data.rmObject.hObject" };
	uint32_t f[4];

	if (cmd == NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD) {
		if (!read_fields(pa, exp, 4, f) || f[0] != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM ||
		    (f[1] & NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_FLAGS_EMPTY_FD_TRUE))
			return;
		export_slot(o, ex->h.pid, file_key(o, ex->h.pid, (int32_t)f[2]), 0, client, f[3]);
	} else {
		if (!read_fields(pa, imp, 4, f) || f[0] != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM)
			return;
		import_slot(o, ex->h.pid, file_key(o, ex->h.pid, (int32_t)f[1]), 0, client, f[2],
			    f[3]);
	}
}

/* objects[i] through slot index+i (..._EXPORT_OBJECTS_TO_FD /
 * IMPORT_OBJECTS_FROM_FD); 0 in objects[] skips a slot. */
static void control_many(struct ct_objects *o, const struct ct_ioctl *ex, uint32_t client,
			 uint32_t cmd, const struct params *pa)
{
	static const char *const names[] = { "fd", "numObjects", "index" };
	bool exporting = cmd == NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD;
	const struct ct_field *objs = ct_layout_field(pa->l, "objects");
	uint32_t f[3], parent = 0, h, i;
	uint64_t file;

	if (!objs || !read_fields(pa, names, 3, f) ||
	    (!exporting && !ct_read_u32(pa->l, pa->p, pa->len, "hParent", &parent)))
		return;
	if (f[1] > objs->size / 4)
		return;   /* the RM refuses it and changes nothing */
	file = file_key(o, ex->h.pid, (int32_t)f[0]);
	for (i = 0; i < f[1]; i++) {
		if (!ct_read_u32_elem(pa->l, pa->p, pa->len, "objects", i, &h) || !h)
			continue;
		if (exporting)
			export_slot(o, ex->h.pid, file, f[2] + i, client, h);
		else
			import_slot(o, ex->h.pid, file, f[2] + i, client, parent, h);
	}
}

/* NVOS54: the controls that carry objects through an export fd. */
static void learn_control(struct ct_objects *o, const struct ct_ioctl *ex)
{
	static const char *const names[] = { "hClient", "cmd", "paramsSize" };
	struct params pa = escape_params(o, ex), params;
	uint32_t f[3];

	if (!succeeded(ex, &pa, "status") || !read_fields(&pa, names, 3, f))
		return;
	if (f[2] != ex->nest_size)
		return;   /* params cut short by -s, or not what the command takes */
	params = (struct params){ ct_layout_find(CT_LAYOUT_CTRL, f[1], ex->nest_size, o->driver),
				  ct_ioctl_nested(ex), ex->nest_size };
	if (!params.l)
		return;
	switch (f[1]) {
	case NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD:
	case NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD:
		control_one(o, ex, f[0], f[1], &params);
		break;
	case NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD:
	case NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD:
		control_many(o, ex, f[0], f[1], &params);
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
	uint64_t *dead = NULL, *nd;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < m->cap; i++) {
		if (!m->keys[i] || m->keys[i] >> 32 != pid || !m->vals[i])
			continue;
		if (!(nd = ct_grow(dead, &cap, n + 1, sizeof(*nd), 16)))
			break;
		dead = nd;
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

/* NV_ESC_RM_ALLOC_MEMORY (NVOS02 with fd) and NV_ESC_RM_ALLOC_OBJECT (NVOS05). */
static void learn_alloc_old(struct ct_objects *o, const struct ct_ioctl *ex, bool memory)
{
	static const char *const nvos02[] = { "params.hRoot", "params.hObjectParent",
					      "params.hObjectNew", "params.hClass" };
	static const char *const nvos05[] = { "hRoot", "hObjectParent", "hObjectNew", "hClass" };
	struct params pa = escape_params(o, ex);
	uint32_t f[4];

	if (succeeded(ex, &pa, memory ? "params.status" : "status") &&
	    read_fields(&pa, memory ? nvos02 : nvos05, 4, f))
		add(o, ex->h.pid, f[0], f[2], f[1], f[3], -1);
}

/* NVOS55: the new handle is the source object. */
static void learn_dup(struct ct_objects *o, const struct ct_ioctl *ex)
{
	static const char *const names[] = { "hClient", "hParent", "hObject", "hClientSrc",
					     "hObjectSrc" };
	struct params pa = escape_params(o, ex);
	const struct object *src;
	struct object *dup;
	uint32_t f[5];

	if (!succeeded(ex, &pa, "status") || !read_fields(&pa, names, 5, f))
		return;
	src = idmap_get(&o->objs, key(f[3], f[4]));
	dup = add(o, ex->h.pid, f[0], f[2], f[1], src ? src->cls : 0, src ? src->instance : -1);
	/* Another process's object: say whose (the RM allows it when the
	 * source client's share policy does). */
	if (dup && src && src->pid != ex->h.pid) {
		dup->from_pid = src->pid;
		dup->from_handle = src->handle;
	}
}

/* NVOS33 with fd: the mmap of that fd that follows maps hMemory. */
static void learn_map(struct ct_objects *o, const struct ct_ioctl *ex)
{
	static const char *const names[] = { "params.hClient", "params.hMemory", "fd" };
	struct params pa = escape_params(o, ex);
	struct mapping *m;
	uint32_t f[3];

	if (!succeeded(ex, &pa, "params.status") || !read_fields(&pa, names, 3, f))
		return;
	m = malloc(sizeof(*m));
	if (!m)
		return;
	m->client = f[0];
	m->hmemory = f[1];
	free(idmap_put(&o->maps, key(ex->h.pid, f[2]), m));
}

void ct_objects_set_driver(struct ct_objects *o, uint32_t drv)
{
	o->driver = drv;
}

void ct_objects_learn_created(struct ct_objects *o, const struct ct_ioctl *ex)
{
	if (IOC_TYPE(ex->cmd) != NV_IOCTL_MAGIC)
		return;
	switch (IOC_NR(ex->cmd)) {
	case NV_ESC_RM_ALLOC:
		learn_alloc(o, ex);
		break;
	case NV_ESC_RM_ALLOC_MEMORY:
		learn_alloc_old(o, ex, true);
		break;
	case NV_ESC_RM_ALLOC_OBJECT:
		learn_alloc_old(o, ex, false);
		break;
	case NV_ESC_RM_CONTROL:
		learn_control(o, ex);
		break;
	case NV_ESC_RM_DUP_OBJECT:
		learn_dup(o, ex);
		break;
	case NV_ESC_RM_MAP_MEMORY:
		learn_map(o, ex);
		break;
	}
}

/* Frees (client, h) and, the RM way, every object below it. */
static void free_tree(struct ct_objects *o, uint32_t client, uint32_t h, int depth)
{
	uint32_t *kids = NULL, *nk;
	size_t i, n = 0, cap = 0;

	if (depth > 64)
		return;   /* handles from a corrupt trace could form a cycle */
	/* Collect first: freeing while scanning would move entries under us. */
	for (i = 0; i < o->objs.cap; i++) {
		const struct object *ob = o->objs.keys[i] ? o->objs.vals[i] : NULL;

		if (!ob || ob->client != client || ob->parent != h || ob->handle == h)
			continue;
		if (!(nk = ct_grow(kids, &cap, n + 1, sizeof(*nk), 16)))
			break;
		kids = nk;
		kids[n++] = ob->handle;
	}
	for (i = 0; i < n; i++)
		free_tree(o, client, kids[i], depth + 1);
	free(kids);
	free(idmap_del(&o->objs, key(client, h)));
}

/* NVOS00: frees hObjectOld and all below it. */
void ct_objects_learn_freed(struct ct_objects *o, const struct ct_ioctl *ex)
{
	static const char *const names[] = { "hRoot", "hObjectOld" };
	struct params pa;
	uint32_t f[2];

	if (IOC_TYPE(ex->cmd) != NV_IOCTL_MAGIC || IOC_NR(ex->cmd) != NV_ESC_RM_FREE)
		return;
	pa = escape_params(o, ex);
	if (succeeded(ex, &pa, "status") && read_fields(&pa, names, 2, f))
		free_tree(o, f[0], f[1], 0);
}

/* Appends the n bytes at s to the string at buf as snprintf would: what
 * fits before buf's last byte, NUL-terminated; *at counts every byte. */
static void append(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	size_t fit;

	if (*at + 1 < len) {
		fit = len - 1 - *at < n ? len - 1 - *at : n;
		memcpy(buf + *at, s, fit);
		buf[*at + fit] = 0;
	}
	*at += n;
}

/* snprintf(buf, len, "%s #%d", name, n), or "%s" for n < 0, and its
 * return value, without printf: this runs for every handle printed. */
static int name_and_number(char *buf, size_t len, const char *name, int32_t n)
{
	char num[16], *p = num + sizeof(num);
	size_t at = 0;

	if (len)
		buf[0] = 0;
	append(buf, len, &at, name, strlen(name));
	if (n < 0)
		return (int)at;
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10));
	*--p = '#';
	*--p = ' ';
	append(buf, len, &at, p, (size_t)(num + sizeof(num) - p));
	return (int)at;
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
	return name_and_number(buf, len, ci ? ci->name : cls, ob->instance);
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
		if (ob->cls == NV01_DEVICE_0)
			return ob->instance;
		if (ob->parent == h)
			return -1;
		h = ob->parent;
	}
	return -1;
}
