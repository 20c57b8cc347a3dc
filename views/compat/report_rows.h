/* SPDX-License-Identifier: MIT */
/* Inside the --compat report: its rows and state, shared by report.c (which
 * collects and judges) and report_print.c (which prints). */
#ifndef CT_COMPAT_REPORT_ROWS_H
#define CT_COMPAT_REPORT_ROWS_H

#include <stdint.h>

#include "caps_asked.h"
#include "cudatrace.h"
#include "gvisor_abi.h"
#include "known.h"
#include "report.h"

/* Row kinds: nvproxy's four tables, then mmap, then any ioctl on a device
 * nvproxy does not expose. */
enum row_kind { RK_FRONTEND = CT_GV_FRONTEND, RK_UVM = CT_GV_UVM, RK_CONTROL = CT_GV_CONTROL,
		RK_CLASS = CT_GV_CLASS, RK_MMAP, RK_IOCTL, RK_COUNT };

enum verdict { V_SUPPORTED, V_PASSED_THROUGH, V_HARMLESS, V_NEEDS_CAP, V_UNSUPPORTED,
	       V_NOT_EXPOSED, V_COUNT };

#define ROW_DEV_MAX 64
#define ROW_ANSWER_MAX 48
#define ROW_NAME_MAX 64

struct row {
	char dev[ROW_DEV_MAX];
	enum row_kind kind;
	uint32_t number;
	const char *ours;             /* cudatrace's name, NULL if none */
	uint64_t calls, failed, refused_by_host;  /* with nvproxy's own refusal status */
	uint64_t unseen_by_libc;      /* -k traces: calls not made through libc's ioctl */
	uint64_t rewritten;           /* NV01_EVENT allocations judged by their inner class */
	uint32_t first_pid;
	char first_comm[CT_COMM_LEN + 1];
	char answer[ROW_ANSWER_MAX];  /* the first failure's status or errno, "" if none */
	/* Who made it: -k stacks, and what known_callers.tsv says. */
	char api[ROW_NAME_MAX];       /* the first stacked call's driver entry point, "" if none */
	char api_module[ROW_NAME_MAX];   /* the library holding it, "" if not seen */
	uint64_t stacked;             /* calls with a -k stack */
	uint64_t known_seen;          /* ... whose stack shows the known caller's function */
	const struct ct_known_caller *known;   /* its known caller, NULL if none */
	/* Filled in at the end (report.c: judge). */
	enum verdict verdict;
	const struct ct_gv_op *op;    /* nvproxy's entry, NULL if none */
	uint16_t caps_needed;         /* V_NEEDS_CAP: any one of these */
	const struct ct_gv_node *first;  /* first node with it, NULL if none */
	const struct ct_gv_node *last;   /* newest node with it, NULL if none */
	const struct ct_gv_node *dropped;   /* oldest node after last without it, or NULL */
	uint32_t escape;              /* control, class: the escape that carried it */
	const struct ct_gv_op *via;   /* pass-through controls: that escape's entry */
};

struct ct_compat {
	struct ct_compat_opts o;
	const struct ct_gv_snapshot *snap;
	uint16_t caps;                /* enabled */
	bool caps_given;
	uint32_t driver;              /* the trace's, 0 unknown */
	const struct ct_gv_node *node;
	enum ct_gv_match match;
	struct row *rows;
	size_t nrows, cap;
	bool have_stacks;
	uint64_t libs_stacked;        /* ct_driver_libs seen in -k frames (bit per index) */
	uint64_t libs_known;          /* ct_driver_libs of known callers of rows present */
	struct { char name[ROW_NAME_MAX]; int lib; } lib_memo[16];   /* module -> lib */
	unsigned lib_memo_next;
	/* The container's request: the snapshot's caps_env in the environment
	 * of the first process that has it. */
	char asked[128];
	uint32_t asked_pid;           /* 0: no process had it */
	uint32_t asked_differs;       /* processes that asked for something else */
};

/* What refusing a row does to the program, from its known caller. */
enum refusal_effect { RE_UNKNOWN, RE_NOT_FATAL, RE_FATAL };

extern const char *const ct_compat_kind_names[RK_COUNT];
extern const char *const ct_compat_verdict_names[V_COUNT];

/* report.c */
bool ct_compat_refused(enum verdict v);
uint16_t ct_compat_caps_needed(const struct ct_compat *c);
const char *ct_compat_sniffer_note(const struct row *r);
/* callers.c */
void ct_compat_read_stack(struct ct_compat *c, struct row *r, const struct ct_call *call);
uint16_t ct_compat_lib_caps(const struct ct_compat *c);
enum refusal_effect ct_compat_effect(const struct row *r);
/* report_print.c */
void ct_compat_print(struct ct_compat *c);
const char *ct_compat_safe(const char *s, char *buf, size_t n);
void ct_compat_json_str(FILE *f, const char *key, const char *s);
/* report_who.c */
const char *ct_compat_libs_str(const struct ct_compat *c, uint16_t extra, char *buf, size_t n);
const char *ct_compat_asked_str(const struct ct_compat *c, char *buf, size_t n);
void ct_compat_text_asked(const struct ct_compat *c, FILE *f);
void ct_compat_text_asked_summary(const struct ct_compat *c, FILE *f);
void ct_compat_text_callers(const struct row *r, FILE *f);
void ct_compat_json_caller(FILE *f, const struct row *r);

#endif
