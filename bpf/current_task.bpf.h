/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Reads of the current task shared by bpf/cudatrace.bpf.c and
 * bench/costs.bpf.c (which times them on their own).  Include after
 * kernel_types.h, bpf_helpers.h and bpf_core_read.h.
 */
#ifndef CT_CURRENT_TASK_BPF_H
#define CT_CURRENT_TASK_BPF_H

/* A no-op cast that lets the verifier type a kernel pointer we read. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

/*
 * The thread's name into an 8-byte aligned comm field: two loads from the
 * task instead of bpf_get_current_comm's byte-by-byte copy, which costs
 * 18-30 ns a call on the GPU machine (bench/costs).  The kernel keeps comm
 * NUL-padded (strscpy_pad), so the bytes are the helper's.
 */
static __always_inline void current_comm(char *dst)
{
	struct task_struct *task = bpf_get_current_task_btf();

	((__u64 *)dst)[0] = *(__u64 *)&task->comm[0];
	((__u64 *)dst)[1] = *(__u64 *)&task->comm[8];
}

/*
 * The struct file behind fd of the current task, as a number (0: none).
 * It runs on every ioctl and mmap of the traced processes (of every
 * process, system-wide), so it walks BTF-typed pointers with plain loads:
 * one helper call, for the fd array slot, instead of one probe read per hop.
 */
static __always_inline __u64 fd_file_addr(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files = task->files;
	struct fdtable *fdt;
	struct file **fds;
	__u64 file;

	if (fd < 0 || !files)
		return 0;
	fdt = files->fdt;
	if (!fdt || (unsigned int)fd >= fdt->max_fds)
		return 0;
	fds = fdt->fd;
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]))
		return 0;
	return file;
}

/* The inode behind fd of the current task (NULL: none), typed for loads. */
static __always_inline struct inode *current_fd_inode(int fd)
{
	__u64 addr = fd_file_addr(fd);
	struct file *file;

	if (!addr)
		return NULL;
	file = bpf_rdonly_cast((void *)addr, bpf_core_type_id_kernel(struct file));
	return file->f_inode;
}

/* The current thread's user registers, as saved at kernel entry. */
static __always_inline struct pt_regs *current_user_regs(void)
{
	return bpf_rdonly_cast((void *)bpf_task_pt_regs(bpf_get_current_task_btf()),
			       bpf_core_type_id_kernel(struct pt_regs));
}

#endif
