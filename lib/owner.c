// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "msg.h"
#include "owner.h"

bool ct_parse_id(const char *s, unsigned long *out)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end && *out < (uid_t)-1;
}

bool ct_sudo_owner(uid_t *uid, gid_t *gid)
{
	unsigned long u, g;

	if (geteuid() != 0 || !ct_parse_id(getenv("SUDO_UID"), &u) ||
	    !ct_parse_id(getenv("SUDO_GID"), &g))
		return false;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return true;
}

int ct_own_file(int fd, const char *path)
{
	struct stat st;
	uid_t uid;
	gid_t gid;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return 0;
	/* An existing file keeps its mode on O_TRUNC: it holds process memory now. */
	if (fchmod(fd, 0600) && errno != EPERM)
		return errno;
	if (ct_sudo_owner(&uid, &gid) && fchown(fd, uid, gid))
		ct_warn("cannot give %s to the sudo user (uid %u): %s; it stays root's\n",
			path, (unsigned)uid, strerror(errno));
	return 0;
}
