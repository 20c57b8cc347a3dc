// SPDX-License-Identifier: MIT
/* cudatrace: trace what programs say to the NVIDIA GPU driver. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_run.h"
#include "cli.h"
#include "cudatrace.h"
#include "decode.h"
#include "nvtables.h"
#include "options.h"
#include "owner.h"
#include "outputs.h"
#include "record.h"
#include "trace_file.h"
#include "version.h"
#include "kernels_of.h"
#include "views.h"
#include "msg.h"

/* Our own command line, kept in the trace header. */
static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

/* -o FILE, or standard output.  Not dup'ed onto stdout: a traced command
 * must not write into it.  0, or -1 after saying why. */
static int open_out(struct ct_options *o)
{
	int fd, err;

	o->out = stdout;
	if (!o->out_path || ct_is_stdout(o->out_path))
		return 0;
	fd = open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = fd < 0 ? errno : ct_own_file(fd, o->out_path);   /* 0600, the sudo user's */
	if (!err && !(o->out = fdopen(fd, "w")))
		err = errno;
	if (!err)
		return 0;
	if (fd >= 0)
		close(fd);
	ct_err("cannot write %s: %s\n", o->out_path, strerror(err));
	return -1;
}

static int ct_decode_file(struct ct_options *o)
{
	const struct ct_decode_stats *st;
	struct ct_decoder *d;
	struct ct_reader *r;
	enum ct_read_status s;
	char tail[640] = "", gw[400];
	const void *rec;
	size_t len;
	char err[512];
	bool partial;
	int rc = 0, out_errno;

	r = ct_reader_open(o->read_path, err, sizeof(err));
	if (!r) {
		ct_err("%s\n", err);
		return 1;
	}
	/* The header first: a view may refuse the trace before anything is decoded. */
	s = ct_reader_next(r, &rec, &len);
	if ((s == CT_READ_OK && ct_views_check_trace(o, rec)) || open_out(o)) {
		ct_reader_close(r);
		return 1;
	}
	d = ct_views_decoder_new(o);
	if (!d) {
		ct_reader_close(r);
		return 1;
	}
	for (; s == CT_READ_OK; s = ct_reader_next(r, &rec, &len))
		ct_decoder_feed(d, rec);
	ct_decoder_finish(d);
	/* why the output failed, while errno still says it (the views and the
	 * closing lines below make calls of their own) */
	out_errno = fflush(o->out) ? errno : 0;
	st = ct_decoder_stats(d);
	ct_views_after(o, st);
	if (st->views_failed)   /* --perfetto, --sqlite: each said why */
		rc = 1;
	/* One line on stderr says how the read went; skipped records, what
	 * GPU work could not be followed join it. */
	if (ct_reader_skipped(r))
		snprintf(tail, sizeof(tail), "; skipped %llu records of a type this "
			 "version does not know (written by a newer cudatrace?)",
			 (unsigned long long)ct_reader_skipped(r));
	if (ct_gpuwork_summary(st, gw, sizeof(gw)))
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "; %s", gw);
	if (out_errno || fflush(o->out) || ferror(o->out)) {   /* disk full: say so, not exit 0 */
		/* A failed write's errno is long gone (the stream dropped its
		 * buffer then): the output is broken anyway, so one more byte
		 * asks it again why. */
		if (!out_errno && ferror(o->out)) {
			clearerr(o->out);
			out_errno = fputc('\n', o->out) == EOF || fflush(o->out) ? errno : 0;
		}
		if (!out_errno)
			out_errno = errno ? errno : EIO;
		ct_err("writing %s failed: %s\n", ct_out_name(o), strerror(out_errno));
		rc = 1;
	}
	/* A trace without its trailer is partial, wherever it was cut: exit 1,
	 * or 0 with --allow-partial; damage is exit 1 either way. */
	partial = s == CT_READ_ERROR ? ct_reader_cut(r) : !st->have_trailer;
	if (partial && !o->allow_partial)
		snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail),
			 "; a partial trace: exit 1 (--allow-partial: 0)");
	if (partial || s == CT_READ_ERROR)
		rc = partial && o->allow_partial ? rc : 1;
	if (s == CT_READ_ERROR) {
		ct_err("%s: %s; decoded the %llu records before it%s\n",
			o->read_path, ct_reader_error(r), (unsigned long long)st->records, tail);
	} else if (!st->have_trailer) {
		ct_err("%s has no trailer: the capture was cut short "
				"(killed or disk full); decoded all %llu complete records, "
				"lost counts unknown%s\n", o->read_path,
			(unsigned long long)st->records, tail);
	} else if (st->trailer_lost || st->trailer_lost_inflight) {
		ct_err("the capture lost %llu events (ring buffer full); "
				"rerun with a larger -b%s\n",
			(unsigned long long)(st->trailer_lost + st->trailer_lost_inflight), tail);
	} else if (tail[0]) {
		ct_err("%s\n", tail + 2);
	}
	ct_decoder_free(d);
	ct_reader_close(r);
	return rc;
}

/* --compat: the report's verdict is the exit status (0 clean, 1 refused),
 * in place of a traced command's; a failure of our own (1) stays. */
static int compat_exit(const struct ct_options *o, int rc)
{
	int verdict = ct_views_compat_status();

	if (!o->compat || verdict < 0 || (rc == 1 && !o->command))
		return rc;
	if (verdict)   /* exit 1 says why on stderr, as every exit 1 does */
		ct_err("--compat: nvproxy would refuse some of these calls "
				"(the rows marked so in the report)\n");
	return verdict;
}

int main(int argc, char **argv)
{
	struct ct_options o = {
		.follow_forks = true,
		.nest_max = CT_NEST_DEFAULT,
		.ringbuf_mb = 64,
		.color = -1,
		.proc_root = "/proc",
		.dev_root = "/dev",
	};
	char *cmdline;
	int rc;

	if (ct_cli_parse(argc, argv, &o)) {
		ct_filter_free(o.filter);
		return 2;
	}
	if (o.read_path && !o.kernels_of) {   /* opens -o once the trace is taken */
		rc = ct_decode_file(&o);
		ct_filter_free(o.filter);
		return compat_exit(&o, rc);
	}
	if (open_out(&o)) {
		ct_filter_free(o.filter);
		return 1;
	}
	if (o.kernels_of) {
		rc = ct_kernels_of(&o);
		ct_filter_free(o.filter);
		return rc;
	}
	cmdline = join_args(argc, argv);
	o.cmdline = cmdline;
	rc = ct_capture_run(&o);
	free(cmdline);
	ct_filter_free(o.filter);
	return compat_exit(&o, rc);
}
