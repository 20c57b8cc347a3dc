// SPDX-License-Identifier: MIT
/*
 * Where a live capture's records go (capture_sink.h): every record to the
 * trace file (-w) and to the decoder (no -w, or --metrics).  Each file
 * starts with the header record and ends with the trailer, so that every
 * rotated file stands alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "capture_bpf.h"
#include "capture_sink.h"
#include "knames_live.h"
#include "meta_build.h"
#include "metrics.h"
#include "outputs.h"
#include "trace_file.h"
#include "views.h"
#include "msg.h"

/* The decoded output (stdout, -o) could not be written: the capture stops
 * as it does for -w.  A closed pipe (| head) stops it quietly, as strace
 * does; the exit status says so (c->output_closed, capture.c). */
static void check_output(struct ct_capture *c, const char *then)
{
	int err = ct_decoder_out_error(c->decoder);

	if (!err || c->sink_error)
		return;
	c->sink_error = -err;
	if (err == EPIPE)
		c->output_closed = true;
	else
		ct_err("writing %s failed: %s%s\n", ct_out_name(c->o), strerror(err), then);
}

void ct_sink_record(struct ct_capture *c, const struct ct_rec *r)
{
	if (c->knames && ct_knames_hold_other(c->knames, r))
		return;   /* behind a launch that waits for its name: in order */
	ct_sink_write(c, r);
}

void ct_sink_write(struct ct_capture *c, const struct ct_rec *r)
{
	int err;

	if (c->writer) {
		err = ct_writer_add(c->writer, r);
		if (err && !c->sink_error) {
			c->sink_error = err;
			ct_err("writing %s failed: %s; stopping capture\n",
				c->o->write_path, strerror(-err));
		}
	}
	if (c->decoder) {   /* no -w, or -w with --metrics */
		ct_decoder_feed(c->decoder, r);
		check_output(c, "; stopping capture");
	}
}

/* A file's first or last record: what kernel names hold goes before it
 * (it came first), and nothing is held behind it. */
static void sink_boundary(struct ct_capture *c, const struct ct_rec *r)
{
	if (c->knames)
		ct_knames_flush(c->knames);
	ct_sink_write(c, r);
}

/* The header record every capture and every rotated file starts with. */
static int sink_meta(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_meta_in mi = {
		.devs = &c->devs, .options = o->cmdline, .nest_max = o->nest_max,
		.start_realtime_ns = ct_now_ns(CLOCK_REALTIME),
		.start_monotonic_ns = ct_now_ns(CLOCK_MONOTONIC), .proc_root = o->proc_root,
		.api_lib = o->api_lib,
	};
	struct ct_rec *meta = ct_meta_build(&mi);

	if (!meta)
		return -1;
	sink_boundary(c, meta);
	free(meta);
	return 0;
}

/* The name of trace file number i: FILE, or FILE.i with --rotate. */
static void trace_file_name(const struct ct_options *o, unsigned i, char *buf, size_t len)
{
	if (o->rotate)
		snprintf(buf, len, "%s.%u", o->write_path, i);
	else
		snprintf(buf, len, "%s", o->write_path);
}

/* Opens the next trace file and writes its header: every file stands
 * alone.  With --rotate N, the file N places back is removed. */
static int open_trace_file(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	char path[4096];

	trace_file_name(o, c->file_index, path, sizeof(path));
	c->writer = ct_writer_open(path, o->compress);
	if (!c->writer) {
		ct_err("cannot create %s: %s%s\n", path, strerror(errno),
			errno == ELOOP ? " (it is a symbolic link; refusing to follow it)" : "");
		return -1;
	}
	if (o->rotate && c->file_index >= o->rotate) {
		trace_file_name(o, c->file_index - o->rotate, path, sizeof(path));
		unlink(path);
	}
	return sink_meta(c);
}

/* --metrics: the series, and the HTTP server's socket, bound while we
 * still may bind any port (ct_sink_serve starts serving on it). */
static int start_metrics(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_metrics_opts mo = { .proc_root = o->proc_root, .no_pid = o->metrics_no_pid,
				      .max_series = o->metrics_max_series,
				      .kernels = o->metrics_kernels };

	c->metrics = ct_metrics_new(&mo);
	if (!c->metrics) {
		ct_err("out of memory\n");
		return -1;
	}
	c->http = ct_metrics_http_bind(c->metrics, o->metrics_addr);
	if (!c->http)
		return -1;
	return 0;
}

int ct_sink_serve(struct ct_capture *c)
{
	return c->http ? ct_metrics_http_serve(c->http) : 0;
}

int ct_sink_open(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_view mv;

	if (!o->metrics_addr) {
		if (o->write_path)
			return open_trace_file(c);
		c->decoder = ct_views_decoder_new(o);
		return c->decoder ? sink_meta(c) : -1;
	}
	/* --metrics: its view first, so it counts every call whatever the
	 * filters keep; with -w it is the decoder's only view. */
	if (start_metrics(c))
		return -1;
	mv = ct_metrics_view(c->metrics);
	c->decoder = ct_views_decoder_new_with(o, &mv);
	if (!c->decoder)
		return -1;
	return o->write_path ? open_trace_file(c) : sink_meta(c);
}

bool ct_sink_file_at_max(const struct ct_capture *c)
{
	return c->o->max_size && c->writer && ct_writer_reached(c->writer, c->o->max_size);
}

void ct_sink_trailer(struct ct_capture *c, uint64_t *lost, uint64_t *lost_inflight)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t size = sizeof(struct ct_trailer) + sizeof(uint64_t) * (size_t)ncpu;
	struct ct_trailer *t = calloc(1, size);
	uint64_t *scratch = calloc((size_t)ncpu, sizeof(uint64_t));

	if (!t || !scratch) {
		free(t);
		free(scratch);
		return;
	}
	*lost = ct_bpf_counter(c->skel, CT_CNT_LOST, (uint64_t *)(t + 1), ncpu);
	*lost_inflight = ct_bpf_counter(c->skel, CT_CNT_INFLIGHT_FULL, scratch, ncpu);
	t->h.type = CT_REC_TRAILER;
	t->h.size = (uint32_t)size;
	t->h.ts_ns = ct_now_ns(CLOCK_MONOTONIC);
	t->events = c->events_taken;   /* the kernel's records the record loop has taken */
	t->lost = *lost;
	t->lost_inflight = *lost_inflight;
	t->ncpu = (uint32_t)ncpu;
	sink_boundary(c, &t->h);
	free(t);
	free(scratch);
}

int ct_sink_file_full(struct ct_capture *c)
{
	uint64_t lost, lost_inflight;
	int err;

	if (!c->o->rotate) {
		fputc('\n', stderr);   /* ends the status line */
		ct_err("%s reached --max-size; stopping\n", c->o->write_path);
		return 1;
	}
	ct_sink_trailer(c, &lost, &lost_inflight);
	err = ct_writer_close(c->writer);
	c->writer = NULL;
	if (err) {
		ct_err("writing %s failed: %s\n", c->o->write_path,
			strerror(-err));
		c->sink_error = err;
		return 1;
	}
	c->file_index++;
	return open_trace_file(c) ? 1 : 0;
}

void ct_sink_update_lost(struct ct_capture *c, bool now)
{
	uint64_t t = ct_now_ns(CLOCK_MONOTONIC), scratch[1024];
	int ncpu = libbpf_num_possible_cpus();

	if (!c->metrics || ncpu > 1024 || (!now && t - c->lost_read_ns < 200000000ull))
		return;
	c->lost_read_ns = t;
	ct_metrics_set_lost(c->metrics,
			    ct_bpf_counter(c->skel, CT_CNT_LOST, scratch, ncpu) +
			    ct_bpf_counter(c->skel, CT_CNT_INFLIGHT_FULL, scratch, ncpu));
}

int ct_sink_close(struct ct_capture *c, int rc)
{
	int err;

	if (c->decoder) {
		char gw[400];

		ct_decoder_finish(c->decoder);
		check_output(c, "");   /* the last lines, -c's tables */
		if (!c->output_closed &&
		    ct_gpuwork_summary(ct_decoder_stats(c->decoder), gw, sizeof(gw)))
			ct_err("%s\n", gw);   /* graphs, unseen QMDs */
		if (ct_decoder_stats(c->decoder)->views_failed)
			rc = 1;   /* --perfetto, --sqlite: each said why */
		ct_decoder_free(c->decoder);
	}
	ct_metrics_http_stop(c->http);   /* before the series it reads go */
	ct_metrics_free(c->metrics);
	if (c->writer) {
		err = ct_writer_close(c->writer);
		if (err && !c->sink_error) {
			ct_err("writing %s failed: %s\n", c->o->write_path,
				strerror(-err));
			rc = 1;
		}
	}
	return rc;
}
