/* SPDX-License-Identifier: MIT */
/*
 * Escapes that need more than their layout, in one table (special.c), as
 * strace's ioctl_decode switch or envytools demmt's decoders keyed on class
 * and size.  Every other escape, UVM request, control and class is decoded
 * from its layout alone.  docs/DECODERS.md lists the table.
 */
#ifndef CT_SPECIAL_H
#define CT_SPECIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "call.h"

struct ct_decoder;

struct ct_special {
	uint32_t esc_nr;   /* NV_ESC_* */
	/* Parses what the layout cannot say: the command or class, and the
	 * layout of the nested buffer. */
	void (*describe)(const struct ct_decoder *d, struct ct_call *c);
	/* Prints an argument that is not one struct (an array); false if it
	 * cannot, and the printer falls back to a hex dump. */
	bool (*print_arg)(struct ct_decoder *d, const struct ct_call *c);
	/* The GPU the call concerns, where handles and paths cannot tell; -1. */
	int (*gpu)(const struct ct_decoder *d, const struct ct_call *c);
	/* Learns from a call that succeeded, before it is printed. */
	void (*learn)(struct ct_decoder *d, const struct ct_ioctl *ex);
};

/* The entry for an 'F' escape, or NULL. */
const struct ct_special *ct_special_find(uint32_t esc_nr);

#endif
