/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * -k: the call's stack at the entry of each traced call, walked here from
 * the capture's tables (kwalk.bpf.h), or else the user registers and the
 * top of the user stack for the capture to unwind; and the executable
 * mappings that traced processes add.  Included by cudatrace.bpf.c; every
 * entry point here returns at once unless stack_bytes is set, so without
 * -k nothing changes.
 */
#ifndef CT_STACKS_BPF_H
#define CT_STACKS_BPF_H

#include "emit.bpf.h"
#include "targets.bpf.h"

const volatile __u32 stack_bytes = 0;    /* -k[=BYTES]; 0: no stacks */
const volatile __u32 stack_main_bytes = 0;   /* a main thread's stack copied whole up to this deep */

#include "kwalk.bpf.h"

#define PROT_EXEC 0x4


static long stack_vma_end(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(__u64 *)ctx = vma->vm_end;
	return 0;
}

/*
 * Linux 6.16+: a copy from user memory into a dynptr of any length, at
 * any offset.  Where the kernel has it, the stack is read into the ring
 * record in one call; weak, so that older kernels load the rest.
 */
extern int bpf_probe_read_user_dynptr(struct bpf_dynptr *dptr, __u32 off, __u32 size,
				      const void *unsafe_ptr) __weak __ksym;

static __always_inline bool have_read_user_dynptr(void)
{
	return bpf_probe_read_user_dynptr != NULL;
}

/*
 * Else, and where one read fails, the stack is read page by page (bpf_loop:
 * one verification of the body); without the kfunc each page goes through
 * a slice of the ring record of a constant length (what the verifier
 * needs; CT_STACK_SLACK makes room for it at any offset below the stack's
 * size).  A stack may hold pages never touched (a big frame written only
 * at its ends): such a page reads as zeros, and the others are still read.
 */
#define STACK_PAGE 4096
_Static_assert(STACK_PAGE <= CT_STACK_SLACK, "a page slice must fit in the slack");

static const __u8 zero_page[STACK_PAGE];

struct page_walk {
	struct bpf_dynptr rec;   /* the ring record */
	__u64 sp;
	__u32 n, off, good, bad;
};

/* Bytes [off, off + len) of the stack into the record; 0 or an error. */
static __always_inline long read_stack_bytes(struct page_walk *w, __u32 off, __u32 len)
{
	__u8 *slice;

	if (have_read_user_dynptr())
		return bpf_probe_read_user_dynptr(&w->rec, sizeof(struct ct_stack) + off, len,
						  (void *)(w->sp + off));
	slice = bpf_dynptr_data(&w->rec, sizeof(struct ct_stack) + off, STACK_PAGE);
	if (!slice || len > STACK_PAGE)
		return -1;
	return bpf_probe_read_user(slice, len, (void *)(w->sp + off));
}

static long read_stack_page(__u32 i, void *ctx)
{
	struct page_walk *w = ctx;
	__u32 off = w->off, chunk;

	if (off >= w->n)
		return 1;
	chunk = STACK_PAGE - ((w->sp + off) & (STACK_PAGE - 1));
	if (chunk > w->n - off)
		chunk = w->n - off;
	if (read_stack_bytes(w, off, chunk)) {
		/* a page that cannot be read is zeros, never the ring's old bytes */
		if (have_read_user_dynptr() && chunk <= STACK_PAGE)
			bpf_dynptr_write(&w->rec, sizeof(struct ct_stack) + off, (void *)zero_page,
					 chunk, 0);
		w->bad++;
	} else {
		w->good++;
	}
	w->off = off + chunk;
	return 0;
}

/* The stack bytes into the record; false when no page could be read. */
static __always_inline bool read_stack(struct page_walk *w, __u32 *flags)
{
	if (have_read_user_dynptr() && !bpf_probe_read_user_dynptr(&w->rec, sizeof(struct ct_stack),
								  w->n, (void *)w->sp))
		return true;
	bpf_loop(CT_STACK_RECORD_MAX / STACK_PAGE + 1, read_stack_page, w, 0);
	if (w->bad)
		*flags |= CT_STACK_HOLES;
	return w->good;
}

/* The caller's registers, where unwinding starts. */
static __always_inline void fill_stack_head(struct ct_stack *rec, __u64 ts, __u64 size)
{
	struct pt_regs *regs = current_user_regs();
	__u64 id = bpf_get_current_pid_tgid();

	rec->h.type = CT_REC_STACK;
	rec->h.size = size;
	rec->h.ts_ns = ts;
	rec->h.pid = id >> 32;
	rec->h.tid = (__u32)id;
	rec->regs[CT_REG_RAX] = regs->ax;
	rec->regs[CT_REG_RDX] = regs->dx;
	rec->regs[CT_REG_RCX] = regs->cx;
	rec->regs[CT_REG_RBX] = regs->bx;
	rec->regs[CT_REG_RSI] = regs->si;
	rec->regs[CT_REG_RDI] = regs->di;
	rec->regs[CT_REG_RBP] = regs->bp;
	rec->regs[CT_REG_RSP] = regs->sp;
	rec->regs[CT_REG_R8] = regs->r8;
	rec->regs[CT_REG_R9] = regs->r9;
	rec->regs[CT_REG_R10] = regs->r10;
	rec->regs[CT_REG_R11] = regs->r11;
	rec->regs[CT_REG_R12] = regs->r12;
	rec->regs[CT_REG_R13] = regs->r13;
	rec->regs[CT_REG_R14] = regs->r14;
	rec->regs[CT_REG_R15] = regs->r15;
	rec->regs[CT_REG_RIP] = regs->ip;
	rec->size = 0;
	rec->flags = 0;
}

/*
 * Above the main thread's first stack pointer (mm->start_stack, where
 * argc is) lie argv, the environment and the auxiliary vector, a few KB
 * that no frame uses: a little past it is enough for _start's frame.
 */
#define START_STACK_PAD 256

/*
 * How many bytes to copy from sp: up to the end of the stack's mapping,
 * not past it (a read that crosses into an unmapped page copies nothing
 * at all), and at most -k's size; or a main thread's stack whole, to its
 * start, where it is at most stack_main_bytes deep (its depth is known:
 * CT_STACK_MAIN unless -k gives BYTES).
 */
static __always_inline __u32 stack_span(__u64 sp, __u32 *flags)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 end = 0, start = BPF_CORE_READ(task, mm, start_stack);
	__u32 n = stack_bytes, whole = stack_main_bytes > stack_bytes ? stack_main_bytes : stack_bytes;

	/* On the main thread's stack, the mapping goes on past the start
	 * (argv, environment, auxv are there): no need to look it up, and to
	 * take the mm's lock for it.  Any other mapping lies at least the
	 * stack guard gap (1 MiB) below. */
	if (start > sp && start - sp <= whole) {
		end = start + START_STACK_PAD;
		if (end - sp <= whole)
			return end - sp;
		*flags |= CT_STACK_TRUNC;
		return n;
	}
	if (bpf_find_vma(task, sp, stack_vma_end, &end, 0))
		*flags |= CT_STACK_NO_VMA;
	if (start > sp && start + START_STACK_PAD < end)
		end = start + START_STACK_PAD;
	if (end > sp && end - sp <= n)
		n = end - sp;
	else
		*flags |= CT_STACK_TRUNC;
	return n;
}

/*
 * The stack is read once, straight into the ring: the record is reserved
 * for the bytes the stack holds (and CT_STACK_SLACK), and the stack read
 * into it.  This copy is most of what -k costs the traced thread; a
 * second one, through a scratch buffer, doubled it.
 */
static __noinline void send_stack_copy(__u64 ts, __u64 want)
{
	struct page_walk w = { .sp = current_user_regs()->sp };
	struct ct_stack *rec;
	__u32 why = 0, size;

	w.n = stack_span(w.sp, &why);
	if (w.n > CT_STACK_RECORD_MAX)
		w.n = CT_STACK_RECORD_MAX;
	size = sizeof(*rec) + w.n + (have_read_user_dynptr() ? 0 : CT_STACK_SLACK);
	if (bpf_ringbuf_reserve_dynptr(&rb, size, 0, &w.rec)) {
		bpf_ringbuf_discard_dynptr(&w.rec, 0);
		count(CT_CNT_LOST);
		return;
	}
	if (w.n && !read_stack(&w, &why)) {
		why |= CT_STACK_FAULT;
		w.n = 0;
	}
	rec = bpf_dynptr_data(&w.rec, 0, sizeof(*rec));
	if (!rec) {
		bpf_ringbuf_discard_dynptr(&w.rec, 0);
		return;
	}
	fill_stack_head(rec, ts, size);
	rec->flags = why;
	rec->size = w.n;
	rec->want_pc = want;
	bpf_ringbuf_submit_dynptr(&w.rec, want_wake_flags(size, want));
}

/* -k's walk in the kernel, where -k walks: first, so that the Python
 * walk may take its C frame from the walk's read of the stack. */
static __always_inline bool walk_stack(__u64 ts)
{
	return stack_bytes && stack_walk && walk_kstack(ts);
}

/* Where -k copies the stack: not walked in the kernel, or walked and
 * copied both (CT_UNWIND_CHECK); want: the pc whose table the walk lacked. */
static __always_inline void copy_stack(__u64 ts, bool walked)
{
	if (stack_bytes && (!walked || stack_check))
		send_stack_copy(ts, stack_walk ? kwalk_wanted() : 0);
}

/*
 * The path of a mapped file, walked up dentry by dentry and across mount
 * points to the root of all mounts: bpf_d_path is not offered to
 * tracepoints.  Components leaf first, each ended by a NUL.
 */
struct path_walk {
	__u8 *buf;
	__u64 dentry;    /* struct dentry * */
	__u64 mount;     /* struct mount * */
	__u32 off;
	__u32 done;
};

#define PATH_NAME_MAX 256
static long path_step(__u32 i, void *ctx)
{
	struct path_walk *w = ctx;
	struct dentry *d = (struct dentry *)w->dentry, *parent;
	struct mount *m = (struct mount *)w->mount, *up;
	const unsigned char *name;
	__u32 off = w->off;
	long n;

	if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
		up = BPF_CORE_READ(m, mnt_parent);
		if (!up || up == m) {
			w->done = 1;
			return 1;
		}
		w->dentry = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		w->mount = (__u64)up;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d) {
		w->done = 1;
		return 1;
	}
	if (off > CT_CODE_PATH_MAX - PATH_NAME_MAX)
		return 1;
	keep_in_register(off);
	off &= CT_CODE_PATH_MAX - 1;
	name = BPF_CORE_READ(d, d_name.name);
	n = bpf_probe_read_kernel_str(w->buf + off, PATH_NAME_MAX, name);
	if (n <= 0)
		return 1;
	w->off = off + (__u32)n;
	w->dentry = (__u64)parent;
	return 0;
}

struct code_scratch {
	struct ct_code_map rec;
	__u8 path[CT_CODE_PATH_MAX + PATH_NAME_MAX];
};

/* Sends a CT_REC_CODE_MAP for file (a struct file *) mapped at addr. */
static __noinline void send_code_file(__u64 file_addr, __u64 addr, __u64 len, __u64 pgoff,
				      __u32 prot)
{
	struct file *file = (struct file *)file_addr;
	__u64 id = bpf_get_current_pid_tgid(), size;
	struct scratch *s = get_scratch();
	struct vfsmount *vmnt;
	struct code_scratch *c;
	struct path_walk w = {};

	if (!s || !file)
		return;
	c = (struct code_scratch *)s->data;
	c->rec.h.type = CT_REC_CODE_MAP;
	c->rec.h.ts_ns = bpf_ktime_get_ns();
	c->rec.h.pid = id >> 32;
	c->rec.h.tid = (__u32)id;
	c->rec.addr = addr;
	c->rec.len = len;
	c->rec.pgoff = pgoff;
	c->rec.prot = prot;
	c->rec.ino = BPF_CORE_READ(file, f_inode, i_ino);
	c->rec.dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	vmnt = BPF_CORE_READ(file, f_path.mnt);
	w.buf = c->path;
	w.dentry = (__u64)BPF_CORE_READ(file, f_path.dentry);
	w.mount = (__u64)vmnt - bpf_core_field_offset(struct mount, mnt);
	bpf_loop(64, path_step, &w, 0);
	c->rec.path_flags = w.done ? 0 : CT_CODE_PATH_CUT;
	c->rec.path_size = w.off & (CT_CODE_PATH_MAX * 2 - 1);
	size = sizeof(c->rec) + (__u64)c->rec.path_size;
	keep_in_register(size);
	if (size > sizeof(*c))
		return;
	c->rec.h.size = size;
	/* The reader is woken at once: it opens the file while the process lives. */
	if (bpf_ringbuf_output(&rb, c, size, BPF_RB_FORCE_WAKEUP))
		count(CT_CNT_LOST);
}

/*
 * At the exit of an mmap: a traced process mapped a file executable (ld.so
 * loading a library, dlopen).  The arguments are still in the saved
 * registers.
 */
static __noinline void send_code_map(struct pt_regs *regs, long ret)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	int fd = (int)regs->r8;

	if (!(regs->dx & PROT_EXEC) || fd < 0 || (ret < 0 && ret > -4096))
		return;
	if (!pid_traced(tgid))
		return;
	/* System-wide: only processes already seen; the others are read whole
	 * at their first stack. */
	if (!filter_pids && !bpf_map_lookup_elem(&described, &tgid))
		return;
	send_code_file(fd_file_addr(fd), (__u64)ret, regs->si, regs->r9, (__u32)regs->dx);
}

struct text_vma {
	__u64 start, end, pgoff;
};

static long text_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct text_vma *t = ctx;

	t->start = vma->vm_start;
	t->end = vma->vm_end;
	t->pgoff = vma->vm_pgoff << 12;
	return 0;
}

/* At exec: the program's own text, which the kernel mapped without mmap. */
static __noinline void send_exe_map(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	struct text_vma t = {};

	if (!mm || bpf_find_vma(task, BPF_CORE_READ(mm, start_code), text_vma_cb, &t, 0))
		return;
	send_code_file((__u64)BPF_CORE_READ(mm, exe_file), t.start, t.end - t.start, t.pgoff,
		       PROT_EXEC);
}

#endif /* CT_STACKS_BPF_H */
