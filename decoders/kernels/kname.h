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
/* "inline", "module", "copy", "copy-size", "jit" */
const char *ct_kname_how(uint32_t how);

#endif
