// SPDX-License-Identifier: MIT
/*
 * The command line, driven by the option table (cli_table.c): getopt_long's
 * arguments, --help, the man page's options and bash completion are made
 * from it here.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_table.h"
#include "trace_file.h"
#include "views.h"
#include "msg.h"

#define HELP_COL   27   /* --help: where the descriptions start */
#define HELP_WIDTH 80
#define MAX_OPTS   64   /* rows of the option table, at most */

static const struct ct_opt *opt_by_key(int key)
{
	size_t i;

	for (i = 0; i < ct_nopts; i++)
		if (ct_opts[i].apply && ct_opts[i].key == key)
			return &ct_opts[i];
	return NULL;
}

/* getopt_long's short string ("+p:w:h::...") and long options, from the table. */
static void getopt_tables(char *shorts, size_t n, struct option *longs)
{
	size_t i, s = 0, l = 0;

	shorts[s++] = '+';   /* stop at the command */
	for (i = 0; i < ct_nopts; i++) {
		const struct ct_opt *o = &ct_opts[i];

		if (!o->apply)
			continue;
		if (o->key < 256 && s + 4 < n) {
			shorts[s++] = (char)o->key;
			if (o->has_arg != no_argument)
				shorts[s++] = ':';
			if (o->has_arg == optional_argument)
				shorts[s++] = ':';
		}
		if (o->name)
			longs[l++] = (struct option){ o->name, o->has_arg, NULL, o->key };
	}
	shorts[s] = 0;
	longs[l] = (struct option){ 0 };
}

/* "cudatrace t.ctrace": a trace where the command goes.  A file named so
 * that is not a program (traces are 0600) is not what the user meant. */
static int check_command_not_trace(const struct ct_options *o)
{
	const char *cmd = o->command ? o->command[0] : NULL;
	struct stat st;

	if (!cmd || stat(cmd, &st) || !S_ISREG(st.st_mode) || !access(cmd, X_OK) ||
	    !ct_is_trace_file(cmd))
		return 0;
	ct_err("%s is a trace file, not a command: to decode it, give "
			"cudatrace -r %s\n", cmd, cmd);
	return -1;
}

/* Options that do not go together. */
static int check_args(const struct ct_options *o)
{
	if (o->read_path && (o->write_path || o->command || o->npids)) {
		ct_err("-r decodes a saved trace; it does not go with "
				"-w, -p or a command\n");
		return -1;
	}
	if (o->allow_partial && !o->read_path) {
		ct_err("--allow-partial goes with -r FILE (a trace it decodes)\n");
		return -1;
	}
	if (o->read_path && o->metrics_addr) {
		ct_err("--metrics serves a live capture; for a saved "
				"trace use -c or --sqlite\n");
		return -1;
	}
	if (o->read_path && o->gpu_work_hz) {
		ct_err("--gpu-work reads running processes; -r decodes the "
				"GPU work a saved trace holds without it\n");
		return -1;
	}
	if ((o->metrics_no_pid || o->metrics_max_series || o->metrics_kernels) && !o->metrics_addr) {
		ct_err("--metrics-no-pid, --metrics-max-series and "
				"--metrics-kernels go with --metrics ADDR:PORT\n");
		return -1;
	}
	if ((o->max_size || o->rotate) && !o->write_path) {
		ct_err("--max-size and --rotate go with -w FILE\n");
		return -1;
	}
	if (o->rotate && !o->max_size) {
		ct_err("--rotate needs --max-size (when to start the next file)\n");
		return -1;
	}
	if (ct_views_check(o))
		return -1;
	if (o->run_as && !o->command && !o->read_path) {
		ct_err("-u USER runs the command as USER: it goes with "
				"-- COMMAND\n");
		return -1;
	}
	if (o->command && o->npids) {
		ct_err("give -p PID or a command, not both\n");
		return -1;
	}
	return check_command_not_trace(o);
}

/* How the user spelled an option, for messages: "-k" or "--cgroup". */
static void spelling(const struct ct_opt *opt, char *buf, size_t n)
{
	if (opt->key < 256)
		snprintf(buf, n, "-%c", opt->key);
	else
		snprintf(buf, n, "--%s", opt->name);
}

/* "-k 65536": getopt takes an optional argument only attached, so the
 * number would become the command.  A bare number there is a mistake. */
static int detached_number(const struct ct_opt *opt, int argc, char **argv)
{
	const char *next = optind < argc ? argv[optind] : NULL;

	if (opt->has_arg != optional_argument || optarg || !next || !*next ||
	    next[strspn(next, "0123456789")])
		return 0;
	ct_err("-%c/--%s %s: attach the size: -%c%s or --%s=%s\n",
		opt->key, opt->name, next, opt->key, next, opt->name, next);
	return -1;
}

/* An option's argument that cannot be meant: empty ("--py-user ''"), or,
 * for a file, the next option ("-w -- true" would write a file "--"). */
static int check_arg(const struct ct_opt *opt, const char *arg)
{
	char name[40];

	if (!arg)
		return 0;
	spelling(opt, name, sizeof(name));
	if (!*arg) {
		ct_err("%s '': an empty %s: give %s %s\n", name, opt->arg, name, opt->arg);
		return -1;
	}
	if (arg[0] == '-' && arg[1] && opt->arg &&
	    (!strcmp(opt->arg, "FILE") || !strcmp(opt->arg, "DIR") || !strcmp(opt->arg, "PATH"))) {
		ct_err("%s %s: that is an option, not a %s: give %s %s (a name that starts "
			"with '-': ./%s)\n", name, arg, opt->arg, name, opt->arg, arg);
		return -1;
	}
	return 0;
}

/* An option that takes one value, given twice: which one was meant?
 * seen[row]: the value the option had ("" none), NULL until given; an
 * alias (--colour) is its option's row. */
static int check_once(const struct ct_opt *opt, const char *arg, const char **seen)
{
	const struct ct_opt *first = opt;
	char name[40];
	size_t i;

	if (opt->repeat || opt->has_arg == no_argument)
		return 0;
	for (i = 0; i < ct_nopts; i++)
		if (ct_opts[i].apply == opt->apply && ct_opts[i].field == opt->field) {
			first = &ct_opts[i];
			break;
		}
	i = (size_t)(first - ct_opts);
	spelling(first, name, sizeof(name));
	if (seen[i] && *seen[i] && arg) {
		ct_err("%s given twice (%s, then %s): give it once\n", name, seen[i], arg);
		return -1;
	}
	if (seen[i]) {
		ct_err("%s given twice: give it once\n", name);
		return -1;
	}
	seen[i] = arg ? arg : "";
	return 0;
}

/* -r decodes what was captured: an option that changes the capture
 * (given or not) cannot apply any more. */
static int check_live_only(const struct ct_options *o, const struct ct_opt *live)
{
	char opt[40];

	if (!o->read_path || !live)
		return 0;
	spelling(live, opt, sizeof(opt));
	ct_err("%s changes a live capture; -r decodes a saved trace, "
			"taken as it was: leave %s out\n", opt, opt);
	return -1;
}

/* -c and -C: the last one given wins, and we say so. */
static void check_summary_twice(struct ct_options *o, const struct ct_opt *opt, int before)
{
	if (before && before != o->summary)
		ct_err("-c and -C both given: the last, -%c, wins (%s)\n",
			opt->key, o->summary == 1 ? "only the table" : "the events, then the table");
}

int ct_cli_parse(int argc, char **argv, struct ct_options *o)
{
	struct option longs[MAX_OPTS];
	char shorts[128];
	const struct ct_opt *opt, *live = NULL;
	const char *seen[MAX_OPTS] = { 0 };
	int c, summary;

	if (ct_nopts >= sizeof(longs) / sizeof(longs[0])) {
		ct_err("internal error: too many options\n");
		return -1;
	}
	getopt_tables(shorts, sizeof(shorts), longs);
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		opt = opt_by_key(c);
		if (!opt) {
			fprintf(stderr, "Try 'cudatrace --help'.\n");
			return -1;
		}
		if (detached_number(opt, argc, argv) || check_arg(opt, optarg) ||
		    check_once(opt, optarg, seen))
			return -1;
		summary = o->summary;
		if (opt->apply(o, opt, optarg))
			return -1;
		check_summary_twice(o, opt, summary);
		if (opt->live && !live)
			live = opt;
	}
	if (optind < argc)
		o->command = &argv[optind];
	return check_args(o) || check_live_only(o, live) ? -1 : 0;
}

/* The left column: "-p, --pid PID", "    --no-follow", or the table's label. */
static void opt_label(const struct ct_opt *o, char *buf, size_t n)
{
	int len = 0;

	if (o->label) {
		snprintf(buf, n, "%s%s", o->label[1] == '-' ? "    " : "", o->label);
		return;
	}
	if (o->key < 256)
		len = snprintf(buf, n, o->name ? "-%c, " : "-%c", o->key);
	else
		len = snprintf(buf, n, "    ");
	if (o->name && len >= 0 && (size_t)len < n)
		len += snprintf(buf + len, n - (size_t)len, "--%s", o->name);
	if (o->arg && len >= 0 && (size_t)len < n)
		snprintf(buf + len, n - (size_t)len, " %s", o->arg);
}

/* Words of text, wrapped at HELP_WIDTH, the lines after the first indented. */
static void wrap(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t w = strcspn(text, " ");

		if (at > col && at + 1 + (int)w > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, w, f);
		at += (int)w;
		text += w;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

void ct_cli_help(FILE *f)
{
	char label[64];
	size_t i;
	int g;

	fprintf(f, "%s\n%s", ct_cli_usage, ct_cli_intro);
	for (g = 0; g < G_COUNT; g++) {
		fprintf(f, "\n%s:\n", ct_opt_group_titles[g]);
		for (i = 0; i < ct_nopts; i++) {
			const struct ct_opt *o = &ct_opts[i];

			if ((int)o->group != g || o->hidden)
				continue;
			opt_label(o, label, sizeof(label));
			if (strlen(label) + 2 >= HELP_COL - 1)
				fprintf(f, "  %s\n%*s", label, HELP_COL, "");
			else
				fprintf(f, "  %-*s", HELP_COL - 2, label);
			wrap(f, o->help, HELP_COL);
		}
	}
	fprintf(f, "\nExamples:\n%s", ct_cli_examples);
}
