// SPDX-License-Identifier: MIT
/*
 * Record -> text or JSON.  An ioctl arrives as two records (entry, exit);
 * the entry waits in a per-thread map and the call is printed at its exit,
 * strace-style, with the buffers of both.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode.h"
#include "emit.h"
#include "layouts.h"
#include "meta.h"
#include "objects.h"
#include "nvtables.h"
#include "record.h"
#include "gpus.h"
#include "idmap.h"

#define NV_ESC_RM_CONTROL 0x2a
#define NV_ESC_RM_ALLOC   0x2b
#define NV_ESC_IOCTL_XFER_CMD 0xd3
#define NV_ESC_CARD_INFO  0xc8
#define NV_ESC_ATTACH_GPUS_TO_FD 0xd4
#define TEXT_STRING_MAX   96

struct devname {
	uint32_t kdev;
	bool regfile;
	uint64_t ino;
	char *path;
};

struct ct_decoder {
	struct ct_decode_opts o;
	struct emit em;
	struct idmap pending;     /* tid -> malloc'd entry record */
	struct ct_objects *objs;  /* handles -> objects, across the trace */
	struct ct_view views[CT_MAX_VIEWS];
	int nviews;
	struct devname *devs;
	size_t ndevs, capdevs;
	uint64_t start_mono;
	uint64_t start_real;       /* CLOCK_REALTIME at start_mono, for -t */
	uint32_t driver;           /* ct_driver_version() of the trace, 0 unknown */
	struct ct_gpus gpus;       /* UUID -> /dev/nvidiaN */
	struct ct_decode_stats st;
};

const char *ct_request_name(uint32_t cmd)
{
	const struct nv_esc_info *e;
	const struct uvm_ioctl_info *u;

	if (IOC_TYPE(cmd) == NV_IOCTL_MAGIC) {
		e = nv_esc_lookup(IOC_NR(cmd));
		return e ? e->name : NULL;
	}
	u = uvm_ioctl_lookup(cmd);
	return u ? u->name : NULL;
}

static void add_dev(struct ct_decoder *d, uint32_t kdev, bool regfile, uint64_t ino,
		    const char *path, size_t len)
{
	struct devname *n;

	if (d->ndevs == d->capdevs) {
		size_t cap = d->capdevs ? d->capdevs * 2 : 16;
		struct devname *nd = realloc(d->devs, cap * sizeof(*nd));

		if (!nd)
			return;
		d->devs = nd;
		d->capdevs = cap;
	}
	n = &d->devs[d->ndevs];
	n->path = strndup(path, len);
	if (!n->path)
		return;
	n->kdev = kdev;
	n->regfile = regfile;
	n->ino = ino;
	d->ndevs++;
}

/* The path of a traced file; char devices match on rdev alone. */
static const char *dev_path(const struct ct_decoder *d, uint32_t kdev, bool regfile,
			    uint64_t ino)
{
	size_t i;

	for (i = d->ndevs; i-- > 0;) {
		const struct devname *n = &d->devs[i];

		if (n->kdev == kdev && n->regfile == regfile && (!regfile || n->ino == ino))
			return n->path;
	}
	return NULL;
}

/* Header keys that come once per GPU, major or device: lists in JSON. */
static const char *const meta_lists[] = { "gpu", "major", "device" };

static bool is_meta_list(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(meta_lists) / sizeof(meta_lists[0]); i++)
		if (strcmp(key, meta_lists[i]) == 0)
			return true;
	return false;
}

struct meta_list_ctx {
	struct ct_decoder *d;
	const char *key;
};

static void meta_list_item(const char *key, const char *val, void *ctx)
{
	struct meta_list_ctx *c = ctx;

	if (strcmp(key, c->key) == 0)
		em_str_list_item(&c->d->em, val, strlen(val));
}

static void meta_line(const char *key, const char *val, void *ctx)
{
	struct ct_decoder *d = ctx;
	unsigned int kdev, regfile;
	unsigned long long ino;
	int pos = 0;

	if (strcmp(key, "gpu") == 0)
		ct_gpus_meta(&d->gpus, val);
	else if (strcmp(key, "driver") == 0)
		d->driver = ct_driver_version(val);
	else if (strcmp(key, "start_monotonic_ns") == 0)
		d->start_mono = strtoull(val, NULL, 10);
	else if (strcmp(key, "start_realtime_ns") == 0)
		d->start_real = strtoull(val, NULL, 10);
	else if (strcmp(key, "device") == 0 &&
		 sscanf(val, "%x %llu %u %n", &kdev, &ino, &regfile, &pos) == 3 && pos > 0)
		add_dev(d, kdev, regfile != 0, ino, val + pos, strlen(val + pos));
	if (d->o.json && !d->o.quiet && !is_meta_list(key))
		em_str(&d->em, key, val);
}

static void on_meta(struct ct_decoder *d, const struct ct_rec *r)
{
	bool show = d->o.json && !d->o.quiet;

	if (show) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", "meta");
	}
	ct_meta_foreach(r, meta_line, d);
	if (show) {
		size_t i;

		for (i = 0; i < sizeof(meta_lists) / sizeof(meta_lists[0]); i++) {
			struct meta_list_ctx c = { d, meta_lists[i] };

			em_str_list_begin(&d->em, meta_lists[i]);
			ct_meta_foreach(r, meta_list_item, &c);
			em_str_list_end(&d->em);
		}
		em_close(&d->em);
		fputc('\n', d->o.out);
	}
}

struct ct_decoder *ct_decoder_new(const struct ct_decode_opts *opts)
{
	struct ct_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = *opts;
	em_init(&d->em, opts->out, opts->json);
	d->objs = ct_objects_new();
	if (!d->objs) {
		free(d);
		return NULL;
	}
	return d;
}

static void print_uuid(struct emit *e, const char *key, const unsigned char *u)
{
	char s[48];

	snprintf(s, sizeof(s),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
		 u[12], u[13], u[14], u[15]);
	em_str(e, key, s);
}

static uint64_t field_u(const unsigned char *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size <= 8 ? size : 8);   /* little-endian, as on x86-64 */
	return v;
}

static int64_t field_s(const unsigned char *p, uint32_t size)
{
	uint64_t v = field_u(p, size);

	if (size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ull << (size * 8);
	return (int64_t)v;
}

/* Context a field may need to be named. */
struct field_ctx {
	uint32_t esc_nr;   /* 0 if not an 'F' escape */
	uint32_t client;   /* the struct's first handle: hClient / hRoot */
};

/* A char array holding text: printable up to a NUL, then only NULs. */
static bool is_c_string(const unsigned char *p, uint32_t n)
{
	uint32_t i = 0;

	while (i < n && p[i] >= 0x20 && p[i] < 0x7f)
		i++;
	if (i == 0 || i == n)
		return false;
	for (; i < n; i++)
		if (p[i])
			return false;
	return true;
}

#define TEXT_HANDLES_MAX 16   /* text shows this many of a handle array */

/* How many u32 entries of an n-entry array are in use: up to the last
 * non-zero one (handle and GPU id arrays leave the rest 0). */
static uint32_t u32s_used(const unsigned char *p, uint32_t n)
{
	while (n > 0 && !field_u(p + 4 * (n - 1), 4))
		n--;
	return n;
}

/* An NvHandle array, up to its last non-zero entry (the rest is unused). */
static void print_handles(struct ct_decoder *d, const struct ct_field *f,
			  const unsigned char *p, const struct field_ctx *fc)
{
	struct emit *e = &d->em;
	uint32_t used = u32s_used(p, f->size / 4), i;
	char desc[160];

	em_str_list_begin(e, f->name);
	for (i = 0; i < used; i++) {
		uint32_t h = (uint32_t)field_u(p + 4 * i, 4);
		const char *what = h ? ct_objects_describe(d->objs, fc->client, h, desc,
							   sizeof(desc)) : NULL;

		if (!e->json && i == TEXT_HANDLES_MAX) {
			em_str(e, NULL, "...");
			break;
		}
		if (e->json) {
			em_open(e, NULL);
			em_hex_named(e, "handle", h, what);
			em_close(e);
		} else {
			em_hex_named(e, NULL, h, what);
		}
	}
	em_str_list_end(e);
}

static void print_field(struct ct_decoder *d, const struct ct_field *f,
			const unsigned char *p, const struct field_ctx *fc)
{
	struct emit *e = &d->em;
	uint64_t v = f->size <= 8 ? field_u(p, f->size) : 0;
	const struct nv_status_info *st;
	const struct nv_class_info *cl;
	const struct nv_ctrl_info *ci;

	if (fc->esc_nr == NV_ESC_RM_CONTROL && strcmp(f->name, "cmd") == 0) {
		ci = nv_ctrl_lookup((uint32_t)v);
		em_hex_named(e, f->name, v, ci ? ci->name : NULL);
		return;
	}
	if (fc->esc_nr == NV_ESC_IOCTL_XFER_CMD && strcmp(f->name, "cmd") == 0) {
		const struct nv_esc_info *ei = nv_esc_lookup((uint32_t)v);

		em_hex_named(e, f->name, v, ei ? ei->name : NULL);
		return;
	}
	switch (f->kind) {
	case CT_FK_S:
	case CT_FK_FD:
		em_i64(e, f->name, field_s(p, f->size));
		break;
	case CT_FK_HANDLE: {
		char desc[160];

		em_hex_named(e, f->name, v,
			     ct_objects_describe(d->objs, fc->client ? fc->client : (uint32_t)v,
						 (uint32_t)v, desc, sizeof(desc)));
		break;
	}
	case CT_FK_HANDLES:
		print_handles(d, f, p, fc);
		break;
	case CT_FK_PTR:
		em_hex(e, f->name, v);
		break;
	case CT_FK_STATUS:
		st = nv_status_lookup((uint32_t)v);
		em_enum(e, f->name, v, st ? st->name : NULL);
		break;
	case CT_FK_CLASS:
		cl = nv_class_lookup((uint32_t)v);
		em_hex_named(e, f->name, v, cl ? cl->name : NULL);
		break;
	case CT_FK_BOOL:
		em_bool(e, f->name, v != 0);
		break;
	case CT_FK_UUID:
		if (f->size == 16) {
			print_uuid(e, f->name, p);
			break;
		}
		/* fall through */
	case CT_FK_BYTES:
		if (is_c_string(p, f->size)) {
			em_strn(e, f->name, (const char *)p, f->size);
		} else if (e->json || d->o.verbose >= 2) {
			em_bytes(e, f->name, p, f->size);
		} else {
			char s[32];

			snprintf(s, sizeof(s), "[%u bytes]", f->size);
			em_str(e, f->name, s);
		}
		break;
	default:
		if (strstr(f->name, "flags") || strstr(f->name, "Flags"))
			em_hex(e, f->name, v);
		else
			em_u64(e, f->name, v);
	}
}

/* The first handle of an RM struct is its client (hClient, hRoot). */
static uint32_t first_handle(const struct ct_layout *l, const unsigned char *buf, uint32_t len)
{
	uint32_t i;

	for (i = 0; l && i < l->nfields; i++)
		if (l->fields[i].kind == CT_FK_HANDLE && l->fields[i].offset + 4 <= len)
			return (uint32_t)field_u(buf + l->fields[i].offset, 4);
	return 0;
}

/* Every field by name when the layout of exactly this size is known. */
static void print_struct(struct ct_decoder *d, const char *key, const struct ct_layout *l,
			 const unsigned char *buf, uint32_t len, const struct field_ctx *outer)
{
	struct field_ctx fc = *outer;
	uint32_t i;

	if (!fc.client)
		fc.client = first_handle(l, buf, len);
	em_open(&d->em, key);
	for (i = 0; i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];

		if ((uint64_t)f->offset + f->size > len)
			break;   /* captured less than the struct: print what is there */
		print_field(d, f, buf + f->offset, &fc);
	}
	em_close(&d->em);
}

/* Matched on request AND size (and driver, where sizes collide). */
static const struct ct_layout *arg_layout(const struct ct_decoder *d, uint32_t cmd,
					  uint32_t size)
{
	if (IOC_TYPE(cmd) == NV_IOCTL_MAGIC)
		return d->driver ? ct_layout_escape_drv(IOC_NR(cmd), size, d->driver)
				 : ct_layout_escape(IOC_NR(cmd), size);
	return d->driver ? ct_layout_uvm_drv(cmd, size, d->driver) : ct_layout_uvm(cmd, size);
}

static void hexdump(FILE *out, const char *title, const unsigned char *p, uint32_t n)
{
	uint32_t i, j;

	fprintf(out, "    %s (%u bytes):\n", title, n);
	for (i = 0; i < n; i += 16) {
		fprintf(out, "      %04x:", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(out, " %02x", p[j]);
		fputc('\n', out);
	}
}

/* Top-level keys that tools filter on (issue: cmd for RM_CONTROL, hClass for RM_ALLOC). */
static void print_key_fields(struct ct_decoder *d, const struct ct_ioctl *r,
			     const unsigned char *arg)
{
	uint32_t nr = IOC_NR(r->cmd);
	const struct nv_ctrl_info *ci;
	const struct nv_class_info *cl;
	uint32_t v;

	if (IOC_TYPE(r->cmd) != NV_IOCTL_MAGIC)
		return;
	if (nr == NV_ESC_RM_CONTROL && r->arg_size >= 12) {
		memcpy(&v, arg + 8, 4);
		ci = nv_ctrl_lookup(v);
		em_hex_named(&d->em, "cmd", v, ci ? ci->name : NULL);
	} else if (nr == NV_ESC_RM_ALLOC && r->arg_size >= 16) {
		memcpy(&v, arg + 12, 4);
		cl = nv_class_lookup(v);
		em_hex_named(&d->em, "hClass", v, cl ? cl->name : NULL);
	}
}

#define COLOR_NAME  "\033[1m"
#define COLOR_ERROR "\033[31m"
#define COLOR_OFF   "\033[0m"

static const char *color(const struct ct_decoder *d, const char *c)
{
	return d->o.color ? c : "";
}

static void print_request(struct ct_decoder *d, uint32_t cmd)
{
	const char *name = ct_request_name(cmd);
	char buf[64];

	if (!name) {
		if (IOC_DIR(cmd) || IOC_TYPE(cmd))
			snprintf(buf, sizeof(buf), "_IOC(%u, 0x%x, 0x%x, 0x%x)", IOC_DIR(cmd),
				 IOC_TYPE(cmd), IOC_NR(cmd), IOC_SIZE(cmd));
		else
			snprintf(buf, sizeof(buf), "0x%x", cmd);
		name = buf;
	}
	if (d->o.json) {
		em_hex(&d->em, "request", cmd);
		em_str(&d->em, "name", name);
	} else {
		fprintf(d->o.out, "%s%s%s", color(d, COLOR_NAME), name, color(d, COLOR_OFF));
	}
}

/* Text time stamps: seconds since the start, or strace's -t, -tt, -ttt. */
static void print_ts(struct ct_decoder *d, uint64_t ts)
{
	uint64_t rel = ts >= d->start_mono ? ts - d->start_mono : 0;
	uint64_t real = d->start_real + rel;
	time_t secs = (time_t)(real / 1000000000u);
	struct tm tm;
	char hms[16];

	if (d->o.timestamps == 0) {
		fprintf(d->o.out, "%" PRIu64 ".%06" PRIu64 " ", rel / 1000000000u,
			(rel % 1000000000u) / 1000u);
		return;
	}
	if (d->o.timestamps == 3) {
		fprintf(d->o.out, "%lld.%06" PRIu64 " ", (long long)secs,
			(real % 1000000000u) / 1000u);
		return;
	}
	localtime_r(&secs, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (d->o.timestamps == 1)
		fprintf(d->o.out, "%s ", hms);
	else
		fprintf(d->o.out, "%s.%06" PRIu64 " ", hms, (real % 1000000000u) / 1000u);
}

/* -T: the time spent in the call, strace's <seconds>. */
static void print_duration(struct ct_decoder *d, uint64_t ns)
{
	if (d->o.durations)
		fprintf(d->o.out, " <%.6f>", (double)ns / 1e9);
}


static void print_fd_path(struct ct_decoder *d, int fd, uint32_t kdev, uint32_t flags,
			  uint64_t ino)
{
	const char *path = dev_path(d, kdev, flags & CT_F_REGFILE, ino);
	char fallback[64];

	if (!path) {
		snprintf(fallback, sizeof(fallback), "char %u:%u", kdev >> 20, kdev & 0xfffff);
		path = fallback;
	}
	if (d->o.json) {
		em_i64(&d->em, "fd", fd);
		em_str(&d->em, "path", path);
	} else {
		fprintf(d->o.out, "%d<", fd);
		em_text(d->o.out, path, strlen(path));
		fputc('>', d->o.out);
	}
}

/*
 * Escapes whose argument is an array: NV_ESC_CARD_INFO (nv_ioctl_card_info_t
 * per card; unused slots have valid=0 and are skipped) and
 * NV_ESC_ATTACH_GPUS_TO_FD (NvU32 GPU ids).
 */

static bool print_array_arg(struct ct_decoder *d, const struct ct_ioctl *r,
			    const struct field_ctx *fc)
{
	const unsigned char *arg = ct_ioctl_arg(r);
	struct emit *e = &d->em;
	const struct ct_layout *l;
	uint32_t nr = IOC_NR(r->cmd), i, shown = 0;

	if (IOC_TYPE(r->cmd) != NV_IOCTL_MAGIC || !r->arg_size)
		return false;
	if (nr == NV_ESC_ATTACH_GPUS_TO_FD && r->arg_size % 4 == 0) {
		uint32_t used = 4 * u32s_used(arg, r->arg_size / 4);

		em_str_list_begin(e, "gpu_ids");
		for (i = 0; i < used; i += 4) {
			char id[16];
			int n = snprintf(id, sizeof(id), "0x%x", (uint32_t)field_u(arg + i, 4));

			em_str_list_item(e, id, (size_t)n);
		}
		em_str_list_end(e);
		return true;
	}
	if (nr != NV_ESC_CARD_INFO || r->arg_size % CT_CARD_INFO_SIZE)
		return false;
	l = ct_layout_escape(nr, CT_CARD_INFO_SIZE);
	if (!l)
		return false;
	if (d->o.json)
		em_str_list_begin(e, "args");
	else
		fputc('[', d->o.out);
	for (i = 0; i + CT_CARD_INFO_SIZE <= r->arg_size; i += CT_CARD_INFO_SIZE) {
		if (!arg[i])   /* valid == 0: an empty slot */
			continue;
		if (!d->o.json)
			fputs(shown ? ", {" : "{", d->o.out);
		print_struct(d, NULL, l, arg + i, CT_CARD_INFO_SIZE, fc);
		if (!d->o.json)
			fputc('}', d->o.out);
		shown++;
	}
	if (d->o.json)
		em_str_list_end(e);
	else
		fprintf(d->o.out, "] /* %u of %u slots valid */", shown, r->arg_size / CT_CARD_INFO_SIZE);
	return true;
}

/* NV_ESC_IOCTL_XFER_CMD wraps another escape: its nr (nv_ioctl_xfer_t.cmd), or 0. */
static uint32_t xfer_wrapped(const struct ct_ioctl *r)
{
	if (IOC_TYPE(r->cmd) != NV_IOCTL_MAGIC || IOC_NR(r->cmd) != NV_ESC_IOCTL_XFER_CMD ||
	    r->arg_size != 16)
		return 0;
	return (uint32_t)field_u(ct_ioctl_arg(r), 4) & 0xff;
}

/*
 * The layout of the nested buffer: RM control params by command, RM_ALLOC
 * params by class, each matched on the exact size the call gives.
 */
static const struct ct_layout *nested_layout(const struct ct_decoder *d,
					     const struct ct_call *c, const struct ct_ioctl *r)
{
	if (!r->nest_ptr || !r->nest_want)
		return NULL;
	if (c->has_ctrl)
		return ct_layout_ctrl(c->ctrl, r->nest_want, d->driver);
	if (c->has_class)
		return ct_layout_alloc(c->hclass, r->nest_want, d->driver);
	if (xfer_wrapped(r))
		return d->driver ? ct_layout_escape_drv(xfer_wrapped(r), r->nest_want, d->driver)
				 : ct_layout_escape(xfer_wrapped(r), r->nest_want);
	return NULL;
}

/* Field name of the pointer to the nested buffer, as NVIDIA's structs call it. */
static const char *nested_name(const struct ct_call *c)
{
	return c->has_ctrl ? "*params" : c->has_class ? "*pAllocParms" : "*ptr";
}

/* The NV_STATUS the driver wrote back: the first status field of the struct. */
static bool find_status(const struct ct_layout *l, const unsigned char *buf, uint32_t len,
			uint32_t *status)
{
	uint32_t i;

	for (i = 0; l && i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];

		if (f->kind == CT_FK_STATUS && f->size == 4 && f->offset + 4 <= len) {
			*status = (uint32_t)field_u(buf + f->offset, 4);
			return true;
		}
	}
	return false;
}

static void call_common(struct ct_decoder *d, struct ct_call *c, const struct ct_rec *h,
			const char *comm, int fd, uint32_t kdev, uint32_t flags, uint64_t ino)
{
	(void)fd;
	c->pid = h->pid;
	c->tid = h->tid;
	if (comm)
		memcpy(c->comm, comm, CT_COMM_LEN);
	c->comm[CT_COMM_LEN] = 0;
	c->path = kdev ? dev_path(d, kdev, flags & CT_F_REGFILE, ino) : NULL;
	c->gpu = -1;
	if (c->path && sscanf(c->path, "/dev/nvidia%d", &c->gpu) != 1)
		c->gpu = -1;
}

/*
 * Which GPU a call concerns: the N of /dev/nvidiaN, else the device that
 * owns the first object the argument names (hObject, hDevice, hParent ...).
 */
static int call_gpu(struct ct_decoder *d, const struct ct_call *c, const struct ct_layout *l,
		    const unsigned char *arg, uint32_t len)
{
	uint32_t i, client = first_handle(l, arg, len);
	int n, gpu;

	if (c->path && sscanf(c->path, "/dev/nvidia%d", &n) == 1 && n >= 0)
		return n;
	/* An fd attached to one GPU, by its RM gpu id (CARD_INFO gpu_id); the
	 * unused entries of the id array are 0. */
	if (IOC_TYPE(c->request) == NV_IOCTL_MAGIC && IOC_NR(c->request) == NV_ESC_ATTACH_GPUS_TO_FD) {
		uint32_t id = 0, v;

		for (i = 0; i + 4 <= len; i += 4) {
			v = (uint32_t)field_u(arg + i, 4);
			if (v && id && v != id)
				return -1;   /* several GPUs */
			id = v ? v : id;
		}
		return id ? ct_gpus_by_id(&d->gpus, id) : -1;
	}
	for (i = 0; l && i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];

		if (f->kind != CT_FK_HANDLE || f->offset + 4 > len)
			continue;
		gpu = ct_objects_gpu(d->objs, client, (uint32_t)field_u(arg + f->offset, 4));
		if (gpu >= 0)
			return gpu;
	}
	/* UVM names GPUs by UUID (gpu_uuid, gpuUuid ...). */
	for (i = 0; l && i < l->nfields; i++) {
		const struct ct_field *f = &l->fields[i];

		if (f->kind != CT_FK_UUID || f->size != 16 || f->offset + 16 > len)
			continue;
		gpu = ct_gpus_by_uuid(&d->gpus, arg + f->offset);
		if (gpu >= 0)
			return gpu;
	}
	return -1;
}

/* Names what the views filter and count on. */
static void describe_ioctl(struct ct_decoder *d, const struct ct_ioctl *en,
			   const struct ct_ioctl *ex, const struct ct_layout *l, struct ct_call *c)
{
	const struct ct_ioctl *r = ex ? ex : en;
	const unsigned char *arg = ct_ioctl_arg(r);
	const struct nv_status_info *st;
	const struct nv_ctrl_info *ci;
	const struct nv_class_info *cl;

	memset(c, 0, sizeof(*c));
	c->kind = CT_CALL_IOCTL;
	c->en = en;
	c->ex = ex;
	call_common(d, c, &r->h, r->comm, r->fd, r->dev, r->flags, r->ino);
	c->ts_ns = r->ts_enter;
	c->finished = ex != NULL;
	c->duration_ns = ex ? ex->h.ts_ns - ex->ts_enter : 0;
	c->ret = ex ? ex->ret : 0;
	c->request = r->cmd;
	c->name = ct_request_name(r->cmd);
	if (IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC && IOC_NR(r->cmd) == NV_ESC_RM_CONTROL &&
	    r->arg_size >= 12) {
		c->has_ctrl = true;
		c->ctrl = (uint32_t)field_u(arg + 8, 4);
		ci = nv_ctrl_lookup(c->ctrl);
		c->ctrl_name = ci ? ci->name : NULL;
	} else if (IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC && IOC_NR(r->cmd) == NV_ESC_RM_ALLOC &&
		   r->arg_size >= 16) {
		c->has_class = true;
		c->hclass = (uint32_t)field_u(arg + 12, 4);
		cl = nv_class_lookup(c->hclass);
		c->class_name = cl ? cl->name : NULL;
	}
	if (ex && find_status(l, arg, r->arg_size, &c->status)) {
		c->has_status = true;
		st = nv_status_lookup(c->status);
		c->status_name = st ? st->name : NULL;
	}
	c->failed = (ex && ex->ret != 0) || (c->has_status && c->status != 0);
	c->gpu = call_gpu(d, c, l, arg, r->arg_size);
}

/* Runs the views; false if a filter dropped the call. */
static bool run_views(struct ct_decoder *d, const struct ct_call *c)
{
	int i;

	for (i = 0; i < d->nviews; i++) {
		if (d->views[i].filter && !d->views[i].filter(d->views[i].ctx, c))
			return false;
		if (d->views[i].call)
			d->views[i].call(d->views[i].ctx, c);
	}
	d->st.shown++;
	return !d->o.quiet;
}

int ct_decoder_add_view(struct ct_decoder *d, const struct ct_view *v)
{
	if (d->nviews >= CT_MAX_VIEWS)
		return -1;
	d->views[d->nviews++] = *v;
	return 0;
}

/* One call: en (entry) and/or ex (exit); at least one is set. */
static void print_ioctl(struct ct_decoder *d, const struct ct_ioctl *en,
			const struct ct_ioctl *ex)
{
	const struct ct_ioctl *r = ex ? ex : en;
	const unsigned char *arg = ct_ioctl_arg(r);
	const struct ct_layout *l = arg_layout(d, r->cmd, r->arg_size);
	struct field_ctx fc = { .esc_nr = IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC ? IOC_NR(r->cmd) : 0 };
	struct emit *e = &d->em;
	FILE *out = d->o.out;
	const struct ct_layout *nl;
	struct field_ctx nfc;
	struct ct_call call;

	describe_ioctl(d, en, ex, l, &call);
	if (!run_views(d, &call))
		return;
	nl = nested_layout(d, &call, r);
	fc.client = first_handle(l, arg, r->arg_size);
	nfc = fc;
	if (xfer_wrapped(r))   /* the wrapped struct is named as its own escape */
		nfc = (struct field_ctx){ .esc_nr = xfer_wrapped(r) };
	if (d->o.json) {
		em_open(e, NULL);
		em_str(e, "type", "ioctl");
		em_u64(e, "ts_ns", r->ts_enter);
		em_u64(e, "pid", r->h.pid);
		em_u64(e, "tid", r->h.tid);
		em_strn(e, "comm", r->comm, CT_COMM_LEN);
		print_fd_path(d, r->fd, r->dev, r->flags, r->ino);
		em_str(e, "syscall", "ioctl");
		print_request(d, r->cmd);
		if (ex)
			em_i64(e, "ret", ex->ret);
		if (ex && ex->ret < 0 && ex->ret > -4096 && strerrorname_np((int)-ex->ret))
			em_str(e, "errno", strerrorname_np((int)-ex->ret));
		if (ex && en)
			em_u64(e, "duration_ns", ex->h.ts_ns - ex->ts_enter);
		else if (ex)
			em_u64(e, "duration_ns", ex->h.ts_ns - ex->ts_enter);
		if (!ex)
			em_bool(e, "unfinished", true);
		if (!en)
			em_bool(e, "enter_lost", true);
		if (call.gpu >= 0)
			em_i64(e, "gpu", call.gpu);
		print_key_fields(d, r, arg);
		if (l)
			print_struct(d, "args", l, arg, r->arg_size, &fc);
		else
			print_array_arg(d, r, &fc);
		if (nl)
			print_struct(d, nested_name(&call) + 1, nl, ct_ioctl_nested(r),
				     r->nest_size, &nfc);
		if (en)
			em_bytes(e, "arg_in", ct_ioctl_arg(en), en->arg_size);
		if (ex)
			em_bytes(e, "arg_out", ct_ioctl_arg(ex), ex->arg_size);
		if (r->nest_ptr) {
			em_hex(e, "nested_ptr", r->nest_ptr);
			em_u64(e, "nested_size", r->nest_want);
			if (en)
				em_bytes(e, "nested_in", ct_ioctl_nested(en), en->nest_size);
			if (ex)
				em_bytes(e, "nested_out", ct_ioctl_nested(ex), ex->nest_size);
		}
		if (r->flags & (CT_F_ARG_TRUNC | CT_F_NEST_TRUNC))
			em_bool(e, "truncated", true);
		if (r->flags & (CT_F_ARG_FAULT | CT_F_NEST_FAULT))
			em_bool(e, "fault", true);
		em_close(e);
		fputc('\n', out);
		return;
	}

	print_ts(d, r->ts_enter);
	fprintf(out, "%u/%u ", r->h.pid, r->h.tid);
	em_text(out, r->comm, strnlen(r->comm, CT_COMM_LEN));
	fputs(" ioctl(", out);
	print_fd_path(d, r->fd, r->dev, r->flags, r->ino);
	fputs(", ", out);
	print_request(d, r->cmd);
	fputs(", ", out);
	if (l) {
		print_struct(d, NULL, l, arg, r->arg_size, &fc);
		fputs(l->nfields ? "" : "{}", out);
		/* -v: the nested params, decoded (as they were at exit). */
		if (nl && d->o.verbose >= 1) {
			fputs(", ", out);
			em_open(e, NULL);
			print_struct(d, nested_name(&call), nl, ct_ioctl_nested(r), r->nest_size,
				     &nfc);
			em_close(e);
		}
	} else if (print_array_arg(d, r, &fc)) {
		/* printed */
	} else if (r->arg_size) {
		fprintf(out, "0x%" PRIx64 " [%u bytes, no layout for this size]", (uint64_t)r->arg, r->arg_size);
	} else {
		fprintf(out, "0x%" PRIx64, (uint64_t)r->arg);
	}
	if (r->flags & CT_F_ARG_FAULT)
		fputs(" <fault>", out);
	fputc(')', out);
	if (ex) {
		fprintf(out, " = %s%" PRId64, color(d, call.failed ? COLOR_ERROR : ""),
			(int64_t)ex->ret);
		if (ex->ret < 0 && ex->ret > -4096 && strerrorname_np((int)-ex->ret))
			fprintf(out, " %s (%s)", strerrorname_np((int)-ex->ret),
				strerror((int)-ex->ret));
		fputs(color(d, call.failed ? COLOR_OFF : ""), out);
		if (call.has_status && call.status)
			fprintf(out, " %s(%s)%s", color(d, COLOR_ERROR),
				call.status_name ? call.status_name : "unknown NV_STATUS",
				color(d, COLOR_OFF));
		print_duration(d, ex->h.ts_ns - ex->ts_enter);
	} else {
		fputs(" = ? <unfinished>", out);
	}
	if (!en)
		fputs(" <entry lost>", out);
	if (r->flags & CT_F_NEST_TRUNC)
		fprintf(out, " <nested %u of %u bytes>", r->nest_size, r->nest_want);
	fputc('\n', out);
	if (((d->o.verbose >= 1 && !nl) || d->o.verbose >= 2) && r->nest_ptr) {
		if (en)
			hexdump(out, "nested in", ct_ioctl_nested(en), en->nest_size);
		if (ex)
			hexdump(out, "nested out", ct_ioctl_nested(ex), ex->nest_size);
	}
	if (d->o.verbose >= 2) {
		if (en)
			hexdump(out, "arg in", ct_ioctl_arg(en), en->arg_size);
		if (ex)
			hexdump(out, "arg out", ct_ioctl_arg(ex), ex->arg_size);
	}
}

static void on_ioctl_enter(struct ct_decoder *d, const struct ct_ioctl *r)
{
	struct ct_ioctl *copy = malloc(r->h.size);
	struct ct_ioctl *old;

	if (!copy)
		return;
	memcpy(copy, r, r->h.size);
	old = idmap_put(&d->pending, r->h.tid, copy);
	if (old) {   /* the previous call's exit never came */
		print_ioctl(d, old, NULL);
		d->st.unfinished++;
		free(old);
	}
}

static void on_ioctl_exit(struct ct_decoder *d, const struct ct_ioctl *r)
{
	struct ct_ioctl *en = idmap_del(&d->pending, r->h.tid);

	if (en && (en->ts_enter != r->ts_enter || en->cmd != r->cmd)) {
		print_ioctl(d, en, NULL);   /* an older call: its exit was lost */
		d->st.unfinished++;
		free(en);
		en = NULL;
	}
	if (!en)
		d->st.exits_no_enter++;
	ct_objects_learn_created(d->objs, r);
	if (IOC_TYPE(r->cmd) == NV_IOCTL_MAGIC && IOC_NR(r->cmd) == NV_ESC_CARD_INFO && r->ret == 0)
		ct_gpus_card_info(&d->gpus, ct_ioctl_arg(r), r->arg_size);
	print_ioctl(d, en, r);
	ct_objects_learn_freed(d->objs, r);
	d->st.ioctls++;
	free(en);
}

static void print_head(struct ct_decoder *d, const char *type, const struct ct_rec *h,
		       const char *comm)
{
	if (d->o.json) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", type);
		em_u64(&d->em, "ts_ns", h->ts_ns);
		em_u64(&d->em, "pid", h->pid);
		em_u64(&d->em, "tid", h->tid);
		if (comm)
			em_strn(&d->em, "comm", comm, CT_COMM_LEN);
		return;
	}
	print_ts(d, h->ts_ns);
	fprintf(d->o.out, "%u/%u ", h->pid, h->tid);
	if (comm)
		em_text(d->o.out, comm, strnlen(comm, CT_COMM_LEN));
	fputc(' ', d->o.out);
}

static void end_line(struct ct_decoder *d)
{
	if (d->o.json)
		em_close(&d->em);
	fputc('\n', d->o.out);
}

/* Which memory object the preceding RM_MAP_MEMORY on this fd set up. */
static void print_mmap_target(struct ct_decoder *d, const struct ct_mmap *m)
{
	uint32_t client, hmem;
	char desc[160];
	const char *what;

	if (!ct_objects_mmap_target(d->objs, m->h.pid, m->fd, &client, &hmem))
		return;
	what = ct_objects_describe(d->objs, client, hmem, desc, sizeof(desc));
	if (d->o.json) {
		em_hex(&d->em, "hClient", client);
		em_hex_named(&d->em, "hMemory", hmem, what);
	} else {
		fprintf(d->o.out, " maps hMemory=0x%x", hmem);
		if (what)
			fprintf(d->o.out, "<%s>", what);
	}
}

static void on_mmap(struct ct_decoder *d, const struct ct_mmap *m)
{
	struct emit *e = &d->em;
	struct ct_call c = { .kind = CT_CALL_MMAP, .mmap = m, .name = "mmap", .finished = true };

	call_common(d, &c, &m->h, m->comm, m->fd, m->dev, m->flags, m->ino);
	c.ts_ns = m->ts_enter;
	c.duration_ns = m->h.ts_ns - m->ts_enter;
	c.ret = m->ret;
	c.failed = m->ret < 0 && m->ret > -4096;
	if (!run_views(d, &c))
		return;

	print_head(d, "mmap", &m->h, m->comm);
	if (d->o.json) {
		em_str(e, "syscall", "mmap");
		print_fd_path(d, m->fd, m->dev, m->flags, m->ino);
		if (c.gpu >= 0)
			em_i64(e, "gpu", c.gpu);
		em_hex(e, "addr", m->addr);
		em_u64(e, "len", m->len);
		em_hex(e, "prot", m->prot);
		em_hex(e, "flags", m->mflags);
		em_hex(e, "offset", m->off);
		em_hex(e, "ret", (uint64_t)m->ret);
		em_u64(e, "duration_ns", m->h.ts_ns - m->ts_enter);
		print_mmap_target(d, m);
	} else {
		fprintf(d->o.out, "mmap(0x%" PRIx64 ", %" PRIu64 ", 0x%x, 0x%x, ", (uint64_t)m->addr, (uint64_t)m->len,
			m->prot, m->mflags);
		print_fd_path(d, m->fd, m->dev, m->flags, m->ino);
		if (m->ret < 0 && m->ret > -4096)
			fprintf(d->o.out, ", 0x%" PRIx64 ") = %" PRId64, (uint64_t)m->off, (int64_t)m->ret);
		else
			fprintf(d->o.out, ", 0x%" PRIx64 ") = 0x%" PRIx64, (uint64_t)m->off, (uint64_t)m->ret);
		print_duration(d, m->h.ts_ns - m->ts_enter);
		print_mmap_target(d, m);
	}
	end_line(d);
}

static void on_munmap(struct ct_decoder *d, const struct ct_munmap *m)
{
	struct ct_call c = { .kind = CT_CALL_MUNMAP, .munmap = m, .name = "munmap",
			     .finished = true };

	call_common(d, &c, &m->h, NULL, -1, 0, 0, 0);
	c.ts_ns = m->h.ts_ns;
	if (!run_views(d, &c))
		return;
	print_head(d, "munmap", &m->h, NULL);
	if (d->o.json) {
		em_str(&d->em, "syscall", "munmap");
		em_hex(&d->em, "addr", m->addr);
		em_u64(&d->em, "len", m->len);
		em_u64(&d->em, "mapping_len", m->map_len);
	} else {
		fprintf(d->o.out, "munmap(0x%" PRIx64 ", %" PRIu64 ")", (uint64_t)m->addr, (uint64_t)m->len);
	}
	end_line(d);
}

/* argv or env block (NUL-separated) as a list. */
static void print_strings(struct ct_decoder *d, const char *key, const char *p, uint32_t n)
{
	uint32_t i = 0;
	bool first = true;

	if (d->o.json) {
		em_str_list_begin(&d->em, key);
		while (i < n) {
			size_t len = strnlen(p + i, n - i);

			em_str_list_item(&d->em, p + i, len);
			i += (uint32_t)len + 1;
		}
		em_str_list_end(&d->em);
		return;
	}
	fprintf(d->o.out, " %s=[", key);
	while (i < n) {
		size_t len = strnlen(p + i, n - i);

		if (!first)
			fputs(", ", d->o.out);
		/* JSON escaping keeps a text line one line, whatever argv holds;
		 * without -v long values are cut (NVIDIA_REQUIRE_CUDA is 2 KB). */
		if (d->o.verbose < 1 && len > TEXT_STRING_MAX) {
			em_json_string(d->o.out, p + i, TEXT_STRING_MAX);
			fputs("...", d->o.out);
		} else {
			em_json_string(d->o.out, p + i, len);
		}
		first = false;
		i += (uint32_t)len + 1;
	}
	fputc(']', d->o.out);
}

static void on_proc(struct ct_decoder *d, const struct ct_proc *p)
{
	static const char *const src[] = { "?", "exec", "attach", "seen" };
	const char *s = p->source < 4 ? src[p->source] : "?";
	const char *argv = (const char *)(p + 1);

	/* A new image, or a process seen for the first time (perhaps under the
	 * pid of one that exited): fd numbers of before mean nothing now. */
	if (p->source != CT_PROC_ATTACH)
		ct_objects_forget_pid(d->objs, p->h.pid);
	if (d->o.quiet)
		return;   /* -c: the views speak, not the events */
	print_head(d, "proc", &p->h, p->comm);
	if (d->o.json) {
		em_u64(&d->em, "ppid", p->ppid);
		em_str(&d->em, "source", s);
	} else {
		fprintf(d->o.out, "+++ process %u (parent %u) %s:", p->h.pid, p->ppid, s);
	}
	print_strings(d, "argv", argv, p->argv_size);
	print_strings(d, "env", argv + p->argv_size, p->env_size);
	end_line(d);
}

static void on_fork(struct ct_decoder *d, const struct ct_fork *f)
{
	if (d->o.quiet)
		return;   /* -c: the views speak, not the events */
	if (!d->o.json && d->o.verbose < 1)
		return;
	print_head(d, "fork", &f->h, NULL);
	if (d->o.json)
		em_u64(&d->em, "child", f->child_pid);
	else
		fprintf(d->o.out, "+++ forked child %u", f->child_pid);
	end_line(d);
}

static void flush_unfinished(struct ct_decoder *d, uint32_t pid);

static void on_exit_rec(struct ct_decoder *d, const struct ct_rec *r)
{
	/* Calls the process never returned from (killed inside them). */
	flush_unfinished(d, r->pid);
	ct_objects_forget_pid(d->objs, r->pid);
	if (d->o.quiet)
		return;   /* -c: the views speak, not the events */
	if (!d->o.json && d->o.verbose < 1)
		return;
	print_head(d, "exit", r, NULL);
	if (!d->o.json)
		fputs("+++ exited", d->o.out);
	end_line(d);
}

static void on_fdpath(struct ct_decoder *d, const struct ct_fdpath *f)
{
	add_dev(d, f->dev, f->flags & CT_F_REGFILE, f->ino, (const char *)(f + 1), f->path_size);
}

/* An fd named in params, and the open file behind it (shown with -vv). */
static void on_fileref(struct ct_decoder *d, const struct ct_fileref *f)
{
	ct_objects_learn_fileref(d->objs, f);
	if (d->o.quiet || (!d->o.json && d->o.verbose < 2))
		return;
	print_head(d, "fileref", &f->h, NULL);
	if (d->o.json) {
		em_i64(&d->em, "fd", f->fd);
		em_hex(&d->em, "file", f->file_id);
	} else if (f->file_id) {
		fprintf(d->o.out, "+++ fd %d is open file %#" PRIx64, f->fd, (uint64_t)f->file_id);
	} else {
		fprintf(d->o.out, "+++ fd %d is not open", f->fd);
	}
	end_line(d);
}

static void on_trailer(struct ct_decoder *d, const struct ct_trailer *t)
{
	d->st.have_trailer = true;
	d->st.trailer_events = t->events;
	d->st.trailer_lost = t->lost;
	d->st.trailer_lost_inflight = t->lost_inflight;
	if (d->o.json && !d->o.quiet) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", "trailer");
		em_u64(&d->em, "events", t->events);
		em_u64(&d->em, "lost", t->lost);
		em_u64(&d->em, "lost_inflight", t->lost_inflight);
		em_close(&d->em);
		fputc('\n', d->o.out);
	}
}

void ct_decoder_feed(struct ct_decoder *d, const struct ct_rec *r)
{
	d->st.records++;
	switch (r->type) {
	case CT_REC_META:
		on_meta(d, r);
		break;
	case CT_REC_IOCTL_ENTER:
		on_ioctl_enter(d, (const struct ct_ioctl *)r);
		break;
	case CT_REC_IOCTL_EXIT:
		on_ioctl_exit(d, (const struct ct_ioctl *)r);
		break;
	case CT_REC_MMAP:
		on_mmap(d, (const struct ct_mmap *)r);
		break;
	case CT_REC_MUNMAP:
		on_munmap(d, (const struct ct_munmap *)r);
		break;
	case CT_REC_PROC:
		on_proc(d, (const struct ct_proc *)r);
		break;
	case CT_REC_FORK:
		on_fork(d, (const struct ct_fork *)r);
		break;
	case CT_REC_PROC_EXIT:
		on_exit_rec(d, r);
		break;
	case CT_REC_FDPATH:
		on_fdpath(d, (const struct ct_fdpath *)r);
		break;
	case CT_REC_TRAILER:
		on_trailer(d, (const struct ct_trailer *)r);
		break;
	case CT_REC_FILEREF:
		on_fileref(d, (const struct ct_fileref *)r);
		break;
	}
}

static int by_entry_time(const void *a, const void *b)
{
	const struct ct_ioctl *x = *(const struct ct_ioctl *const *)a;
	const struct ct_ioctl *y = *(const struct ct_ioctl *const *)b;

	if (x->ts_enter != y->ts_enter)
		return x->ts_enter < y->ts_enter ? -1 : 1;
	return x->h.tid < y->h.tid ? -1 : x->h.tid > y->h.tid;
}

/*
 * Prints the calls still waiting for their exit, of process pid (0: all),
 * oldest first (the map's order is a hash's), as unfinished.
 */
static void flush_unfinished(struct ct_decoder *d, uint32_t pid)
{
	struct ct_ioctl **calls;
	size_t i, n = 0;

	if (!d->pending.used)
		return;
	calls = malloc(d->pending.used * sizeof(*calls));
	if (!calls)
		return;
	for (i = 0; i < d->pending.cap && n < d->pending.used; i++) {
		struct ct_ioctl *en = d->pending.keys[i] ? d->pending.vals[i] : NULL;

		if (en && (!pid || en->h.pid == pid))
			calls[n++] = en;
	}
	qsort(calls, n, sizeof(*calls), by_entry_time);
	for (i = 0; i < n; i++) {
		idmap_del(&d->pending, calls[i]->h.tid);
		print_ioctl(d, calls[i], NULL);
		d->st.unfinished++;
		free(calls[i]);
	}
	free(calls);
}

void ct_decoder_finish(struct ct_decoder *d)
{
	int i;

	flush_unfinished(d, 0);
	for (i = 0; i < d->nviews; i++)
		if (d->views[i].finish)
			d->views[i].finish(d->views[i].ctx);
	fflush(d->o.out);
}

const struct ct_decode_stats *ct_decoder_stats(const struct ct_decoder *d)
{
	return &d->st;
}

static void free_pending(uint64_t tid, void *val, void *ctx)
{
	(void)tid;
	(void)ctx;
	free(val);
}

void ct_decoder_free(struct ct_decoder *d)
{
	size_t i;

	if (!d)
		return;
	idmap_drain(&d->pending, free_pending, NULL);
	idmap_free(&d->pending);
	ct_objects_free(d->objs);
	for (i = 0; i < d->ndevs; i++)
		free(d->devs[i].path);
	free(d->devs);
	free(d);
}
