// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "owner.h"
#include "run_as.h"
#include "msg.h"

int ct_run_as_lookup(const char *user, struct ct_run_as *ra)
{
	struct passwd *pw;
	unsigned long id;

	errno = 0;
	pw = getpwnam(user);
	if (!pw && ct_parse_id(user, &id))
		pw = getpwuid((uid_t)id);
	if (!pw) {
		ct_err("-u %s: no such user%s\n", user,
			errno ? " (the user database could not be read)" : "");
		return -1;
	}
	ra->uid = pw->pw_uid;
	ra->gid = pw->pw_gid;
	ra->ngroups = CT_RUN_AS_MAX_GROUPS;
	if (getgrouplist(pw->pw_name, pw->pw_gid, ra->groups, &ra->ngroups) < 0) {
		ct_err("-u %s: in more than %d groups\n", user,
			CT_RUN_AS_MAX_GROUPS);
		return -1;
	}
	return 0;
}

int ct_run_as_enter(const struct ct_run_as *ra)
{
	if (setgroups((size_t)ra->ngroups, ra->groups) || setgid(ra->gid) || setuid(ra->uid))
		return -errno;
	return 0;
}
