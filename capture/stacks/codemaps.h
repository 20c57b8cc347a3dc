/* SPDX-License-Identifier: MIT */
/*
 * The executable file mappings of a process (perf's MMAP2 idea): read from
 * /proc/PID/maps, each file opened at once (through /proc/PID/map_files, so
 * a deleted or replaced file is still the one mapped) and held open, so the
 * process can be unwound after it has exited.
 */
#ifndef CT_CODEMAPS_H
#define CT_CODEMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cudatrace.h"

struct ct_codemap {
	uint64_t start, end, pgoff;
	uint64_t bias;          /* run-time address - ELF address */
	uint64_t ino;
	uint32_t dev;           /* major << 20 | minor, as /proc shows it */
	int fd;                 /* the file, open; -1 if it could not be opened */
	bool is_elf;            /* fd holds an ELF file whose program headers make sense */
	bool fresh;             /* opened by the last ct_codemaps_read (not kept from old) */
	char *path;
	uint8_t build_id[CT_BUILD_ID_MAX];
	uint32_t build_id_size;
};

/* By address, none overlapping (as /proc/PID/maps lists them). */
struct ct_codemaps {
	struct ct_codemap *v;
	size_t n;
};

/*
 * Reads the executable file mappings of pid.  Mappings already in old (same
 * range, offset and file) are moved over with their open file; old is
 * emptied.  Returns 0, or -errno when /proc/PID/maps cannot be read.
 */
int ct_codemaps_read(const char *proc_root, uint32_t pid, struct ct_codemaps *old,
		     struct ct_codemaps *out);
/* true if both list the same mappings. */
bool ct_codemaps_same(const struct ct_codemaps *a, const struct ct_codemaps *b);
void ct_codemaps_free(struct ct_codemaps *m);
/*
 * The mapping a CT_REC_CODE_MAP reports, its file opened by the path the
 * kernel gave (through /proc/PID/root while the process lives) and checked
 * to be the same file (device and inode).  Returns 0, or -1 when the path
 * is cut or the file cannot be opened or is another file now.
 */
int ct_codemap_from_record(const char *proc_root, const struct ct_code_map *r,
			   struct ct_codemap *out);
enum ct_codemap_added {
	CT_CODEMAP_UNCHANGED,   /* the same mapping was there (or no memory) */
	CT_CODEMAP_ADDED,
	CT_CODEMAP_REPLACED,    /* added over older mappings, cut or removed */
};

/*
 * Adds m to ms, taking its fd and path, unless the same mapping is there.
 * A new mapping replaces what was mapped in its range before (a library
 * unloaded and another loaded where it was): older mappings there are cut
 * to what is left of them, or removed.
 */
enum ct_codemap_added ct_codemaps_add(struct ct_codemaps *ms, struct ct_codemap *m);
/* What names m's file in the caches of cudatrace's folder (symbol indexes,
 * the unwind tables' asks): its build-id (else its device and inode), size
 * and modification time.  "" where the file cannot be looked at. */
#define CT_CODEMAP_ID_MAX 128
void ct_codemap_file_id(const struct ct_codemap *m, char out[CT_CODEMAP_ID_MAX]);
/* m's build-id in hex into out (at most max - 1 digits); "" where it has
 * none.  The digits written. */
int ct_codemap_build_id_hex(const struct ct_codemap *m, char *out, size_t max);
/* The folder of those caches: CUDATRACE_SYMBOL_CACHE, else
 * ~/.cache/cudatrace/symbols; "" for none (off). */
void ct_codemap_cache_dir(char *out, size_t size);
/* The mapping record for m (for the trace file); buf holds
 * sizeof(struct ct_mapping) + 4096 bytes.  Returns its size. */
size_t ct_codemap_record(const struct ct_codemap *m, uint32_t pid, uint64_t ts, void *buf);

#endif
