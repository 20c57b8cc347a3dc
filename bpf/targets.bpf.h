// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Which processes are traced: ourselves never; -p, -- and their children
 * (a bitmap over pids), --cgroup and --comm.  Asked first by every program.
 */
#ifndef CT_TARGETS_BPF_H
#define CT_TARGETS_BPF_H

#include "cudatrace.h"

/* Set by user space before load. */
const volatile __u32 self_tgid = 0;      /* never trace ourselves */
const volatile bool filter_pids = false; /* false: system-wide */
const volatile bool follow_forks = true;
const volatile bool filter_cgroup = false; /* --cgroup: only tasks under cgroup_map[0] */
const volatile bool filter_comm = false; /* --comm: only threads named in traced_comms */

/* --cgroup: the cgroup v2 directory; tasks in it or below it are traced. */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_map SEC(".maps");

/* --comm NAME: thread names (task->comm, zero-padded) to trace. */
struct comm_key {
	char comm[CT_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);     /* CT_FILTER_MAX_COMMS */
	__type(key, struct comm_key);
	__type(value, __u8);
} traced_comms SEC(".maps");

/*
 * The traced processes (-p, --, and their children) as a bitmap over all
 * possible pids: every traced call asks, and an array lookup is inlined
 * to an address and a load, where a hash costs ~100 ns on a machine that
 * flushes its TLB at each system call.  512 KiB.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CT_PID_LIMIT / 64);
	__type(key, __u32);      /* tgid / 64 */
	__type(value, __u64);    /* bit tgid % 64 */
} traced_pids SEC(".maps");

/* System-wide: processes already described by a CT_REC_PROC (capture_bpf.c
 * shrinks it to one entry otherwise). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);      /* tgid */
	__type(value, __u8);
} described SEC(".maps");

/* The word of traced_pids that holds tgid, and its bit there. */
static __always_inline __u64 *pid_word(__u32 tgid, __u64 *bit)
{
	__u32 i = tgid / 64;

	*bit = 1ULL << (tgid % 64);
	return bpf_map_lookup_elem(&traced_pids, &i);
}

static __always_inline bool pid_traced(__u32 tgid)
{
	__u64 *word, bit;

	if (tgid == self_tgid)
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup_map, 0) != 1)
		return false;
	if (filter_comm) {
		struct comm_key k = {};

		bpf_get_current_comm(k.comm, sizeof(k.comm));
		if (!bpf_map_lookup_elem(&traced_comms, &k))
			return false;
	}
	if (!filter_pids)
		return true;
	word = pid_word(tgid, &bit);
	return word && (*word & bit);
}

#endif
