// SPDX-License-Identifier: MIT
/* --gpu-work's channel learning (capture/gpuwork/gpuwork_chans.c) on a real H100
 * trace: every HOPPER_CHANNEL_GPFIFO_A allocation of saxpy becomes a ring
 * with its GPFIFO and a USERD address inside the mmap of its USERD memory
 * object; RM_FREE and the exit take them away. */
#include <stdlib.h>
#include <string.h>

#include "gpuwork_chans.h"
#include "records.h"
#include "tap.h"
#include "trace_file.h"

#define NV_ESC_RM_ALLOC_NR 0x2b
#define CHAN_HANDLE 0x5c00001cu

/* A successful RM_ALLOC of HOPPER_CHANNEL_GPFIFO_A (0xc86f) whose params,
 * laid out as the layout of size `size` at driver drv, name a ring at
 * 0x200600000 of 1024 entries and USERD 0x5c000017 + 8192; only `copied`
 * bytes of them were read. */
static bool alloc_channel(struct gw_chans *c, uint32_t drv, uint32_t size, uint32_t copied,
			  uint32_t flags)
{
	const struct ct_layout *all[16], *pl = NULL, *al;
	unsigned char params[512] = { 0 }, arg[64] = { 0 };
	size_t n = ct_layout_sizes(CT_LAYOUT_ALLOC, 0xc86f, drv, all, 16);
	struct ct_ioctl *ex;

	for (size_t i = 0; i < n && i < 16; i++)
		if (all[i]->size == size)
			pl = all[i];
	al = ct_layout_find(CT_LAYOUT_ESCAPE, NV_ESC_RM_ALLOC_NR, 48, drv);
	if (!pl || !al)
		return ok(0, "layouts of %u bytes at %u", size, drv), false;
	put_field(pl, params, "gpFifoOffset", 0x200600000ull);
	put_field(pl, params, "gpFifoEntries", 1024);
	put_field(pl, params, "hUserdMemory[0]", 0x5c000017);
	put_field(pl, params, "userdOffset[0]", 8192);
	put_field(al, arg, "hRoot", 0xc1d0001d);
	put_field(al, arg, "hObjectNew", CHAN_HANDLE);
	put_field(al, arg, "hClass", 0xc86f);
	ex = (struct ct_ioctl *)ioctl_rec(CT_REC_IOCTL_EXIT, 1000, REQ(NV_ESC_RM_ALLOC_NR, 48), arg,
					  48, params, copied, 0);
	ex->flags = flags;
	c->driver = drv;
	return gw_chans_learn(c, &ex->h);
}

/* Channel allocations of other drivers' layouts, and those that cannot be
 * followed: said and counted. */
static void layouts_by_driver(void)
{
	struct gw_chans c = { 0 };
	uint32_t v610 = ct_driver_version("610.43.02"), v580 = ct_driver_version("580.159.04");
	const struct ct_layout *l610 = ct_layout_find(CT_LAYOUT_ALLOC, 0xc86f, 376, v610);
	const struct ct_field *hva = ct_layout_field(l610, "hHandleVASpace"),
			      *hum = ct_layout_field(l610, "hUserdMemory[0]"),
			      *uo = ct_layout_field(l610, "userdOffset[0]"),
			      *tpc = ct_layout_field(l610, "tpcConfigID");

	/* gVisor's classes.go NV_CHANNEL_ALLOC_PARAMS_V610, laid out by hand */
	ok(l610 && hva && hum && uo && tpc && hva->offset == 0x20 && hum->offset == 0x24 &&
	   uo->offset == 0x48 && tpc->offset == 0x170,
	   "610's NV_CHANNEL_ALLOC_PARAMS: hHandleVASpace 0x20, hUserdMemory[0] 0x24, "
	   "userdOffset[0] 0x48, tpcConfigID 0x170, 376 bytes");

	ok(alloc_channel(&c, v610, 376, 368, 0) && c.nrings == 1 &&
	   c.rings[0].userd_mem == 0x5c000017 && c.rings[0].userd_off == 8192 &&
	   c.rings[0].ring_va == 0x200600000ull && c.rings[0].entries == 1024,
	   "610.43.02: the 376-byte layout (hUserdMemory at 0x24, userdOffset at 0x48), read "
	   "from the 368 bytes the class table copies");
	ok(alloc_channel(&c, v580, 368, 368, 0) && c.nrings == 2 &&
	   c.rings[1].userd_mem == 0x5c000017 && c.rings[1].userd_off == 8192,
	   "580.159.04: the 368-byte layout");
	ok(c.unfollowed == 0, "nothing said so far");
	ok(!alloc_channel(&c, ct_driver_version("620.10.01"), 376, 376, 0) && c.unfollowed == 1 &&
	   strstr(c.unfollowed_why, "newer than every NV_CHANNEL_ALLOC_PARAMS layout"),
	   "620.10.01, newer than every layout: not followed, said: %s", c.unfollowed_why);
	ok(!alloc_channel(&c, v580, 368, 24, CT_F_NEST_TRUNC) && c.unfollowed == 2 &&
	   strstr(c.unfollowed_why, "24 bytes of its parameters were read"),
	   "24 bytes read: not followed, said: %s", c.unfollowed_why);
	ok(!alloc_channel(&c, 0, 368, 372, 0) && c.unfollowed == 3 &&
	   strstr(c.unfollowed_why, "no NV_CHANNEL_ALLOC_PARAMS of that size"),
	   "driver unknown, 372 bytes: not followed, said: %s", c.unfollowed_why);
	gw_chans_report(&c);
	gw_chans_free(&c);
}

int main(void)
{
	struct gw_chans c = { 0 };
	char err[256];
	struct ct_reader *r = ct_reader_open("traces/h100-saxpy.ctrace", err, sizeof(err));
	const void *rec;
	size_t len, learned = 0, resolved = 0, max_rings = 0, i;
	bool exited = false;

	if (!ok(r != NULL, "open traces/h100-saxpy.ctrace %s", r ? "" : err))
		return tap_done();
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK) {
		const struct ct_rec *h = rec;

		if (h->type == CT_REC_PROC_EXIT && c.nrings) {
			/* before the exit record takes them: check what was learned */
			for (i = 0; i < c.nrings; i++)
				resolved += gw_chans_resolve(&c, &c.rings[i]);
			exited = true;
		}
		learned += gw_chans_learn(&c, h);
		gw_chans_sweep(&c);
		if (c.nrings > max_rings)
			max_rings = c.nrings;
		if (learned == 1 && c.nrings == 1 && c.rings[0].userd_cpu == 0) {
			struct gw_ring *g = &c.rings[0];

			ok(g->cls == 0xc86f && g->entries == 1024 && g->ring_va == 0x200600000ull &&
			   g->userd_mem == 0x5c000017 && g->userd_off == 8192 && g->gpu == 0,
			   "first channel: class 0x%x, %u entries at 0x%llx, USERD 0x%x + %llu, GPU %d",
			   g->cls,
			   g->entries, (unsigned long long)g->ring_va, g->userd_mem,
			   (unsigned long long)g->userd_off, g->gpu);
			bool found = gw_chans_resolve(&c, g);

			ok(found && g->userd_cpu == 0x200602000ull,
			   "its USERD is at 0x%llx in the process (mmap of 0x5c000017 at 0x200600000)",
			   (unsigned long long)g->userd_cpu);
		}
	}
	ct_reader_close(r);
	ok(learned >= 8, "%zu channels learned", learned);
	ok(exited && resolved > 0, "%zu USERD mappings resolved while the process lived", resolved);
	ok(c.nrings == 0, "none left after the exit (%zu)", c.nrings);
	gw_chans_free(&c);
	layouts_by_driver();
	return tap_done();
}
