// SPDX-License-Identifier: MIT
/*
 * --gpu-work's reader (user/gpuwork_*.c) against this very process: its
 * own memory holds a ring, a USERD and pushbuffers, announced by made-up
 * records (RM_ALLOC of HOPPER_CHANNEL_GPFIFO_A, RM_MAP_MEMORY, mmap), and
 * the reader reads them through /proc/self's pid/mem as it would another
 * process's.  Then hostile rings: segments unmapped, running past their
 * mapping, longer than the bound, garbage dwords, the ring going round
 * between polls, a ring address that is not mapped, a GPPut outside the
 * ring.  Built under ASan/UBSan too (tests/tests.mk): it must survive.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
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
#define HI_BASE 0x110000000000ull

static unsigned char recbuf[8192];
static uint64_t *ring;
static uint32_t *userd, *pb, *hi;
static size_t pb_bytes = 1 << 20;
static uint32_t put_idx, gpput_off;

/* what the sink got */
static int nseg, nfault, nlost, nwrap, ntrunc, nlaunch, ncopy, nbad, ncontrol;
static uint64_t last_fault_va;
static uint64_t lost_entries, wrap_entries;
static struct gw_chan *dec;
/* copies decoded, by size: each submitted size must be seen at most once */
#define MAX_SIZE 4096
static unsigned char copies_of[MAX_SIZE];
static int copied_twice;
/* called when a WRAP record arrives: the producer moving during a poll */
static void (*on_wrap)(void);

static void on_event(void *ctx, const struct gw_event *e)
{
	(void)ctx;
	nlaunch += e->kind == GW_LAUNCH;
	ncopy += e->kind == GW_COPY;
	nbad += e->kind == GW_BAD;
	if (e->kind == GW_COPY && e->bytes < MAX_SIZE && copies_of[e->bytes]++)
		copied_twice++;
}

/* the PUT records: the windows entries were put in */
static int nput, put_order_bad, seg_before_put;
static uint64_t put_since, put_until, prev_until;
static uint32_t put_from, put_to;

static void on_put(const struct ct_gpu_put *w)
{
	nput++;
	put_order_bad += w->since_ns > w->h.ts_ns || w->since_ns < prev_until;
	prev_until = w->h.ts_ns;
	put_since = w->since_ns;
	put_until = w->h.ts_ns;
	put_from = w->from;
	put_to = w->put;
	seg_before_put = 0;
}

/* the pid whose records announce() makes (0: this process) */
static uint32_t as_pid;
/* with the reader's workers the sink is called from several threads */
static pthread_mutex_t sink_lock = PTHREAD_MUTEX_INITIALIZER;
/* segments of each of two processes: their count and whether each came
 * after the one before in its ring */
static uint32_t order_pid[2], order_next[2], order_n[2], order_bad;

static void sink_seg(const struct ct_rec *r);

static void note_order(const struct ct_gpu_seg *s)
{
	for (int i = 0; i < 2; i++)
		if (order_pid[i] == s->h.pid) {
			order_bad += s->ring_index != order_next[i];
			order_next[i] = (s->ring_index + 1) % ENTRIES;
			order_n[i]++;
		}
}

static void sink(void *ctx, const struct ct_rec *r)
{
	(void)ctx;
	pthread_mutex_lock(&sink_lock);
	if (r->type == CT_REC_GPU_SEG)
		note_order((const struct ct_gpu_seg *)r);
	sink_seg(r);
	pthread_mutex_unlock(&sink_lock);
}

static void sink_seg(const struct ct_rec *r)
{
	const struct ct_gpu_seg *s = (const struct ct_gpu_seg *)r;

	if (!ok(ct_record_check(r, r->size) == NULL, "record %d passes the record checker",
		nseg + nfault + nlost))
		return;
	if (r->type == CT_REC_GPU_PUT) {
		on_put((const struct ct_gpu_put *)r);
		return;
	}
	seg_before_put += !nput;
	if (s->flags & CT_GS_LOST) {
		nlost++;
		if (s->flags & CT_GS_WRAP) {
			nwrap++;
			wrap_entries += s->lost;
			if (on_wrap)
				on_wrap();
		} else {
			lost_entries += s->lost;
		}
		return;
	}
	if (getenv("GWDEBUG"))
		fprintf(stderr, "seg idx %u va 0x%llx want %u n %u flags %x\n", s->ring_index, (unsigned long long)s->va, s->want_dwords, s->ndwords, s->flags);
	if (s->flags & CT_GS_FAULT) {
		nfault++;
		last_fault_va = s->va;
		return;
	}
	{
		struct gw_gp gp;

		if (gw_gp_decode(s->chan_class, s->entry, &gp) && gp.control) {
			ncontrol += s->ndwords == 0 && s->va == 0 && s->want_dwords == 0;
			return;
		}
	}
	nseg++;
	ntrunc += !!(s->flags & CT_GS_TRUNC);
	gw_decode(dec, (const uint32_t *)(s + 1), s->ndwords, s->flags & CT_GS_TRUNC, on_event, NULL);
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
	r->h.pid = r->h.tid = as_pid ? as_pid : (uint32_t)getpid();
	r->cmd = (3u << 30) | (l->size << 16) | ('F' << 8) | l->req;
	r->arg_size = l->size;
	r->nest_size = r->nest_want = nest;
	r->h.size = (uint32_t)(sizeof(*r) + l->size + nest);
	return r;
}

/* The channel's RM_ALLOC, its USERD the memory object userd_h. */
static void announce_alloc(struct ct_gpuwork *g, uint64_t ring_va, uint32_t userd_h)
{
	const struct ct_layout *a = esc(NV_ESC_RM_ALLOC, 48), *pl = NULL;
	uint32_t cls = HOPPER_CHANNEL_GPFIFO_A;
	struct ct_ioctl *r;
	unsigned char *nest;

	ct_layout_sizes(CT_LAYOUT_ALLOC, cls, 0, &pl, 1);
	r = exit_record(a, pl->size);
	put(a, recbuf + sizeof(*r), "hRoot", CLIENT);
	put(a, recbuf + sizeof(*r), "hObjectNew", CHAN);
	put(a, recbuf + sizeof(*r), "hClass", cls);
	nest = recbuf + sizeof(*r) + a->size;
	put(pl, nest, "gpFifoOffset", ring_va);
	put(pl, nest, "gpFifoEntries", ENTRIES);
	put(pl, nest, "hUserdMemory[0]", userd_h);
	put(pl, nest, "userdOffset[0]", 0x200);
	ct_gpuwork_learn(g, &r->h);
}

/* A channel on our ring and USERD: its allocation, RM_MAP_MEMORY, mmap. */
static void announce(struct ct_gpuwork *g, uint64_t ring_va)
{
	const struct ct_layout *m;
	struct ct_ioctl *r;
	struct ct_mmap mm = { .h = { .type = CT_REC_MMAP, .size = sizeof(mm) } };

	announce_alloc(g, ring_va, USERDH);
	m = esc(NV_ESC_RM_MAP_MEMORY, 56);
	r = exit_record(m, 0);
	put(m, recbuf + sizeof(*r), "params.hClient", CLIENT);
	put(m, recbuf + sizeof(*r), "params.hMemory", USERDH);
	put(m, recbuf + sizeof(*r), "fd", 17);
	ct_gpuwork_learn(g, &r->h);
	mm.h.pid = as_pid ? as_pid : (uint32_t)getpid();
	mm.fd = 17;
	mm.len = 4096;
	mm.ret = (int64_t)(uintptr_t)userd - 0x200;
	ct_gpuwork_learn(g, &mm.h);
}

static void submit_entry(uint64_t e)
{
	ring[put_idx] = e;
	put_idx = (put_idx + 1) % ENTRIES;
	userd[gpput_off / 4] = put_idx;
}

/* A control entry (clc86f.h: LENGTH 0, GP_ENTRY1_OPCODE 7:0, GP_ENTRY0 the
 * operand; SET_PB_SEGMENT_EXTENDED_BASE is 4, its operand bits 24:8). */
static void submit_control(uint32_t opcode, uint32_t operand)
{
	submit_entry((uint64_t)opcode << 32 | operand);
}

static void submit(uint64_t va, uint32_t ndw)
{
	ring[put_idx] = (uint32_t)va | (uint64_t)((va >> 32) & 0xff) << 32 |
			(uint64_t)(ndw & 0x1fffff) << 42;
	put_idx = (put_idx + 1) % ENTRIES;
	userd[gpput_off / 4] = put_idx;
}

static uint32_t *seg_at;

static uint32_t hdr(uint32_t op, uint32_t n, uint32_t subch, uint32_t method)
{
	return op << 29 | n << 16 | subch << 13 | method >> 2;
}

/* a copy of bytes, as one segment at pb + off dwords */
static void copy_seg(uint32_t off, uint32_t bytes)
{
	uint32_t *p = seg_at = pb + off;

	*p++ = hdr(1, 1, 4, 0);
	*p++ = HOPPER_DMA_COPY_A;
	*p++ = hdr(1, 1, 4, 0x418);
	*p++ = bytes;
	*p++ = hdr(1, 1, 4, 0x300);
	*p++ = 2;
	submit((uint64_t)(uintptr_t)seg_at, (uint32_t)(p - seg_at));
}

static void reset_counts(void)
{
	nseg = nfault = nlost = nwrap = ntrunc = nlaunch = ncopy = nbad = ncontrol = 0;
	lost_entries = wrap_entries = 0;
	copied_twice = 0;
	memset(copies_of, 0, sizeof(copies_of));
}

/* count copies of distinct sizes, one after another from pb + at dwords */
static uint32_t next_size = 100;

static void copies(uint32_t count, uint32_t at)
{
	for (uint32_t i = 0; i < count; i++)
		copy_seg(at + 8 * (i % 1000), next_size++);
}

/* A drain (the kernel's records handed over): the first puts 2 more
 * entries and learns 40 channels (the rings move; their USERD is never
 * mapped: nothing read from them); each later one puts nothing. */
static int drains;

static void announce_alloc(struct ct_gpuwork *g, uint64_t ring_va, uint32_t userd_h);

static void drain_submits(void *ctx)
{
	if (drains++)
		return;
	copies(2, 12000);
	for (int i = 0; i < 40; i++)
		announce_alloc(ctx, 0x2000, 0x5c0000f0u);
}

static void five_more(void)
{
	on_wrap = NULL;
	copies(5, 40000);
}

/*
 * 7. Two processes with work in one poll, read by two threads
 * (gpuwork_lanes.c): this one and a child forked after its ring was
 * filled, whose memory holds the same ring, USERD and segments at the same
 * addresses.  Every segment of each, in its ring's order; the workers'
 * counts added to the reader's.
 */
static void two_processes(void)
{
	struct ct_gpuwork *g = ct_gpuwork_new("/proc", CT_GPU_SEG_DEFAULT, sink, NULL);
	pid_t child;
	uint32_t i;

	if (!ok(g != NULL, "a second reader, with workers"))
		return;
	ct_gpuwork_set_workers(g, true);
	reset_counts();
	memset(ring, 0, ENTRIES * 8);
	put_idx = 0;
	userd[gpput_off / 4] = 0;
	as_pid = 0;
	announce(g, (uint64_t)(uintptr_t)ring);
	for (i = 0; i < 20; i++)
		copy_seg(64 * i, 3000 + i);
	child = fork();
	if (child == 0) {   /* holds its copy of the memory until killed */
		for (;;)
			pause();
	}
	if (!ok(child > 0, "a child to read")) {
		ct_gpuwork_free(g);
		return;
	}
	as_pid = (uint32_t)child;
	announce(g, (uint64_t)(uintptr_t)ring);
	as_pid = 0;
	order_pid[0] = (uint32_t)getpid();
	order_pid[1] = (uint32_t)child;
	ct_gpuwork_poll(g, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ok(order_n[0] == 20 && order_n[1] == 20 && !order_bad && nseg == 40 && copied_twice == 20 &&
	   !nlost && !nfault,
	   "each process's 20 segments, in its ring's order, the same copies in both (%u and %u, "
	   "%u out of order, %d copies seen twice)", order_n[0], order_n[1], order_bad,
	   copied_twice);
	ok(ct_gpuwork_stats(g)->segments == 40 && ct_gpuwork_stats(g)->ring_polls == 2 &&
	   ct_gpuwork_stats(g)->parallel_polls == 1,
	   "the reader's counts hold both threads' (%llu segments, %llu ring polls, %llu polls "
	   "read by several threads)", (unsigned long long)ct_gpuwork_stats(g)->segments,
	   (unsigned long long)ct_gpuwork_stats(g)->ring_polls,
	   (unsigned long long)ct_gpuwork_stats(g)->parallel_polls);
	ct_gpuwork_free(g);
}

int main(void)
{
	struct ct_gpuwork *g = ct_gpuwork_new("/proc", CT_GPU_SEG_DEFAULT, sink, NULL);
	const struct gw_field *f = gw_field_find("userd", "GPPut");
	uint32_t i;

	if (!ok(g && f, "reader made; the tables give GPPut's place")) {
		ct_gpuwork_free(g);
		return tap_done();
	}
	gpput_off = f->lo / 8;
	/* Low addresses: a GPFIFO entry holds 40 address bits. */
	pb = mmap((void *)0x60000000ull, pb_bytes + 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ring = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	userd = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(pb != MAP_FAILED && ring != MAP_FAILED && userd != MAP_FAILED, "memory laid out")) {
		ct_gpuwork_free(g);
		return tap_done();
	}
	/* the same pushbuffer offsets under an extended base of 0x11 (17 TiB:
	 * above ASan's shadow, so its build covers this too) */
	hi = mmap((void *)(HI_BASE + 0x60000000ull), pb_bytes, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	/* nothing mapped after it (PROT_NONE would not do: /proc/PID/mem reads
	 * with FOLL_FORCE) */
	munmap((char *)pb + pb_bytes, 4096);
	userd = (uint32_t *)((char *)userd + 0x200);
	dec = gw_chan_new(HOPPER_CHANNEL_GPFIFO_A);
	announce(g, (uint64_t)(uintptr_t)ring);
	ok(ct_gpuwork_stats(g)->channels == 1, "the channel is learned from the records");

	/* 1. plain work */
	for (i = 0; i < 10; i++)
		copy_seg(64 * i, 1000 + i);
	ct_gpuwork_poll(g, 0);
	ok(nseg == 10 && ncopy == 10 && !nlost && !nfault, "10 entries read and decoded (%d, %d)",
	   nseg, ncopy);
	reset_counts();
	ct_gpuwork_poll(g, 0);
	ok(nseg == 0 && nlost == 0, "a second poll with nothing new reads nothing");
	{   /* the schedule: an idle ring at 1/HZ; one that moved by one entry
	     * in 30 ms (a slow rate) within 1 ms all the same */
		uint64_t now, idle;

		usleep(120000);   /* past the hold of the polls above */
		ct_gpuwork_poll(g, 0);
		now = ct_now_ns(CLOCK_MONOTONIC);
		idle = ct_gpuwork_next_due(g) - now;
		usleep(30000);
		copy_seg(0, 77);
		ct_gpuwork_poll(g, 0);
		now = ct_now_ns(CLOCK_MONOTONIC);
		ok(idle > 4000000ull && ct_gpuwork_next_due(g) - now <= 1000000ull,
		   "an idle ring is polled at 1/HZ (%.2f ms), one that moved by one entry "
		   "in 30 ms within 1 ms (%.3f ms)", (double)idle / 1e6,
		   (double)(ct_gpuwork_next_due(g) - now) / 1e6);
		reset_counts();
	}

	/* 2. hostile segments */
	submit(0x10, 8);                                            /* unmapped */
	submit((uint64_t)(uintptr_t)pb + pb_bytes - 64, 64);        /* runs past the mapping */
	for (i = 0; i < 4096; i++)
		pb[2048 + i] = (uint32_t)rand() * 2654435761u;
	submit((uint64_t)(uintptr_t)(pb + 2048), 4096);             /* garbage */
	pb[9000] = hdr(1, 0x1fff, 1, 0x1b4);                        /* count past the end */
	submit((uint64_t)(uintptr_t)(pb + 9000), 1);
	ct_gpuwork_poll(g, 0);
	ok(nfault == 2, "unmapped and past-the-mapping segments are UNREADABLE records (%d)", nfault);
	ok(nseg == 2 && nbad >= 1, "garbage is decoded without harm (%d segments, %d bad)", nseg,
	   nbad);
	reset_counts();
	submit((uint64_t)(uintptr_t)pb, 0x1fffff);                  /* longer than the bound */
	ct_gpuwork_poll(g, 0);
	ok(ntrunc == 1 && nseg == 1, "a segment longer than the bound is cut there and marked (%d)",
	   ntrunc);

	/* 2a. control entries: named by the decoder, nothing read for them */
	reset_counts();
	copy_seg(30000, 21);
	submit_control(0, 0);                                       /* NOP */
	submit_control(2, 0xdeadbeef);                              /* GP_CRC */
	submit_control(0x7f, 0x10);                                 /* no such opcode */
	copy_seg(30008, 22);
	ct_gpuwork_poll(g, 0);
	ok(ncontrol == 3 && nseg == 2 && ncopy == 2 && !nfault && !nlost,
	   "control entries are records of their own, nothing read (%d control, %d segments)",
	   ncontrol, nseg);
	ok(ct_gpuwork_stats(g)->control == 3, "and counted as such");

	/* 2b'. SET_PB_SEGMENT_EXTENDED_BASE: the segments after it are above
	 * the 40 bits their entries hold; it lasts across polls */
	if (hi != MAP_FAILED) {
		reset_counts();
		uint32_t *lo_alias = pb + 50000, *hi_seg = hi + 50000;

		lo_alias[0] = hdr(1, 1, 4, 0x418);                  /* a copy of 555 at the low address */
		lo_alias[1] = 555;
		hi_seg[0] = hdr(1, 1, 4, 0x418);                    /* and of 777 above it */
		hi_seg[1] = 777;
		hi_seg[2] = hdr(1, 1, 4, 0x300);
		hi_seg[3] = 2;
		lo_alias[2] = hi_seg[2];
		lo_alias[3] = hi_seg[3];
		submit_control(4, (uint32_t)(HI_BASE >> 40) << 8);  /* operand: bits 24:8 */
		ct_gpuwork_poll(g, 0);
		submit((uint64_t)(uintptr_t)lo_alias, 4);
		ct_gpuwork_poll(g, 0);
		ok(ncontrol == 1 && nseg == 1 && copies_of[777] == 1 && !copies_of[555],
		   "a segment after an extended base is read above it, in a later poll too");
		submit_control(4, 0);                               /* back to 0 */
		submit((uint64_t)(uintptr_t)lo_alias, 4);
		ct_gpuwork_poll(g, 0);
		ok(copies_of[555] == 1, "and below it again after a base of 0");
		submit_control(4, 0x1ffffu << 8);                   /* the largest: nothing there */
		submit((uint64_t)(uintptr_t)lo_alias, 4);
		submit_control(4, 0);
		ct_gpuwork_poll(g, 0);
		ok(nfault == 1 && last_fault_va == (0x1ffffull << 40 | (uintptr_t)lo_alias),
		   "a segment under the largest base is UNREADABLE at its full address (0x%llx)",
		   (unsigned long long)last_fault_va);
	} else {
		for (i = 0; i < 3; i++)
			ok(true, "extended base # SKIP no memory could be mapped at 17 TiB");
	}

	/* 2b. a poller that fell behind: the pushbuffer went round under it */
	reset_counts();
	copy_seg(20000, 11);
	copy_seg(60000, 12);                                        /* past what the producer may be writing */
	copy_seg(20000, 13);                                        /* over the first */
	ct_gpuwork_poll(g, 0);
	ok(nlost == 1 && lost_entries == 1 && nseg == 2 && ncopy == 2,
	   "an unread segment written over by a newer one is lost, not misread (%d lost, %d read)",
	   nlost, nseg);

	/* 3. the ring goes round between two polls: GPPut is an index into the
	 * ring, so only what it moved past our last index, modulo the ring,
	 * is known lost; the slot it points at is the producer's next (maybe
	 * half written): not read either. */
	reset_counts();
	copies(ENTRIES + 3, 10000);
	ct_gpuwork_poll(g, 0);
	ok(nwrap == 1, "a ring that went round between polls is said (%d)", nwrap);
	ok(wrap_entries == 3, "with the entries known lost: GPPut moved 3 past our index (%llu)",
	   (unsigned long long)wrap_entries);
	ok(nseg == ENTRIES - 1 && ncopy == ENTRIES - 1 && lost_entries == 1,
	   "the rest of the ring is read, but the slot the producer writes next (%d read, %llu lost)",
	   nseg, (unsigned long long)lost_entries);
	ok(ct_gpuwork_stats(g)->wrap_lost == 3, "the stats keep the lower bound apart (%llu)",
	   (unsigned long long)ct_gpuwork_stats(g)->wrap_lost);

	/* 3b. twice round: the same GPPut; the count is a lower bound */
	reset_counts();
	copies(2 * ENTRIES + 5, 10000);
	ct_gpuwork_poll(g, 0);
	ok(nwrap == 1 && wrap_entries == 5 && nseg == ENTRIES - 1,
	   "twice round looks like once: at least 5 said lost (the truth, 70, cannot be seen: %llu)",
	   (unsigned long long)wrap_entries);

	/* 3c. the producer goes on while a whole ring is being read: the slots
	 * it reused are not read now (the next poll has them), never twice */
	reset_counts();
	copies(ENTRIES + 2, 10000);
	on_wrap = five_more;        /* the WRAP record comes before the entries are read */
	ct_gpuwork_poll(g, 0);
	ok(nwrap == 1 && nseg == ENTRIES - 6 && lost_entries == 6,
	   "entries reused while the ring was read are lost, not misread (%d read, %llu lost)", nseg,
	   (unsigned long long)lost_entries);
	ct_gpuwork_poll(g, 0);
	ok(nseg == ENTRIES - 1 && !copied_twice,
	   "the next poll reads the 5 new ones, once (%d read, %d twice)", nseg, copied_twice);
	ok(ct_gpuwork_stats(g)->overwritten >= 6, "counted as overwritten while read");

	/* 3d. the window each batch of entries was put in (a PUT record before
	 * them), and the kernel's records handed over between reading GPPut
	 * and the entries: what is put meanwhile waits for the next poll */
	reset_counts();
	nput = put_order_bad = 0;
	prev_until = 0;
	copies(3, 10000);
	ct_gpuwork_set_drain(g, drain_submits, g);
	drains = 0;
	ct_gpuwork_poll(g, 0);
	ok(drains == 1 && nput == 1 && nseg == 3 && !seg_before_put,
	   "one PUT record, then the 3 entries GPPut showed before the drain (%d drains, %d "
	   "windows, %d read)", drains, nput, nseg);
	ok(put_to == (put_from + 3) % ENTRIES && put_since < put_until,
	   "it names the entries and when they became visible");
	ct_gpuwork_poll(g, 0);
	ok(nput == 2 && nseg == 5 && !put_order_bad && drains == 2,
	   "the 2 put during the drain come at the next poll, in a window that starts where the "
	   "last ended (%d windows, %d read)", nput, nseg);
	ct_gpuwork_poll(g, 0);
	ok(nput == 2 && drains == 3, "no PUT record when GPPut did not move");
	ct_gpuwork_set_drain(g, NULL, NULL);

	/* 4. GPPut outside the ring: the channel is dropped */
	reset_counts();
	userd[gpput_off / 4] = ENTRIES + 9;
	ct_gpuwork_poll(g, 0);
	ok(nlost == 1, "a GPPut outside the ring is said once (%d)", nlost);
	userd[gpput_off / 4] = 3;
	ct_gpuwork_poll(g, 0);
	ok(nlost == 1 && nseg == 0, "and that channel is no longer read");

	/* 5. a second channel whose ring is not mapped */
	reset_counts();
	put_idx = 0;
	userd[gpput_off / 4] = 0;
	announce(g, 0x1000);
	userd[gpput_off / 4] = 5;
	ct_gpuwork_poll(g, 0);
	ok(nlost >= 1 && lost_entries == 5 && nseg == 0,
	   "entries of an unmapped ring are counted lost (%llu)", (unsigned long long)lost_entries);

	/* 6. the process exits: its channels go */
	{
		struct ct_rec ex = { .type = CT_REC_PROC_EXIT, .size = sizeof(ex),
				     .pid = (uint32_t)getpid() };

		ct_gpuwork_learn(g, &ex);
		reset_counts();
		userd[gpput_off / 4] = 9;
		ct_gpuwork_poll(g, 0);
		ok(nseg == 0 && nlost == 0, "after the exit record nothing is read");
	}
	ct_gpuwork_free(g);
	two_processes();
	gw_chan_free(dec);
	return tap_done();
}
