// SPDX-License-Identifier: MIT
/*
 * Copies' sources kept as the reader thread read them
 * (capture/kernels/copy_snaps.c): a staging buffer reused for each copy
 * still gives the namer, long after, each copy's own bytes; a read past
 * what was kept is checked against it (a buffer written since: refused);
 * a process's exit keeps them for the namer, which is behind; the oldest
 * go when too many are kept; fills, odd sizes and unreadable sources are
 * not kept.  Built under ASan/UBSan too.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "copy_snaps.h"
#include "tap.h"

#define PID     4242
#define STAGING 0x7f0000100000ull   /* the process's staging buffer, here `mem` */
#define BIG     (100u << 10)

static uint8_t mem[BIG];
static unsigned live_reads;

/* The process's memory: only the staging buffer can be read. */
static bool read_proc(void *ctx, uint32_t pid, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	live_reads++;
	if (pid != PID || addr < STAGING || addr - STAGING > sizeof(mem) ||
	    n > sizeof(mem) - (addr - STAGING))
		return false;
	memcpy(buf, mem + (addr - STAGING), n);
	return true;
}

static uint32_t hdr(uint32_t n, uint32_t subch, uint32_t method)
{
	return 1u << 29 | n << 16 | subch << 13 | method >> 2;   /* incrementing */
}

/* One segment of channel 0x5c00001c: dw[0, n). */
static void seg(struct ct_copy_snaps *s, const uint32_t *dw, uint32_t n, uint32_t pid)
{
	union { struct ct_gpu_seg g; uint8_t b[sizeof(struct ct_gpu_seg) + 64 * 4]; } r = { 0 };

	r.g.h.type = CT_REC_GPU_SEG;
	r.g.h.pid = pid;
	r.g.h.size = (uint32_t)(sizeof(r.g) + n * 4);
	r.g.client = 0xc1d00001;
	r.g.channel = 0x5c00001c;
	r.g.chan_class = 0xc86f;
	r.g.ndwords = n;
	memcpy(r.b + sizeof(r.g), dw, n * 4);
	ct_copy_snaps_seg(s, &r.g.h);
	ct_copy_snaps_drain(s);   /* its thread has read what it queued */
}

/* The channel's GPPut moved: what follows was put after since_ns. */
static void put(struct ct_copy_snaps *s, uint64_t since_ns)
{
	struct ct_gpu_put p = { .h = { .type = CT_REC_GPU_PUT, .size = sizeof(p), .pid = PID },
				.client = 0xc1d00001, .channel = 0x5c00001c, .since_ns = since_ns };

	ct_copy_snaps_seg(s, &p.h);
}

/* HOPPER_DMA_COPY_A on subchannel 4 (as CUDA binds it). */
static void bind(struct ct_copy_snaps *s, uint32_t pid)
{
	uint32_t dw[2] = { hdr(1, 4, 0), 0xc8b5 };

	seg(s, dw, 2, pid);
}

/* A copy of bytes from src to dst (gpfifo_fake.c's: pitch, flush; fill
 * sets LAUNCH_DMA's remap bit). */
static void copy(struct ct_copy_snaps *s, uint64_t src, uint64_t dst, uint32_t bytes, bool fill)
{
	uint32_t dw[] = { hdr(4, 4, 0x400), (uint32_t)(src >> 32), (uint32_t)src,
			  (uint32_t)(dst >> 32), (uint32_t)dst, hdr(1, 4, 0x418), bytes,
			  hdr(1, 4, 0x300), fill ? 0x186u | 1u << 10 : 0x186u };

	seg(s, dw, sizeof(dw) / 4, PID);
}

static bool got_from(struct ct_copy_snaps *s, uint64_t src, uint64_t dst, uint64_t off, size_t n,
		     uint8_t want)
{
	uint8_t *b = malloc(n);
	bool ok = b && ct_copy_snaps_read(s, PID, src, dst, off, b, n);

	for (size_t i = 0; ok && i < n; i++)
		ok = b[i] == want;
	free(b);
	return ok;
}

static bool got(struct ct_copy_snaps *s, uint64_t dst, uint64_t off, size_t n, uint8_t want)
{
	return got_from(s, STAGING, dst, off, n, want);
}

int main(void)
{
	struct ct_copy_snaps *s = ct_copy_snaps_new(read_proc, NULL);
	struct ct_copy_snaps_stats st;
	unsigned before;

	bind(s, PID);
	memset(mem, 0xaa, 512);
	copy(s, STAGING, 0x7f2c53b00000ull, 512, false);
	memset(mem, 0xbb, 512);   /* the buffer reused for the next upload */
	copy(s, STAGING, 0x7f2c53b10000ull, 512, false);
	memset(mem, 0xcc, sizeof(mem));   /* and again, before the namer gets to either */
	before = live_reads;
	ok(got(s, 0x7f2c53b00000ull, 0, 512, 0xaa) && got(s, 0x7f2c53b10000ull, 0, 128, 0xbb) &&
	   got(s, 0x7f2c53b10000ull, 384, 128, 0xbb) && live_reads == before,
	   "each copy through one reused buffer read as it was when the reader read it, "
	   "without reading the process again");
	ok(!ct_copy_snaps_read(s, PID, STAGING, 0x7f2c53b10000ull, 256, (uint8_t[512]){ 0 }, 512),
	   "a read past a small copy's end: past what was kept, found written since: refused");

	/* 100 KiB: its first 64 KiB kept; the rest read live, checked */
	memset(mem, 0x11, sizeof(mem));
	copy(s, STAGING, 0x7f2c53c00000ull, BIG, false);
	ok(got(s, 0x7f2c53c00000ull, 0, BIG, 0x11), "a copy larger than what is kept: the rest "
	   "read live, its start unchanged: read");
	mem[100] = 0x12;
	ok(!got(s, 0x7f2c53c00000ull, 0, BIG, 0x11) &&
	   got(s, 0x7f2c53c00000ull, 0, CT_SNAP_BYTES, 0x11),
	   "... once the buffer is written: refused past what was kept, served within it");
	st = ct_copy_snaps_stats(s);
	ok(st.copies == 3 && st.checked == 1 && st.stale == 2 && st.served == 4,
	   "counted: 3 kept, 4 reads served, 1 checked, 2 refused (%llu %llu %llu %llu)",
	   (unsigned long long)st.copies, (unsigned long long)st.served,
	   (unsigned long long)st.checked, (unsigned long long)st.stale);

	/* not kept: a fill, a size that is no whole instructions, an unreadable source */
	copy(s, STAGING, 0x7f2c53d00000ull, 512, true);
	copy(s, STAGING, 0x7f2c53d10000ull, 500, false);
	copy(s, 0x100000000ull, 0x7f2c53d20000ull, 512, false);
	st = ct_copy_snaps_stats(s);
	ok(st.copies == 3 && st.unreadable == 1, "a fill and an odd size not kept; a source in "
	   "device memory counted unreadable");

	/* the process exits: the reader drops its channels, the namer still reads */
	ct_copy_snaps_exited(s, PID);
	ok(got(s, 0x7f2c53b00000ull, 0, 512, 0xaa), "after the exit the namer still gets the copy");
	copy(s, STAGING, 0x7f2c53e00000ull, 512, false);   /* unbound: a channel decoded anew */
	st = ct_copy_snaps_stats(s);
	ok(st.copies == 3, "a new channel's copy before its class is bound: not a copy");
	ct_copy_snaps_forget(s, PID);
	memset(mem, 0xdd, 512);
	ok(got(s, 0x7f2c53b00000ull, 0, 512, 0xdd), "once the namer forgets the process: read live");

	/* A later copy from the same buffer put before the reader's read of
	 * the first (the same look at the ring: its GPU_PUT's since is older
	 * than the read): the first's kept bytes may be the later one's. */
	bind(s, PID);
	put(s, 1);
	memset(mem, 0x21, 512);
	copy(s, STAGING, 0x7f2c55000000ull, 512, false);
	memset(mem, 0x22, 1024);
	copy(s, STAGING + 256, 0x7f2c55010000ull, 512, false);   /* overlapping */
	before = live_reads;
	ok(!got(s, 0x7f2c55000000ull, 0, 512, 0x21) && !got(s, 0x7f2c55000000ull, 0, 512, 0x22) &&
	   !got(s, 0x7f2c55000000ull, 300, 16, 0x21) && live_reads == before,
	   "where a later copy of the same look overlaps the source: refused, not read live "
	   "either");
	ok(got(s, 0x7f2c55000000ull, 0, 256, 0x21), "... the bytes before the overlap: served");
	ok(got_from(s, STAGING + 256, 0x7f2c55010000ull, 0, 512, 0x22) && live_reads == before,
	   "the later copy's own bytes: served from what was kept");
	put(s, ct_now_ns(CLOCK_MONOTONIC));   /* the next look: put after both reads */
	memset(mem, 0x23, 1024);
	copy(s, STAGING, 0x7f2c55020000ull, 512, false);
	ok(got_from(s, STAGING + 256, 0x7f2c55010000ull, 0, 512, 0x22) &&
	   got(s, 0x7f2c55020000ull, 0, 512, 0x23),
	   "a copy put after the earlier one was read does not overtake it");
	st = ct_copy_snaps_stats(s);
	ok(st.overtaken == 1 && st.refused_overtaken == 3 && st.read_bytes > 0,
	   "counted: 1 overtaken, 3 reads refused (%llu %llu)",
	   (unsigned long long)st.overtaken, (unsigned long long)st.refused_overtaken);

	/* more than CT_SNAPS_MAX: the oldest go, counted unread */
	bind(s, PID);
	for (unsigned i = 0; i < CT_SNAPS_MAX + 10; i++)
		copy(s, STAGING, 0x7f2c54000000ull + i * 0x1000ull, 512, false);
	st = ct_copy_snaps_stats(s);
	ok(st.evicted == 10, "%u copies: the 10 oldest pushed out unread (%llu)",
	   CT_SNAPS_MAX + 10, (unsigned long long)st.evicted);
	ct_copy_snaps_free(s);
	return tap_done();
}
