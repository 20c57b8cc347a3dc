/* SPDX-License-Identifier: MIT */
/*
 * The BPF side of a live capture (capture_bpf.c), the one file that knows
 * the skeleton: what the kernel must offer, the programs loaded with the
 * running driver's layouts, their maps filled, attached, their counters
 * read, detached at the end.
 */
#ifndef CT_CAPTURE_BPF_H
#define CT_CAPTURE_BPF_H

#include <stdint.h>
#include <sys/types.h>
#include "ktables.h"

struct cudatrace_bpf;
struct ct_devices;
struct ct_options;

/* Root or CAP_BPF+CAP_PERFMON, BTF, and system-wide the syscall
 * tracepoints.  0, or -1 after saying what is missing. */
int ct_bpf_check_kernel(const struct ct_options *o);

/*
 * Opens, sets up, loads and fills (devices, sizes, pids, the command's pid
 * child if > 0, comms, --cgroup) the programs.  *skel is set as soon as
 * there is one, for ct_bpf_unload.  0, or -1 after saying why.
 */
int ct_bpf_load(struct cudatrace_bpf **skel, const struct ct_options *o,
		const struct ct_devices *devs, pid_t child);
/* Attaches them: calls are traced from here on.  0, or -1 after saying why. */
int ct_bpf_attach(struct cudatrace_bpf *s);

/* The maps user space reads: the record ring, for --py-stack the
 * processes to watch and the ring of their new code objects, and for -k
 * walked in the kernel its tables (uw_procs -1: the stacks are copied). */
struct ct_bpf_fds {
	int rb, py_procs, py_rb, gw_exit;
	struct ct_uw_fds uw;
};
struct ct_bpf_fds ct_bpf_fds(const struct cudatrace_bpf *s);

/* A per-CPU counter (CT_CNT_*) summed; percpu (ncpu entries) gets each
 * CPU's value.  0 if it cannot be read. */
uint64_t ct_bpf_counter(const struct cudatrace_bpf *s, uint32_t which, uint64_t *percpu,
			int ncpu);

/* The same summed, where no CPU's own value is wanted. */
uint64_t ct_bpf_counter_total(const struct cudatrace_bpf *s, uint32_t which);

/* Detaches (in the background where it can: detach.c) and frees; NULL is
 * fine. */
void ct_bpf_unload(struct cudatrace_bpf *s);

#endif
