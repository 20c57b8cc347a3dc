// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"
#include "owner.h"
#include "run_as.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const int keep[] = {
	CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE,
};

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int n = CAP_BPF;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = CAP_BPF;
		fclose(f);
	}
	return n;
}

static int kept(int cap)
{
	uid_t uid;
	gid_t gid;
	size_t i;

	/* Under sudo, rotated trace files go to the user, as the first did. */
	if (cap == CAP_CHOWN && ct_sudo_owner(&uid, &gid))
		return 1;
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (keep[i] == cap)
			return 1;
	return 0;
}

int ct_drop_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0 } };
	int cap, last = last_cap();

	/* A kernel older than CAP_BPF (5.8) needs CAP_SYS_ADMIN for bpf(): keep all. */
	if (last < CAP_BPF)
		return -ENOTSUP;
	/* Without CAP_SETPCAP (a container that drops ALL and adds only what
	 * we need) the bounding set stays as it is: it limits what a program
	 * exec'd may gain, and no-new-privs below covers that. */
	for (cap = 0; cap <= last; cap++)
		if (!kept(cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) &&
		    errno != EINVAL && errno != EPERM)
			return -errno;
	/* Keep what we have of the list: capset cannot add a capability. */
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (cap = 0; cap <= last; cap++) {
		if (kept(cap))
			continue;
		data[cap / 32].effective &= ~(1u << (cap % 32));
		data[cap / 32].permitted &= ~(1u << (cap % 32));
		data[cap / 32].inheritable &= ~(1u << (cap % 32));
	}
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}
