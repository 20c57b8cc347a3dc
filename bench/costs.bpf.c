// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What each piece of a traced call costs, one piece per program, for
 * bench/costs.c: every program runs on the raw sys_enter tracepoint, does
 * nothing for system calls other than getppid from the bench's own
 * process (the "guard" program is that test alone), and does its one piece
 * once per call.  The pieces are the ones bpf/cudatrace.bpf.c is made of.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "current_task.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define NR_getppid 110
#define SMALL 32     /* an NVOS54 */
#define LARGE 256    /* its params */

const volatile struct {
	__u32 tgid;      /* the bench process */
	__s32 fd;        /* an open file of it, for the fd walk */
	__u64 uaddr;     /* LARGE bytes of its memory */
} cfg = {};

struct slot {
	__u8 data[2 * LARGE];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);  /* resized to the CPU count */
	__type(key, __u32);
	__type(value, struct slot);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct slot);
} stash SEC(".maps");

/* Sized by costs.c (-b); records are thrown away after each round. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} rb SEC(".maps");

/* Linux 6.16 on; on older kernels ring_dynptr does nothing. */
extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr) __ksym __weak;

static __always_inline bool mine(struct bpf_raw_tracepoint_args *ctx)
{
	return ctx->args[1] == NR_getppid && bpf_get_current_pid_tgid() >> 32 == cfg.tgid;
}

static __always_inline struct slot *scratch_slot(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&scratch, &cpu);
}

#define PIECE(name) \
	static __always_inline void piece_##name(void); \
	SEC("raw_tracepoint/sys_enter") \
	int name(struct bpf_raw_tracepoint_args *ctx) \
	{ \
		if (mine(ctx)) \
			piece_##name(); \
		return 0; \
	} \
	static __always_inline void piece_##name(void)

PIECE(guard) {}

PIECE(ktime)
{
	volatile __u64 t = bpf_ktime_get_ns();
	(void)t;
}

PIECE(comm)
{
	char c[16];

	bpf_get_current_comm(c, sizeof(c));
}

/* The same name read straight from the task (current_task.bpf.h). */
PIECE(comm_direct)
{
	__u64 c[2];

	current_comm((char *)c);
	asm volatile("" : : "r"(c[0]), "r"(c[1]));   /* keep the loads */
}

/* fd -> file -> inode -> rdev, as cudatrace's fd_traced walks it. */
PIECE(fd_walk)
{
	__u64 addr = fd_file_addr(cfg.fd);
	struct file *file;
	volatile __u32 rdev;

	if (!addr)
		return;
	file = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct file));
	rdev = file->f_inode->i_rdev;
	(void)rdev;
}

PIECE(read_small)
{
	struct slot *s = scratch_slot();

	if (s)
		bpf_probe_read_user(s->data, SMALL, (void *)cfg.uaddr);
}

PIECE(read_both)
{
	struct slot *s = scratch_slot();

	if (s) {
		bpf_probe_read_user(s->data, SMALL, (void *)cfg.uaddr);
		bpf_probe_read_user(s->data + SMALL, LARGE, (void *)cfg.uaddr);
	}
}

PIECE(task_storage)
{
	struct slot *s = bpf_task_storage_get(&stash, bpf_get_current_task_btf(), 0,
					      BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (s)
		s->data[0] = 1;
}

PIECE(query)
{
	volatile __u64 n = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	(void)n;
}

/* A record of SMALL + LARGE bytes built in the per-CPU slot, then copied. */
PIECE(ring_output)
{
	struct slot *s = scratch_slot();

	if (s)
		bpf_ringbuf_output(&rb, s, SMALL + LARGE, BPF_RB_NO_WAKEUP);
}

/* The same record reserved in the ring and written there. */
PIECE(ring_reserve)
{
	__u8 *r = bpf_ringbuf_reserve(&rb, SMALL + LARGE, 0);

	if (r) {
		r[0] = 1;
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	}
}

/* Both user copies straight into a reserved record: no slot, no copy. */
PIECE(ring_direct)
{
	__u8 *r = bpf_ringbuf_reserve(&rb, SMALL + LARGE, 0);

	if (r) {
		bpf_probe_read_user(r, SMALL, (void *)cfg.uaddr);
		bpf_probe_read_user(r + SMALL, LARGE, (void *)cfg.uaddr);
		bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	}
}

/* The same, with a record of a size known only at run time (dynptr). */
PIECE(ring_dynptr)
{
	struct bpf_dynptr d;
	volatile __u32 small = SMALL, large = LARGE;

	if (!bpf_probe_read_user_dynptr)
		return;
	if (!bpf_ringbuf_reserve_dynptr(&rb, small + large, 0, &d)) {
		bpf_probe_read_user_dynptr(&d, 0, small, (void *)cfg.uaddr);
		bpf_probe_read_user_dynptr(&d, small, large, (void *)cfg.uaddr);
		bpf_ringbuf_submit_dynptr(&d, BPF_RB_NO_WAKEUP);
	} else {
		bpf_ringbuf_discard_dynptr(&d, 0);
	}
}

/* One entry's work as cudatrace does it now: walk, time, name, copies, record. */
PIECE(entry_now)
{
	struct slot *s = scratch_slot();

	piece_fd_walk();
	if (!s)
		return;
	*(__u64 *)s->data = bpf_ktime_get_ns();
	current_comm((char *)s->data + 8);
	bpf_probe_read_user(s->data + SMALL, SMALL, (void *)cfg.uaddr);
	bpf_probe_read_user(s->data + 2 * SMALL, LARGE - SMALL, (void *)cfg.uaddr);
	if (bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA) < (1ULL << 40))
		bpf_ringbuf_output(&rb, s, SMALL + LARGE, BPF_RB_NO_WAKEUP);
	piece_task_storage();
}
