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
#include <sys/socket.h>
#include "call.h"

struct ct_metrics_opts {
	const char *proc_root;   /* where /PID/cgroup is read, for the container */
	bool no_pid;             /* leave pid out of the memory series */
	uint32_t max_series;     /* 0: the default, 10000 */
	uint32_t kernels;        /* --metrics-kernels N: a kernel label for the first N kernels
				  * of each process; 0: no kernel label */
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

/* Problems a remote client of /metrics caused, counted instead of logged:
 * nothing a client does may write to stderr (a pipe nobody reads would
 * block the server). */
/* Seconds a client has to send a request head, on a new connection or
 * after an answer on a kept-alive one. */
#define CT_METRICS_HEAD_DEADLINE_S 5u

enum ct_http_event {
	CT_HTTP_ERROR,       /* one the library reported: a reset, a bad request, a limit */
	CT_HTTP_SLOW_HEAD,   /* a request head not in by the deadline: closed */
};
void ct_metrics_http_event(struct ct_metrics *m, enum ct_http_event e);

/* --metrics ADDR:PORT (metrics_addr.c): "HOST:PORT" with a numeric IPv4
 * address or localhost, ":PORT" for every IPv4 address, "[V6]:PORT".  -1
 * when it is none of those. */
struct ct_metrics_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};
int ct_metrics_addr_parse(const char *s, struct ct_metrics_addr *a);
/* The URL to give for it once bound to port: a wildcard names loopback. */
void ct_metrics_addr_url(const struct ct_metrics_addr *a, uint16_t port, char *buf, size_t n);

/*
 * The HTTP server (metrics_http.c) of GET /metrics on addr, in two steps:
 * bind, while the capture may still bind any port (NULL after saying why on
 * stderr), then serve, once it has dropped its privileges: the server's
 * threads take the credentials of the thread that starts them, and a
 * thread's capabilities are its own (0, or -1 after saying why).
 */
struct ct_metrics_http;
struct ct_metrics_http *ct_metrics_http_bind(struct ct_metrics *m, const char *addr);
int ct_metrics_http_serve(struct ct_metrics_http *h);
/* Where it serves, for people ("http://127.0.0.1:9400/metrics"). */
const char *ct_metrics_http_url(const struct ct_metrics_http *h);
void ct_metrics_http_stop(struct ct_metrics_http *h);

#endif
