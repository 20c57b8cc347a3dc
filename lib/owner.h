/* SPDX-License-Identifier: MIT */
/*
 * One policy for every file cudatrace writes (-w, -o, --perfetto,
 * --sqlite): each holds what the traced processes had in memory, so it is
 * made 0600; under sudo it is given to the user who ran sudo (SUDO_UID,
 * SUDO_GID), so that -r, or adding to a --sqlite database, needs no root.
 */
#ifndef CT_OWNER_H
#define CT_OWNER_H

#include <stdbool.h>
#include <sys/types.h>

/* A uid or gid as text: a non-negative number below (uid_t)-1 ("no change"). */
bool ct_parse_id(const char *s, unsigned long *out);
/* True when root runs us for another user through sudo; *uid, *gid: theirs. */
bool ct_sudo_owner(uid_t *uid, gid_t *gid);
/*
 * The policy, on fd, a file just opened for writing at path (named in
 * messages).  Only a regular file: /dev/null, a pipe or a terminal is left
 * as it is.  A chown refused (NFS with root squashed) costs a warning; the
 * file stays root's.  0, or the errno of a chmod that failed (EPERM, a file
 * of another user's, is let be: it is written as it is).
 */
int ct_own_file(int fd, const char *path);

#endif
