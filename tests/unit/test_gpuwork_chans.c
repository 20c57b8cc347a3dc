// SPDX-License-Identifier: MIT
/* --gpu-work's channel learning (capture/gpuwork/gpuwork_chans.c) on a real H100
 * trace: every HOPPER_CHANNEL_GPFIFO_A allocation of saxpy becomes a ring
 * with its GPFIFO and a USERD address inside the mmap of its USERD memory
 * object; RM_FREE and the exit take them away. */
#include <stdlib.h>
#include <string.h>

#include "gpuwork_chans.h"
#include "tap.h"
#include "trace_file.h"

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
	return tap_done();
}
