// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "apisum.h"
#include "devmem_view.h"
#include "filter.h"
#include "gpuwork_summary.h"
#include "kernel_summary.h"
#include "meta.h"
#include "outputs.h"
#include "perfetto.h"
#include "report.h"
#include "sqlite_view.h"
#include "summary.h"
#include "views.h"
#include "msg.h"

/* --compat's verdict: -1 until its report is printed, then 0 or 1. */
static int compat_status = -1;

int ct_views_compat_status(void)
{
	return compat_status;
}

/* api and caller come from the stacks of a -k capture. */
static bool needs_stacks(const struct ct_options *o)
{
	return ct_filter_needs_stacks(o->filter) ||
	       (o->summary && (o->summary_by_api == CT_SUM_BY_API ||
			       o->summary_by_api == CT_SUM_BY_CALLER));
}

/* -e py= and --summary-by=py: the Python frames of -k or --py-stack. */
static bool needs_pystacks(const struct ct_options *o)
{
	return ct_filter_needs_pystacks(o->filter) ||
	       (o->summary && o->summary_by_api == CT_SUM_BY_PY);
}

int ct_views_check(const struct ct_options *o)
{
	if (o->compat_caps && !o->compat) {
		ct_err("--compat-caps goes with --compat=gvisor\n");
		return -1;
	}
	if (o->compat && ct_compat_check(o->compat, o->compat_caps))
		return -1;
	if (o->write_path && o->compat) {
		ct_err("-w writes the raw trace; --compat reads it: run "
				"cudatrace -r FILE --compat=gvisor afterwards\n");
		return -1;
	}
	if (ct_outputs_check(o))
		return -1;
	if (o->write_path && (o->summary || o->perfetto_path || o->sqlite_path)) {
		ct_err("-w writes the raw trace; -c, -C, --perfetto and "
				"--sqlite decode it: run them with -r FILE afterwards\n");
		return -1;
	}
	if (o->write_path && ct_filter_needs_decoder(o->filter)) {
		ct_err("-w writes the raw trace; -e, --failed, --tid and a "
				"--comm pattern filter the decoded calls: give them with -r FILE "
				"afterwards (an exact --comm NAME works with -w: the kernel "
				"checks it)\n");
		return -1;
	}
	if (o->host && !o->sqlite_path) {
		ct_err("--host names the host column of --sqlite\n");
		return -1;
	}
	if (o->sqlite_again && !o->sqlite_path) {
		ct_err("--sqlite-again goes with --sqlite FILE\n");
		return -1;
	}
	if ((o->summary_by_pid || o->summary_by_gpu || o->summary_by_api || o->summary_by_kernel) &&
	    !o->summary) {
		ct_err("--summary-by goes with -c or -C\n");
		return -1;
	}
	if (!o->read_path && !o->stack_bytes && needs_stacks(o)) {
		ct_err("-e api=, -e caller= and --summary-by=api|caller "
				"read the call stacks: add -k\n");
		return -1;
	}
	if (!o->read_path && !o->py_stack && needs_pystacks(o)) {
		ct_err("-e py= and --summary-by=py read the Python frames: "
				"add --py-stack (or -k)\n");
		return -1;
	}
	return 0;
}

int ct_views_check_trace(const struct ct_options *o, const struct ct_rec *first)
{
	char uid[24];

	if (!o->sqlite_path || o->sqlite_again || first->type != CT_REC_META)
		return 0;
	snprintf(uid, sizeof(uid), "%016" PRIx64, ct_meta_id(first));
	return ct_sqlite_check_trace(o->sqlite_path, uid);
}

void ct_views_after(const struct ct_options *o, const struct ct_decode_stats *st)
{
	if (needs_stacks(o) && !st->stacks)
		ct_err("this trace has no call stacks (capture with -k): "
				"no call has an api or a caller\n");
	if (needs_pystacks(o) && !st->pystacks && !st->stacks)
		ct_err("this trace has no Python frames (capture with "
				"--py-stack or -k): no call has a Python line\n");
	else if (needs_pystacks(o) && !st->pystacks)   /* -k, before -k read Python */
		ct_err("this trace has call stacks but no Python frames (taken by a "
				"cudatrace that did not read them, or on a CPython it does not "
				"read): no call has a Python line%s\n",
			o->summary && o->summary_by_api == CT_SUM_BY_PY ? "; --summary-by=py "
			"charges a call made from Python to the function the interpreter called, "
			"from its native stack" : "");
}

void ct_views_decode_opts(struct ct_decode_opts *dopts, const struct ct_options *o)
{
	if (o->summary == 1 || o->compat)
		dopts->quiet = true;   /* -c, --compat: the table or report alone */
	if (ct_perfetto_has_stdout(o))
		dopts->quiet = true;   /* standard output is the timeline's */
	dopts->procs_with_calls = o->filter != NULL;
}

/* What setup opened, until the decoder owns it. */
struct opened {
	struct ct_perfetto *pf;
	struct ct_summary *sum;
	struct ct_apisum *api;     /* --summary-by=api|caller: instead of sum */
	struct ct_devmem_view *mem;
	struct ct_sqlite *db;
	struct ct_compat *compat;
	struct ct_gwsum *gw;       /* -c: the GPU work table (--gpu-work records) */
	struct ct_ksum *ks;        /* -c: the kernels table (kernel names) */
};

static void close_opened(struct opened *op)
{
	ct_summary_free(op->sum);
	ct_apisum_free(op->api);
	ct_devmem_view_free(op->mem);
	ct_sqlite_discard(op->db);
	ct_perfetto_discard(op->pf);
	ct_compat_free(op->compat);
	ct_gwsum_free(op->gw);
	ct_ksum_free(op->ks);
}

/* Creates every view's state first: nothing to undo in the decoder. */
static int open_all(struct opened *op, const struct ct_options *o)
{
	if (o->perfetto_path) {
		op->pf = ct_perfetto_open(o->perfetto_path);
		if (!op->pf) {
			ct_err("cannot write %s: %s\n", o->perfetto_path,
				strerror(errno));
			return -1;
		}
	}
	if (o->sqlite_path) {
		struct ct_sqlite_opts so = { .host = o->host, .live = !o->read_path,
					     .again = o->sqlite_again };

		op->db = ct_sqlite_open(o->sqlite_path, &so);
		if (!op->db)
			return -1;
	}
	if (o->compat) {
		struct ct_compat_opts co = { .out = o->out, .json = o->json, .spec = o->compat,
					     .caps = o->compat_caps, .status = &compat_status };

		if (!(op->compat = ct_compat_new(&co)))
			return -1;
	}
	if (o->summary && (!(op->gw = ct_gwsum_new(o->out, o->json)) ||
			   !(op->ks = ct_ksum_new(o->out, o->json, o->summary_by_kernel)))) {
		ct_err("out of memory\n");
		return -1;
	}
	if (o->summary && o->summary_by_api) {
		op->api = ct_apisum_new(o->out, o->json, (enum ct_apisum_by)o->summary_by_api);
		if (!op->api) {
			ct_err("out of memory\n");
			return -1;
		}
	} else if (o->summary) {
		struct ct_summary_opts so = {
			.out = o->out, .json = o->json, .by_pid = o->summary_by_pid,
			.by_gpu = o->summary_by_gpu,
		};

		op->sum = ct_summary_new(&so);
		op->mem = ct_devmem_view_new(o->out, o->json);
		if (!op->sum || !op->mem) {
			ct_err("out of memory\n");
			return -1;
		}
	}
	return 0;
}

static int add(struct ct_decoder *d, struct ct_view v)
{
	return ct_decoder_add_view(d, &v);
}

int ct_views_setup(struct ct_decoder *d, const struct ct_options *o)
{
	struct opened op = { 0 };
	int err = 0;

	if (open_all(&op, o)) {
		close_opened(&op);
		return -1;
	}
	/* Memory held is a state: it is fed every call, before the filters
	 * (they do not apply to the memory table), and printed last. */
	if (op.mem)
		err |= add(d, ct_devmem_view_feed(op.mem));
	/* Filters next: a call they drop reaches no view after them. */
	if (o->filter)
		err |= add(d, ct_filter_view(o->filter));
	if (op.sum)
		err |= add(d, ct_summary_view(op.sum));
	if (op.api)
		err |= add(d, ct_apisum_view(op.api));
	if (op.mem)
		err |= add(d, ct_devmem_view_print(op.mem));
	if (op.gw)
		err |= add(d, ct_gwsum_view(op.gw));
	if (op.ks)
		err |= add(d, ct_ksum_view(op.ks));
	if (op.pf)
		err |= add(d, ct_perfetto_view(op.pf));
	if (op.db)
		err |= add(d, ct_sqlite_view(op.db));
	if (op.compat)
		err |= add(d, ct_compat_view(op.compat));
	if (err) {
		/* No view has run: the decoder is freed unfinished. */
		ct_err("out of memory\n");
		close_opened(&op);
		return -1;
	}
	return 0;
}

struct ct_decoder *ct_views_decoder_new_with(const struct ct_options *o,
					     const struct ct_view *first)
{
	struct ct_decode_opts dopts = ct_decode_opts_from(o);
	struct ct_decoder *d;

	ct_views_decode_opts(&dopts, o);
	if (o->write_path)
		dopts.quiet = true;   /* -w: the file is the output; first is the only view */
	d = ct_decoder_new(&dopts);
	if (!d) {
		ct_err("out of memory\n");
		return NULL;
	}
	if (first && ct_decoder_add_view(d, first)) {
		ct_err("out of memory\n");
		ct_decoder_free(d);
		return NULL;
	}
	if (!o->write_path && ct_views_setup(d, o)) {
		ct_decoder_free(d);
		return NULL;
	}
	return d;
}

struct ct_decoder *ct_views_decoder_new(const struct ct_options *o)
{
	return ct_views_decoder_new_with(o, NULL);
}
