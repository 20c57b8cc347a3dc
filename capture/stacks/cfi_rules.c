// SPDX-License-Identifier: MIT
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>

#include "cfi_rules.h"
#include "cudatrace.h"

#define RULES_MAX 65536          /* addresses kept per process; then they start again */

/* A 64-bit DWARF operand as a small signed offset; false if it is not one. */
static bool small_offset(Dwarf_Word v, int32_t *off)
{
	int64_t s = (int64_t)v;

	if (s < INT32_MIN || s > INT32_MAX)
		return false;
	*off = (int32_t)s;
	return true;
}

/* CFA = register + offset, for rsp and rbp (libdw gives DW_OP_bregx). */
static bool cfa_rule(const Dwarf_Op *ops, size_t nops, struct ct_cfi_rule *r)
{
	Dwarf_Word reg, off;

	if (nops != 1)
		return false;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = ops[0].number;
	} else {
		return false;
	}
	if (reg != CT_REG_RSP && reg != CT_REG_RBP)
		return false;
	r->cfa_reg = (uint8_t)reg;
	return small_offset(off, &r->cfa_off);
}

/* CFA + offset as libdw writes offset(N) (a location) or, with value set,
 * val_offset(N): DW_OP_call_frame_cfa, then DW_OP_plus_uconst N unless N
 * is 0, then DW_OP_stack_value for a value. */
static bool cfa_plus(const Dwarf_Op *ops, size_t nops, bool value, int32_t *off)
{
	size_t n = 0;

	*off = 0;
	if (nops < 1 || ops[n++].atom != DW_OP_call_frame_cfa)
		return false;
	if (n < nops && ops[n].atom == DW_OP_plus_uconst && !small_offset(ops[n++].number, off))
		return false;
	if (value && (n >= nops || ops[n++].atom != DW_OP_stack_value))
		return false;
	return n == nops;
}

/* dwarf_frame_register's *nops 0 means, with *ops NULL, "same value", with
 * *ops its ops_mem, "undefined" (libdw.h). */
static bool rbp_rule(Dwarf_Frame *fr, struct ct_cfi_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(fr, CT_REG_RBP, mem, &ops, &nops))
		return false;
	if (nops == 0) {
		r->rbp = ops ? CT_CFI_RBP_LOST : CT_CFI_RBP_SAME;
		return true;
	}
	r->rbp = CT_CFI_RBP_SAVED;
	return cfa_plus(ops, nops, false, &r->rbp_off);
}

enum ct_cfi_none ct_cfi_rule_of_frame(Dwarf_Frame *fr, struct ct_cfi_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool signal = false;
	int ra = dwarf_frame_info(fr, NULL, NULL, &signal);

	if (ra < 0 || signal)
		return CT_CFI_SIGNAL;
	if (dwarf_frame_register(fr, ra, mem, &ops, &nops))
		return CT_CFI_RA_SHAPE;
	if (nops == 0 && ops) {          /* undefined: libdw ends the walk here */
		r->outermost = true;
		return CT_CFI_USABLE;
	}
	if (!cfa_plus(ops, nops, false, &r->ra_off))
		return CT_CFI_RA_SHAPE;
	if (dwarf_frame_cfa(fr, &ops, &nops) || !cfa_rule(ops, nops, r))
		return CT_CFI_CFA_SHAPE;
	if (dwarf_frame_register(fr, CT_REG_RSP, mem, &ops, &nops) ||
	    !cfa_plus(ops, nops, true, &r->rsp_off))
		return CT_CFI_RSP_SHAPE;
	return rbp_rule(fr, r) ? CT_CFI_USABLE : CT_CFI_RBP_SHAPE;
}

/* What libdw would use at pc: the module's .eh_frame, else its
 * .debug_frame (libdw's order; past them it guesses from rbp, which is
 * left to it). */
static void compile(Dwfl *dwfl, uint64_t pc, struct ct_cfi_rule *r)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	void **ud = NULL;

	r->none = CT_CFI_NO_MODULE;
	if (!mod)
		return;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	r->module_data = ud ? *ud : NULL;
	r->none = CT_CFI_NO_FDE;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
			return;
	}
	r->none = ct_cfi_rule_of_frame(fr, r);
	r->usable = r->none == CT_CFI_USABLE;
	free(fr);
}

const struct ct_cfi_rule *ct_cfi_rule_at(struct ct_cfi_rules *rules, Dwfl *dwfl, uint64_t pc)
{
	struct ct_cfi_rule *r = idmap_get(&rules->by_pc, pc);

	if (!r) {
		if (rules->by_pc.used >= RULES_MAX)
			ct_cfi_rules_clear(rules);
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
		compile(dwfl, pc, r);
		idmap_put(&rules->by_pc, pc, r);
		rules->compiled++;
	}
	return r;
}

void ct_cfi_rules_clear(struct ct_cfi_rules *rules)
{
	idmap_free_all(&rules->by_pc);
}
