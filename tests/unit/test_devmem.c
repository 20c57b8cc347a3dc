// SPDX-License-Identifier: MIT
/*
 * decoders/devmem.c on crafted calls: RM_ALLOC records are built from the
 * layout tables (fields placed by name, as the tracker reads them), so
 * the test holds no NVIDIA offsets either.  Checks held/peak per process,
 * GPU and kind; frees of the object, of its device (everything under it)
 * and of the client; the process's exit; a failed allocation; sizes
 * unknown; the largest allocations; a change callback per change.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "tap.h"
#include "layouts.h"
#include "nvfacts.h"
#include "nvtables.h"
#include "record.h"


static uint32_t class_id(const char *name)
{
	size_t i;

	for (i = 0; i < nv_class_count(); i++)
		if (strcmp(nv_class_at(i)->name, name) == 0)
			return nv_class_at(i)->id;
	fprintf(stderr, "no class %s\n", name);
	exit(1);
}

static void put(const struct ct_layout *l, unsigned char *buf, const char *name, uint64_t v)
{
	if (ct_write_u64(l, buf, l->size, name, v))
		return;
	fprintf(stderr, "cannot write %s of %s\n", name, l->name);
	exit(1);
}

static unsigned char recbuf[4096];
static uint64_t clock_ns = 1000;
static const struct ct_layout *nvos64, *nvos00;

/* An RM_ALLOC exit: (client, parent, handle, class), size bytes (0: none given). */
static void alloc(struct ct_devmem *m, uint32_t pid, int gpu, uint32_t client, uint32_t parent,
		  uint32_t h, const char *cls, uint64_t size, int status)
{
	struct ct_ioctl *r = (struct ct_ioctl *)recbuf;
	const struct ct_layout *pl;
	uint32_t hc = class_id(cls);
	struct ct_call c = { .kind = CT_CALL_IOCTL, .pid = pid, .tid = pid, .gpu = gpu,
			     .name = "NV_ESC_RM_ALLOC", .finished = true, .has_class = true,
			     .hclass = hc, .failed = status != 0 };

	memset(recbuf, 0, sizeof(recbuf));
	r->cmd = (3u << 30) | (nvos64->size << 16) | ('F' << 8) | nvos64->req;
	r->arg_size = nvos64->size;
	put(nvos64, (unsigned char *)(r + 1), "hRoot", client);
	put(nvos64, (unsigned char *)(r + 1), "hObjectParent", parent);
	put(nvos64, (unsigned char *)(r + 1), "hObjectNew", h);
	put(nvos64, (unsigned char *)(r + 1), "hClass", hc);
	put(nvos64, (unsigned char *)(r + 1), "status", (uint64_t)status);
	pl = ct_layout_sizes(CT_LAYOUT_ALLOC, hc, 0, &pl, 1) ? pl : NULL;
	if (pl && size) {
		r->nest_ptr = 0x1000;
		r->nest_want = r->nest_size = pl->size;
		put(pl, (unsigned char *)(r + 1) + r->arg_size, "size", size);
	}
	c.ex = r;
	c.rec = r;
	c.esc_nr = nvos64->req;
	c.layout = nvos64;
	c.nested_layout = size ? pl : NULL;
	c.ts_ns = clock_ns;
	c.duration_ns = 10;
	clock_ns += 1000;
	ct_devmem_call(m, &c);
}

static void rm_free(struct ct_devmem *m, uint32_t pid, uint32_t client, uint32_t h)
{
	struct ct_ioctl *r = (struct ct_ioctl *)recbuf;
	struct ct_call c = { .kind = CT_CALL_IOCTL, .pid = pid, .tid = pid, .gpu = -1,
			     .name = "NV_ESC_RM_FREE", .finished = true };

	memset(recbuf, 0, sizeof(recbuf));
	r->cmd = (3u << 30) | (nvos00->size << 16) | ('F' << 8) | nvos00->req;
	r->arg_size = nvos00->size;
	put(nvos00, (unsigned char *)(r + 1), "hRoot", client);
	put(nvos00, (unsigned char *)(r + 1), "hObjectOld", h);
	c.ex = r;
	c.rec = r;
	c.esc_nr = nvos00->req;
	c.layout = nvos00;
	c.ts_ns = clock_ns;
	clock_ns += 1000;
	ct_devmem_call(m, &c);
}

static const struct ct_devmem_total *total(struct ct_devmem *m, uint32_t pid, int gpu,
					   enum ct_mem_kind k)
{
	size_t i, cnt;
	const struct ct_devmem_total *t = ct_devmem_totals(m, &cnt);

	for (i = 0; i < cnt; i++)
		if (t[i].pid == pid && t[i].gpu == gpu && t[i].kind == k)
			return &t[i];
	return NULL;
}

static int changes;
static void changed(void *ctx, const struct ct_devmem_total *t, uint64_t ts)
{
	(void)ctx;
	(void)t;
	(void)ts;
	changes++;
}

int main(void)
{
	struct ct_devmem *m = ct_devmem_new(changed, NULL);
	const struct ct_devmem_total *v, *s;
	struct ct_rec ex = { .type = CT_REC_PROC_EXIT, .size = sizeof(ex), .pid = 10 };
	const uint64_t MiB = 1 << 20;

	nvos64 = ct_layout_find(CT_LAYOUT_ESCAPE, NV_ESC_RM_ALLOC, 48, 0);
	nvos00 = ct_layout_find(CT_LAYOUT_ESCAPE, NV_ESC_RM_FREE, 16, 0);
	if (!nvos64 || !nvos00 || !m) {
		ok(false, "layouts NVOS64 and NVOS00 found");
		return tap_done();
	}
	/* pid 10: client 0xc1 > device 0xd0 (gpu 0) > memory */
	alloc(m, 10, 0, 0xc1, 0xc1, 0xd0, "NV01_DEVICE_0", 0, 0);
	alloc(m, 10, 0, 0xc1, 0xd0, 0x101, "NV01_MEMORY_LOCAL_USER", 64 * MiB, 0);
	alloc(m, 10, 0, 0xc1, 0xd0, 0x102, "NV01_MEMORY_LOCAL_USER", 256 * MiB, 0);
	alloc(m, 10, 0, 0xc1, 0xd0, 0x103, "NV01_MEMORY_SYSTEM", 2 * MiB, 0);
	alloc(m, 10, 0, 0xc1, 0xd0, 0x104, "NV01_MEMORY_LOCAL_USER", 1 * MiB, 0x1f);
	v = total(m, 10, 0, CT_MEM_VIDEO);
	s = total(m, 10, 0, CT_MEM_SYSTEM);
	ok(v && v->held == 320 * MiB && v->allocs == 2, "video: two allocations, 320 MiB held "
	   "(the failed one not counted)");
	ok(s && s->held == 2 * MiB, "system: 2 MiB, a kind of its own");
	ok(changes == 3, "one change callback per allocation");
	rm_free(m, 10, 0xc1, 0x102);
	v = total(m, 10, 0, CT_MEM_VIDEO);
	ok(v->held == 64 * MiB && v->peak == 320 * MiB && v->peak_ns == 3000 + 10,
	   "RM_FREE of one: 64 MiB held, peak 320 MiB at the second allocation's end");
	ok(v->ntop == 2 && v->top[0].size == 256 * MiB && v->top[0].handle == 0x102 &&
	   v->top[0].freed_ns && !v->top[1].freed_ns && v->top[0].parent == 0xd0 &&
	   v->top[0].parent_class && !strcmp(v->top[0].parent_class, "NV01_DEVICE_0"),
	   "largest first, with its parent object and when it was freed");
	rm_free(m, 10, 0xc1, 0xd0);
	v = total(m, 10, 0, CT_MEM_VIDEO);
	s = total(m, 10, 0, CT_MEM_SYSTEM);
	ok(v->held == 0 && s->held == 0 && v->frees == 2 && s->frees == 1,
	   "freeing the device frees the memory under it");

	/* pid 11 on gpu 1: the client's free takes everything */
	alloc(m, 11, 1, 0xc2, 0xc2, 0xd1, "NV01_DEVICE_0", 0, 0);
	alloc(m, 11, 1, 0xc2, 0xd1, 0x201, "NV01_MEMORY_LOCAL_USER", 8 * MiB, 0);
	alloc(m, 11, 1, 0xc2, 0xd1, 0x202, "NV50_MEMORY_VIRTUAL", 4096 * MiB, 0);
	ok(total(m, 11, 1, CT_MEM_VIRTUAL)->held == 4096 * MiB, "virtual: its own kind");
	rm_free(m, 11, 0xc2, 0xc2);
	ok(total(m, 11, 1, CT_MEM_VIDEO)->held == 0 && total(m, 11, 1, CT_MEM_VIRTUAL)->held == 0,
	   "freeing the client frees all it held");

	/* pid 10 again, then its exit */
	alloc(m, 10, 0, 0xc3, 0xc3, 0xd2, "NV01_DEVICE_0", 0, 0);
	alloc(m, 10, 0, 0xc3, 0xd2, 0x301, "NV01_MEMORY_LOCAL_USER", 16 * MiB, 0);
	alloc(m, 10, 0, 0xc3, 0xd2, 0x302, "NV01_MEMORY_LOCAL_USER", 0, 0);
	v = total(m, 10, 0, CT_MEM_VIDEO);
	ok(v->held == 16 * MiB && v->unsized == 1, "an allocation without params: counted as "
	   "unsized, 0 bytes");
	ct_devmem_record(m, &ex);
	ok(total(m, 10, 0, CT_MEM_VIDEO)->held == 0, "the process's exit frees what it held");
	ok(!total(m, 10, 0, CT_MEM_VIDEO)->seen_start, "no exec or fork seen: seen_start false");
	/* pid 20 opens its session in the capture: its first call a root client */
	alloc(m, 20, 0, 0xc7, 0, 0xc7, "NV01_ROOT_CLIENT", 0, 0);
	alloc(m, 20, 0, 0xc7, 0xc7, 0xd7, "NV01_DEVICE_0", 0, 0);
	alloc(m, 20, 0, 0xc7, 0xd7, 0x701, "NV01_MEMORY_LOCAL_USER", 2 * MiB, 0);
	ok(total(m, 20, 0, CT_MEM_VIDEO)->seen_start, "first call allocates a root client: "
	   "seen_start true");
	{
		size_t before, after;
		int ch = changes;

		ct_devmem_totals(m, &before);
		rm_free(m, 12, 0xc9, 0x999);
		ct_devmem_totals(m, &after);
		ok(before == after && changes == ch, "a free of a handle never seen changes nothing");
	}
	ct_devmem_free(m);
	return tap_done();
}
