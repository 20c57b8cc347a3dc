// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What each piece of a traced call costs, one piece per program, for
 * bench/costs.c: every program runs on the raw sys_enter tracepoint (but
 * exit_raw, on sys_exit), does nothing for system calls other than getppid
 * from the bench's own process (the "guard" program is that test alone),
 * and does its one piece once per call.  The pieces are the ones
 * bpf/cudatrace.bpf.c is made of, and two ways to write an exit record.
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

/*
 * Task work (Linux 6.18 on; on older kernels exit_task_work does nothing):
 * a callback the kernel runs when the thread next returns to user space.
 * The field's type is the kernel's uapi struct, recognised by its name.
 */
struct bpf_task_work {
	__u64 __opaque;
} __attribute__((aligned(8)));

struct exit_work {
	struct bpf_task_work tw;
};

/* Opaque; a struct, not a declaration, or libbpf finds the callback's
 * type unlike the kernel's. */
struct bpf_map {
	int _opaque;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);      /* tid */
	__type(value, struct exit_work);
} exit_works SEC(".maps");

extern int bpf_task_work_schedule_resume_impl(struct task_struct *task,
					      struct bpf_task_work *tw, void *map__map,
					      int (*callback)(struct bpf_map *map, void *key,
							      void *value),
					      void *aux__prog) __ksym __weak;

/* Linux 6.16 on; on older kernels ring_dynptr does nothing. */
extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr) __ksym __weak;

/* A getppid of the bench's own process: the calls the pieces time. */
static __always_inline bool mine(long nr)
{
	return nr == NR_getppid && bpf_get_current_pid_tgid() >> 32 == cfg.tgid;
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
		if (mine((long)ctx->args[1])) \
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
	struct inode *inode = current_fd_inode(cfg.fd);
	volatile __u32 rdev;

	if (!inode)
		return;
	rdev = inode->i_rdev;
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

/*
 * -k's stack copy, in parts: STACK bytes from the caller's stack pointer
 * into a per-CPU buffer; a ring record of that size reserved, its head
 * written, submitted (no copy); and the copy straight into such a record.
 */
#define STACK 4096

struct stack_buf {
	__u8 data[STACK];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_buf);
} stack_scratch SEC(".maps");

PIECE(stack_scratch_4k)
{
	__u32 zero = 0;
	struct stack_buf *b = bpf_map_lookup_elem(&stack_scratch, &zero);

	if (b)
		bpf_probe_read_user(b->data, STACK, (void *)current_user_regs()->sp);
}

PIECE(stack_ring_only_4k)
{
	struct bpf_dynptr d;
	volatile __u32 n = STACK;

	if (!bpf_ringbuf_reserve_dynptr(&rb, n, 0, &d)) {
		__u64 *head = bpf_dynptr_data(&d, 0, 8);

		if (head)
			*head = 1;
		bpf_ringbuf_submit_dynptr(&d, BPF_RB_NO_WAKEUP);
	} else {
		bpf_ringbuf_discard_dynptr(&d, 0);
	}
}

PIECE(stack_ring_4k)
{
	struct bpf_dynptr d;
	volatile __u32 n = STACK;

	if (!bpf_probe_read_user_dynptr)
		return;
	if (!bpf_ringbuf_reserve_dynptr(&rb, n, 0, &d)) {
		bpf_probe_read_user_dynptr(&d, 0, n, (void *)current_user_regs()->sp);
		bpf_ringbuf_submit_dynptr(&d, BPF_RB_NO_WAKEUP);
	} else {
		bpf_ringbuf_discard_dynptr(&d, 0);
	}
}

/*
 * -k's walk reads the stack through a window, a read every frame or two:
 * READS reads of each size from the caller's stack (costs.c runs its loop
 * below 320 KiB of stack), each further up as a walk's are, into a per-CPU
 * map value as the walk's window is.  And 256 and 512 bytes into other
 * destinations, since the kernel checks the destination of every copy from
 * user memory (hardened usercopy), by where it lies: the BPF stack, a
 * task's storage (slab).
 */
#define WIN_MAX 32768
#define READS 8

struct win_buf {
	__u8 data[WIN_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct win_buf);
} win_percpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct slot);
} win_task SEC(".maps");

static __always_inline void reads_into(__u8 *dst, __u32 n)
{
	__u64 sp = current_user_regs()->sp;

	for (int i = 0; i < READS; i++)
		bpf_probe_read_user(dst, n, (void *)(sp + i * (n > 256 ? n : 256)));
}

#define WIN_PIECE(n) \
	PIECE(win_##n) \
	{ \
		__u32 zero = 0; \
		struct win_buf *b = bpf_map_lookup_elem(&win_percpu, &zero); \
		if (b) \
			reads_into(b->data, n); \
	}

WIN_PIECE(16)
WIN_PIECE(64)
WIN_PIECE(256)
WIN_PIECE(512)
WIN_PIECE(2048)
WIN_PIECE(4096)
WIN_PIECE(8192)
WIN_PIECE(32768)

PIECE(win_task_512)
{
	struct slot *b = bpf_task_storage_get(&win_task, bpf_get_current_task_btf(), 0,
					      BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (b)
		reads_into(b->data, 2 * LARGE);
}

PIECE(win_stack_256)
{
	__u8 buf[256];

	reads_into(buf, sizeof(buf));
	asm volatile("" : : "r"(buf) : "memory");
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

/* What an exit writes at the least: the time and the return value. */
static __always_inline void exit_record(long ret)
{
	__u64 r[2] = { bpf_ktime_get_ns(), (__u64)ret };

	bpf_ringbuf_output(&rb, r, sizeof(r), BPF_RB_NO_WAKEUP);
}

/*
 * The exit on a raw sys_exit program of its own, as cudatrace -p has it.
 * Timed against "guard" on sys_enter, so added_ns is its work plus the
 * difference between the two hooks' dispatch.
 */
SEC("raw_tracepoint/sys_exit")
int exit_raw(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = bpf_rdonly_cast((void *)ctx->args[0],
					       bpf_core_type_id_kernel(struct pt_regs));

	if (mine((long)regs->orig_ax))
		exit_record((long)ctx->args[1]);
	return 0;
}

static int exit_work_run(struct bpf_map *map, void *key, void *value)
{
	exit_record((long)current_user_regs()->ax);
	return 0;
}

/*
 * The same exit as task work scheduled at entry: the one way BPF has here
 * to act at the end of a traced call without an exit hook that every other
 * system call on the machine pays.  The kernel queues it through an
 * irq_work (a self-interrupt) and runs it on the way back to user space.
 */
PIECE(exit_task_work)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct exit_work *w, zero = {};

	if (!bpf_task_work_schedule_resume_impl)
		return;
	w = bpf_map_lookup_elem(&exit_works, &tid);
	if (!w) {
		bpf_map_update_elem(&exit_works, &tid, &zero, BPF_NOEXIST);
		w = bpf_map_lookup_elem(&exit_works, &tid);
	}
	if (w)
		bpf_task_work_schedule_resume_impl(bpf_get_current_task_btf(), &w->tw, &exit_works,
						   exit_work_run, NULL);
}
