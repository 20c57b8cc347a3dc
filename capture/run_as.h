/* SPDX-License-Identifier: MIT */
/*
 * Who gets what cudatrace makes as root: under sudo, the trace files go
 * to the user who ran sudo (SUDO_UID, SUDO_GID), so that `cudatrace -r`
 * needs no root; with -u USER, the traced command runs as USER (strace's
 * -u), its groups set, after the fork and before the exec.
 */
#ifndef CT_RUN_AS_H
#define CT_RUN_AS_H

#include <stdbool.h>
#include <sys/types.h>

#define CT_RUN_AS_MAX_GROUPS 256

struct ct_run_as {
	uid_t uid;
	gid_t gid;
	gid_t groups[CT_RUN_AS_MAX_GROUPS];
	int ngroups;
};

/* USER (a name or a number): its ids and groups, looked up before the
 * fork.  0, or -1 after saying why on stderr. */
int ct_run_as_lookup(const char *user, struct ct_run_as *ra);
/* In the child: groups, group, user, in that order.  0 or -errno. */
int ct_run_as_enter(const struct ct_run_as *ra);

#endif
