// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The floor of the tracepoint approach, for make bench: an empty program on
 * the raw sys_enter tracepoint costs every system call what any such
 * tracer must pay.  sys_exit is there to show what a second raw hook costs,
 * sys_exit_ioctl what the per-syscall exit tracepoints cost the other calls
 * (a system-wide cudatrace's exits).
 */
#include "kernel_types.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual MIT/GPL";

SEC("raw_tracepoint/sys_enter")
int floor_enter(void *ctx)
{
	return 0;
}

SEC("raw_tracepoint/sys_exit")
int floor_exit(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int floor_exit_ioctl(void *ctx)
{
	return 0;
}
