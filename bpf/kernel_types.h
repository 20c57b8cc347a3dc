/* SPDX-License-Identifier: MIT */
/*
 * The few kernel types the BPF programs read, declared by hand instead of
 * a vmlinux.h dumped from the build machine: CO-RE relocates each field
 * against the BTF of the kernel the program is loaded on, so the build does
 * not depend on the kernel it was built on.  Only the fields used are named.
 */
#ifndef CT_KERNEL_TYPES_H
#define CT_KERNEL_TYPES_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef __u16 umode_t;
typedef __u32 dev_t;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
};

enum {
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1 << 10,   /* include/uapi/linux/bpf.h */
	BPF_LOCAL_STORAGE_GET_F_CREATE = 1,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
};

enum {
	BPF_RINGBUF_HDR_SZ = 8,   /* what each ring record takes before its data */
};

/* An opaque handle on a ring record (bpf_ringbuf_reserve_dynptr), uapi layout. */
struct bpf_dynptr {
	__u64 __opaque[2];
} __attribute__((aligned(8)));

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct super_block {
	dev_t s_dev;
};

struct inode {
	umode_t i_mode;
	struct super_block *i_sb;
	unsigned long i_ino;
	dev_t i_rdev;
};

struct qstr {
	__u32 len;
	const unsigned char *name;
};

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
};

struct vfsmount {
	struct dentry *mnt_root;
};

struct mount {            /* fs/mount.h: the vfsmount is embedded */
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
};

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
};

struct file {
	struct inode *f_inode;
	struct path f_path;
};

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct mm_struct {
	unsigned long arg_start;
	unsigned long arg_end;
	unsigned long env_start;
	unsigned long env_end;
	unsigned long start_code;
	unsigned long start_stack;
	struct file *exe_file;
};

struct pt_regs {          /* x86-64 */
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ax;
	unsigned long cx;
	unsigned long ip;
	unsigned long sp;
};

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	struct file *vm_file;
};

struct upid {             /* a pid as one namespace sees it */
	int nr;
	void *ns;
};

struct pid {
	unsigned int level;      /* depth of the task's pid namespace */
	struct upid numbers[1];  /* [level]: the innermost namespace's number */
};

struct thread_struct {     /* x86-64 */
	unsigned long fsbase;    /* the thread pointer: pthread_self() in glibc */
};

struct task_struct {
	struct thread_struct thread;
	struct pid *thread_pid;
	int pid;
	int tgid;
	char comm[16];           /* TASK_COMM_LEN, NUL-padded (strscpy_pad) */
	struct task_struct *real_parent;
	struct files_struct *files;
	struct mm_struct *mm;
};

#pragma clang attribute pop

/* Tracepoint contexts: the stable layouts of syscalls/sys_{enter,exit}_*
 * (sys_enter hands the raw tracepoint's arguments on in the first). */
struct syscall_enter_ctx {
	__u64 common;          /* struct trace_entry */
	long id;
	unsigned long args[6];
};

struct syscall_exit_ctx {
	__u64 common;
	long id;
	long ret;
};

struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

#endif
