/* SPDX-License-Identifier: MIT */
/*
 * A file's unwind-table asks kept from one capture for the next
 * (uw_asks.c), in cudatrace's cache folder beside the symbol indexes:
 * whether the kernel's walk wanted the file's whole table, or which FDEs
 * of a lazy one (their ELF addresses).  The next capture asks for them as
 * soon as a process maps the file, before its stacks do: a program's
 * second run walks its start-up in the kernel instead of copying it.
 */
#ifndef CT_UW_ASKS_H
#define CT_UW_ASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CT_UW_ASKS_MAX 65536   /* FDEs kept a file, at most */
#define CT_UW_ASKS_SUFFIX ".uwask"

struct ct_uw_asks {
	bool whole;        /* the whole table; else the FDEs at addrs */
	uint64_t *addrs;
	size_t n;
};

/* The asks kept for the file named id (ct_codemap_file_id) in dir.  0, or
 * -ENOENT (none kept), or -EINVAL (a file not of this format, or more
 * than CT_UW_ASKS_MAX addresses: left unread), or another -errno. */
int ct_uw_asks_load(const char *dir, const char *id, struct ct_uw_asks *out);
/* Keeps a for the file named id in dir (made if missing), replacing what
 * was kept.  0, or -errno. */
int ct_uw_asks_save(const char *dir, const char *id, const struct ct_uw_asks *a);
void ct_uw_asks_free(struct ct_uw_asks *a);

#endif
