// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs.h"
#include "msg.h"

bool ct_is_stdout(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

const char *ct_out_name(const struct ct_options *o)
{
	return o->out_path && !ct_is_stdout(o->out_path) ? o->out_path : "standard output";
}

bool ct_perfetto_has_stdout(const struct ct_options *o)
{
	return ct_is_stdout(o->perfetto_path) && !o->out_path;
}

/* The trace -r reads: its file, or standard input's. */
static bool input_id(const struct ct_options *o, struct stat *st)
{
	if (!o->read_path)
		return false;
	if (ct_is_stdout(o->read_path))
		return fstat(STDIN_FILENO, st) == 0;
	return stat(o->read_path, st) == 0;
}

/* Same device and inode: a hard link or another spelling is the same file. */
static int check_not_input(const struct stat *in, const char *opt, const char *path,
			   const char *read_path)
{
	struct stat st;

	if (!path || ct_is_stdout(path) || stat(path, &st) || !S_ISREG(st.st_mode) ||
	    st.st_dev != in->st_dev || st.st_ino != in->st_ino)
		return 0;
	ct_err("%s %s is the trace being read (-r %s): writing it would "
			"destroy the trace; give another file\n", opt, path, read_path);
	return -1;
}

static int check_stdout_use(const struct ct_options *o)
{
	if (ct_is_stdout(o->out_path) && ct_is_stdout(o->perfetto_path)) {
		ct_err("-o - and --perfetto - both want standard output; "
				"give one of them a file\n");
		return -1;
	}
	if (ct_is_stdout(o->sqlite_path)) {
		ct_err("--sqlite needs a file (a database cannot be "
				"written to standard output)\n");
		return -1;
	}
	if (ct_is_stdout(o->perfetto_path) && o->command) {
		ct_err("--perfetto -: the traced command writes to standard "
				"output too; give --perfetto a file\n");
		return -1;
	}
	if (ct_perfetto_has_stdout(o) && o->summary) {
		ct_err("--perfetto - writes the timeline to standard output: "
				"send the -c/-C table to a file with -o FILE\n");
		return -1;
	}
	return 0;
}

/* The same file, by name or (when both exist) by device and inode. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (strcmp(a, b) == 0)
		return true;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Two outputs in one file would write over each other ("-w X -o X"). */
static int check_outputs_apart(const struct ct_options *o)
{
	const struct { const char *opt, *path; } out[] = {
		{ "-w", o->write_path }, { "-o", o->out_path },
		{ "--perfetto", o->perfetto_path }, { "--sqlite", o->sqlite_path },
	};
	size_t n = sizeof(out) / sizeof(out[0]), i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			if (!out[i].path || !out[j].path || ct_is_stdout(out[i].path) ||
			    ct_is_stdout(out[j].path) || !same_file(out[i].path, out[j].path))
				continue;
			ct_err("%s %s and %s %s are the same file: each output "
					"needs its own; give another file to one of them\n",
				out[i].opt, out[i].path, out[j].opt, out[j].path);
			return -1;
		}
	return 0;
}

int ct_outputs_check(const struct ct_options *o)
{
	struct stat in;

	if (check_stdout_use(o) || check_outputs_apart(o))
		return -1;
	if (!input_id(o, &in) || !S_ISREG(in.st_mode))
		return 0;
	if (check_not_input(&in, "-o", o->out_path, o->read_path) ||
	    check_not_input(&in, "--perfetto", o->perfetto_path, o->read_path) ||
	    check_not_input(&in, "--sqlite", o->sqlite_path, o->read_path))
		return -1;
	return 0;
}
