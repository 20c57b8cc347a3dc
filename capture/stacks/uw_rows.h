/* SPDX-License-Identifier: MIT */
/*
 * A file's unwind table for the kernel's walk (bpf/unwind_tables.h): every
 * FDE of its .eh_frame (found through .eh_frame_hdr's sorted table), each
 * row of each FDE's CFA program as libdw gives it, in the shapes
 * cfi_rules.c keeps; the gaps between FDEs as CT_UW_NO_FDE rows, any
 * other shape as CT_UW_OTHER.  Sorted by address, equal neighbours merged.
 */
#ifndef CT_UW_ROWS_H
#define CT_UW_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "unwind_tables.h"

/* Why a file has no table. */
enum ct_uw_rows_fail {
	CT_UW_ROWS_OK,
	CT_UW_ROWS_NO_HDR,      /* no .eh_frame_hdr, or one with another encoding */
	CT_UW_ROWS_FAR,         /* an address past 4 GiB */
	CT_UW_ROWS_TOO_MANY,    /* more rows than the bound given */
	CT_UW_ROWS_NO_MEM,
	CT_UW_ROWS_STOPPED,     /* the capture ended first */
	CT_UW_ROWS_GAVE_WAY,    /* left for a smaller file (*give_way): built again later */
	CT_UW_ROWS_FAIL_KINDS
};

struct ct_uw_rows {
	struct ct_uw_row *v;
	size_t n, cap;
	size_t fdes;
};

/* The rows of the ELF file open on fd (read, not taken), at most max;
 * given up (CT_UW_ROWS_STOPPED) once *stop is set (the capture ends), or
 * (CT_UW_ROWS_GAVE_WAY) once *give_way is (a smaller file waits). */
enum ct_uw_rows_fail ct_uw_rows_build(int fd, size_t max, const bool *stop,
				      const bool *give_way, struct ct_uw_rows *out);
void ct_uw_rows_free(struct ct_uw_rows *r);

/*
 * A large file's FDEs one at a time (lazy tables, ktables.c): open reads
 * .eh_frame_hdr's table (checked: sorted, under 4 GiB) and keeps the file
 * mapped; find gives the FDE whose range (from its start to the next
 * FDE's) holds an ELF address, SIZE_MAX before the first; rows gives that
 * FDE's rows, the same as the whole build makes for it, valid until the
 * next call.
 */
struct ct_uw_fdes;
struct ct_uw_fdes *ct_uw_fdes_open(int fd, enum ct_uw_rows_fail *why);
size_t ct_uw_fdes_count(const struct ct_uw_fdes *t);
uint32_t ct_uw_fdes_start(const struct ct_uw_fdes *t, size_t i);
size_t ct_uw_fdes_find(const struct ct_uw_fdes *t, uint64_t addr);
enum ct_uw_rows_fail ct_uw_fdes_rows(struct ct_uw_fdes *t, size_t i, size_t max,
				     const struct ct_uw_row **rows, size_t *n);
void ct_uw_fdes_close(struct ct_uw_fdes *t);

#endif
