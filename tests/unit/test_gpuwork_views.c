// SPDX-License-Identifier: MIT
/* The views of --gpu-work records, on the recorded H100 acceptance trace
 * (161 launches, 46 copies of its own among CUDA's, by pid 555 on GPU 0): the --metrics series
 * count every launch and copied byte the decoder finds, per process and
 * GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "decode.h"
#include "gpuwork.h"
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
	if (text && getenv("SHOW"))
		fputs(text, stderr);
	free(text);
	ct_decoder_finish(d);
	ct_decoder_free(d);
	ct_metrics_free(m);
	fclose(devnull);
	return tap_done();
}
