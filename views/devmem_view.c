// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "devmem_view.h"
#include "emit.h"

struct ct_devmem_view {
	FILE *out;
	bool json;
	struct ct_devmem *mem;
};

struct ct_devmem_view *ct_devmem_view_new(FILE *out, bool json)
{
	struct ct_devmem_view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->out = out;
	v->json = json;
	v->mem = ct_devmem_new(NULL, NULL);
	if (!v->mem) {
		free(v);
		return NULL;
	}
	return v;
}

void ct_devmem_view_free(struct ct_devmem_view *v)
{
	if (!v)
		return;
	ct_devmem_free(v->mem);
	free(v);
}

/* "1.5 GiB", "64.0 KiB", "512 B" */
static const char *human(uint64_t b, char *buf, size_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = (double)b;
	int u = -1;

	while (x >= 1024 && u < 3) {
		x /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, n, "%" PRIu64 " B", b);
	else
		snprintf(buf, n, "%.1f %s", x, units[u]);
	return buf;
}

static double secs(const struct ct_devmem_view *v, uint64_t ns)
{
	uint64_t start = ct_devmem_start_ns(v->mem);

	return ns >= start ? (double)(ns - start) / 1e9 : 0.0;
}

static void json_total(struct ct_devmem_view *v, const struct ct_devmem_total *t)
{
	FILE *out = v->out;
	struct ct_out comm;
	int i;

	fprintf(out, "{\"type\":\"device_memory\",\"pid\":%u,\"comm\":", t->pid);
	out_init(&comm, out);
	em_json_string(&comm, t->comm, strlen(t->comm));
	out_flush(&comm);
	fprintf(out, ",\"gpu\":%d,\"kind\":\"%s\",\"held_bytes\":%" PRIu64 ",\"peak_bytes\":%"
		PRIu64 ",\"peak_s\":%.6f,\"allocs\":%" PRIu64 ",\"frees\":%" PRIu64
		",\"unsized\":%" PRIu64 ",\"seen_start\":%s,\"largest\":[",
		t->gpu, ct_mem_kind_names[t->kind], t->held, t->peak, secs(v, t->peak_ns),
		t->allocs, t->frees, t->unsized, t->seen_start ? "true" : "false");
	for (i = 0; i < t->ntop; i++) {
		const struct ct_devmem_alloc *a = &t->top[i];

		fprintf(out, "%s{\"bytes\":%" PRIu64 ",\"hClient\":\"0x%x\",\"handle\":\"0x%x\","
			"\"class\":\"%s\",\"parent\":\"0x%x\",\"parent_class\":\"%s\",\"at_s\":%.6f",
			i ? "," : "", a->size, a->client, a->handle,
			a->class_name ? a->class_name : "?", a->parent,
			a->parent_class ? a->parent_class : "?", secs(v, a->ts_ns));
		if (a->freed_ns)
			fprintf(out, ",\"freed_s\":%.6f", secs(v, a->freed_ns));
		fputc('}', out);
	}
	fputs("]}\n", out);
}

static void text_total(struct ct_devmem_view *v, const struct ct_devmem_total *t)
{
	char h[32], p[32];

	fprintf(v->out, "%7u %-16s %3d %-7s %12s %12s %12.6f %7" PRIu64 " %7" PRIu64 "%s\n",
		t->pid, t->comm[0] ? t->comm : "?", t->gpu, ct_mem_kind_names[t->kind],
		human(t->held, h, sizeof(h)), human(t->peak, p, sizeof(p)), secs(v, t->peak_ns),
		t->allocs, t->frees, t->seen_start ? "" : "  (*)");
}

static void text_largest(struct ct_devmem_view *v, const struct ct_devmem_total *t)
{
	char h[32];
	int i;

	for (i = 0; i < t->ntop; i++) {
		const struct ct_devmem_alloc *a = &t->top[i];

		fprintf(v->out, "  pid %u gpu %d %-7s %10s  %s 0x%x of %s 0x%x (client 0x%x), "
			"at %.6f s", t->pid, t->gpu, ct_mem_kind_names[t->kind],
			human(a->size, h, sizeof(h)), a->class_name ? a->class_name : "?",
			a->handle, a->parent_class ? a->parent_class : "?", a->parent, a->client,
			secs(v, a->ts_ns));
		if (a->freed_ns)
			fprintf(v->out, ", freed at %.6f s\n", secs(v, a->freed_ns));
		else
			fputs(", held at the end\n", v->out);
	}
}

static void print(struct ct_devmem_view *v)
{
	size_t i, n;
	const struct ct_devmem_total *t = ct_devmem_totals(v->mem, &n);
	bool before = false;

	if (v->json) {
		for (i = 0; i < n; i++)
			json_total(v, &t[i]);
		return;
	}
	fputs("\ndevice memory (driver allocations the capture saw):\n", v->out);
	if (!n) {
		fputs("  (none)\n", v->out);
		return;
	}
	fprintf(v->out, "%7s %-16s %3s %-7s %12s %12s %12s %7s %7s\n", "pid", "comm", "gpu",
		"kind", "held at end", "peak", "peak at s", "allocs", "frees");
	for (i = 0; i < n; i++) {
		text_total(v, &t[i]);
		before |= !t[i].seen_start;
	}
	fputs("largest allocations:\n", v->out);
	for (i = 0; i < n; i++)
		text_largest(v, &t[i]);
	if (before)
		fputs("(*) the process started before the capture: only what it allocated "
		      "since the capture began is counted\n", v->out);
}

static void view_record(void *ctx, const struct ct_rec *r)
{
	struct ct_devmem_view *v = ctx;

	ct_devmem_record(v->mem, r);
}

static int view_finish(void *ctx)
{
	print(ctx);
	ct_devmem_view_free(ctx);
	return 0;
}

/* Fed through the filter hook: every call, whatever the filters after it
 * keep (it never drops one). */
static bool view_feed(void *ctx, const struct ct_call *c)
{
	struct ct_devmem_view *v = ctx;

	ct_devmem_call(v->mem, c);
	return true;
}

struct ct_view ct_devmem_view_feed(struct ct_devmem_view *v)
{
	return (struct ct_view){ .filter = view_feed, .record = view_record, .ctx = v };
}

struct ct_view ct_devmem_view_print(struct ct_devmem_view *v)
{
	return (struct ct_view){ .finish = view_finish, .ctx = v };
}
