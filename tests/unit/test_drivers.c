// SPDX-License-Identifier: MIT
/*
 * The object tracker across driver releases.  For each of six drivers
 * (515.43.04 ... 595.45.04, tags imported from shared/nvabi/versions), a
 * session of RM_ALLOC (NVOS64 and NVOS21), ALLOC_MEMORY, DUP_OBJECT,
 * MAP_MEMORY + mmap, RM_CONTROL and RM_FREE is built in that driver's
 * exact struct layouts -- every field set by name through the layout
 * tables, no offset written here -- and decoded with META driver= naming
 * it.  Every handle must come out annotated with its class, every mmap
 * must say which memory it maps, and a freed handle must lose its
 * annotation.  At 515 and 525 NVOS64 is 40 bytes (status at 32 and 36) and
 * NVOS21's status sits at 24: a decoder that reads 580 offsets loses the
 * handles there.  TAP output; exit status 1 if any check fails.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "decode.h"
#include "layouts.h"
#include "nvfacts.h"
#include "record.h"

static int n, failed;

static void ok(int cond, const char *what, const char *detail)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++n, what);
	if (!cond) {
		failed++;
		if (detail)
			printf("#   %s\n", detail);
	}
}

static const char *const drivers[] = {
	"515.43.04", "525.60.11", "535.43.02", "550.40.07", "580.142", "595.45.04",
};

#define DEV_CTL (195u << 20 | 255)
#define DEV_GPU0 (195u << 20 | 0)
#define PID 4242

/* Handles of the session. */
enum {
	H_CLIENT = 0xc1d00001, H_DEVICE = 0x5c000002, H_SUBDEV = 0x5c000003,
	H_SYSMEM = 0x5c000010, H_VIDMEM = 0x5c000011, H_DUP = 0x5c000012,
	H_REFUSED = 0x5c0000ba,   /* an RM_ALLOC the RM refused: never an object */
};

static uint32_t drv;           /* the driver being tested */
static const char *drv_tag;
static struct ct_decoder *dec;
static unsigned char recbuf[1 << 16];
static uint64_t now = 1000001000;

/* The layout called name that escape nr has at this driver. */
static const struct ct_layout *escape(uint32_t nr, const char *name)
{
	const struct ct_layout *ls[8], *pick = NULL;
	size_t i, k = ct_layout_sizes(CT_LAYOUT_ESCAPE, nr, drv, ls, 8);

	for (i = 0; i < k && i < 8; i++)
		if (strcmp(ls[i]->name, name) == 0 && ls[i]->since <= drv && drv <= ls[i]->until)
			pick = ls[i];
	if (!pick) {
		printf("Bail out! no layout %s for escape 0x%x at %s\n", name, nr, drv_tag);
		exit(1);
	}
	return pick;
}

/* The alloc params struct of class cls at this driver. */
static const struct ct_layout *alloc_params(uint32_t cls)
{
	const struct ct_layout *l = NULL;

	if (ct_layout_sizes(CT_LAYOUT_ALLOC, cls, drv, &l, 1) < 1 || !l) {
		printf("Bail out! no alloc params layout for class 0x%x at %s\n", cls, drv_tag);
		exit(1);
	}
	return l;
}

/* Sets a field by name; a field the layout lacks is a broken test. */
static void set(const struct ct_layout *l, void *buf, const char *field, uint64_t v)
{
	if (!ct_write_u64(l, buf, l->size, field, v)) {
		printf("Bail out! %s has no field %s at %s\n", l->name, field, drv_tag);
		exit(1);
	}
}

static void feed(const void *rec)
{
	const struct ct_rec *r = rec;
	const char *why = ct_record_check(r, r->size);

	if (why) {
		printf("Bail out! built a bad record: %s\n", why);
		exit(1);
	}
	ct_decoder_feed(dec, r);
}

static void meta(void)
{
	char text[512];
	struct ct_rec *r = (struct ct_rec *)recbuf;
	int len = snprintf(text, sizeof(text),
			   "start_monotonic_ns=1000000000\n"
			   "driver=NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  "
			   "Release Build\n"
			   "device=0xc3000ff 0 0 /dev/nvidiactl\n"
			   "device=0xc300000 0 0 /dev/nvidia0\n", drv_tag);

	memset(r, 0, sizeof(*r));
	r->type = CT_REC_META;
	r->size = (uint32_t)(sizeof(*r) + (size_t)len);
	memcpy(r + 1, text, (size_t)len);
	feed(r);
}

/* Entry and exit of one successful escape, as the capture records them. */
static void escape_call(const struct ct_layout *l, uint32_t nr, const void *arg,
			const void *nest, uint32_t nlen)
{
	struct ct_ioctl *r = (struct ct_ioctl *)recbuf;
	int exit_rec;

	for (exit_rec = 0; exit_rec < 2; exit_rec++) {
		memset(r, 0, sizeof(*r));
		r->h.type = exit_rec ? CT_REC_IOCTL_EXIT : CT_REC_IOCTL_ENTER;
		r->h.size = (uint32_t)(sizeof(*r) + l->size + nlen);
		r->h.ts_ns = exit_rec ? now + 5000 : now;
		r->h.pid = r->h.tid = PID;
		r->ts_enter = now;
		memcpy(r->comm, "app", 4);
		r->fd = 3;
		r->dev = DEV_CTL;
		r->cmd = 0xc0000000u | l->size << 16 | NV_IOCTL_MAGIC << 8 | nr;
		r->arg = 0x7ffd00001000;
		r->nest_ptr = nlen ? 0x7ffd00002000 : 0;
		r->arg_size = r->arg_want = l->size;
		r->nest_size = r->nest_want = nlen;
		r->size_src = CT_SIZE_IOC;
		memcpy(r + 1, arg, l->size);
		if (nlen)
			memcpy((unsigned char *)(r + 1) + l->size, nest, nlen);
		feed(r);
	}
	now += 1000;
}

static void mmap_call(int32_t fd, uint64_t len)
{
	struct ct_mmap m = { .h = { CT_REC_MMAP, sizeof(m), now + 2000, PID, PID } };

	m.ts_enter = now;
	memcpy(m.comm, "app", 4);
	m.fd = fd;
	m.dev = DEV_GPU0;
	m.addr = 0;
	m.len = len;
	m.prot = 3;
	m.mflags = 1;
	m.ret = 0x7f0000000000;
	feed(&m);
	now += 3000;
}

/* RM_ALLOC of cls as h under parent, in struct nvos (NVOS64 or NVOS21),
 * with the class's alloc params (instance in field inst, if given). */
static void rm_alloc(const char *nvos, uint32_t client, uint32_t parent, uint32_t h,
		     uint32_t cls, const char *inst, uint32_t status)
{
	const struct ct_layout *l = escape(NV_ESC_RM_ALLOC, nvos), *p = NULL;
	unsigned char a[256] = { 0 }, params[4096] = { 0 };

	set(l, a, "hRoot", client);
	set(l, a, "hObjectParent", parent);
	set(l, a, "hObjectNew", h);
	set(l, a, "hClass", cls);
	set(l, a, "pAllocParms", 0x7ffd00002000);
	set(l, a, "status", status);
	if (inst) {
		p = alloc_params(cls);
		set(p, params, inst, 0);
	}
	escape_call(l, NV_ESC_RM_ALLOC, a, params, p ? p->size : 0);
}

static void alloc_memory(uint32_t parent, uint32_t h, uint32_t cls)
{
	const struct ct_layout *l = escape(NV_ESC_RM_ALLOC_MEMORY,
					   "nv_ioctl_nvos02_parameters_with_fd");
	unsigned char a[256] = { 0 };

	set(l, a, "params.hRoot", H_CLIENT);
	set(l, a, "params.hObjectParent", parent);
	set(l, a, "params.hObjectNew", h);
	set(l, a, "params.hClass", cls);
	set(l, a, "params.limit", 0xfffff);
	set(l, a, "fd", 6);
	escape_call(l, NV_ESC_RM_ALLOC_MEMORY, a, NULL, 0);
}

static void dup_object(uint32_t parent, uint32_t h, uint32_t src)
{
	const struct ct_layout *l = escape(NV_ESC_RM_DUP_OBJECT, "NVOS55_PARAMETERS");
	unsigned char a[256] = { 0 };

	set(l, a, "hClient", H_CLIENT);
	set(l, a, "hParent", parent);
	set(l, a, "hObject", h);
	set(l, a, "hClientSrc", H_CLIENT);
	set(l, a, "hObjectSrc", src);
	escape_call(l, NV_ESC_RM_DUP_OBJECT, a, NULL, 0);
}

/* RM_MAP_MEMORY of hMemory for the mmap that follows on fd. */
static void map_memory(uint32_t hmemory, int32_t fd)
{
	const struct ct_layout *l = escape(NV_ESC_RM_MAP_MEMORY,
					   "nv_ioctl_nvos33_parameters_with_fd");
	unsigned char a[256] = { 0 };

	set(l, a, "params.hClient", H_CLIENT);
	set(l, a, "params.hDevice", H_DEVICE);
	set(l, a, "params.hMemory", hmemory);
	set(l, a, "params.length", 0x100000);
	set(l, a, "fd", (uint32_t)fd);
	escape_call(l, NV_ESC_RM_MAP_MEMORY, a, NULL, 0);
	mmap_call(fd, 0x100000);
}

static void rm_control(uint32_t h, uint32_t cmd)
{
	const struct ct_layout *l = escape(NV_ESC_RM_CONTROL, "NVOS54_PARAMETERS");
	unsigned char a[256] = { 0 };

	set(l, a, "hClient", H_CLIENT);
	set(l, a, "hObject", h);
	set(l, a, "cmd", cmd);
	escape_call(l, NV_ESC_RM_CONTROL, a, NULL, 0);
}

static void rm_free(uint32_t parent, uint32_t h)
{
	const struct ct_layout *l = escape(NV_ESC_RM_FREE, "NVOS00_PARAMETERS");
	unsigned char a[256] = { 0 };

	set(l, a, "hRoot", H_CLIENT);
	set(l, a, "hObjectParent", parent);
	set(l, a, "hObjectOld", h);
	escape_call(l, NV_ESC_RM_FREE, a, NULL, 0);
}

/* The whole session, decoded to text in *buf. */
static void session(char **buf, size_t *len)
{
	struct ct_decode_opts o = { 0 };

	o.out = open_memstream(buf, len);
	dec = ct_decoder_new(&o);
	meta();
	rm_alloc("NVOS64_PARAMETERS", 0, 0, H_CLIENT, NV01_ROOT_CLIENT, NULL, NV_OK);
	rm_alloc("NVOS64_PARAMETERS", H_CLIENT, H_CLIENT, H_DEVICE, NV01_DEVICE_0, "deviceId",
		 NV_OK);
	rm_alloc("NVOS21_PARAMETERS", H_CLIENT, H_DEVICE, H_SUBDEV, NV20_SUBDEVICE_0,
		 "subDeviceId", NV_OK);
	alloc_memory(H_DEVICE, H_SYSMEM, NV01_MEMORY_SYSTEM);
	rm_alloc("NVOS21_PARAMETERS", H_CLIENT, H_DEVICE, H_VIDMEM, NV01_MEMORY_LOCAL_USER, NULL,
		 NV_OK);
	/* Refused in the struct's status (the ioctl itself returns 0). */
	rm_alloc("NVOS21_PARAMETERS", H_CLIENT, H_DEVICE, H_REFUSED, NV01_MEMORY_LOCAL_USER, NULL,
		 NV_ERR_INSUFFICIENT_RESOURCES);
	rm_control(H_REFUSED, NV2080_CTRL_CMD_GPU_GET_NAME_STRING);
	dup_object(H_DEVICE, H_DUP, H_VIDMEM);
	map_memory(H_SYSMEM, 7);
	map_memory(H_DUP, 8);
	rm_control(H_SUBDEV, NV2080_CTRL_CMD_GPU_GET_NAME_STRING);
	rm_free(H_DEVICE, H_SYSMEM);
	/* The last line: a handle freed above, which must not be annotated. */
	rm_control(H_SYSMEM, NV2080_CTRL_CMD_GPU_GET_NAME_STRING);
	ct_decoder_finish(dec);
	ct_decoder_free(dec);
	fclose(o.out);
}

/* Every "=0x<handle of the session>" in text up to end is followed by '<'. */
static int unannotated(const char *text, const char *end, char *first, size_t len)
{
	static const uint32_t handles[] = { H_CLIENT, H_DEVICE, H_SUBDEV, H_SYSMEM, H_VIDMEM,
					    H_DUP };
	int bad = 0;

	for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); i++) {
		char pat[16];
		const char *p = text;
		int plen = snprintf(pat, sizeof(pat), "=0x%x", handles[i]);

		while ((p = strstr(p, pat)) && p < end) {
			p += plen;
			if (*p != '<' && !bad++)
				snprintf(first, len, "not annotated: %.40s", p - plen);
		}
	}
	return bad;
}

static void check_driver(const char *tag)
{
	char what[160], want[200], first[128] = "";
	char *text = NULL, *last;
	size_t len = 0;
	int failed_before = failed;

	drv_tag = tag;
	now = 1000001000;
	drv = ct_driver_version(tag);
	session(&text, &len);
	last = strrchr(text, '\n');
	while (last && last > text && last[-1] != '\n')
		last--;   /* start of the last line */
	if (!last || last == text) {
		ok(0, "decoded the session", text);
		free(text);
		return;
	}

	snprintf(what, sizeof(what), "%s: every handle annotated with its class", tag);
	ok(unannotated(text, last, first, sizeof(first)) == 0, what, first);

	snprintf(what, sizeof(what), "%s: the device and subdevice numbers from the alloc params", tag);
	snprintf(want, sizeof(want), "=0x%x<NV20_SUBDEVICE_0 #0 of NV01_DEVICE_0 #0>", H_SUBDEV);
	ok(strstr(text, want) != NULL, what, want);

	snprintf(what, sizeof(what), "%s: the mmap after MAP_MEMORY of ALLOC_MEMORY's object", tag);
	snprintf(want, sizeof(want), "maps hMemory=0x%x<NV01_MEMORY_SYSTEM of NV01_DEVICE_0 #0>",
		 H_SYSMEM);
	ok(strstr(text, want) != NULL, what, want);

	snprintf(what, sizeof(what), "%s: the mmap after MAP_MEMORY of a DUP_OBJECT copy", tag);
	snprintf(want, sizeof(want), "maps hMemory=0x%x<NV01_MEMORY_LOCAL_USER of NV01_DEVICE_0 #0>",
		 H_DUP);
	ok(strstr(text, want) != NULL, what, want);

	snprintf(what, sizeof(what), "%s: an RM_ALLOC refused in its status makes no object", tag);
	snprintf(want, sizeof(want), "hObject=0x%x, ", H_REFUSED);
	ok(strstr(text, want) != NULL, what, want);

	snprintf(what, sizeof(what), "%s: RM_FREE forgets the handle", tag);
	snprintf(want, sizeof(want), "hObject=0x%x, ", H_SYSMEM);
	ok(strstr(last, want) != NULL, what, last);
	if (failed > failed_before) {
		printf("# decoded at %s:\n", tag);
		for (char *p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
			printf("#   %s\n", p);
	}
	free(text);
}

int main(void)
{
	size_t i;

	printf("1..%zu\n", 6 * (sizeof(drivers) / sizeof(drivers[0])));
	for (i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
		check_driver(drivers[i]);
	return failed ? 1 : 0;
}
