// SPDX-License-Identifier: MIT
/*
 * Method dwords -> events (gpuwork.h).  The method header format is the
 * host's ("dma" fields of gwtables): an opcode, a count, a subchannel and
 * a method address; the data dwords that follow go to increasing, one
 * (non-increasing) or the first then the next method.  Each method write
 * lands in the channel's copy of that subchannel's registers, and the
 * writes that start work (a compute SEND_SIGNALING_PCAS2_B that schedules,
 * a copy LAUNCH_DMA, a SEM_EXECUTE) are read back from those registers.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpuwork_class.h"
#include "gpuwork_qmd.h"
#include "nvtables.h"

const char *const gw_kind_names[GW_KINDS] = {
	"LAUNCH", "EMPTY-QMD", "COPY", "SEMAPHORE", "BIND", "METHOD", "BAD", "GP-ENTRY",
	"GRAPH-LAUNCH", "QMD-LOAD", "UNSEEN-QMD",
};
const char *const gw_engine_names[] = { "?", "HOST", "COMPUTE", "COPY" };

#define GW_SUBCH      8
#define GW_REGS       4096          /* method address field: 12 bits of dwords */
#define GW_UPLOADS    16            /* recent inline uploads kept per channel */
#define GW_UPLOAD_DW  GW_UPLOAD_KEEP_DW   /* a QMD is at most 0x180 bytes; keep 1 KiB */

struct gw_upload {
	uint64_t dst;
	uint64_t total;             /* dwords uploaded */
	uint32_t n;                 /* dwords kept */
	uint32_t dw[GW_UPLOAD_DW];
};

struct gw_chan {
	const struct gw_class *host;
	const struct gw_class *bound[GW_SUBCH];
	uint32_t *regs[GW_SUBCH];   /* GW_REGS each, allocated on first write */
	uint32_t host_regs[GW_REGS / 64];   /* host methods are below 0x100 */
	/* the inline upload being received (compute LAUNCH_DMA + LOAD_INLINE_DATA) */
	bool uploading;
	uint64_t up_want;           /* dwords still expected */
	struct gw_upload cur;
	struct gw_upload done[GW_UPLOADS];
	unsigned next_done;
	struct gw_qmds *qmds;       /* the process's, NULL: none (not owned) */
	gw_inline_fn on_inline;     /* gw_chan_on_inline */
	void *on_inline_ctx;
	uint64_t up_total, up_at;
};

static struct {
	const struct gw_field *addr, *subch, *count, *op, *immd, *tert, *addr_old, *count_old,
			      *nvclass;
	uint32_t inc, non_inc, one_inc, immd_op, end, grp0, grp2;
	bool ok;
} hdr;

/* Once (pthread_once: the capture's two threads decode). */
static void load_header_format(void)
{
	hdr.addr = gw_field_find("dma", "METHOD_ADDRESS");
	hdr.subch = gw_field_find("dma", "METHOD_SUBCHANNEL");
	hdr.count = gw_field_find("dma", "METHOD_COUNT");
	hdr.op = gw_field_find("dma", "SEC_OP");
	hdr.immd = gw_field_find("dma", "IMMD_DATA");
	hdr.tert = gw_field_find("dma", "TERT_OP");
	hdr.addr_old = gw_field_find("dma", "METHOD_ADDRESS_OLD");
	hdr.count_old = gw_field_find("dma", "METHOD_COUNT_OLD");
	hdr.nvclass = gw_field_find("dma", "SET_OBJECT_NVCLASS");
	hdr.ok = hdr.addr && hdr.subch && hdr.count && hdr.op && hdr.immd && hdr.tert &&
		 hdr.addr_old && hdr.count_old && hdr.nvclass &&
		 gw_value_find("dma", "SEC_OP_INC_METHOD", &hdr.inc) &&
		 gw_value_find("dma", "SEC_OP_NON_INC_METHOD", &hdr.non_inc) &&
		 gw_value_find("dma", "SEC_OP_ONE_INC", &hdr.one_inc) &&
		 gw_value_find("dma", "SEC_OP_IMMD_DATA_METHOD", &hdr.immd_op) &&
		 gw_value_find("dma", "SEC_OP_END_PB_SEGMENT", &hdr.end) &&
		 gw_value_find("dma", "SEC_OP_GRP0_USE_TERT", &hdr.grp0) &&
		 gw_value_find("dma", "SEC_OP_GRP2_USE_TERT", &hdr.grp2);
}

struct gw_chan *gw_chan_new(uint32_t chan_class)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct gw_chan *c = calloc(1, sizeof(*c));

	pthread_once(&once, load_header_format);
	if (c)
		c->host = gw_class_get(chan_class);
	return c;
}

void gw_chan_free(struct gw_chan *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < GW_SUBCH; i++)
		free(c->regs[i]);
	free(c);
}

void gw_chan_set_qmds(struct gw_chan *c, struct gw_qmds *q)
{
	c->qmds = q;
}

uint32_t gw_chan_subch_class(const struct gw_chan *c, uint32_t s)
{
	return s < GW_SUBCH && c->bound[s] ? c->bound[s]->cls : 0;
}

void gw_chan_on_inline(struct gw_chan *c, gw_inline_fn fn, void *ctx)
{
	c->on_inline = fn;
	c->on_inline_ctx = ctx;
}

enum gw_engine gw_engine_of(uint32_t cls)
{
	return gw_class_get(cls)->engine;
}

/* --- one method write ---------------------------------------------------- */

struct ctx {
	struct gw_chan *c;
	gw_emit_fn emit;
	void *arg;
	uint32_t at;
	bool cut;       /* the segment was cut at the bound: its last method is too */
};

static void emit(struct ctx *x, struct gw_event *e, uint32_t subch, const struct gw_class *k)
{
	e->at = x->at;
	e->subch = subch;
	e->cls = k ? k->cls : 0;
	e->engine = k ? k->engine : GW_ENG_UNKNOWN;
	x->emit(x->arg, e);
}

static uint32_t reg(const uint32_t *regs, uint32_t m)
{
	return regs && m != GW_NO_METHOD && m / 4 < GW_REGS ? regs[m / 4] : 0;
}

static uint64_t reg64(const uint32_t *regs, uint32_t hi, uint32_t lo)
{
	return (uint64_t)reg(regs, hi) << 32 | reg(regs, lo);
}

static void plain_method(struct ctx *x, uint32_t subch, const struct gw_class *k, uint32_t m,
			 uint32_t data)
{
	struct gw_event e = { .kind = GW_METHOD, .method = m, .data = data };

	e.name = k ? gw_method_name(k->cls, m) : NULL;
	emit(x, &e, subch, k);
}

static void host_method(struct ctx *x, uint32_t subch, uint32_t m, uint32_t data)
{
	const struct gw_class *h = x->c->host;
	struct gw_event e = { 0 };

	x->c->host_regs[m / 4] = data;
	if (m == h->set_object) {
		uint32_t cls = gw_get(data, hdr.nvclass);

		/* No driver binds a class it does not have: this is not a method
		 * stream (a segment overwritten under the reader, or garbage),
		 * and it must not spoil the channel's bindings. */
		if (!nv_class_lookup(cls)) {
			e.kind = GW_BAD;
			e.data = data;
			e.name = "SET_OBJECT of a class no driver has";
			emit(x, &e, subch, NULL);
			return;
		}
		x->c->bound[subch] = gw_class_get(cls);
		e.kind = GW_BIND;
		e.method = m;
		e.data = data;
		emit(x, &e, subch, x->c->bound[subch]);
	} else if (m == h->sem_execute && h->sem_op) {
		e.kind = GW_SEMAPHORE;
		e.name = gw_value_name(h->scope, "SEM_EXECUTE_OPERATION", gw_get(data, h->sem_op));
		e.sem_addr = reg64(x->c->host_regs, h->sem_addr_hi, h->sem_addr_lo);
		e.payload = reg(x->c->host_regs, h->sem_payload_lo);
		if (h->sem_size && gw_get(data, h->sem_size) != h->sem_size_32)
			e.payload |= (uint64_t)reg(x->c->host_regs, h->sem_payload_hi) << 32;
		e.data = data;
		emit(x, &e, subch, h);
	} else {
		plain_method(x, subch, h, m, data);
	}
}

/* The QMD at addr: the channel's recent uploads first, then the process's. */
static bool find_qmd(const struct gw_chan *c, uint64_t addr, const uint32_t **dw, uint32_t *n)
{
	const struct gw_qmd_slot *s;
	unsigned i;

	for (i = 0; i < GW_UPLOADS; i++) {
		const struct gw_upload *u = &c->done[(c->next_done + GW_UPLOADS - 1 - i) % GW_UPLOADS];

		if (u->n && u->dst == addr) {
			*dw = u->dw;
			*n = u->n;
			return true;
		}
	}
	if (!(s = gw_qmds_get(c->qmds, addr)))
		return false;
	*dw = s->dw;
	*n = s->n;
	return true;
}

/*
 * The parameters uploaded for a launch whose QMD names constant bank 0 at
 * e->cbank0: CUDA writes the bank's start (the driver's part), then the
 * parameters past it, then the QMD, then sends it (H200, 580.159.04).  So
 * from the newest upload back: the first one into the bank past its start,
 * provided the bank's own upload is older; reaching the bank's own upload
 * first means this launch wrote no parameters (an older write past it
 * belongs to an earlier launch of the same bank).
 */
static void find_params(const struct gw_chan *c, struct gw_event *e)
{
	const struct gw_upload *params = NULL;
	unsigned i;

	if (!e->cbank0)
		return;
	for (i = 0; i < GW_UPLOADS; i++) {
		const struct gw_upload *u = &c->done[(c->next_done + GW_UPLOADS - 1 - i) % GW_UPLOADS];

		if (!u->n)
			continue;
		if (u->dst == e->cbank0)
			break;
		if (!params && u->dst > e->cbank0 && u->dst - e->cbank0 < e->cbank0_size)
			params = u;
	}
	if (!params || i == GW_UPLOADS)
		return;
	e->params = params->dw;
	e->params_at = (uint32_t)(params->dst - e->cbank0);
	e->params_ndw = params->n;
	e->params_cut = params->total > params->n;
}

struct chain_ctx {
	struct ctx *x;
	uint32_t subch;
	const struct gw_class *k;
};

static void chain_out(void *arg, struct gw_event *e)
{
	struct chain_ctx *cc = arg;

	emit(cc->x, e, cc->subch, cc->k);
}

/* A QMD sent (SEND_PCAS_A, then a PCAS action that schedules). */
static void launch(struct ctx *x, uint32_t subch, const struct gw_class *k, const uint32_t *regs)
{
	struct gw_event e = { .kind = GW_LAUNCH };
	struct gw_qmd_facts f = { 0 };
	const uint32_t *dw;
	uint32_t n;

	e.qmd = (uint64_t)reg(regs, k->send_pcas_a) << GW_QMD_ADDR_SHIFT;
	if (find_qmd(x->c, e.qmd, &dw, &n))
		gw_qmd_read(&e, k, dw, n, &f);
	e.kind = gw_qmd_send_kind(&e, &f);
	if (e.kind == GW_LAUNCH)
		find_params(x->c, &e);
	if (e.kind == GW_GRAPH && x->c->qmds) {
		struct chain_ctx cc = { x, subch, k };

		gw_qmd_walk(x->c->qmds, k, &e, chain_out, &cc);
		return;
	}
	if (e.kind == GW_GRAPH)   /* no memory of QMDs: its chain is not followed */
		e.name = "no QMDs remembered: its chain was not followed";
	emit(x, &e, subch, k);
}

/* An inline upload ended; one that is a QMD of k is kept for the process. */
static void upload_done(struct gw_chan *c, const struct gw_class *k)
{
	struct gw_event probe = { 0 };
	struct gw_qmd_facts f;

	c->done[c->next_done] = c->cur;
	c->next_done = (c->next_done + 1) % GW_UPLOADS;
	c->uploading = false;
	if (!c->qmds)
		return;
	gw_qmd_read(&probe, k, c->cur.dw, c->cur.n, &f);
	if (!f.q || !gw_qmds_put(c->qmds, c->cur.dst, c->cur.dw, c->cur.n))
		return;
	/* its parameters with it: a graph's kernels are started from it later */
	find_params(c, &probe);
	gw_qmds_set_params(c->qmds, c->cur.dst, probe.params, probe.params ? probe.params_ndw : 0,
			   probe.params_at, probe.params_cut);
}

static void compute_method(struct ctx *x, uint32_t subch, const struct gw_class *k,
			   uint32_t *regs, uint32_t m, uint32_t data)
{
	struct gw_chan *c = x->c;
	const char *action;

	if (m == k->launch_dma) {
		uint32_t lines = reg(regs, k->line_count);

		c->uploading = true;
		c->up_want = ((uint64_t)reg(regs, k->line_length_in) * (lines ? lines : 1) + 3) / 4;
		c->cur.dst = reg64(regs, k->offset_out_upper, k->offset_out);
		c->cur.total = c->up_want;
		c->cur.n = 0;
		c->up_total = c->up_want;
		c->up_at = 0;
		if (!c->up_want)
			c->uploading = false;
	} else if (m == k->load_inline_data) {
		if (!c->uploading)
			return;
		if (c->on_inline)
			c->on_inline(c->on_inline_ctx, c->cur.dst, c->up_total, c->up_at++, data);
		if (c->cur.n < GW_UPLOAD_DW)
			c->cur.dw[c->cur.n++] = data;
		if (--c->up_want == 0)
			upload_done(c, k);
		return;   /* data, not a method worth an event */
	} else if (m == k->send_pcas2_b && k->pcas2_action) {
		action = gw_value_name(k->scope, "SEND_SIGNALING_PCAS2_B_PCAS_ACTION",
				       gw_get(data, k->pcas2_action));
		if (action && strstr(action, "SCHEDULE")) {
			launch(x, subch, k, regs);
			return;
		}
	} else if (m == k->send_pcas_b && k->pcas_b_schedule && gw_get(data, k->pcas_b_schedule)) {
		launch(x, subch, k, regs);
		return;
	} else if (m == k->report_d && k->report_op) {
		struct gw_event e = { .kind = GW_SEMAPHORE, .data = data };

		e.name = gw_value_name(k->scope, "SET_REPORT_SEMAPHORE_D_OPERATION",
				       gw_get(data, k->report_op));
		e.sem_addr = reg64(regs, k->report_a, k->report_b);
		e.payload = reg(regs, k->report_c);
		emit(x, &e, subch, k);
		return;
	}
	plain_method(x, subch, k, m, data);
}

static void copy_method(struct ctx *x, uint32_t subch, const struct gw_class *k,
			const uint32_t *regs, uint32_t m, uint32_t data)
{
	struct gw_event e = { 0 };

	if (m != k->launch_dma || !k->transfer_type) {
		plain_method(x, subch, k, m, data);
		return;
	}
	if (gw_get(data, k->transfer_type) != 0) {
		e.kind = GW_COPY;
		e.bytes = reg(regs, k->line_length_in);
		if (k->multi_line && gw_get(data, k->multi_line))
			e.bytes *= reg(regs, k->line_count);
		e.src = reg64(regs, k->offset_in_upper, k->offset_in_lower);
		e.dst = reg64(regs, k->offset_out_upper, k->offset_out_lower);
		e.fill = k->remap && gw_get(data, k->remap);
		e.data = data;
		emit(x, &e, subch, k);
	}
	if (k->sem_type && gw_get(data, k->sem_type) != 0) {
		memset(&e, 0, sizeof(e));
		e.kind = GW_SEMAPHORE;
		e.name = gw_value_name(k->scope, "LAUNCH_DMA_SEMAPHORE_TYPE", gw_get(data, k->sem_type));
		e.sem_addr = reg64(regs, k->sem_a, k->sem_b);
		e.payload = reg(regs, k->sem_payload);
		e.data = data;
		emit(x, &e, subch, k);
	}
}

static void method_write(struct ctx *x, uint32_t subch, uint32_t m, uint32_t data)
{
	struct gw_chan *c = x->c;
	const struct gw_class *k = c->bound[subch];

	if (m < 4 * (GW_REGS / 64)) {
		host_method(x, subch, m, data);
		return;
	}
	if (!c->regs[subch])
		c->regs[subch] = calloc(GW_REGS, sizeof(uint32_t));
	if (c->regs[subch] && m / 4 < GW_REGS)
		c->regs[subch][m / 4] = data;
	if (k && k->engine == GW_ENG_COMPUTE)
		compute_method(x, subch, k, c->regs[subch], m, data);
	else if (k && k->engine == GW_ENG_COPY)
		copy_method(x, subch, k, c->regs[subch], m, data);
	else
		plain_method(x, subch, k, m, data);
}

/* --- the segment --------------------------------------------------------- */

/* Byte offsets a method header can name: its address field, in dwords. */
static uint32_t method_mask(void)
{
	return ((1u << (hdr.addr->hi - hdr.addr->lo + 1)) - 1) << 2;
}

static void bad(struct ctx *x, uint32_t header, const char *why)
{
	struct gw_event e = { .kind = GW_BAD, .data = header, .name = why };

	emit(x, &e, 0, NULL);
}

static void decode_all(struct ctx *xp, const uint32_t *dw, uint32_t n)
{
	struct ctx x = *xp;
	uint32_t i = 0;

	while (i < n) {
		uint32_t h = dw[i], op = gw_get(h, hdr.op), subch = gw_get(h, hdr.subch);
		uint32_t m = gw_get(h, hdr.addr) * 4, count = gw_get(h, hdr.count), j;
		int step = 1;   /* method increment per data dword, in dwords */

		x.at = i++;
		if (op == hdr.immd_op) {
			method_write(&x, subch, m, gw_get(h, hdr.immd));
			continue;
		}
		if (op == hdr.end)
			return;
		if (op == hdr.grp0 && h == 0)
			continue;   /* NOP */
		if (op == hdr.grp0 || op == hdr.grp2) {
			if (gw_get(h, hdr.tert) != 0) {
				if (op == hdr.grp2)
					bad(&x, h, "reserved opcode");
				continue;   /* subdevice mask operations carry no data */
			}
			m = gw_get(h, hdr.addr_old) * 4;
			count = gw_get(h, hdr.count_old);
			step = op == hdr.grp0 ? 1 : 0;
		} else if (op == hdr.non_inc) {
			step = 0;
		} else if (op != hdr.inc && op != hdr.one_inc) {
			bad(&x, h, "reserved opcode");
			return;
		}
		if (count > n - i) {
			if (!x.cut)
				bad(&x, h, "method count runs past the end of the segment");
			count = n - i;
		}
		for (j = 0; j < count; j++, i++) {
			uint32_t mj = op == hdr.one_inc ? m + (j ? 4 : 0) : m + 4 * j * (uint32_t)step;

			x.at = i;
			method_write(&x, subch, mj & method_mask(), dw[i]);
		}
	}
}

/*
 * Whether n dwords can be a method stream at all: every header a known
 * form, every count inside the segment, every SET_OBJECT of a class a
 * driver has.  A segment that is not (garbage, or one overwritten while it
 * was read) is reported once and changes nothing: decoded, it would bind
 * subchannels to nonsense and spoil the channel for the segments after it.
 * 0 if it can; else the index of the first bad header + 1, *why said.
 */
static uint32_t first_bad(const struct gw_chan *c, const uint32_t *dw, uint32_t n, bool cut,
			  const char **why)
{
	uint32_t i = 0;

	while (i < n) {
		uint32_t h = dw[i], op = gw_get(h, hdr.op), count = gw_get(h, hdr.count);
		uint32_t m = gw_get(h, hdr.addr) * 4, at = i++;

		if (op == hdr.immd_op || (op == hdr.grp0 && h == 0))
			continue;
		if (op == hdr.end)
			return 0;
		if (op == hdr.grp0 || op == hdr.grp2) {
			if (gw_get(h, hdr.tert) != 0) {
				if (op == hdr.grp2)
					return *why = "reserved opcode", at + 1;
				continue;
			}
			m = gw_get(h, hdr.addr_old) * 4;
			count = gw_get(h, hdr.count_old);
		} else if (op != hdr.inc && op != hdr.non_inc && op != hdr.one_inc) {
			return *why = "reserved opcode", at + 1;
		}
		if (count > n - i)   /* in a segment cut at the bound, the cut */
			return cut ? 0 : (*why = "method count runs past the end of the segment", at + 1);
		if (m == c->host->set_object && count &&
		    !nv_class_lookup(gw_get(dw[i], hdr.nvclass)))
			return *why = "SET_OBJECT of a class no driver has", at + 1;
		i += count;
	}
	return 0;
}

size_t gw_params_bytes(const struct gw_event *e, uint8_t *out, size_t room)
{
	size_t n = e->params ? (size_t)e->params_ndw * 4 : 0, i;

	n = n < room ? n : room;
	for (i = 0; i < n; i++)
		out[i] = (uint8_t)(e->params[i / 4] >> (8 * (i % 4)));
	return n;
}

uint32_t gw_seg_subchannels(const struct gw_chan *c, const uint32_t *dw, uint32_t n,
			    bool *binds)
{
	uint32_t i = 0, mask = 0;

	*binds = false;
	while (hdr.ok && i < n) {
		uint32_t h = dw[i], op = gw_get(h, hdr.op), count = gw_get(h, hdr.count);
		uint32_t m = gw_get(h, hdr.addr) * 4, subch = gw_get(h, hdr.subch);

		i++;
		if (op == hdr.end)
			break;
		if (op == hdr.grp0 && h == 0)
			continue;
		mask |= subch < 32 ? 1u << subch : 0;
		if (op == hdr.immd_op) {
			*binds |= m == c->host->set_object;
			continue;
		}
		if (op == hdr.grp0 || op == hdr.grp2) {
			if (gw_get(h, hdr.tert) != 0)
				continue;
			m = gw_get(h, hdr.addr_old) * 4;
			count = gw_get(h, hdr.count_old);
		}
		*binds |= m == c->host->set_object && count;
		i += count < n - i ? count : n - i;
	}
	return mask;
}

void gw_decode(struct gw_chan *c, const uint32_t *dw, uint32_t n, bool cut, gw_emit_fn emit_fn,
	       void *arg)
{
	struct ctx x = { c, emit_fn, arg, 0, cut };
	const char *why = NULL;
	uint32_t bad_at;

	if (!hdr.ok) {
		if (n)
			bad(&x, dw[0], "the tables lack the method header format");
		return;
	}
	bad_at = first_bad(c, dw, n, cut, &why);
	if (bad_at) {
		x.at = bad_at - 1;
		bad(&x, dw[bad_at - 1], why);
		return;
	}
	decode_all(&x, dw, n);
}
