// SPDX-License-Identifier: MIT
/*
 * --gpu-work's last look before exit, the reader's side
 * (capture/gpuwork/gpuwork_exit.c): rings in this process's own memory,
 * published to a map kept here, and the kernel's copies at exit
 * (bpf/gpuwork_exit.bpf.h) made here in C from what was published, as
 * CT_REC_GPU_EXIT records.  Work put after the last poll is read; entries
 * the reader read itself meanwhile are not sent twice; what the kernel did
 * not copy is counted; hostile records (outside the ring, a slot or a
 * process no ring has, a segment longer than the bound or not where the
 * entry says) are refused.  Built under ASan/UBSan too.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "gpuwork.h"
#include "gpuwork_reader.h"
#include "gwtables.h"
#include "layouts.h"
#include "nvfacts.h"
#include "nvtables.h"
#include "record.h"
#include "tap.h"

#define ENTRIES 64
#define CLIENT  0xc1d00001u
#define CHAN    0x5c00001cu
#define USERDH  0x5c000017u

static unsigned char recbuf[8192];
static uint64_t *ring;
static uint32_t *userd, *pb;
static uint32_t put_idx, gpput_off;

/* the map the reader publishes to */
static struct ct_gx_key pub_key;
static struct ct_gx_chan pub;
static int npub, nunpub;

static int publish(void *ctx, const struct ct_gx_key *k, const struct ct_gx_chan *v)
{
	(void)ctx;
	pub_key = *k;
	pub = *v;
	npub++;
	return 0;
}

static void unpublish(void *ctx, const struct ct_gx_key *k)
{
	(void)ctx;
	(void)k;
	nunpub++;
}

/* what the sink got */
static int nseg, nlost, nfault, nput, bad_records, seg_before_put;
static uint64_t lost_entries;
static uint32_t sizes[256], nsizes;

static void sink(void *ctx, const struct ct_rec *r)
{
	const struct ct_gpu_seg *s = (const struct ct_gpu_seg *)r;

	(void)ctx;
	if (ct_record_check(r, r->size)) {
		bad_records++;
		return;
	}
	if (r->type == CT_REC_GPU_PUT) {
		nput++;
		return;
	}
	seg_before_put += !nput;
	if (s->flags & CT_GS_LOST) {
		nlost++;
		lost_entries += s->lost;
	} else if (s->flags & CT_GS_FAULT) {
		nfault++;
	} else if (s->ndwords >= 4 && nsizes < 256) {
		nseg++;
		sizes[nsizes++] = ((const uint32_t *)(s + 1))[3];   /* LINE_LENGTH_IN's value */
	}
}

static void reset(void)
{
	nseg = nlost = nfault = nput = bad_records = seg_before_put = 0;
	lost_entries = 0;
	nsizes = 0;
}

static const struct ct_layout *esc(uint32_t nr, uint32_t size)
{
	const struct ct_layout *l = ct_layout_find(CT_LAYOUT_ESCAPE, nr, size, 0);

	if (!l) {
		fprintf(stderr, "no layout of escape 0x%x at %u bytes\n", nr, size);
		exit(1);
	}
	return l;
}

static void put(const struct ct_layout *l, unsigned char *buf, const char *name, uint64_t v)
{
	if (!ct_write_u64(l, buf, l->size, name, v)) {
		fprintf(stderr, "cannot write %s of %s\n", name, l->name);
		exit(1);
	}
}

static struct ct_ioctl *exit_record(const struct ct_layout *l, uint32_t nest)
{
	struct ct_ioctl *r = (struct ct_ioctl *)recbuf;

	memset(recbuf, 0, sizeof(recbuf));
	r->h.type = CT_REC_IOCTL_EXIT;
	r->h.pid = r->h.tid = (uint32_t)getpid();
	r->cmd = (3u << 30) | (l->size << 16) | ('F' << 8) | l->req;
	r->arg_size = l->size;
	r->nest_size = r->nest_want = nest;
	r->h.size = (uint32_t)(sizeof(*r) + l->size + nest);
	return r;
}

/* A channel on our ring and USERD: its allocation, RM_MAP_MEMORY, mmap. */
static void announce(struct ct_gpuwork *g)
{
	const struct ct_layout *a = esc(NV_ESC_RM_ALLOC, 48), *pl = NULL, *m;
	struct ct_mmap mm = { .h = { .type = CT_REC_MMAP, .size = sizeof(mm) } };
	struct ct_ioctl *r;
	unsigned char *nest;

	ct_layout_sizes(CT_LAYOUT_ALLOC, HOPPER_CHANNEL_GPFIFO_A, 0, &pl, 1);
	r = exit_record(a, pl->size);
	put(a, recbuf + sizeof(*r), "hRoot", CLIENT);
	put(a, recbuf + sizeof(*r), "hObjectNew", CHAN);
	put(a, recbuf + sizeof(*r), "hClass", HOPPER_CHANNEL_GPFIFO_A);
	nest = recbuf + sizeof(*r) + a->size;
	put(pl, nest, "gpFifoOffset", (uint64_t)(uintptr_t)ring);
	put(pl, nest, "gpFifoEntries", ENTRIES);
	put(pl, nest, "hUserdMemory[0]", USERDH);
	put(pl, nest, "userdOffset[0]", 0x200);
	ct_gpuwork_learn(g, &r->h);
	m = esc(NV_ESC_RM_MAP_MEMORY, 56);
	r = exit_record(m, 0);
	put(m, recbuf + sizeof(*r), "params.hClient", CLIENT);
	put(m, recbuf + sizeof(*r), "params.hMemory", USERDH);
	put(m, recbuf + sizeof(*r), "fd", 17);
	ct_gpuwork_learn(g, &r->h);
	mm.h.pid = (uint32_t)getpid();
	mm.fd = 17;
	mm.len = 4096;
	mm.ret = (int64_t)(uintptr_t)userd - 0x200;
	ct_gpuwork_learn(g, &mm.h);
}

static uint32_t hdr(uint32_t op, uint32_t n, uint32_t subch, uint32_t method)
{
	return op << 29 | n << 16 | subch << 13 | method >> 2;
}

/* a copy of `bytes`, one segment of 6 dwords at pb + off */
static void copy_seg(uint32_t off, uint32_t bytes)
{
	uint32_t *p = pb + off, *s = p;
	uint64_t va = (uint64_t)(uintptr_t)s;

	*p++ = hdr(1, 1, 4, 0);
	*p++ = HOPPER_DMA_COPY_A;
	*p++ = hdr(1, 1, 4, 0x418);
	*p++ = bytes;
	*p++ = hdr(1, 1, 4, 0x300);
	*p++ = 2;
	ring[put_idx] = (uint32_t)va | (uint64_t)((va >> 32) & 0xff) << 32 | (uint64_t)6 << 42;
	put_idx = (put_idx + 1) % ENTRIES;
	userd[gpput_off / 4] = put_idx;
}

static uint32_t bits(uint32_t w, uint8_t lo, uint8_t n)
{
	return n >= 32 ? w >> lo : (w >> lo) & ((1u << n) - 1);
}

/* The kernel's last look, as bpf/gpuwork_exit.bpf.h makes it, from the
 * published channel v: the head, then up to `upto` entries. */
static void kernel_look(struct ct_gpuwork *g, const struct ct_gx_chan *v, uint32_t slot,
			uint32_t upto)
{
	static unsigned char buf[sizeof(struct ct_gpu_exit) + CT_GPU_SEG_DEFAULT * 4];
	struct ct_gpu_exit *x = (struct ct_gpu_exit *)buf;
	uint32_t put = *(uint32_t *)(uintptr_t)v->gpput_addr, from = v->next;
	uint32_t n = (put + v->entries - from) % v->entries, i;

	memset(x, 0, sizeof(*x));
	x->h = (struct ct_rec){ .type = CT_REC_GPU_EXIT, .size = sizeof(*x), .ts_ns = 1,
				.pid = (uint32_t)getpid() };
	x->slot = slot;
	x->from = from;
	x->put = put;
	x->flags = CT_GX_HEAD;
	ct_gpuwork_learn(g, &x->h);
	for (i = 0; i < n && i < upto; i++) {
		uint64_t e = *(uint64_t *)(uintptr_t)(v->ring_va + ((from + i) % v->entries) * 8);
		uint32_t w0 = (uint32_t)e, w1 = (uint32_t)(e >> 32);

		memset(x, 0, sizeof(*x));
		x->h = (struct ct_rec){ .type = CT_REC_GPU_EXIT, .size = sizeof(*x), .ts_ns = 1,
					.pid = (uint32_t)getpid() };
		x->slot = slot;
		x->from = from;
		x->put = put;
		x->index = (from + i) % v->entries;
		x->entry = e;
		x->want_dwords = bits(w1, v->len_lo, v->len_bits);
		x->va = v->pb_base | (uint64_t)bits(w1, v->get_hi_lo, v->get_hi_bits) << 32 |
			(uint64_t)bits(w0, v->get_lo, v->get_bits) << v->get_lo;
		x->ndwords = x->want_dwords;
		memcpy(x + 1, (void *)(uintptr_t)x->va, (size_t)x->ndwords * 4);
		x->h.size = (uint32_t)(sizeof(*x) + x->ndwords * 4);
		ct_gpuwork_learn(g, &x->h);
	}
}

/* The record the kernel sends as its look at this process begins. */
static void look_begins(struct ct_gpuwork *g, uint64_t ts)
{
	struct ct_gpu_exit x = { .h = { .type = CT_REC_GPU_EXIT, .size = sizeof(x), .ts_ns = ts,
				       .pid = (uint32_t)getpid() },
				 .flags = CT_GX_LOOK };

	ct_gpuwork_learn(g, &x.h);
}

static void proc_exit(struct ct_gpuwork *g)
{
	struct ct_rec ex = { .type = CT_REC_PROC_EXIT, .size = sizeof(ex), .pid = (uint32_t)getpid() };

	ct_gpuwork_learn(g, &ex);
}

static struct ct_gpuwork *fresh(void)
{
	struct ct_gpuwork *g = ct_gpuwork_new("/proc", CT_GPU_SEG_DEFAULT, sink, NULL);
	struct ct_gpuwork_exit_map m = { publish, unpublish, NULL };

	ct_gpuwork_set_exit_map(g, &m);
	memset(ring, 0, ENTRIES * 8);
	put_idx = 0;
	userd[gpput_off / 4] = 0;
	npub = nunpub = 0;
	announce(g);
	return g;
}

/* One hostile record: must be refused without a crash or a record. */
static void hostile(struct ct_gpuwork *g, const char *what, void (*spoil)(struct ct_gpu_exit *))
{
	static unsigned char buf[sizeof(struct ct_gpu_exit) + 64];
	struct ct_gpu_exit *x = (struct ct_gpu_exit *)buf;
	int before = nseg;

	memset(buf, 0, sizeof(buf));
	x->h = (struct ct_rec){ .type = CT_REC_GPU_EXIT, .size = sizeof(*x), .pid = (uint32_t)getpid() };
	x->slot = pub_key.slot;
	x->from = pub.next;
	x->put = (pub.next + 1) % ENTRIES;
	x->index = pub.next;
	spoil(x);
	ct_gpuwork_learn(g, &x->h);
	ok(nseg == before && !bad_records, "hostile exit record refused: %s", what);
}

static void bad_index(struct ct_gpu_exit *x) { x->index = ENTRIES + 3; }
static void bad_slot(struct ct_gpu_exit *x) { x->slot = 200; x->flags = CT_GX_HEAD; }
static void bad_pid(struct ct_gpu_exit *x) { x->h.pid = 1; x->flags = CT_GX_HEAD; }
static void bad_va(struct ct_gpu_exit *x) { x->va = 0x1234; x->entry = ring[x->index]; x->want_dwords = 6; }

int main(void)
{
	const struct gw_field *f = gw_field_find("userd", "GPPut");
	struct ct_gpuwork *g;
	struct ct_gx_chan stale;
	uint32_t i;

	if (!ok(f != NULL, "the tables give GPPut's place"))
		return tap_done();
	gpput_off = f->lo / 8;
	pb = mmap((void *)0x70000000ull, 1 << 20, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ring = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	userd = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(pb != MAP_FAILED && ring != MAP_FAILED && userd != MAP_FAILED, "memory laid out"))
		return tap_done();
	userd = (uint32_t *)((char *)userd + 0x200);

	/* 1. work put after the last poll: read at exit, in a window first */
	g = fresh();
	copy_seg(0, 1000);
	ct_gpuwork_poll(g, 0);
	ok(npub >= 1 && pub.next == 1 && pub.entries == ENTRIES &&
	   pub.gpput_addr == (uint64_t)(uintptr_t)userd + gpput_off,
	   "the ring is published with the index read next (%u) and GPPut's address", pub.next);
	ok(pub.len_bits && pub.get_bits, "... and the entry's fields from the tables");
	reset();
	for (i = 0; i < 5; i++)
		copy_seg(16 + 8 * i, 2000 + i);
	kernel_look(g, &pub, pub_key.slot, 1024);
	proc_exit(g);
	ok(nseg == 5 && nput == 1 && !seg_before_put && !nlost && !bad_records,
	   "5 entries put after the last poll: read at exit, after their window (%d, %d)", nseg, nput);
	ok(nsizes == 5 && sizes[0] == 2000 && sizes[4] == 2004, "... in order, as put");
	ok(ct_gpuwork_stats(g)->exit_looks == 1 && ct_gpuwork_stats(g)->exit_entries == 5,
	   "counted: 1 ring read at exit, 5 entries");
	ct_gpuwork_poll(g, 0);
	ok(nunpub == 1, "the ended ring leaves the map");
	ct_gpuwork_free(g);

	/* 2. a poll that ran as the process exited: the kernel started from
	 * the index published before it; what the poll read is not sent twice */
	g = fresh();
	ct_gpuwork_poll(g, 0);
	stale = pub;
	reset();
	for (i = 0; i < 6; i++)
		copy_seg(16 + 8 * i, 3000 + i);
	ct_gpuwork_poll(g, 0);   /* reads all 6 */
	for (i = 0; i < 3; i++)
		copy_seg(128 + 8 * i, 3100 + i);
	kernel_look(g, &stale, pub_key.slot, 1024);   /* 9 from the stale index */
	proc_exit(g);
	ok(nseg == 9 && !nlost, "a poll between: 6 read by it, 3 at exit, none twice (%d)", nseg);
	ok(nsizes == 9 && sizes[6] == 3100 && sizes[8] == 3102, "... the exit's 3 after the poll's 6");
	ct_gpuwork_free(g);

	/* 3. the kernel copied 2 of 7 (its bound, or records the ring buffer
	 * lost): the 5 others are counted lost at the exit */
	g = fresh();
	ct_gpuwork_poll(g, 0);
	reset();
	for (i = 0; i < 7; i++)
		copy_seg(16 + 8 * i, 4000 + i);
	kernel_look(g, &pub, pub_key.slot, 2);
	proc_exit(g);
	ok(nseg == 2 && lost_entries == 5 && ct_gpuwork_stats(g)->exit_unseen == 5,
	   "2 of 7 copied: 5 counted lost at exit (%d, %llu)", nseg, (unsigned long long)lost_entries);
	ct_gpuwork_free(g);

	/* 4. GPPut unreadable at exit: said, nothing made up */
	g = fresh();
	ct_gpuwork_poll(g, 0);
	reset();
	{
		struct ct_gpu_exit x = { .h = { .type = CT_REC_GPU_EXIT, .size = sizeof(x),
					       .pid = (uint32_t)getpid() },
					 .slot = pub_key.slot, .from = pub.next,
					 .flags = CT_GX_HEAD | CT_GX_NO_PUT };

		ct_gpuwork_learn(g, &x.h);
		x.flags = 0;
		x.index = pub.next;
		ct_gpuwork_learn(g, &x.h);
		proc_exit(g);
	}
	ok(!nseg && !nput && ct_gpuwork_stats(g)->exit_no_put == 1,
	   "GPPut unreadable at exit: counted, no entries taken");
	ct_gpuwork_free(g);

	/* 5. hostile records */
	g = fresh();
	copy_seg(0, 5000);
	ct_gpuwork_poll(g, 0);
	reset();
	copy_seg(16, 5001);
	{
		struct ct_gpu_exit x = { .h = { .type = CT_REC_GPU_EXIT, .size = sizeof(x),
					       .pid = (uint32_t)getpid() },
					 .slot = pub_key.slot, .from = pub.next,
					 .put = ENTRIES + 9, .flags = CT_GX_HEAD };

		ct_gpuwork_learn(g, &x.h);   /* a put outside the ring: like no put */
		ok(ct_gpuwork_stats(g)->exit_no_put == 1 && !nput, "hostile: a GPPut outside the ring at exit");
	}
	ct_gpuwork_free(g);
	g = fresh();
	copy_seg(0, 5000);
	ct_gpuwork_poll(g, 0);
	reset();
	copy_seg(16, 5001);
	hostile(g, "a slot no ring has", bad_slot);
	hostile(g, "another process", bad_pid);
	{
		struct ct_gpu_exit x = { .h = { .type = CT_REC_GPU_EXIT, .size = sizeof(x),
					       .pid = (uint32_t)getpid() },
					 .slot = pub_key.slot, .from = pub.next,
					 .put = (pub.next + 1) % ENTRIES, .flags = CT_GX_HEAD };

		ct_gpuwork_learn(g, &x.h);
	}
	hostile(g, "an index outside the ring", bad_index);
	hostile(g, "a segment not where its entry says", bad_va);
	ok(nfault == 1, "... which is counted unreadable (%d)", nfault);
	proc_exit(g);
	ct_gpuwork_free(g);

	/* 6. the look began before the reader had published the ring (the
	 * reader held up for the process's life): counted, nothing made up;
	 * a ring published before the look, with nothing new, is not */
	g = fresh();
	copy_seg(0, 6000);
	ct_gpuwork_poll(g, 0);
	reset();
	look_begins(g, ct_now_ns(CLOCK_MONOTONIC));
	proc_exit(g);
	ok(npub >= 1 && ct_gpuwork_stats(g)->exit_too_late == 0 && !nseg && !nput && !nlost,
	   "published before the look began, nothing new: not counted");
	ct_gpuwork_free(g);
	g = fresh();
	reset();
	copy_seg(0, 6001);
	look_begins(g, 1);
	proc_exit(g);
	ok(npub >= 1 && ct_gpuwork_stats(g)->exit_too_late == 1 && !nseg && !nput,
	   "published after the look began: 1 ring counted too late, no entries made up (%llu)",
	   (unsigned long long)ct_gpuwork_stats(g)->exit_too_late);
	ok(nlost == 1 && lost_entries == 0 && !bad_records,
	   "... and said in the trace: one LOST record of 0 entries, well formed (%d)", nlost);
	ct_gpuwork_free(g);
	return tap_done();
}
