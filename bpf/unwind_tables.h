/* SPDX-License-Identifier: MIT */
/*
 * -k's unwind tables, which the capture compiles and the kernel walks
 * stacks from (bpf/kwalk.bpf.h): the layout of their BPF maps, shared by
 * both sides.  Three maps, each lookup bounded:
 *
 *   uw_procs  hash, pid -> struct ct_uw_proc: the process's executable file
 *             mappings, sorted by start (binary search, at most
 *             CT_UW_MAPS_MAX), each naming its file's table;
 *   uw_files  array, file id -> struct ct_uw_file: where the file's rows
 *             are in uw_rows;
 *   uw_rows   array of struct ct_uw_row, each file's rows one sorted run
 *             (binary search by ELF address, at most CT_UW_SEARCH steps).
 *
 * A row is the rule from its address up to the next row's: the shapes
 * capture/stacks/cfi_rules.c keeps (CFA = rsp or rbp + N, return address
 * at CFA - 8, rbp unchanged, saved at CFA + N or lost, rsp = CFA).  Gaps
 * between FDEs are rows of kind CT_UW_NO_FDE (walked by frame pointer, as
 * libdw does); any other shape is CT_UW_OTHER, which the kernel leaves to
 * the capture (the stack is copied as before).  A large file's table is
 * lazy: only the FDEs stacks passed through, the rest CT_UW_NOT_BUILT
 * rows; each addition is a new run elsewhere in uw_rows, and its uw_files
 * entry (mmapped: written as one 8-byte word, read as one) moves to it.
 * Memory: the sizes below,
 * preallocated only with -k (the maps have one entry otherwise).
 */
#ifndef CT_UNWIND_TABLES_H
#define CT_UNWIND_TABLES_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define CT_UW_MAPS_MAX   512            /* mappings a process's table holds */
#define CT_UW_PROCS_MAX  4096           /* processes with tables (hash, not preallocated) */
#define CT_UW_FILES_MAX  8192           /* files with tables */
#define CT_UW_ROWS_MAX   (1u << 22)     /* rows, all files: 4M x 8 bytes = 32 MiB */
#define CT_UW_SEARCH     23             /* binary search steps: log2(CT_UW_ROWS_MAX) + 1 */
#define CT_UW_MAPS_SEARCH 10            /* log2(CT_UW_MAPS_MAX) + 1 */

/* ct_uw_map.file: no table yet (the kernel copies the stack and the
 * capture makes one), or none to be had (copied, always). */
#define CT_UW_FILE_PENDING 0u
#define CT_UW_FILE_NONE    0xffffffffu

struct ct_uw_map {
	__u64 start, end;   /* run-time addresses */
	__u64 bias;         /* run-time address - ELF address */
	__u32 file;         /* index in uw_files, or CT_UW_FILE_* */
	__u32 pad;
};

struct ct_uw_proc {
	__u32 n;            /* maps used, sorted by start, not overlapping */
	__u32 pad;
	struct ct_uw_map maps[CT_UW_MAPS_MAX];
};

struct ct_uw_file {
	__u32 first;        /* its first row in uw_rows */
	__u32 n;            /* its rows; 0: the entry is free */
};

/* ct_uw_row.kind */
enum ct_uw_kind {
	CT_UW_CFA_RSP,      /* CFA = rsp + cfa_off */
	CT_UW_CFA_RBP,      /* CFA = rbp + cfa_off */
	CT_UW_OUTERMOST,    /* the return address is undefined: the stack ends */
	CT_UW_NO_FDE,       /* no FDE covers the address: frame pointer */
	CT_UW_OTHER,        /* a rule of another shape: the capture unwinds it */
	CT_UW_NOT_BUILT,    /* a lazy file's FDE not built yet: copied, and the
			     * copy's unwinding asks for it (ktables.c) */
};

/* ct_uw_row.rbp: enum ct_cfi_rbp's values (capture/stacks/cfi_rules.h) */
#define CT_UW_RBP_SAME  0
#define CT_UW_RBP_SAVED 1
#define CT_UW_RBP_LOST  2

struct ct_uw_row {
	__u32 addr;         /* ELF address where the rule starts */
	__u16 cfa_off;
	__u8 kind;          /* enum ct_uw_kind */
	__u8 rbp;           /* low 2 bits CT_UW_RBP_*; high 6: (rbp_off / 8) + 32 when saved */
};

/* rbp saved at CFA + rbp_off, rbp_off a multiple of 8 in [-256, 248]. */
#define CT_UW_RBP_OFF_MIN (-256)
#define CT_UW_RBP_OFF_MAX 248
#define CT_UW_RBP(kind, off) ((__u8)((kind) | ((((off) / 8) + 32) << 2)))
#define CT_UW_RBP_KIND(b)    ((b) & 3)
#define CT_UW_RBP_OFF(b)     ((((__s32)(b) >> 2) - 32) * 8)

#endif
