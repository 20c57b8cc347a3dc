/* SPDX-License-Identifier: MIT */
/*
 * --gpu-work's kernel names as the decoder knows them: each
 * CT_REC_KERNEL_NAME (a process's program address -> the function the
 * capture found there, docs/KERNELS.md) kept, its name demangled once.
 * A later record for the same address replaces the earlier.
 */
#ifndef CT_KNAME_H
#define CT_KNAME_H

#include <stdint.h>

#include "cudatrace.h"
#include "idmap.h"

struct ct_kname {
	uint64_t program, code_hash;
	uint32_t pid, how, flags, candidates, arch, code_size;
	char *mangled;        /* as the cubin has it */
	char *name;           /* demangled (or mangled, if it does not demangle) */
	char *module;         /* the file, "" if none */
	/* CT_KN_AMBIGUOUS with CT_KN_NAMES: the names that matched, mangled
	 * and demangled (alt[0] is mangled/name), and one label for them
	 * (kname_merge.h); nalt 0 and shown NULL otherwise */
	char **alt_mangled, **alt;
	uint32_t nalt;
	char *shown;
};

struct ct_knames_table {
	struct idmap procs;   /* pid -> struct idmap of program -> struct ct_kname */
	uint64_t records;
};

void ct_kname_learn(struct ct_knames_table *t, const struct ct_kernel_name *r);
/* NULL if the program address of pid was not named. */
const struct ct_kname *ct_kname_find(const struct ct_knames_table *t, uint32_t pid,
				     uint64_t program);
void ct_knames_table_free(struct ct_knames_table *t);
/* What a view calls k's function: its name, or for code several functions
 * have, the label of their names; NULL where the trace names none of them
 * (an older trace): the view says "ambiguous" its own way. */
const char *ct_kname_label(const struct ct_kname *k);
/* "inline", "module", "copy", "copy-size", "jit" */
const char *ct_kname_how(uint32_t how);

#endif
