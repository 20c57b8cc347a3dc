/* SPDX-License-Identifier: MIT */
/*
 * The functions of a cubin (a CUDA ELF): one `.text.<mangled name>`
 * section each, with the instructions that relocations patch at load time
 * (the REL/RELA sections whose sh_info is that section).  Pure: bytes in,
 * a callback per function out; every offset checked against the bytes.
 */
#ifndef CT_CUBIN_H
#define CT_CUBIN_H

#include <stddef.h>
#include <stdint.h>

#define CT_CUBIN_MASKS_MAX 4096   /* patched instructions kept per function */

struct ct_cubin_func {
	const char *name;          /* mangled, NUL-terminated */
	const uint8_t *code;
	uint32_t size;
	uint64_t addr;             /* sh_addr: its place in the module's code */
	uint32_t arch;             /* sm number from e_flags, 0 if not said */
	uint32_t regs;             /* registers a thread (.nv.info's REGCOUNT), 0 if not said */
	uint32_t cbank0;           /* bytes of .nv.constant0.<name> (the driver's part, then its
				    * parameters), 0 if none */
	const uint32_t *masks;     /* byte offsets of patched instructions, ascending */
	uint32_t nmasks;
	uint32_t masks_lost;       /* patched instructions past CT_CUBIN_MASKS_MAX */
};

typedef void (*ct_cubin_func_fn)(void *ctx, const struct ct_cubin_func *f);

/* Calls fn for each function of the cubin p[0..n).  Returns the number of
 * functions, or -1 if p is not a cubin that can be read. */
int ct_cubin_functions(const uint8_t *p, size_t n, ct_cubin_func_fn fn, void *ctx);

/* The sm number e_flags says, for header ABI version abi (fatbin_format.h). */
uint32_t ct_cubin_arch(uint32_t e_flags, uint8_t abi);

#endif
