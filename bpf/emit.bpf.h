// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The BPF programs' shared output: the ring buffer, the per-CPU scratch a
 * record is built in, the drop and event counters, and bounded reads of an
 * argument copy.  Included first by cudatrace.bpf.c, stacks.bpf.h and
 * pyframes.bpf.h.
 */
#ifndef CT_EMIT_BPF_H
#define CT_EMIT_BPF_H

#include "cudatrace.h"

/* Set by user space before load. */
const volatile __u64 wakeup_bytes = 0;   /* wake the reader each time this much more is queued */

/* Stops clang from re-reading a bounded value from memory, which would
 * lose the bound the verifier needs. */
#define keep_in_register(x) asm volatile("" : "+r"(x))

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Records are built here and copied into the ring buffer with
 * bpf_ringbuf_output, since bpf_ringbuf_reserve needs a constant size.
 * One slot per CPU (user space sets max_entries); the programs run with
 * preemption disabled, so a slot is never shared by two events.
 */
struct scratch {
	struct ct_ioctl rec;
	__u8 data[CT_ARG_MAX + CT_NEST_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);  /* resized to the CPU count */
	__type(key, __u32);
	__type(value, struct scratch);
} scratch_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);  /* resized by -b */
} rb SEC(".maps");

static __always_inline void count_n(__u32 which, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += n;
}

static __always_inline void count(__u32 which)
{
	count_n(which, 1);
}

/*
 * Whether a record of size bytes wakes the reader (wakeup_bytes is a
 * quarter of the ring):
 * - when it carries the data queued past a multiple of wakeup_bytes: once
 *   for every quarter queued, not at every record.  A reader a little
 *   behind is awake and gains nothing from more, and each wakeup is an
 *   interrupt that the traced thread pays for (1-5 us: with a reader
 *   behind on -k's stacks, it was most of what -k cost).  Two CPUs may
 *   cross a mark together unseen; the next mark, or the reader's own poll
 *   (100 ms), wakes it then;
 * - at every record once half the ring is queued: the reader is far
 *   behind, and what the wakeups cost the traced threads slows them
 *   towards its pace (the one brake BPF has), before the ring overflows.
 */
static __always_inline __u64 wake_flags(__u64 size)
{
	__u64 queued = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);

	if (!wakeup_bytes || queued >= 2 * wakeup_bytes)
		return BPF_RB_FORCE_WAKEUP;
	size += BPF_RINGBUF_HDR_SZ;
	return queued / wakeup_bytes != (queued + size) / wakeup_bytes ? BPF_RB_FORCE_WAKEUP
								       : BPF_RB_NO_WAKEUP;
}

/*
 * A record the capture acts on (want: the pc of a table it lacks) wakes
 * the reader at once, at most once a ms: every stack that meets that
 * table before the capture asks for it is copied, or sent with a gap,
 * too.  Slept through (100 ms, or a quarter of the ring: wake_flags), a
 * first capture's start-up copied hundreds of stacks that one ask would
 * have spared.  Where the walk stopped for good (a rule of another shape)
 * the copy waits as any record.
 */
#define WANT_WAKE_GAP_NS 1000000
__u64 want_woke_ns = 0;

static __always_inline __u64 want_wake_flags(__u64 size, __u64 want)
{
	__u64 now;

	if (!want)
		return wake_flags(size);
	now = bpf_ktime_get_ns();
	if (now - want_woke_ns < WANT_WAKE_GAP_NS)
		return wake_flags(size);
	want_woke_ns = now;
	count(CT_CNT_KWALK_COPY_WOKE);
	return BPF_RB_FORCE_WAKEUP;
}

/* true: the record went into the ring, waking the reader as flags say;
 * false: lost (counted) */
static __always_inline bool emit_flags(void *data, __u64 size, __u64 flags)
{
	if (bpf_ringbuf_output(&rb, data, size, flags)) {
		count(CT_CNT_LOST);
		return false;
	}
	return true;
}

static __always_inline bool emit(void *data, __u64 size)
{
	return emit_flags(data, size, wake_flags(size));
}

/*
 * Two records in one sample of the ring (a call's Python and native
 * stacks): one reservation and one wakeup's decision for both.  The
 * reader takes a sample's records one after another.  Each size is
 * bounded by its buffer (max_a, max_b: what the verifier needs).
 * true: both went into the ring.
 */
static __always_inline bool emit_two(const void *a, __u64 na, __u64 max_a, const void *b,
				     __u64 nb, __u64 max_b)
{
	struct bpf_dynptr d;

	keep_in_register(na);
	keep_in_register(nb);
	if (na > max_a || nb > max_b)
		return false;
	if (bpf_ringbuf_reserve_dynptr(&rb, na + nb, 0, &d)) {
		bpf_ringbuf_discard_dynptr(&d, 0);
		count_n(CT_CNT_LOST, 2);
		return false;
	}
	bpf_dynptr_write(&d, 0, (void *)a, na, 0);
	bpf_dynptr_write(&d, na, (void *)b, nb, 0);
	bpf_ringbuf_submit_dynptr(&d, wake_flags(na + nb));
	return true;
}

/* A build made to find where -k's time goes (BPF_DEFS=-DCT_TIMED): ns
 * since t0 added to a counter; nothing in other builds. */
#ifdef CT_TIMED
#define TIMER_START(t) __u64 t = bpf_ktime_get_ns()
#define TIMER_ADD(which, t) count_n(which, bpf_ktime_get_ns() - (t))
#else
#define TIMER_START(t) do {} while (0)
#define TIMER_ADD(which, t) do {} while (0)
#endif

static __always_inline struct scratch *get_scratch(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&scratch_map, &cpu);
}

/* A field of the argument copy at a table offset, bounded for the verifier
 * (the capture only gives offsets inside the struct, whose size len has). */
static __always_inline __u64 field_u64(const __u8 *arg, __u32 len, __u32 off)
{
	off &= CT_ARG_MAX - 1;
	return off + 8 <= len ? *(__u64 *)(arg + off) : 0;
}

static __always_inline __u32 field_u32(const __u8 *arg, __u32 len, __u32 off)
{
	off &= CT_ARG_MAX - 1;
	return off + 4 <= len ? *(__u32 *)(arg + off) : 0;
}

#endif
