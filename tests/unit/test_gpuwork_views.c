// SPDX-License-Identifier: MIT
/* The views of --gpu-work records, on the recorded H100 acceptance trace
 * (161 launches, 46 copies of its own among CUDA's, by pid 555 on GPU 0): the --metrics series
 * count every launch and copied byte the decoder finds, per process and
 * GPU; then records of work not seen (a ring wrap, entries lost, a segment
 * unreadable, a GPPut outside the ring): each counted by its reason, the
 * channel given up in a series of its own, never as 0 entries lost.  Then
 * the H200 probe trace with its CUDA memset and copy kernels named as
 * libcuda's: the bytes they set and copied, from their parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "decode.h"
#include "gpuwork.h"
#include "gpuwork_summary.h"
#include "metrics.h"
#include "tap.h"
#include "trace_file.h"

static uint64_t launches, copied;
static int gpu = -2;

static void count(void *ctx, const struct ct_gpu_seg *s, const struct gw_event *e)
{
	(void)ctx;
	gpu = s->gpu;
	if (e && e->kind == GW_LAUNCH)
		launches++;
	if (e && e->kind == GW_COPY)
		copied += e->bytes;
}

/* Records of work not seen, as the reader makes them, on pid 555's channel. */
static void unseen(struct ct_decoder *d, struct ct_metrics *m)
{
	struct ct_gpu_seg s = { .h = { .type = CT_REC_GPU_SEG, .size = sizeof(s), .pid = 555 },
				.client = 0xc1d00001, .channel = 0x5c00001c, .chan_class = 0xc86f,
				.gpu = 0, .ring_entries = 1024, .gp_put = 7 };
	struct ct_gw_unseen u;

	(void)m;
	s.flags = CT_GS_LOST | CT_GS_WRAP, s.lost = 10;
	ct_decoder_feed(d, &s.h);
	u = ct_gw_unseen_of(&s);
	ok(u.n == 10 && !strcmp(u.reason, "ring_wrap") && !u.channel, "a wrap: 10 entries, ring_wrap");
	s.flags = CT_GS_LOST, s.lost = 3;
	ct_decoder_feed(d, &s.h);
	s.flags = CT_GS_FAULT, s.lost = 0;
	ct_decoder_feed(d, &s.h);
	u = ct_gw_unseen_of(&s);
	ok(u.n == 1 && !strcmp(u.row, "UNREADABLE"), "an unreadable segment: 1, UNREADABLE");
	s.flags = CT_GS_LOST, s.lost = 0, s.gp_put = 1029;
	ct_decoder_feed(d, &s.h);
	u = ct_gw_unseen_of(&s);
	ok(u.channel && u.n == 1 && strstr(u.row, "NOT FOLLOWED"),
	   "a GPPut outside the ring: a channel not followed (%s)", u.row);
}

/* A KERNEL_NAME record: pid's program is libcuda's function name. */
static void name_kernel(struct ct_decoder *d, uint32_t pid, uint64_t program, const char *name)
{
	static const char module[] = "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04";
	union { struct ct_kernel_name k; uint8_t b[512]; } r = { 0 };
	size_t n = strlen(name) + 1;

	r.k.h.type = CT_REC_KERNEL_NAME;
	r.k.h.pid = pid;
	r.k.program = program;
	r.k.how = CT_KN_INLINE;
	r.k.arch = 90;
	r.k.name_size = (uint32_t)n;
	r.k.module_size = sizeof(module);
	memcpy(r.b + sizeof(r.k), name, n);
	memcpy(r.b + sizeof(r.k) + n, module, sizeof(module));
	r.k.h.size = (uint32_t)((sizeof(r.k) + n + sizeof(module) + 7) & ~7ul);
	ct_decoder_feed(d, &r.k.h);
}

/* probe.cu (tests/gpu/probe): memsets of 16 MiB, 188,696, 2,552,192 and
 * 708,696 bytes; copies whose last part memcpy32_post does: 816, 349,528
 * and 3,560 bytes (the rest is the bulk kernel's, not named). */
static void kernel_ops(void)
{
	struct ct_metrics_opts mo = { .proc_root = "/nonexistent", .max_series = 1000 };
	struct ct_metrics *m = ct_metrics_new(&mo);
	FILE *devnull = fopen("/dev/null", "w");
	struct ct_decode_opts o = { .out = devnull, .quiet = true };
	struct ct_decoder *d = ct_decoder_new(&o);
	struct ct_view mv = ct_metrics_view(m);
	char err[256], *text = NULL;
	struct ct_reader *r = ct_reader_open("traces/kernels/probe.ctrace", err, sizeof(err));
	const void *rec;
	size_t len;

	if (ok(m && d && r, "metrics, decoder and the H200 probe trace %s", r ? "" : err)) {
		ct_decoder_add_view(d, &mv);
		name_kernel(d, 471, 0x7f2c53799a00ull, "memset32");
		name_kernel(d, 471, 0x7f2c53783200ull, "memcpy32_post");
		while (ct_reader_next(r, &rec, &len) == CT_READ_OK)
			ct_decoder_feed(d, rec);
		text = ct_metrics_render(m, &len);
	}
	ok(text && strstr(text, "cudatrace_gpu_kernel_op_bytes_total{gpu=\"0\",comm=\"probe\","
			  "container=\"\",pod=\"\",pid=\"471\",op=\"set\"} 20226800\n") &&
	   strstr(text, "cudatrace_gpu_kernel_op_bytes_total{gpu=\"0\",comm=\"probe\","
			"container=\"\",pod=\"\",pid=\"471\",op=\"copy\"} 353904\n"),
	   "cudatrace_gpu_kernel_op_bytes_total: 20,226,800 bytes set, 353,904 copied by "
	   "memcpy32_post");
	if (text && getenv("SHOW"))
		fputs(text, stderr);
	free(text);
	if (r)
		ct_reader_close(r);
	if (d) {
		ct_decoder_finish(d);
		ct_decoder_free(d);
	}
	ct_metrics_free(m);
	fclose(devnull);
}

int main(void)
{
	struct ct_metrics_opts mo = { .proc_root = "/nonexistent", .max_series = 1000 };
	struct ct_metrics *m = ct_metrics_new(&mo);
	FILE *devnull = fopen("/dev/null", "w");
	struct ct_decode_opts o = { .out = devnull, .quiet = true };
	struct ct_decoder *d = ct_decoder_new(&o);
	struct ct_view mv = ct_metrics_view(m), cv = { .gpu_work = count };
	char err[256], want[256], g[16], *text;
	struct ct_reader *r = ct_reader_open("traces/h100-gpuwork-accept.ctrace", err, sizeof(err));
	const void *rec;
	size_t len;

	if (!ok(m && d && r, "metrics, decoder and the H100 trace"))
		return tap_done();
	ct_decoder_add_view(d, &mv);
	ct_decoder_add_view(d, &cv);
	while (ct_reader_next(r, &rec, &len) == CT_READ_OK)
		ct_decoder_feed(d, rec);
	ct_reader_close(r);
	text = ct_metrics_render(m, &len);
	ok(launches == 161, "the decoder gives the views 161 launches (%llu)",
	   (unsigned long long)launches);
	/* the records name the GPU (from the RM objects), or -1 where they could not */
	snprintf(g, sizeof(g), gpu >= 0 ? "%d" : "unknown", gpu);
	snprintf(want, sizeof(want), "cudatrace_gpu_launches_total{gpu=\"%s\",comm=\"accept\","
		 "container=\"\",pod=\"\",pid=\"555\"} 161\n", g);
	ok(gpu == 0 && text && strstr(text, want), "cudatrace_gpu_launches_total of pid 555 on GPU "
	   "%d (its comm from its calls) is 161", gpu);
	snprintf(want, sizeof(want), "cudatrace_gpu_copied_bytes_total{gpu=\"%s\",comm=\"accept\","
		 "container=\"\",pod=\"\",pid=\"555\"} %llu\n", g, (unsigned long long)copied);
	ok(text && copied > 0 && strstr(text, want), "cudatrace_gpu_copied_bytes_total is %llu",
	   (unsigned long long)copied);
	free(text);
	unseen(d, m);
	text = ct_metrics_render(m, &len);
	if (text && getenv("SHOW"))
		fputs(text, stderr);
	/* comm "": the trace's process has exited by now */
	snprintf(want, sizeof(want), "cudatrace_gpu_unseen_entries_total{gpu=\"%s\",comm=\"\","
		 "container=\"\",pod=\"\",pid=\"555\",reason=\"ring_wrap\"} 10\n", g);
	ok(text && strstr(text, want), "unseen entries: a ring wrap's 10 (at least), by reason");
	ok(text && strstr(text, "reason=\"lost\"} 3\n") && strstr(text, "reason=\"unreadable\"} 1\n"),
	   "... 3 lost, 1 unreadable");
	snprintf(want, sizeof(want), "cudatrace_gpu_channels_not_followed_total{gpu=\"%s\","
		 "comm=\"\",container=\"\",pod=\"\",pid=\"555\"} 1\n", g);
	ok(text && strstr(text, want) && !strstr(text, "reason=\"channel_not_followed\""),
	   "a GPPut outside the ring: 1 channel not followed, not 0 entries lost");
	free(text);
	ct_decoder_finish(d);
	ct_decoder_free(d);
	ct_metrics_free(m);
	fclose(devnull);
	kernel_ops();
	return tap_done();
}
