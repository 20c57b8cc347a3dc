// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Kernel side of cudatrace.  Syscall tracepoints keep only calls on files
 * that are NVIDIA device nodes (or files named with --device), from the
 * traced processes, and push their argument buffers, and the buffers those
 * point to, through one ring buffer.  Filters run before any copying.
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "cudatrace.h"
#include "nvlayout.h"
#include "current_task.bpf.h"
#include "emit.bpf.h"
#include "targets.bpf.h"
#include "stacks.bpf.h"
#include "pyframes.bpf.h"
#include "gpuwork_exit.bpf.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by user space before load. */
const volatile __u32 nest_max = CT_NEST_DEFAULT; /* -s, <= CT_NEST_MAX */
const volatile __u64 file_id_key = 0;    /* random per capture: file ids are not addresses */
/* The running driver's struct offsets (bpf/nvlayout.h); all slots unused until filled. */
const volatile struct ct_bpf_layout nvl = {};
/* Whether --device named character devices / regular files (extra_files):
 * where none was named, the ioctls of other files skip that lookup. */
const volatile bool user_chr_files = true;
const volatile bool user_reg_files = true;

/* Device kinds, values of nv_majors / extra_files. */
#define DEV_NVIDIA 1
#define DEV_UVM    2


#define S_IFMT  00170000
#define S_IFCHR 0020000

struct file_key {
	__u32 dev;   /* rdev of a char device, or s_dev of a regular file */
	__u32 regfile;
	__u64 ino;   /* 0 for char devices: any node of that rdev matches */
};

/* An array, not a hash: every ioctl and mmap on a character device looks
 * here, and an array lookup is a bounds check and a load. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4096);  /* majors are 12 bits (dev_t >> 20) */
	__type(key, __u32);      /* char major */
	__type(value, __u8);     /* DEV_*, 0: not traced */
} nv_majors SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct file_key);
	__type(value, __u8);
} extra_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);      /* UVM request */
	__type(value, __u32);    /* sizeof params */
} uvm_sizes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);      /* RM class */
	__type(value, __u32);    /* sizeof alloc params */
} class_sizes SEC(".maps");

/* What the entry saw, for the exit of the same thread. */
struct inflight {
	__u64 ts;
	__u64 arg;
	__u64 nest_ptr;
	__u64 ino;
	__s32 fd;
	__u32 dev;
	__u32 cmd;
	__u32 arg_want;
	__u32 nest_want;
	__u32 size_src;
	__u32 flags;
	__u32 _pad;
};

/*
 * Per-thread storage rather than a hash keyed by tid: the exit of every
 * ioctl on the machine looks here, and a task's own storage is found
 * without hashing; it also goes away with the thread.  ts == 0: no call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct inflight);
} inflight_ioctl SEC(".maps");

struct mmap_inflight {
	__u64 ts;
	__u64 addr, len, off, ino;
	__u32 prot, mflags;
	__s32 fd;
	__u32 dev;
	__u32 flags;
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct mmap_inflight);
} inflight_mmap SEC(".maps");

struct map_key {
	__u32 tgid;
	__u32 _pad;
	__u64 addr;
};

/* NVIDIA mappings alive, so munmap of other memory costs one lookup.
 * An LRU map is preallocated at start-up (65,536 took ~4 ms); a PyTorch
 * training process holds a few dozen. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct map_key);
	__type(value, __u64);    /* length */
} nv_mappings SEC(".maps");

struct fd_info {
	__u32 dev;
	__u32 flags;   /* CT_F_REGFILE */
	__u64 ino;
	__u8 kind;     /* DEV_* */
};

/* fd -> struct file -> inode (current_task.bpf.h), then the device filters. */
static __always_inline bool fd_traced(int fd, struct fd_info *out)
{
	struct inode *inode = current_fd_inode(fd);
	struct file_key key = {};
	__u8 *kind;

	if (!inode)
		return false;

	if ((inode->i_mode & S_IFMT) == S_IFCHR) {
		__u32 major;

		key.dev = inode->i_rdev;
		major = key.dev >> 20;
		kind = bpf_map_lookup_elem(&nv_majors, &major);
		if ((!kind || !*kind) && user_chr_files)
			kind = bpf_map_lookup_elem(&extra_files, &key);
		else if (kind && !*kind)
			kind = NULL;
		out->flags = 0;
		out->ino = inode->i_ino;
	} else {
		key.dev = inode->i_sb->s_dev;
		key.regfile = 1;
		key.ino = inode->i_ino;
		kind = user_reg_files ? bpf_map_lookup_elem(&extra_files, &key) : NULL;
		out->flags = CT_F_REGFILE;
		out->ino = key.ino;
	}
	if (!kind)
		return false;
	out->dev = key.dev;
	out->kind = *kind;
	return true;
}

/* How many bytes the argument of this request holds. */
static __always_inline __u32 arg_size(__u32 cmd, __u32 *src)
{
	__u32 *uvm;

	if (IOC_TYPE(cmd) == NV_IOCTL_MAGIC) {
		*src = CT_SIZE_IOC;
		return IOC_SIZE(cmd);
	}
	uvm = bpf_map_lookup_elem(&uvm_sizes, &cmd);
	if (uvm) {
		*src = CT_SIZE_UVM;
		return *uvm;
	}
	if (IOC_DIR(cmd) && IOC_SIZE(cmd)) {
		*src = CT_SIZE_IOC;
		return IOC_SIZE(cmd);
	}
	*src = CT_SIZE_NONE;
	return 0;
}

/*
 * The buffer an NVIDIA escape points to, read from the copy of its
 * argument through the running driver's layouts (nvl.nested: NVOS54,
 * NVOS21/NVOS64, nv_ioctl_xfer_t, each at its exact size).
 */
static __always_inline void find_nested(__u32 cmd, const __u8 *arg, __u32 len,
					__u64 *ptr, __u32 *want)
{
	__u32 nr = IOC_NR(cmd), i;

	*ptr = 0;
	*want = 0;
	if (IOC_TYPE(cmd) != NV_IOCTL_MAGIC || len > CT_ARG_MAX - 1)
		return;
	for (i = 0; i < CT_NESTED_MAX; i++) {
		const volatile struct ct_nested_at *n = &nvl.nested[i];
		__u32 len_off = n->len_off, class_off = n->class_off;

		if (!n->size || n->nr != nr || n->size != len)
			continue;
		*ptr = field_u64(arg, len, n->ptr_off);
		*want = len_off == CT_NO_FIELD ? 0 : field_u32(arg, len, len_off);
		if (*want == 0 && *ptr && class_off != CT_NO_FIELD) {
			__u32 hclass = field_u32(arg, len, class_off);
			__u32 *sz = bpf_map_lookup_elem(&class_sizes, &hclass);

			*want = sz ? *sz : 0;
		}
		break;
	}
	if (!*ptr)
		*want = 0;
}

/*
 * Copy the argument and the nested buffer behind the record in s, and
 * send it.  Lengths are clamped for the verifier and for -s.
 */
static __always_inline void send_ioctl(struct scratch *s, bool at_entry)
{
	struct ct_ioctl *r = &s->rec;
	__u32 n = r->arg_want, m, got = 0;
	__u64 size;

	if (n > CT_ARG_MAX - 1) {
		n = CT_ARG_MAX - 1;
		r->flags |= CT_F_ARG_TRUNC;
	}
	n &= CT_ARG_MAX - 1;
	if (n && bpf_probe_read_user(s->data, n, (void *)r->arg)) {
		r->flags |= CT_F_ARG_FAULT;
		n = 0;
	}
	r->arg_size = n;
	/* At entry the copy just made says where the nested buffer is. */
	if (at_entry) {
		if (n == r->arg_want)
			find_nested(r->cmd, s->data, n, &r->nest_ptr, &r->nest_want);
		if (!r->nest_ptr)
			r->flags |= CT_F_NEST_NONE;
	}

	m = r->nest_want;
	if (m > nest_max) {
		m = nest_max;
		r->flags |= CT_F_NEST_TRUNC;
	}
	if (m > CT_NEST_MAX)
		m = CT_NEST_MAX;
	if (m && r->nest_ptr) {
		if (bpf_probe_read_user(s->data + n, m, (void *)r->nest_ptr))
			r->flags |= CT_F_NEST_FAULT;
		else
			got = m;
	}
	r->nest_size = got;
	/* Computed in registers, not re-read: the verifier must see the bound. */
	size = sizeof(*r) + (__u64)n + got;
	if (size > sizeof(*s))
		return;
	r->h.size = size;
	emit(s, size);
}

/*
 * Where the params of an RM control name another fd: the export fd that
 * carries RM objects from one client to another (ctrl0000unix.h, at the
 * running driver: nvl.fd_ctrl).  -1: the command names none.
 */
static __always_inline int ctrl_fd_offset(__u32 ctrl_cmd)
{
	__u32 i;

	for (i = 0; i < CT_FD_CTRL_MAX; i++) {
		__u32 off = nvl.fd_ctrl[i].off;

		if (off != CT_NO_FIELD && nvl.fd_ctrl[i].cmd == ctrl_cmd)
			return off < CT_FD_OFF_MAX ? (int)off : -1;
	}
	return -1;
}

/*
 * After the entry record of an RM control whose params name an fd: which
 * open file that fd is.  The export fd travels to the importing process
 * over a unix socket under another number; the file is the same, so the
 * decoder can pair an import with its export.  Reads the copy of the
 * struct (NVOS54) and of the params after it that send_ioctl just made.
 */
static __noinline void send_fileref(struct scratch *s)
{
	struct ct_ioctl *r = &s->rec;
	struct ct_fileref fr = {};
	__u32 size = nvl.ctrl_size;
	__u64 file;
	int off;

	if (IOC_TYPE(r->cmd) != NV_IOCTL_MAGIC || IOC_NR(r->cmd) != nvl.ctrl_nr || !size ||
	    r->arg_size != size || size > CT_ARG_MAX - 1)
		return;
	fr.ctrl_cmd = field_u32(s->data, size, nvl.ctrl_cmd_off);
	off = ctrl_fd_offset(fr.ctrl_cmd);
	if (off < 0 || off >= CT_FD_OFF_MAX || r->nest_size < (__u32)off + 4)
		return;
	fr.fd = *(__s32 *)(s->data + (size & (CT_ARG_MAX - 1)) + off);
	file = fd_file_addr(fr.fd);
	/* Keyed and multiplied, so that the trace does not carry kernel addresses. */
	if (file)
		fr.file_id = (file ^ file_id_key) * 0x9e3779b97f4a7c15ULL | 1;
	fr.h.type = CT_REC_FILEREF;
	fr.h.size = sizeof(fr);
	fr.h.ts_ns = r->h.ts_ns;
	fr.h.pid = r->h.pid;
	fr.h.tid = r->h.tid;
	emit(&fr, sizeof(fr));
}

/* Copy a user range of the new image (argv or environment), bounded. */
static __always_inline __u32 copy_user_range(__u8 *dst, unsigned long start,
					     unsigned long end, __u32 max, __u32 *trunc)
{
	__u64 n = end > start ? end - start : 0;

	*trunc = 0;
	if (n > max) {
		n = max;
		*trunc = 1;
	}
	n &= (CT_PROC_ENV_MAX * 2 - 1);
	if (n > CT_PROC_ENV_MAX)
		n = CT_PROC_ENV_MAX;
	if (n && bpf_probe_read_user(dst, n, (void *)start))
		return 0;
	return n;
}

/*
 * Which program, run how: command line and environment of the current
 * process, read from its own memory.  User space keeps only the variables
 * that matter to the driver before anything is written or shown.
 */
static __always_inline void emit_proc(__u32 source)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	struct scratch *s = get_scratch();
	struct ct_proc *p;
	__u8 *dst;
	__u32 n;
	__u64 size;

	if (!s || !mm)
		return;
	p = (struct ct_proc *)&s->rec;
	dst = (__u8 *)(p + 1);
	p->h.type = CT_REC_PROC;
	p->h.ts_ns = bpf_ktime_get_ns();
	p->h.pid = id >> 32;
	p->h.tid = (__u32)id;
	p->ppid = BPF_CORE_READ(task, real_parent, tgid);
	p->source = source;
	bpf_get_current_comm(p->comm, sizeof(p->comm));
	n = copy_user_range(dst, BPF_CORE_READ(mm, arg_start), BPF_CORE_READ(mm, arg_end),
			    CT_PROC_ARGV_MAX, &p->argv_trunc);
	p->argv_size = n;
	n &= CT_PROC_ARGV_MAX * 2 - 1;
	p->env_size = copy_user_range(dst + n, BPF_CORE_READ(mm, env_start),
				      BPF_CORE_READ(mm, env_end), CT_PROC_ENV_MAX,
				      &p->env_trunc);
	size = sizeof(*p) + (__u64)p->argv_size + p->env_size;
	keep_in_register(size);
	if (size > sizeof(*p) + CT_PROC_ARGV_MAX + CT_PROC_ENV_MAX)
		return;
	p->h.size = size;
	emit(p, size);
}

/*
 * The call's stacks, -k's and --py-stack's.  The Python frames are sent
 * first (in one sample with the native stack's where the kernel walked
 * it): the capture reads their code objects before it spends time
 * unwinding, while the process surely lives; but they are walked after
 * the native stack, whose read they may use.
 *
 * A global function (not static): the verifier checks it once, on its
 * own, not again at each of the three calls that send stacks.  Inlined,
 * -k's sys_enter took 764,516 of the verifier's 1,000,000 instructions and
 * 2 s of every capture's start; tests/live/verifier_budget.py keeps each
 * program under half the limit.
 */
__noinline int walk_and_send_stacks(__u64 ts)
{
	bool walked = walk_stack(ts), py_sent;
	__u64 py_size = py_frames ? make_pystack(ts) : 0;

	if (walked)
		py_sent = send_kstack(pystack_record(), py_size);
	else
		py_sent = send_pystack(py_size);
	if (py_size && !py_sent)
		pystack_unsent();
	copy_stack(ts, walked);
	return 0;
}

/* Neither -k nor --py-stack: no call at all. */
static __always_inline void send_call_stacks(__u64 ts)
{
	if (stack_bytes || py_frames)
		walk_and_send_stacks(ts);
}

static __noinline int ioctl_enter(struct syscall_enter_ctx *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct fd_info fi;
	struct inflight *in;
	struct scratch *s;
	struct ct_ioctl *r;

	if (!pid_traced(tgid) || !fd_traced((int)ctx->args[0], &fi))
		return 0;
	if (!filter_pids && !bpf_map_lookup_elem(&described, &tgid)) {
		__u8 one = 1;

		bpf_map_update_elem(&described, &tgid, &one, BPF_ANY);
		emit_proc(CT_PROC_SEEN);
	}
	s = get_scratch();
	if (!s)
		return 0;
	r = &s->rec;
	r->h.type = CT_REC_IOCTL_ENTER;
	r->h.ts_ns = bpf_ktime_get_ns();
	r->h.pid = tgid;
	r->h.tid = tid;
	r->ts_enter = r->h.ts_ns;
	current_comm(r->comm);
	r->fd = (int)ctx->args[0];
	r->dev = fi.dev;
	r->ino = fi.ino;
	r->cmd = (__u32)ctx->args[1];
	r->flags = fi.flags;
	r->arg = ctx->args[2];
	r->ret = 0;
	r->arg_want = arg_size(r->cmd, &r->size_src);
	r->nest_ptr = 0;
	r->nest_want = 0;
	r->_pad = 0;
	send_ioctl(s, true);
	send_fileref(s);
	send_call_stacks(r->ts_enter);

	in = bpf_task_storage_get(&inflight_ioctl, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!in) {
		count(CT_CNT_INFLIGHT_FULL);
		return 0;
	}
	in->ts = r->ts_enter;
	in->arg = r->arg;
	in->nest_ptr = r->nest_ptr;
	in->ino = r->ino;
	in->fd = r->fd;
	in->dev = r->dev;
	in->cmd = r->cmd;
	in->arg_want = r->arg_want;
	in->nest_want = r->nest_want;
	in->size_src = r->size_src;
	/* Truncation and fault flags are found again at exit. */
	in->flags = r->flags & (CT_F_REGFILE | CT_F_NEST_NONE);
	return 0;
}

static __noinline int ioctl_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct inflight *in = bpf_task_storage_get(&inflight_ioctl, bpf_get_current_task_btf(),
						   0, 0);
	struct scratch *s;
	struct ct_ioctl *r;

	if (!in || !in->ts)
		return 0;
	s = get_scratch();
	if (!s)
		goto out;
	r = &s->rec;
	r->h.type = CT_REC_IOCTL_EXIT;
	r->h.ts_ns = bpf_ktime_get_ns();
	r->h.pid = id >> 32;
	r->h.tid = tid;
	r->ts_enter = in->ts;
	current_comm(r->comm);
	r->fd = in->fd;
	r->dev = in->dev;
	r->ino = in->ino;
	r->cmd = in->cmd;
	r->flags = in->flags;
	r->arg = in->arg;
	r->ret = ret;
	r->nest_ptr = in->nest_ptr;
	r->arg_want = in->arg_want;
	r->nest_want = in->nest_want;
	r->size_src = in->size_src;
	r->_pad = 0;
	send_ioctl(s, false);
out:
	in->ts = 0;
	return 0;
}

static __noinline int mmap_enter(struct syscall_enter_ctx *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct mmap_inflight in = {}, *slot;
	struct fd_info fi;
	int fd = (int)ctx->args[4];

	if (fd < 0 || !pid_traced(id >> 32) || !fd_traced(fd, &fi))
		return 0;
	in.ts = bpf_ktime_get_ns();
	in.addr = ctx->args[0];
	in.len = ctx->args[1];
	in.prot = ctx->args[2];
	in.mflags = ctx->args[3];
	in.fd = fd;
	in.off = ctx->args[5];
	in.dev = fi.dev;
	in.ino = fi.ino;
	in.flags = fi.flags;
	slot = bpf_task_storage_get(&inflight_mmap, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (slot)
		*slot = in;
	else
		count(CT_CNT_INFLIGHT_FULL);
	send_call_stacks(in.ts);
	return 0;
}

static __noinline int mmap_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct mmap_inflight *in = bpf_task_storage_get(&inflight_mmap,
							bpf_get_current_task_btf(), 0, 0);
	struct ct_mmap r = {};

	if (!in || !in->ts)
		return 0;
	r.h.type = CT_REC_MMAP;
	r.h.size = sizeof(r);
	r.h.ts_ns = bpf_ktime_get_ns();
	r.h.pid = id >> 32;
	r.h.tid = tid;
	r.ts_enter = in->ts;
	current_comm(r.comm);
	r.fd = in->fd;
	r.dev = in->dev;
	r.ino = in->ino;
	r.addr = in->addr;
	r.len = in->len;
	r.prot = in->prot;
	r.mflags = in->mflags;
	r.off = in->off;
	r.ret = ret;
	r.flags = in->flags;
	if (ret >= 0 || ret < -4095) {
		struct map_key k = { .tgid = r.h.pid, .addr = (__u64)ret };

		bpf_map_update_elem(&nv_mappings, &k, &r.len, BPF_ANY);
	}
	emit(&r, sizeof(r));
	in->ts = 0;
	return 0;
}

static __noinline int munmap_enter(struct syscall_enter_ctx *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct map_key k = { .tgid = id >> 32, .addr = ctx->args[0] };
	struct ct_munmap r = {};
	__u64 *len = bpf_map_lookup_elem(&nv_mappings, &k);

	if (!len)
		return 0;
	r.h.type = CT_REC_MUNMAP;
	r.h.size = sizeof(r);
	r.h.ts_ns = bpf_ktime_get_ns();
	r.h.pid = k.tgid;
	r.h.tid = (__u32)id;
	r.addr = ctx->args[0];
	r.len = ctx->args[1];
	r.map_len = *len;
	/* The stack first: the decoder prints a munmap as soon as it comes. */
	send_call_stacks(r.h.ts_ns);
	emit(&r, sizeof(r));
	bpf_map_delete_elem(&nv_mappings, &k);
	return 0;
}

/*
 * One raw tracepoint for all system calls, not the per-syscall tracepoints:
 * those go through perf's syscall event path, which costs a few hundred ns
 * per call even with an empty program.  Here every other system call costs
 * a compare.  Syscall numbers and registers are x86-64's.
 */
#if !defined(__TARGET_ARCH_x86)
#error "cudatrace's syscall dispatch is written for x86-64"
#endif
#define NR_mmap   9
#define NR_munmap 11
#define NR_ioctl  16

SEC("raw_tracepoint/sys_enter")
int sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = (long)ctx->args[1];
	struct syscall_enter_ctx a;
	struct pt_regs *regs;

	if (nr != NR_ioctl && nr != NR_mmap && nr != NR_munmap)
		return 0;
	regs = bpf_rdonly_cast((void *)ctx->args[0], bpf_core_type_id_kernel(struct pt_regs));
	a.common = 0;
	a.id = nr;
	a.args[0] = regs->di;
	a.args[1] = regs->si;
	a.args[2] = regs->dx;
	a.args[3] = regs->r10;
	a.args[4] = regs->r8;
	a.args[5] = regs->r9;
	if (nr == NR_ioctl)
		return ioctl_enter(&a);
	if (nr == NR_mmap)
		return mmap_enter(&a);
	return munmap_enter(&a);
}

/*
 * Exits, in one of two ways (capture_bpf.c loads one; docs/PERFORMANCE.md has
 * the figures):
 *
 * - A command or -p: one raw sys_exit program, like sys_enter.  It costs
 *   every other system call on the machine a BPF run (~20-40 ns on the GPU
 *   machine), but a traced call ~150-250 ns less than the tracepoints below,
 *   and nothing waits when it is attached or detached.
 * - System-wide, which runs for hours: the syscalls/sys_exit_ioctl and
 *   sys_exit_mmap tracepoints.  Other system calls pay them a bit test; the
 *   calls traced pay perf's syscall event path, and attaching waits while
 *   the kernel finishes detaching any capture before (tens of ms).
 */
SEC("raw_tracepoint/sys_exit")
int sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = bpf_rdonly_cast((void *)ctx->args[0],
					       bpf_core_type_id_kernel(struct pt_regs));
	long nr = regs->orig_ax, ret = (long)ctx->args[1];

	if (nr == NR_ioctl)
		return ioctl_exit(ret);
	if (nr != NR_mmap)
		return 0;
	/* -k: a file mapped executable; the registers still hold the
	 * mmap's arguments at its exit. */
	if (stack_bytes || py_frames)
		send_code_map(regs, ret);
	return mmap_exit(ret);
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int sys_exit_ioctl(struct syscall_exit_ctx *ctx)
{
	return ioctl_exit(ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int sys_exit_mmap(struct syscall_exit_ctx *ctx)
{
	if (stack_bytes || py_frames)
		send_code_map(current_user_regs(), ctx->ret);
	return mmap_exit(ctx->ret);
}

/* Follow children of traced processes from fork on. */
SEC("raw_tracepoint/sched_process_fork")
int on_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u64 *word, bit;
	struct ct_fork r = {};

	if (py_frames && ptgid != ctgid)
		py_proc_forked(ptgid, ctgid);
	if (!filter_pids || !follow_forks || ptgid == ctgid)
		return 0;   /* a new thread, or nothing to follow */
	word = pid_word(ptgid, &bit);
	if (!word || !(*word & bit))
		return 0;
	word = pid_word(ctgid, &bit);
	if (!word)
		return 0;
	__sync_fetch_and_or(word, bit);
	r.h.type = CT_REC_FORK;
	r.h.size = sizeof(r);
	r.h.ts_ns = bpf_ktime_get_ns();
	r.h.pid = ptgid;
	r.h.tid = BPF_CORE_READ(parent, pid);
	r.child_pid = ctgid;
	emit(&r, sizeof(r));
	return 0;
}

/* Raw tracepoints for exec and exit too: detaching them does not wait. */
SEC("raw_tracepoint/sched_process_exec")
int on_exec(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!filter_pids) {
		/* A new program: describe it again at its next traced call. */
		bpf_map_delete_elem(&described, &tgid);
		return 0;
	}
	if (pid_traced(tgid)) {
		emit_proc(CT_PROC_EXEC);
		if (stack_bytes || py_frames)
			send_exe_map();
	}
	return 0;
}

SEC("raw_tracepoint/sched_process_exit")
int on_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct ct_rec r = {};
	__u64 *word, bit;

	if (tgid != tid)
		return 0;
	word = pid_word(tgid, &bit);
	/* Only processes the trace knows: traced ones (-p, --), or, system-wide,
	 * ones described by a PROC record.  Forgetting them here lets a new
	 * process under the same pid be described afresh. */
	if (filter_pids ? !word || !(__sync_fetch_and_and(word, ~bit) & bit)
			: bpf_map_delete_elem(&described, &tgid))
		return 0;
	gpuwork_last_look(tgid);   /* before PROC_EXIT: the reader ends the channels there */
	r.type = CT_REC_PROC_EXIT;
	r.size = sizeof(r);
	r.ts_ns = bpf_ktime_get_ns();
	r.pid = tgid;
	r.tid = tid;
	emit(&r, sizeof(r));
	return 0;
}
