// SPDX-License-Identifier: MIT
/* --gpu-work's decoder (decoders/gpuwork/gpuwork.c) from bytes: the segments an
 * H100 really ran (traces/h100-gpuwork-accept.ctrace, recorded with the
 * program's own list of what it launched and copied: 161 launches, 46 copies), then every method
 * header form, the QMD versions and the semaphores, from hand-made
 * segments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "gpuwork.h"
#include "gwtables.h"
#include "tap.h"
#include "trace_file.h"

#define MAXEV 4096

static struct gw_event evs[MAXEV];
static int nev;

static void collect(void *ctx, const struct gw_event *e)
{
	(void)ctx;
	if (e->kind == GW_METHOD && e->name)
		return;   /* named plain methods: too many to keep, checked below */
	if (nev < MAXEV)
		evs[nev++] = *e;
}

static int count(enum gw_kind k)
{
	int n = 0;

	for (int i = 0; i < nev; i++)
		n += evs[i].kind == k;
	return n;
}

/* What gpuwork_accept printed: "launch GRID BLOCK", "copy BYTES". */
static void real_h100(void)
{
	unsigned grid[512], block[512], bytes[128];
	int nl = 0, nc = 0, matched_l = 0, matched_c = 0, bad_order = 0;
	struct gw_chan *chans[64] = { 0 };
	uint32_t handles[64];
	int nchan = 0, segs = 0;
	char line[128], err[256];
	FILE *f = fopen("traces/h100-gpuwork-accept.out", "r");
	struct ct_reader *r = ct_reader_open("traces/h100-gpuwork-accept.ctrace", err, sizeof(err));
	const void *rec;
	size_t len;

	if (!ok(f && r, "open the H100 acceptance trace and its program output"))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (nl < 512 && sscanf(line, "launch %u %u", &grid[nl], &block[nl]) == 2)
			nl++;
		else if (nc < 128 && sscanf(line, "copy %u", &bytes[nc]) == 1)
			nc++;
	}
	fclose(f);
	nev = 0;
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK) {
		const struct ct_gpu_seg *s = rec;
		int c;

		if (s->h.type != CT_REC_GPU_SEG || (s->flags & (CT_GS_LOST | CT_GS_FAULT)))
			continue;
		for (c = 0; c < nchan && handles[c] != s->channel; c++)
			;
		if (c == nchan && nchan < 64) {
			handles[nchan] = s->channel;
			chans[nchan++] = gw_chan_new(s->chan_class);
		}
		if (c < 64) {
			gw_decode(chans[c], (const uint32_t *)(s + 1), s->ndwords,
				  s->flags & CT_GS_TRUNC, collect, NULL);
			segs++;
		}
	}
	ct_reader_close(r);
	/* launches in program order, each with its grid and block */
	for (int i = 0, j = 0; i < nev; i++) {
		if (evs[i].kind != GW_LAUNCH)
			continue;
		if (j < nl && evs[i].grid[0] == grid[j] && evs[i].block[0] == block[j] &&
		    evs[i].grid[1] == 1 && evs[i].block[1] == 1 && evs[i].have_qmd)
			matched_l++;
		else
			bad_order++;
		j++;
	}
	for (int j = 0; j < nc; j++)
		for (int i = 0; i < nev; i++)
			if (evs[i].kind == GW_COPY && evs[i].bytes == bytes[j]) {
				matched_c++;
				break;
			}
	ok(segs > 300, "%d recorded H100 segments decoded", segs);
	ok(nl == 161 && matched_l == nl && bad_order == 0,
	   "all %d launches, in order, with grid and block (%d matched, %d not)", nl, matched_l,
	   bad_order);
	ok(count(GW_EMPTY_QMD) == nl, "one grid-0 QMD scheduled with each launch (%d)",
	   count(GW_EMPTY_QMD));
	ok(nc == 46 && matched_c == nc, "all %d copies by size (%d matched)", nc, matched_c);
	ok(count(GW_BAD) == 0, "no bad header in whole segments (%d)", count(GW_BAD));
	for (int c = 0; c < nchan; c++)
		gw_chan_free(chans[c]);
}

static uint32_t hdr(uint32_t op, uint32_t n, uint32_t subch, uint32_t method)
{
	return op << 29 | n << 16 | subch << 13 | method >> 2;
}

static uint32_t method(uint32_t cls, const char *name)
{
	uint32_t m = 0;

	if (!gw_method_find(cls, name, &m))
		ok(0, "class 0x%x has %s", cls, name);
	return m;
}

static void forms(void)
{
	const uint32_t host = 0xc86f, comp = 0xcbc0, copy = 0xc8b5;
	uint32_t seg[64], n = 0, ll = method(copy, "LINE_LENGTH_IN");
	struct gw_chan *c = gw_chan_new(host);

	nev = 0;
	seg[n++] = hdr(1, 1, 4, 0);          /* INC SET_OBJECT copy on 4 */
	seg[n++] = copy;
	seg[n++] = hdr(1, 4, 4, method(copy, "OFFSET_IN_UPPER"));
	seg[n++] = 0x1; seg[n++] = 0x2000; seg[n++] = 0x3; seg[n++] = 0x4000;
	seg[n++] = hdr(5, 2, 4, ll);         /* ONE_INC: LINE_LENGTH_IN then LINE_COUNT */
	seg[n++] = 100; seg[n++] = 7;
	seg[n++] = hdr(1, 1, 4, method(copy, "LAUNCH_DMA"));
	seg[n++] = 2 | 1u << 9;              /* NON_PIPELINED, MULTI_LINE_ENABLE */
	seg[n++] = hdr(4, 5, 4, ll);         /* IMMD: LINE_LENGTH_IN = 5 */
	seg[n++] = hdr(3, 2, 4, method(copy, "LAUNCH_DMA"));   /* NON_INC: two launches */
	seg[n++] = 2; seg[n++] = 2 | 1u << 10;                 /* the second a fill */
	seg[n++] = 0;                        /* NOP */
	seg[n++] = 7u << 29;                 /* END_PB_SEGMENT */
	seg[n++] = hdr(1, 1, 4, method(copy, "LAUNCH_DMA"));   /* never read */
	seg[n++] = 2;
	gw_decode(c, seg, n, false, collect, NULL);
	ok(nev == 4 && evs[0].kind == GW_BIND && evs[0].cls == copy && evs[0].engine == GW_ENG_COPY,
	   "SET_OBJECT binds the copy class to subchannel 4 (%d events)", nev);
	ok(count(GW_COPY) == 3, "three copies, nothing after END_PB_SEGMENT (%d)", count(GW_COPY));
	for (int i = 0; i < nev; i++)
		if (evs[i].kind == GW_COPY) {
			ok(evs[i].src == 0x100002000ull && evs[i].dst == 0x300004000ull,
			   "copy source and destination from OFFSET_IN/OUT");
			break;
		}
	{
		int k = 0;
		uint64_t want[3] = { 700, 5, 5 };
		bool fill[3] = { false, false, true };

		for (int i = 0; i < nev; i++)
			if (evs[i].kind == GW_COPY) {
				ok(evs[i].bytes == want[k] && evs[i].fill == fill[k],
				   "copy %d: %llu bytes%s (multi-line 100 x 7, then immediate 5)", k,
				   (unsigned long long)evs[i].bytes, evs[i].fill ? ", fill" : "");
				k++;
			}
	}
	/* a count past the end, then a reserved opcode */
	nev = 0;
	n = 0;
	seg[n++] = hdr(1, 100, 4, ll);
	seg[n++] = 1;
	gw_decode(c, seg, n, false, collect, NULL);
	ok(nev >= 1 && evs[0].kind == GW_BAD, "a count past the segment's end is BAD");
	nev = 0;
	seg[0] = 6u << 29;
	gw_decode(c, seg, 1, false, collect, NULL);
	ok(nev == 1 && evs[0].kind == GW_BAD, "a reserved opcode is BAD, decoding stops");
	gw_chan_free(c);

	/* host semaphore, 64-bit payload */
	c = gw_chan_new(host);
	nev = 0;
	n = 0;
	seg[n++] = hdr(1, 5, 0, method(host, "SEM_ADDR_LO"));
	seg[n++] = 0x10; seg[n++] = 0x2; seg[n++] = 0x5f; seg[n++] = 0x1;
	seg[n++] = 1 | 1u << 24;             /* RELEASE, 64-bit payload */
	gw_decode(c, seg, n, false, collect, NULL);
	ok(nev == 1 && evs[0].kind == GW_SEMAPHORE && evs[0].sem_addr == 0x200000010ull &&
	   evs[0].payload == 0x10000005full && evs[0].name && !strcmp(evs[0].name, "RELEASE"),
	   "host SEM_EXECUTE RELEASE 0x200000010=0x10000005f (%d events, kind %d, 0x%llx=0x%llx %s)",
	   nev, evs[0].kind, (unsigned long long)evs[0].sem_addr,
	   (unsigned long long)evs[0].payload, evs[0].name ? evs[0].name : "-");
	/* unknown method, unbound subchannel */
	nev = 0;
	seg[0] = hdr(4, 3, 6, 0x3ff0);
	gw_decode(c, seg, 1, false, collect, NULL);
	ok(nev == 1 && evs[0].kind == GW_METHOD && !evs[0].name && evs[0].method == 0x3ff0 &&
	   evs[0].data == 3, "a method on an unbound subchannel is kept by number");
	gw_chan_free(c);

	/* a segment that cannot be a method stream changes nothing */
	c = gw_chan_new(host);
	n = 0;
	seg[n++] = hdr(1, 1, 1, 0);
	seg[n++] = comp;
	gw_decode(c, seg, n, false, collect, NULL);
	nev = 0;
	n = 0;
	seg[n++] = hdr(1, 1, 1, 0);          /* SET_OBJECT of garbage on the compute subchannel */
	seg[n++] = 0xdead7777;
	seg[n++] = hdr(4, 5, 4, ll);
	gw_decode(c, seg, n, false, collect, NULL);
	ok(nev == 1 && evs[0].kind == GW_BAD && gw_chan_subch_class(c, 1) == comp,
	   "SET_OBJECT of a class no driver has: one BAD, the binding stays (%d events, 0x%x)", nev,
	   gw_chan_subch_class(c, 1));
	/* a segment cut at the bound: its last method's count runs past, no BAD */
	nev = 0;
	n = 0;
	seg[n++] = hdr(1, 1, 1, method(comp, "SEND_PCAS_A"));
	seg[n++] = 0x1234;
	seg[n++] = hdr(3, 50, 1, 0x3ff0);
	seg[n++] = 1;
	gw_decode(c, seg, n, true, collect, NULL);
	ok(count(GW_BAD) == 0 && count(GW_METHOD) == 1,
	   "a cut segment decodes up to the cut (%d bad, %d unnamed methods)", count(GW_BAD),
	   count(GW_METHOD));
	nev = 0;
	gw_decode(c, seg, n, false, collect, NULL);
	ok(nev == 1 && evs[0].kind == GW_BAD, "the same, not cut: one BAD and nothing else");
	gw_chan_free(c);
}

int main(void)
{
	real_h100();
	forms();
	return tap_done();
}
