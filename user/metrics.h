/* SPDX-License-Identifier: MIT */
/*
 * --metrics: Prometheus series kept while a live capture runs.  The
 * capture's thread (the decoder, through a view) is the only writer; the
 * HTTP thread (metrics_http.c) renders the text format at any time
 * without a lock: every series is published complete (its labels never
 * change) before the count of series that readers see is raised, and
 * every value is an atomic.  So a scrape never blocks the ring-buffer
 * poll, and the poll never waits for a scrape.
 */
#ifndef CT_METRICS_H
#define CT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "call.h"

struct ct_metrics_opts {
	const char *proc_root;   /* where /PID/cgroup is read, for the container */
	bool no_pid;             /* leave pid out of the memory series */
	uint32_t max_series;     /* 0: the default, 10000 */
};

struct ct_metrics;

struct ct_metrics *ct_metrics_new(const struct ct_metrics_opts *o);
/* Add it first (before filters): it counts every call the capture sees. */
struct ct_view ct_metrics_view(struct ct_metrics *m);
void ct_metrics_free(struct ct_metrics *m);

/* The kernel's count of events it could not put in the ring buffer. */
void ct_metrics_set_lost(struct ct_metrics *m, uint64_t lost);

/* The text exposition format, version 0.0.4: a malloc'd string (*len
 * bytes), NULL when out of memory.  Safe from any thread. */
char *ct_metrics_render(struct ct_metrics *m, size_t *len);

/* name{labels}: a label value with \, " and newline escaped as the
 * format wants, and each byte that starts no valid UTF-8 character
 * replaced by U+FFFD (the format is UTF-8), appended to buf (size n) at
 * *pos; false if it did not fit. */
bool ct_metrics_escape(char *buf, size_t n, size_t *pos, const char *v);

/* The HTTP server (metrics_http.c): serves GET /metrics on addr, "HOST:PORT"
 * (":PORT" for every address, "[::1]:PORT" for IPv6).  NULL after saying
 * why on stderr. */
struct ct_metrics_http;
struct ct_metrics_http *ct_metrics_http_start(struct ct_metrics *m, const char *addr);
void ct_metrics_http_stop(struct ct_metrics_http *h);

#endif
