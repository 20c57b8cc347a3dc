/* SPDX-License-Identifier: MIT */
/*
 * The unwinding rule of each code address, compiled once from its module's
 * .eh_frame (or .debug_frame) by libdw and kept, so that most stacks are walked without
 * libdw's per-frame work (an FDE's CFA program run again and a frame state
 * allocated, for every frame of every stack).  Only the shapes x86-64 code
 * has almost everywhere: the CFA is rsp or rbp plus a constant; the return
 * address saved at CFA plus a constant (or undefined: the outermost frame);
 * rbp unchanged, saved at CFA plus a constant, or lost; rsp the CFA plus a
 * constant.  Any other shape (a CFA expression, a signal frame, code no
 * FDE covers) has no rule here, and that stack is left to libdw.
 */
#ifndef CT_CFI_RULES_H
#define CT_CFI_RULES_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>
#include "idmap.h"

enum ct_cfi_rbp {
	CT_CFI_RBP_SAME,      /* the caller's rbp is this frame's */
	CT_CFI_RBP_SAVED,     /* saved at CFA + rbp_off */
	CT_CFI_RBP_LOST,      /* undefined: a caller's rule that needs it has none */
};

/* Why an address has no rule. */
enum ct_cfi_none {
	CT_CFI_USABLE,
	CT_CFI_NO_MODULE,     /* no module maps the address */
	CT_CFI_NO_FDE,        /* no FDE covers it, in .eh_frame or .debug_frame */
	CT_CFI_SIGNAL,        /* a signal frame */
	CT_CFI_RA_SHAPE,      /* the return address's rule is of another shape */
	CT_CFI_CFA_SHAPE,     /* the CFA's (an expression, another register) */
	CT_CFI_RSP_SHAPE,
	CT_CFI_RBP_SHAPE,
	CT_CFI_NONE_KINDS
};

struct ct_cfi_rule {
	bool usable;          /* false: this address has none of the shapes above */
	uint8_t none;         /* enum ct_cfi_none: why not */
	bool outermost;       /* the return address is undefined: the stack ends here */
	uint8_t cfa_reg;      /* CT_REG_RSP or CT_REG_RBP */
	uint8_t rbp;          /* enum ct_cfi_rbp */
	int32_t cfa_off, ra_off, rbp_off, rsp_off;
	void *module_data;    /* the module's Dwfl user data (NULL: none) */
};

/* The rules of one Dwfl's addresses; clear them when its modules change. */
struct ct_cfi_rules {
	struct idmap by_pc;   /* pc -> struct ct_cfi_rule */
	uint64_t compiled;    /* rules made (usable or not), since the start */
};

/* The rule at pc, an exact address (the return address minus 1 for a
 * caller's frame), compiled on first use (its usable says whether it is
 * one); NULL: out of memory. */
const struct ct_cfi_rule *ct_cfi_rule_at(struct ct_cfi_rules *rules, Dwfl *dwfl, uint64_t pc);
void ct_cfi_rules_clear(struct ct_cfi_rules *rules);
/* The rule of libdw's frame state fr (r->outermost and the offsets set),
 * if it has one of the shapes kept: CT_CFI_USABLE; else why not. */
enum ct_cfi_none ct_cfi_rule_of_frame(Dwarf_Frame *fr, struct ct_cfi_rule *r);

#endif
