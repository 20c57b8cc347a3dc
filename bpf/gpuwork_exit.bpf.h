// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * --gpu-work's last look before exit (struct ct_gpu_exit in cudatrace.h,
 * docs/GPUWORK.md).  Work a process puts after the reader's last poll is
 * gone with its memory.  sched_process_exit runs, on 6.18, before
 * exit_mm: the exiting thread still has its memory, and
 * bpf_probe_read_user reads it (measured; with SIGKILL too).  So, as the
 * process's last thread group leader exits, each channel the reader
 * published is read here: GPPut, the entries from the reader's next
 * index up to it, and their segments.  Include after emit.bpf.h.
 */
#ifndef CT_GPUWORK_EXIT_BPF_H
#define CT_GPUWORK_EXIT_BPF_H

const volatile bool gpu_work = false;   /* --gpu-work */

_Static_assert(sizeof(struct ct_gpu_exit) + CT_GPU_SEG_DEFAULT * 4 <= CT_GX_EMIT_MASK &&
	       CT_GX_EMIT_MASK < CT_ARG_MAX + CT_NEST_MAX && (CT_GX_EMIT_MASK & (CT_GX_EMIT_MASK + 1)) == 0,
	       "the exit look's largest record fits its mask, a power of two less one, in the scratch");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct ct_gx_key);
	__type(value, struct ct_gx_chan);
} gw_exit SEC(".maps");

struct gx_walk {
	struct ct_gx_chan ch;
	struct ct_gx_key key;
	__u32 from, put, n;
	__u64 ts;
};

static __always_inline __u32 gx_bits(__u32 word, __u8 lo, __u8 bits)
{
	return bits >= 32 ? word >> (lo & 31) : (word >> (lo & 31)) & ((1u << (bits & 31)) - 1);
}

static __always_inline struct ct_gpu_exit *gx_record(struct scratch *s, struct gx_walk *w,
						     __u32 index, __u32 flags)
{
	struct ct_gpu_exit *r = (struct ct_gpu_exit *)s->data;

	__builtin_memset(r, 0, sizeof(*r));
	r->h.type = CT_REC_GPU_EXIT;
	r->h.size = sizeof(*r);
	r->h.ts_ns = w->ts;
	r->h.pid = w->key.pid;
	r->h.tid = (__u32)bpf_get_current_pid_tgid();
	r->slot = w->key.slot;
	r->from = w->from;
	r->put = w->put;
	r->index = index;
	r->flags = flags;
	return r;
}

/* Entry i after `from`: the entry, then its segment (cut to max_dwords). */
static long gx_entry(__u64 i, void *ctx)
{
	struct gx_walk *w = ctx;
	struct scratch *s = get_scratch();
	struct ct_gpu_exit *r;
	__u32 index, w0, w1, n;
	__u64 e;

	if (!s || !w->ch.entries)
		return 1;
	index = (w->from + (__u32)i) % w->ch.entries;
	r = gx_record(s, w, index, 0);
	if (bpf_probe_read_user(&e, 8, (void *)(w->ch.ring_va + (__u64)index * 8))) {
		r->flags |= CT_GX_NO_ENTRY;
		emit(r, sizeof(*r));
		return 0;
	}
	r->entry = e;
	w0 = (__u32)e;
	w1 = (__u32)(e >> 32);
	r->want_dwords = gx_bits(w1, w->ch.len_lo, w->ch.len_bits);
	if (!r->want_dwords) {
		r->flags |= CT_GX_CONTROL;
		emit(r, sizeof(*r));
		return 0;
	}
	r->va = w->ch.pb_base | (__u64)gx_bits(w1, w->ch.get_hi_lo, w->ch.get_hi_bits) << 32 |
		(__u64)gx_bits(w0, w->ch.get_lo, w->ch.get_bits) << (w->ch.get_lo & 31);
	n = r->want_dwords < w->ch.max_dwords ? r->want_dwords : w->ch.max_dwords;
	if (n > CT_GPU_SEG_DEFAULT)
		n = CT_GPU_SEG_DEFAULT;
	keep_in_register(n);
	if (n < r->want_dwords)
		r->flags |= CT_GX_TRUNC;
	if (bpf_probe_read_user(s->data + sizeof(*r), (n & (CT_GPU_SEG_DEFAULT * 2 - 1)) * 4,
				(void *)r->va)) {
		r->flags |= CT_GX_NO_SEG;
		emit(r, sizeof(*r));
		return 0;
	}
	r->ndwords = n;
	r->h.size = sizeof(*r) + n * 4;
	emit(r, (sizeof(*r) + n * 4) & CT_GX_EMIT_MASK);
	return 0;
}

/* Slot i of the process: its channel, if the reader published one. */
static long gx_channel(__u64 i, void *ctx)
{
	struct gx_walk *w = ctx;
	struct ct_gx_chan *ch;
	struct scratch *s;
	__u32 put = 0, flags = CT_GX_HEAD;

	w->key.slot = (__u32)i;
	ch = bpf_map_lookup_elem(&gw_exit, &w->key);
	if (!ch || !ch->entries)
		return 0;
	w->ch = *ch;
	if (bpf_probe_read_user(&put, 4, (void *)ch->gpput_addr) || put >= ch->entries)
		flags |= CT_GX_NO_PUT;
	w->from = ch->next % ch->entries;
	w->put = put;
	w->n = flags & CT_GX_NO_PUT ? 0 : (put + ch->entries - w->from) % ch->entries;
	if (!w->n && !(flags & CT_GX_NO_PUT))
		return 0;   /* nothing new: nothing to say */
	s = get_scratch();
	if (!s)
		return 1;
	emit(gx_record(s, w, w->from, flags), sizeof(struct ct_gpu_exit));
	bpf_loop(w->n < CT_GX_ENTRIES_MAX ? w->n : CT_GX_ENTRIES_MAX, gx_entry, w, 0);
	return 0;
}

/* The exiting process's channels, before its memory goes.  First a record
 * of when the look began: a ring the reader published after that was not
 * in the map the look read. */
static __always_inline void gpuwork_last_look(__u32 tgid)
{
	struct gx_walk w = { .key = { .pid = tgid } };
	struct scratch *s;

	if (!gpu_work)
		return;
	w.ts = bpf_ktime_get_ns();
	s = get_scratch();
	if (s)
		emit(gx_record(s, &w, 0, CT_GX_LOOK), sizeof(struct ct_gpu_exit));
	bpf_loop(CT_GX_SLOTS, gx_channel, &w, 0);
}

#endif
