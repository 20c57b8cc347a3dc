/* SPDX-License-Identifier: MIT */
/* Checks on records that come from the kernel or from a trace file. */
#ifndef CT_RECORD_H
#define CT_RECORD_H

#include <stddef.h>
#include "cudatrace.h"

/* Largest record either side may produce; anything larger is corrupt. */
#define CT_META_MAX   (1u << 20)
#define CT_RECORD_MAX (sizeof(struct ct_ioctl) + CT_ARG_MAX + CT_NEST_MAX + 64)

/*
 * Returns NULL if the record of len bytes is well formed (its size field,
 * type, and every inner length agree), else a message saying what is wrong.
 */
const char *ct_record_check(const void *buf, size_t len);

/*
 * A sample of the kernel's ring holds one record or several one after
 * another, each 8-byte aligned (bpf/emit.bpf.h, emit_two): the length of
 * the first, where its size field gives a whole aligned record inside the
 * sample; else len, the rest, for ct_record_check to refuse.
 */
size_t ct_record_split(const void *buf, size_t len);

static inline const unsigned char *ct_ioctl_arg(const struct ct_ioctl *r)
{
	return (const unsigned char *)(r + 1);
}

static inline const unsigned char *ct_ioctl_nested(const struct ct_ioctl *r)
{
	return ct_ioctl_arg(r) + r->arg_size;
}

#endif
