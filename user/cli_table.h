/* SPDX-License-Identifier: MIT */
/* The option table (cli_table.c), read by cli.c.  Not for other files. */
#ifndef CT_CLI_TABLE_H
#define CT_CLI_TABLE_H

#include <stddef.h>

#include "options.h"

enum ct_opt_group { G_TRACE, G_OUTPUT, G_FILTER, G_VIEW, G_STACK, G_METRICS, G_CAPTURE,
		    G_OTHER, G_COUNT };

/* What bash completes for an option's argument. */
enum ct_opt_complete { C_NONE, C_FILE, C_DIR, C_PID, C_PNAME, C_WORDS };

struct ct_opt {
	const char *name;        /* long name, NULL if short only */
	int key;                 /* the short letter, or a number >= 256 */
	int has_arg;             /* no_argument, required_argument, optional_argument */
	const char *arg;         /* the argument as --help shows it: "PID[,PID...]" */
	const char *label;       /* the left column, where the usual form does not fit
				  * ("-t, -tt, -ttt"); NULL: made from name, key, arg */
	enum ct_opt_group group;
	const char *help;        /* one paragraph, for --help and the man page */
	enum ct_opt_complete complete;
	const char *words;       /* C_WORDS: the words ("auto always never") */
	/* Applies the option; 0, or -1 after saying why on stderr. */
	int (*apply)(struct ct_options *o, const struct ct_opt *opt, const char *arg);
	size_t field;            /* where apply_str/apply_true store, offsetof(ct_options) */
	int hidden;              /* an alias: parsed, not listed */
	int live;                /* live capture only: -r refuses it */
	int repeat;              /* may be given more than once (each adds to the last) */
};

extern const struct ct_opt ct_opts[];
extern const size_t ct_nopts;
extern const char *const ct_opt_group_titles[G_COUNT];
extern const char ct_cli_usage[], ct_cli_intro[], ct_cli_examples[];

#endif
