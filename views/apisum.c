// SPDX-License-Identifier: MIT
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "apisum.h"
#include "emit.h"
#include "labels.h"
#include "grow.h"
#include "pycallee.h"

#define TOP_REQUESTS 3

struct req_count {
	char *name;
	uint64_t calls;
};

struct api_row {
	char *name;
	uint64_t calls, errors, total_ns;
	struct req_count *reqs;
	size_t nreqs;
};

struct ct_apisum {
	FILE *out;
	bool json;
	enum ct_apisum_by by;
	struct api_row *rows;
	size_t nrows, cap;
	uint64_t with_stack, without_stack;
	uint64_t by_native;    /* py: calls charged by their native stack (pycallee.h) */
};

struct ct_apisum *ct_apisum_new(FILE *out, bool json, enum ct_apisum_by by)
{
	struct ct_apisum *s = calloc(1, sizeof(*s));

	if (s) {
		s->out = out;
		s->json = json;
		s->by = by;
	}
	return s;
}

static const char *by_name(const struct ct_apisum *s)
{
	return s->by == CT_SUM_BY_CALLER ? "caller" : s->by == CT_SUM_BY_PY ? "py" : "api";
}

#define NATIVE_MARK "python -> "

/* The row a call counts in: "file:line func" for Python; a call without
 * Python frames, by what Python called in its native stack (-k). */
static const char *row_key(struct ct_apisum *s, const struct ct_call *c, char *buf,
			   size_t n)
{
	if (s->by == CT_SUM_BY_CALLER)
		return c->caller ? c->caller : "(no caller)";
	if (s->by == CT_SUM_BY_API)
		return c->api ? c->api : "(no api)";
	if (!c->pystack && n > sizeof(NATIVE_MARK) &&
	    ct_python_callee(c->stack, buf + strlen(NATIVE_MARK), n - strlen(NATIVE_MARK))) {
		memcpy(buf, NATIVE_MARK, strlen(NATIVE_MARK));
		s->by_native++;
		return buf;
	}
	if (!c->py || !c->py_file)
		return "(no Python frame)";
	snprintf(buf, n, "%s:%d %s", c->py_file, c->py->line, c->py_func ? c->py_func : "?");
	return buf;
}

void ct_apisum_free(struct ct_apisum *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrows; i++) {
		for (size_t j = 0; j < s->rows[i].nreqs; j++)
			free(s->rows[i].reqs[j].name);
		free(s->rows[i].reqs);
		free(s->rows[i].name);
	}
	free(s->rows);
	free(s);
}

/* Linear: a program calls tens of entry points, not thousands. */
static struct api_row *row_for(struct ct_apisum *s, const char *name)
{
	struct api_row *nr;
	size_t i;

	for (i = 0; i < s->nrows; i++)
		if (strcmp(s->rows[i].name, name) == 0)
			return &s->rows[i];
	if (!(nr = ct_grow(s->rows, &s->cap, s->nrows + 1, sizeof(*nr), 16)))
		return NULL;
	s->rows = nr;
	memset(&s->rows[s->nrows], 0, sizeof(s->rows[0]));
	s->rows[s->nrows].name = strdup(name);
	return s->rows[s->nrows].name ? &s->rows[s->nrows++] : NULL;
}

static void count_request(struct api_row *r, const char *name)
{
	struct req_count *nr;
	size_t i;

	for (i = 0; i < r->nreqs; i++)
		if (strcmp(r->reqs[i].name, name) == 0) {
			r->reqs[i].calls++;
			return;
		}
	nr = realloc(r->reqs, (r->nreqs + 1) * sizeof(*nr));
	if (!nr)
		return;
	r->reqs = nr;
	r->reqs[r->nreqs].name = strdup(name);
	r->reqs[r->nreqs].calls = r->reqs[r->nreqs].name ? 1 : 0;
	r->nreqs++;
}

/* What the call asked: the RM control's name, else the escape or UVM name. */
static const char *request_name(const struct ct_call *c, char *buf, size_t n)
{
	if (c->kind != CT_CALL_IOCTL)
		return c->name;
	if (c->has_ctrl)
		return ct_ctrl_label(c->ctrl, c->ctrl_name, buf, n);
	return ct_request_label(c->request, c->name, buf, n);
}

static void on_call(void *ctx, const struct ct_call *c)
{
	struct ct_apisum *s = ctx;
	char buf[160], key[4400];
	uint64_t by_native = s->by_native;
	const char *name = row_key(s, c, key, sizeof(key));
	struct api_row *r;

	if (s->by == CT_SUM_BY_PY ? c->pystack != NULL : c->stack != NULL)
		s->with_stack++;
	else if (s->by_native == by_native)   /* not charged by its native stack */
		s->without_stack++;
	r = row_for(s, name);
	if (!r)
		return;
	r->calls++;
	r->errors += c->failed;
	r->total_ns += c->duration_ns;
	count_request(r, request_name(c, buf, sizeof(buf)));
}

static int by_time(const void *a, const void *b)
{
	const struct api_row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int by_calls(const void *a, const void *b)
{
	const struct req_count *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_json(struct ct_apisum *s, const struct api_row *r)
{
	struct ct_out out;
	struct emit e;

	out_init(&out, s->out);
	em_init(&e, &out, true);
	em_open(&e, NULL);
	em_str(&e, "type", "summary");
	em_str(&e, "by", by_name(s));
	em_str(&e, by_name(s), r->name);
	em_u64(&e, "calls", r->calls);
	em_u64(&e, "errors", r->errors);
	em_u64(&e, "total_ns", r->total_ns);
	em_str_list_begin(&e, "top_requests");
	for (size_t j = 0; j < r->nreqs && j < TOP_REQUESTS; j++)
		em_str_list_item(&e, r->reqs[j].name, strlen(r->reqs[j].name));
	em_str_list_end(&e);
	em_open(&e, "top_request_calls");   /* the same, with their counts (text's "x14") */
	for (size_t j = 0; j < r->nreqs && j < TOP_REQUESTS; j++)
		em_u64(&e, r->reqs[j].name, r->reqs[j].calls);
	em_close(&e);
	em_close(&e);
	out_putc(&out, '\n');
	out_flush(&out);
}

static void print_text(struct ct_apisum *s, const struct api_row *r)
{
	struct ct_out name;

	fprintf(s->out, "%8" PRIu64 " %7" PRIu64 " %12.3f  ", r->calls, r->errors,
		(double)r->total_ns / 1e6);
	out_init(&name, s->out);
	em_text(&name, r->name, strlen(r->name));
	out_flush(&name);
	fputs("  (", s->out);
	for (size_t j = 0; j < r->nreqs && j < TOP_REQUESTS; j++)
		fprintf(s->out, "%s%s x%" PRIu64, j ? ", " : "", r->reqs[j].name, r->reqs[j].calls);
	fputs(r->nreqs > TOP_REQUESTS ? ", ...)\n" : ")\n", s->out);
}

static int finish(void *ctx)
{
	struct ct_apisum *s = ctx;
	size_t i;

	qsort(s->rows, s->nrows, sizeof(*s->rows), by_time);
	for (i = 0; i < s->nrows; i++)
		qsort(s->rows[i].reqs, s->rows[i].nreqs, sizeof(*s->rows[i].reqs), by_calls);
	if (!s->json) {
		fprintf(s->out, "cudatrace summary by %s (%" PRIu64 " calls with a %s, ",
			by_name(s), s->with_stack, s->by == CT_SUM_BY_PY ? "Python stack" : "stack");
		if (s->by_native)
			fprintf(s->out, "%" PRIu64 " charged by their native stack to the function "
				"Python called (\"" NATIVE_MARK "\" rows), ", s->by_native);
		fprintf(s->out, "%" PRIu64 " without)\n", s->without_stack);
		fprintf(s->out, "%8s %7s %12s  %s  (requests it made, most first)\n", "calls",
			"errors", "driver ms", by_name(s));
	}
	for (i = 0; i < s->nrows; i++)
		(s->json ? print_json : print_text)(s, &s->rows[i]);
	ct_apisum_free(s);
	return 0;
}

struct ct_view ct_apisum_view(struct ct_apisum *s)
{
	return (struct ct_view){ .call = on_call, .finish = finish, .ctx = s };
}
