// SPDX-License-Identifier: MIT
/* --gpu-work's QMD chains and clusters (decoders/gpuwork/gpuwork_qmd.c,
 * gpuwork_qmds.c): the segments an H200 really ran
 * (traces/h200-probe-graph.ctrace, with the program's own list of its
 * launches) give every launch in order, the cluster launch's grid in
 * blocks with its cluster, and a graph launched 4 times as 4 x its 3
 * kernels; then hand-made QMDs: a cluster shape, chains that loop, lead
 * nowhere or to a null pointer, fan out, are too long, and a memory of
 * QMDs that fills up; a launch's parameters in its constant bank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "gpuwork.h"
#include "gpuwork_qmds.h"
#include "gwtables.h"
#include "tap.h"
#include "trace_file.h"

#define MAXEV 4096
#define QMD_DW 96           /* V04_00: bits 0..3071 */
#define SCOPE "qmd:cbc0:04_00"

static struct gw_event evs[MAXEV];
static int nev;

static void collect(void *ctx, const struct gw_event *e)
{
	(void)ctx;
	if (e->kind == GW_METHOD || e->kind == GW_GP || e->kind == GW_SEMAPHORE ||
	    e->kind == GW_BIND)
		return;
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

struct want { unsigned g[3], b[3], c[3], graph; };

static int read_manifest(struct want *w, int max)
{
	FILE *f = fopen("traces/h200-probe-graph.out", "r");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (n < max && sscanf(line, "launch %u %u %u %u %u %u %u %u %u %u", &w[n].g[0],
				      &w[n].g[1], &w[n].g[2], &w[n].b[0], &w[n].b[1], &w[n].b[2],
				      &w[n].c[0], &w[n].c[1], &w[n].c[2], &w[n].graph) == 10)
			n++;
	fclose(f);
	return n;
}

static bool same(const struct gw_event *e, const struct want *w)
{
	for (int i = 0; i < 3; i++)
		if (e->grid[i] != w->g[i] || e->block[i] != w->b[i] || e->cluster[i] != w->c[i])
			return false;
	return e->graph_launch == w->graph && (w->graph != 0) == (e->graph != 0);
}

/* The recorded segments, each channel decoded in order, one process's QMDs. */
static void decode_trace(const char *path)
{
	struct gw_chan *chans[64] = { 0 };
	struct gw_qmds *q = gw_qmds_new();
	uint32_t handles[64];
	int nchan = 0;
	char err[256];
	struct ct_reader *r = ct_reader_open(path, err, sizeof(err));
	const void *rec;
	size_t len;

	nev = 0;
	if (!ok(r && q, "open %s %s", path, r ? "" : err))
		return;
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
			gw_chan_set_qmds(chans[c], q);
		}
		if (c < 64)
			gw_decode(chans[c], (const uint32_t *)(s + 1), s->ndwords,
				  s->flags & CT_GS_TRUNC, collect, NULL);
	}
	ct_reader_close(r);
	for (int c = 0; c < nchan; c++)
		gw_chan_free(chans[c]);
	gw_qmds_free(q);
}

static void real_h200(void)
{
	struct want w[64];
	int nw = read_manifest(w, 64), j = 0, graphs = 0, heads_ok = 0;

	decode_trace("traces/h200-probe-graph.ctrace");
	ok(nw == 23, "the manifest lists 11 launches and 4 x 3 graph kernels (%d)", nw);
	/* The program's launches, in order, among CUDA's own (its memset and
	 * copy kernels, which the manifest does not list). */
	for (int i = 0; i < nev && j < nw; i++)
		if (evs[i].kind == GW_LAUNCH && same(&evs[i], &w[j]))
			j++;
	ok(j == nw, "every launch of the manifest, in order, with grid (in blocks), block, "
		    "cluster and graph launch (%d of %d)", j, nw);
	for (int i = 0; i < nev; i++) {
		if (evs[i].kind != GW_GRAPH)
			continue;
		graphs++;
		heads_ok += evs[i].graph_launch == (unsigned)graphs && evs[i].graph_kernels == 3 &&
			    evs[i].graph_unseen == 0 && evs[i].qmd == 0x204c00000ull &&
			    i + 3 < nev && evs[i + 1].graph_launch == evs[i].graph_launch &&
			    evs[i + 3].graph_launch == evs[i].graph_launch;
	}
	ok(graphs == 4 && heads_ok == 4, "4 graph launches, numbered 1 to 4, each followed by "
	   "its 3 kernels (%d, %d right)", graphs, heads_ok);
	ok(count(GW_LAUNCH) == 20 + 12, "20 stream launches (CUDA's own included) + 12 graph "
	   "kernels (%d)", count(GW_LAUNCH));
	ok(count(GW_QMD_LOAD) == 3, "the graph's 3 QMDs sent at its first launch are not "
	   "launches (REQUIRE_SCHEDULING_PCAS) (%d)", count(GW_QMD_LOAD));
	ok(count(GW_EMPTY_QMD) == 20, "one stream-order GRID_NULL QMD with each stream launch "
	   "(%d)", count(GW_EMPTY_QMD));
	ok(count(GW_UNSEEN) == 0 && count(GW_BAD) == 0, "nothing unseen, nothing bad (%d, %d)",
	   count(GW_UNSEEN), count(GW_BAD));
	for (int i = 0; i < nev; i++)
		if (evs[i].kind == GW_EMPTY_QMD) {
			ok(evs[i].qmd_type && !strcmp(evs[i].qmd_type, "GRID_NULL") &&
			   evs[i].dep_counter == 2 && evs[i].ndeps == 1 && evs[i].deps[0].schedules,
			   "a stream-order QMD: GRID_NULL, waits for 2, then %s 0x%llx",
			   evs[i].deps[0].action ? evs[i].deps[0].action : "?",
			   (unsigned long long)evs[i].deps[0].qmd);
			break;
		}
}

/* --- hand-made QMDs --------------------------------------------------------- */

static uint32_t hdr(uint32_t op, uint32_t n, uint32_t subch, uint32_t method)
{
	return op << 29 | n << 16 | subch << 13 | method >> 2;
}

static uint32_t method(const char *name)
{
	uint32_t m = 0;

	if (!gw_method_find(0xcbc0, name, &m))
		ok(0, "HOPPER_COMPUTE_A has %s", name);
	return m;
}

static void set(uint32_t *q, const char *field, uint64_t v)
{
	const struct gw_field *f = gw_field_find(SCOPE, field);

	if (!f) {
		ok(0, "the tables have %s of %s", field, SCOPE);
		return;
	}
	for (uint32_t b = f->lo; b <= f->hi; b++, v >>= 1)
		q[b / 32] = (q[b / 32] & ~(1u << (b % 32))) | (uint32_t)(v & 1) << (b % 32);
}

static uint32_t value(const char *name)
{
	uint32_t v = 0;

	if (!gw_value_find(SCOPE, name, &v))
		ok(0, "the tables have %s of %s", name, SCOPE);
	return v;
}

/* A V04_00 QMD: grid, block 32, and dependents (0: none). */
static void qmd(uint32_t *q, uint32_t gx, uint64_t dep0, uint64_t dep1, bool require)
{
	memset(q, 0, QMD_DW * 4);
	set(q, "QMD_MAJOR_VERSION", 4);
	set(q, "QMD_TYPE", value("QMD_TYPE_GRID_CTA"));
	set(q, "GRID_WIDTH", gx);
	set(q, "GRID_HEIGHT", 1);
	set(q, "GRID_DEPTH", 1);
	set(q, "CTA_THREAD_DIMENSION0", 32);
	set(q, "CTA_THREAD_DIMENSION1", 1);
	set(q, "CTA_THREAD_DIMENSION2", 1);
	set(q, "REQUIRE_SCHEDULING_PCAS", require);
	if (dep0) {
		set(q, "DEPENDENT_QMD_ENABLE(0)", 1);
		set(q, "DEPENDENT_QMD_ACTION(0)", value("DEPENDENT_QMD_ACTION_QMD_SCHEDULE"));
		set(q, "DEPENDENT_QMD0_POINTER", dep0 >> 8);
	}
	if (dep1) {
		set(q, "DEPENDENT_QMD_ENABLE(1)", 1);
		set(q, "DEPENDENT_QMD_ACTION(1)", value("DEPENDENT_QMD_ACTION_QMD_SCHEDULE"));
		set(q, "DEPENDENT_QMD1_POINTER", dep1 >> 8);
	}
}

struct seg { uint32_t dw[8192]; uint32_t n; };

/* n dwords (n < 4096: one non-incrementing method header) inline to addr. */
static void upload_n(struct seg *s, uint64_t addr, const uint32_t *dw, uint32_t n)
{
	s->dw[s->n++] = hdr(1, 4, 1, method("LINE_LENGTH_IN"));
	s->dw[s->n++] = n * 4;
	s->dw[s->n++] = 1;
	s->dw[s->n++] = (uint32_t)(addr >> 32);
	s->dw[s->n++] = (uint32_t)addr;
	s->dw[s->n++] = hdr(1, 1, 1, method("LAUNCH_DMA"));
	s->dw[s->n++] = 0x41;
	s->dw[s->n++] = hdr(3, n, 1, method("LOAD_INLINE_DATA"));
	memcpy(s->dw + s->n, dw, (size_t)n * 4);
	s->n += n;
}

static void upload(struct seg *s, uint64_t addr, const uint32_t *q)
{
	upload_n(s, addr, q, QMD_DW);
}

static void send(struct seg *s, uint64_t addr)
{
	s->dw[s->n++] = hdr(1, 1, 1, method("SEND_PCAS_A"));
	s->dw[s->n++] = (uint32_t)(addr >> 8);
	s->dw[s->n++] = hdr(1, 1, 1, method("SEND_SIGNALING_PCAS2_B"));
	s->dw[s->n++] = 0xa;   /* INVALIDATE_PREFETCH_COPY_SCHEDULE, as CUDA */
}

static struct gw_chan *channel(struct gw_qmds *q)
{
	struct gw_chan *c = gw_chan_new(0xc86f);
	uint32_t bind[2] = { hdr(1, 1, 1, 0), 0xcbc0 };

	gw_chan_set_qmds(c, q);
	gw_decode(c, bind, 2, false, collect, NULL);
	return c;
}

static struct seg seg;

static void run(struct gw_chan *c)
{
	nev = 0;
	gw_decode(c, seg.dw, seg.n, false, collect, NULL);
	seg.n = 0;
}

static void cluster(void)
{
	struct gw_qmds *m = gw_qmds_new();
	struct gw_chan *c = channel(m);
	uint32_t q[QMD_DW];

	qmd(q, 4, 0, 0, false);
	set(q, "QMD_TYPE", value("QMD_TYPE_GRID_GPC_CGA"));
	set(q, "GRID_HEIGHT", 3);
	set(q, "GPC_CGA_WIDTH", 2);
	set(q, "GPC_CGA_HEIGHT", 2);
	set(q, "GPC_CGA_DEPTH", 1);
	upload(&seg, 0x204e00000ull, q);
	send(&seg, 0x204e00000ull);
	run(c);
	ok(nev == 1 && evs[0].kind == GW_LAUNCH && evs[0].grid[0] == 8 && evs[0].grid[1] == 6 &&
	   evs[0].grid[2] == 1 && evs[0].cluster[0] == 2 && evs[0].cluster[1] == 2 &&
	   evs[0].cluster[2] == 1, "a cluster QMD: grid (4,3,1) of clusters (2,2,1) is (%u,%u,%u) "
	   "blocks", evs[0].grid[0], evs[0].grid[1], evs[0].grid[2]);
	/* a hostile one: the product does not fit, it saturates */
	set(q, "GRID_WIDTH", 0xffffffffu);
	set(q, "GPC_CGA_WIDTH", 63);
	upload(&seg, 0x204e00000ull, q);
	send(&seg, 0x204e00000ull);
	run(c);
	ok(nev == 1 && evs[0].grid[0] == 0xffffffffu && evs[0].cluster[0] == 63,
	   "a grid times cluster past 32 bits saturates (%u)", evs[0].grid[0]);
	/* only part of a shape: no clusters */
	qmd(q, 5, 0, 0, false);
	set(q, "GPC_CGA_WIDTH", 2);
	upload(&seg, 0x204e00000ull, q);
	send(&seg, 0x204e00000ull);
	run(c);
	ok(nev == 1 && evs[0].grid[0] == 5 && evs[0].cluster[0] == 0,
	   "a shape with a 0 dimension is no cluster (grid %u)", evs[0].grid[0]);
	gw_chan_free(c);
	gw_qmds_free(m);
}

/*
 * Parameters: CUDA uploads constant bank 0's start, then the parameters
 * past it, then the QMD naming the bank, then sends it (H200, 580.159.04).
 * Only an upload into the bank that comes after the bank's own is this
 * launch's: an older one belongs to an earlier launch of the same bank.
 */
#define BANK 0x7f2c52280000ull
#define BANK_QMD 0x204e0c000ull

static void launch_with_bank(uint32_t valid, uint32_t size, const uint32_t *params, uint32_t n,
			     uint64_t params_at)
{
	static uint32_t head[132], q[QMD_DW];

	upload_n(&seg, BANK, head, 132);
	if (params)
		upload_n(&seg, BANK + params_at, params, n);
	qmd(q, 7, 0, 0, false);
	set(q, "CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0)", (BANK >> 6) & 0xffffffffu);
	set(q, "CONSTANT_BUFFER_ADDR_UPPER_SHIFTED6(0)", BANK >> 38);
	set(q, "CONSTANT_BUFFER_SIZE_SHIFTED4(0)", size >> 4);
	set(q, "CONSTANT_BUFFER_VALID(0)", valid);
	upload(&seg, BANK_QMD, q);
	send(&seg, BANK_QMD);
}

static void parameters(void)
{
	struct gw_qmds *m = gw_qmds_new();
	struct gw_chan *c = channel(m);
	static uint32_t p[300];

	for (uint32_t i = 0; i < 300; i++)
		p[i] = 0x11110000u + i;
	launch_with_bank(1, 0x300, p, 3, 0x210);
	run(c);
	ok(nev == 1 && evs[0].cbank0 == BANK && evs[0].cbank0_size == 0x300 && evs[0].params &&
	   evs[0].params_at == 0x210 && evs[0].params_ndw == 3 && !evs[0].params_cut &&
	   !memcmp(evs[0].params, p, 12), "a launch's parameters: 3 dwords at 0x210 of its bank");
	launch_with_bank(1, 0x300, NULL, 0, 0);
	run(c);
	ok(nev == 1 && evs[0].cbank0 == BANK && !evs[0].params,
	   "the next launch of the same bank wrote none: the older ones are not its");
	{
		const struct gw_qmd_slot *k = gw_qmds_get(m, BANK_QMD);

		ok(k && k->pn == 0, "its QMD, kept for graphs, keeps no parameters of the launch before");
	}
	launch_with_bank(1, 0x300, p, 5, 0x210);
	run(c);
	{
		const struct gw_qmd_slot *k = gw_qmds_get(m, BANK_QMD);

		ok(k && k->pn == 5 && k->p_at == 0x210 && !k->p_cut && !memcmp(k->pdw, p, 20),
		   "a QMD kept for graphs keeps the parameters uploaded with it");
	}
	launch_with_bank(1, 0x2000, p, 300, 0x210);
	run(c);
	ok(nev == 1 && evs[0].params && evs[0].params_ndw == GW_UPLOAD_KEEP_DW &&
	   evs[0].params_cut && evs[0].params[GW_UPLOAD_KEEP_DW - 1] == p[GW_UPLOAD_KEEP_DW - 1],
	   "1,200 bytes of parameters: the first %d dwords kept, said cut", GW_UPLOAD_KEEP_DW);
	launch_with_bank(1, 0x300, p, 3, 0x300);
	run(c);
	ok(nev == 1 && !evs[0].params, "an upload past the bank's end is not its parameters");
	launch_with_bank(0, 0x300, p, 3, 0x210);
	run(c);
	ok(nev == 1 && !evs[0].cbank0 && !evs[0].params, "a bank not valid: no parameters");
	launch_with_bank(1, 0, p, 3, 0x210);
	run(c);
	ok(nev == 1 && !evs[0].params, "a bank of size 0: no parameters");
	gw_chan_free(c);
	gw_qmds_free(m);
}

#define A(i) (0x300000000ull + 0x200ull * (uint64_t)(i))

static void graphs(void)
{
	struct gw_qmds *m = gw_qmds_new();
	struct gw_chan *c = channel(m);
	uint32_t q[QMD_DW];
	int i;

	/* head -> 1 -> 2 -> 1 (a loop): each started once, and it ends */
	qmd(q, 0, A(1), 0, false);
	upload(&seg, A(0), q);
	qmd(q, 11, A(2), 0, true);
	upload(&seg, A(1), q);
	qmd(q, 12, A(1), 0, true);
	upload(&seg, A(2), q);
	send(&seg, A(0));
	run(c);
	ok(nev == 3 && evs[0].kind == GW_GRAPH && evs[0].graph_kernels == 2 &&
	   evs[1].kind == GW_LAUNCH && evs[1].grid[0] == 11 && evs[2].grid[0] == 12 &&
	   evs[1].graph_launch == 1 && evs[2].graph == A(0),
	   "a chain that loops: each QMD started once (%d events)", nev);
	/* sent again: launch 2 */
	send(&seg, A(0));
	send(&seg, A(0));
	run(c);
	ok(nev == 6 && evs[3].kind == GW_GRAPH && evs[3].graph_launch == 3 &&
	   evs[5].graph_launch == 3, "sent twice more: graph launches 2 and 3");
	/* re-uploaded with other bytes: another graph, numbered from 1 */
	qmd(q, 0, A(2), 0, false);
	upload(&seg, A(0), q);
	send(&seg, A(0));
	run(c);
	ok(nev >= 1 && evs[0].kind == GW_GRAPH && evs[0].graph_launch == 1,
	   "another head uploaded at the same address starts from launch 1 (%u)",
	   nev ? evs[0].graph_launch : 0);
	/* pointers to nowhere: a QMD never uploaded, and a null pointer */
	qmd(q, 0, A(100), 0, false);
	upload(&seg, A(3), q);
	set(q, "DEPENDENT_QMD_ENABLE(1)", 1);
	set(q, "DEPENDENT_QMD_ACTION(1)", value("DEPENDENT_QMD_ACTION_QMD_SCHEDULE"));
	upload(&seg, A(4), q);
	send(&seg, A(3));
	send(&seg, A(4));
	run(c);
	ok(nev == 5 && evs[0].kind == GW_GRAPH && evs[0].graph_unseen == 1 &&
	   evs[1].kind == GW_UNSEEN && evs[1].qmd == A(100) && evs[1].name &&
	   strstr(evs[1].name, "not seen uploaded") && evs[2].graph_unseen == 2 &&
	   evs[4].kind == GW_UNSEEN && evs[4].qmd == 0,
	   "a chain to a QMD not uploaded, and to a null pointer: UNSEEN-QMD, said and counted "
	   "(%d events)", nev);
	/* a head whose send does not start it: QMD-LOAD, nothing followed */
	qmd(q, 0, A(1), 0, true);
	upload(&seg, A(5), q);
	send(&seg, A(5));
	run(c);
	ok(nev == 1 && evs[0].kind == GW_QMD_LOAD, "a REQUIRE_SCHEDULING_PCAS QMD sent: "
	   "QMD-LOAD, its chain not followed");
	/* a head that waits (DEPENDENCE_COUNTER): not followed at its send */
	qmd(q, 0, A(1), 0, false);
	set(q, "DEPENDENCE_COUNTER", 2);
	upload(&seg, A(6), q);
	send(&seg, A(6));
	run(c);
	ok(nev == 1 && evs[0].kind == GW_EMPTY_QMD && evs[0].dep_counter == 2,
	   "a QMD that waits for 2: EMPTY-QMD, its SCHEDULE shown, not followed");
	/* a wide graph: every node schedules the next two (duplicates galore) */
	for (i = 1; i <= 600; i++) {
		qmd(q, (uint32_t)i, A(1000 + i + 1), A(1000 + i + 2), true);
		if (i >= 599)
			qmd(q, (uint32_t)i, 0, 0, true);
		upload(&seg, A(1000 + i), q);
		if (seg.n > 8192 - 200)
			run(c);
	}
	qmd(q, 0, A(1001), A(1002), false);
	upload(&seg, A(1000), q);
	send(&seg, A(1000));
	run(c);
	ok(count(GW_GRAPH) == 1 && count(GW_LAUNCH) == 600 && count(GW_UNSEEN) == 0,
	   "a graph of 600 nodes, each reached twice: 600 launches, each once (%d)",
	   count(GW_LAUNCH));
	gw_chan_free(c);
	gw_qmds_free(m);
}

/* The memory of QMDs: bounded, counted when full; a very long chain. */
static void memory(void)
{
	struct gw_qmds *m = gw_qmds_new();
	struct gw_chan *c = channel(m);
	uint32_t q[QMD_DW];
	uint32_t i, kept = 0;

	for (i = 0; i < GW_QMDS_MAX + 10; i++) {
		qmd(q, i + 1, i + 1 < GW_QMDS_MAX + 10 ? A(i + 1) : 0, 0, true);
		upload(&seg, A(i), q);
		if (seg.n > 8192 - 200)
			run(c);
	}
	run(c);
	for (i = 0; i < GW_QMDS_MAX + 10; i++)
		kept += gw_qmds_get(m, A(i)) != NULL;
	ok(gw_qmds_count(m) == GW_QMDS_MAX && kept == GW_QMDS_MAX && gw_qmds_not_kept(m) == 10,
	   "%u QMDs kept at most, the 10 uploads past them counted (%llu)", GW_QMDS_MAX,
	   (unsigned long long)gw_qmds_not_kept(m));
	/* a head to the first: the chain runs to the end of memory and past it */
	{
		struct gw_qmds *m2 = gw_qmds_new();
		struct gw_chan *c2 = channel(m2);
		struct gw_event last = { 0 };

		for (i = 0; i < GW_QMDS_MAX - 1; i++) {
			qmd(q, i + 1, A(i + 1), 0, true);
			upload(&seg, A(i), q);
			if (seg.n > 8192 - 200)
				run(c2);
		}
		qmd(q, 0, A(0), 0, false);
		upload(&seg, A(GW_QMDS_MAX + 100), q);
		send(&seg, A(GW_QMDS_MAX + 100));
		run(c2);
		for (int k = 0; k < nev; k++)
			if (evs[k].kind == GW_GRAPH)
				last = evs[k];
		ok(last.graph_kernels == GW_QMDS_MAX - 1 && last.graph_unseen == 1,
		   "a chain of %u remembered QMDs leading to one not kept: %u started, 1 unseen",
		   GW_QMDS_MAX - 1, last.graph_kernels);
		gw_chan_free(c2);
		gw_qmds_free(m2);
	}
	/* hostile put/get */
	ok(!gw_qmds_put(m, 0, q, QMD_DW) && gw_qmds_get(m, 0) == NULL && gw_qmds_get(NULL, 1) == NULL,
	   "address 0 is never kept; no memory, no QMD");
	gw_chan_free(c);
	gw_qmds_free(m);
}

int main(void)
{
	real_h200();
	cluster();
	parameters();
	graphs();
	memory();
	return tap_done();
}
