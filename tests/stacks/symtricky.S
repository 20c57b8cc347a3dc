/* SPDX-License-Identifier: MIT */
/*
 * Symbols made to test how an address is named (tests/stacks/symindex_check.c
 * against libdw): aliases of one address with other bindings and sizes,
 * nested and overlapping functions, assembly labels (no size) in two
 * sections, locals beside globals, an absolute symbol, data in code.
 * Its bytes are never run.
 */
	.text
/* One address, three names: global 32, weak 16, local 64. */
	.globl sized_a
	.type sized_a, @function
	.weak weak_a
	.type weak_a, @function
	.type local_a, @function
sized_a:
weak_a:
local_a:
	.fill 64, 1, 0x90
	.size sized_a, 32
	.size weak_a, 16
	.size local_a, 64

/* A function inside another. */
	.globl outer
	.type outer, @function
outer:
	.fill 64, 1, 0x90
	.globl inner
	.type inner, @function
inner:
	.fill 16, 1, 0x90
	.size inner, 16
	.fill 176, 1, 0x90
	.size outer, 256

/* A weak function inside a global one: nearer, but weaker. */
	.globl glob_far
	.type glob_far, @function
glob_far:
	.fill 32, 1, 0x90
	.weak weak_near
	.type weak_near, @function
weak_near:
	.fill 32, 1, 0x90
	.size weak_near, 32
	.fill 64, 1, 0x90
	.size glob_far, 128

/* Labels after a sized function, global and local, and a gap between. */
	.globl fn_b
	.type fn_b, @function
fn_b:
	.fill 16, 1, 0x90
	.size fn_b, 16
	.fill 16, 1, 0xcc
	.globl label_global
label_global:
	.fill 16, 1, 0x90
loc_label:
	.fill 16, 1, 0x90
	.globl label_twin_g
label_twin_g:
loc_twin:
	.fill 16, 1, 0x90

/* A local function with no global over it, then a sized local, then a
 * global without size at the same address as a sized local. */
	.type only_local, @function
only_local:
	.fill 32, 1, 0x90
	.size only_local, 32
	.globl sizeless_g
	.type sizeless_g, @function
	.type sized_l, @function
sizeless_g:
sized_l:
	.fill 32, 1, 0x90
	.size sized_l, 32

/* Data in code, with a size. */
	.globl table_in_text
	.type table_in_text, @object
table_in_text:
	.fill 48, 1, 0
	.size table_in_text, 48

/* An absolute symbol at an address of the code, and a label after it. */
	.globl abs_here
	.set abs_here, 0x1258
	.fill 32, 1, 0x90
	.globl last_label
last_label:
	.fill 64, 1, 0x90

/* Another section: labels there name only its own addresses. */
	.section .text.other, "ax", @progbits
	.fill 32, 1, 0x90
	.globl other_label
other_label:
	.fill 32, 1, 0x90
other_local:
	.fill 32, 1, 0x90
	.globl other_fn
	.type other_fn, @function
other_fn:
	.fill 16, 1, 0x90
	.size other_fn, 16
	.fill 48, 1, 0x90
