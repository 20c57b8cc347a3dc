/* SPDX-License-Identifier: MIT */
/*
 * A file's source lines kept from one capture for the next (src_kept.c),
 * in the symbol cache's folder beside its index: libdw reads, and
 * decompresses, a file's whole DWARF for its first line, tens to hundreds
 * of ms a capture for libc's separate debug file or a Python built with
 * -g.  Kept with where the DWARF came from (ct_src_kept_from): a debug
 * file installed or changed since makes the next capture read it again.
 */
#ifndef CT_SRC_KEPT_H
#define CT_SRC_KEPT_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "idmap.h"

#define CT_SRC_KEPT_MAX 65536       /* addresses kept a file, at most */
#define CT_SRC_KEPT_TEXT_MAX 4096   /* a line's text, at most (as a record holds it) */
#define CT_SRC_KEPT_FROM_MAX 128
#define CT_SRC_KEPT_SUFFIX ".srcs"

/* Where the DWARF of the file elf would come from, as the capture's libdw
 * looks for it: "self" (its own sections), "build-id SIZE MTIME" (the
 * separate debug file of hex build_id), or "none". */
void ct_src_kept_from(Elf *elf, const char *build_id, char out[CT_SRC_KEPT_FROM_MAX]);

/* The lines kept for the file named id (ct_codemap_file_id) in dir, if
 * their DWARF came from `from`, into lines (empty).  0, or -ENOENT (none
 * kept), or -EINVAL (another format, another `from`, a line cut short, or
 * over CT_SRC_KEPT_MAX: left unread), or another -errno. */
int ct_src_kept_load(const char *dir, const char *id, const char *from, struct idmap *lines);
/* Keeps lines for the file named id in dir (made if missing), replacing
 * what was kept.  0, or -errno. */
int ct_src_kept_save(const char *dir, const char *id, const char *from,
		     const struct idmap *lines);

/* The text kept for ELF address addr ("": it has no line), or NULL. */
const char *ct_src_kept_get(const struct idmap *lines, uint64_t addr);
/* Keeps text (NULL: no line) for addr.  False where it cannot be kept: a
 * tab or newline in it, too long, memory short, or lines full. */
bool ct_src_kept_put(struct idmap *lines, uint64_t addr, const char *text);

#endif
