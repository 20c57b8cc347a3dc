// SPDX-License-Identifier: MIT
/*
 * The /metrics endpoint, served by libmicrohttpd from its own thread
 * (epoll): the capture loop never waits for it.  What a client can do to
 * it is bounded: connections per address and in all, a deadline for each
 * request head (deadlines.c), the library's idle timeout and memory per
 * connection; its complaints about clients are counted in a metric, never
 * printed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <microhttpd.h>

#include "deadlines.h"
#include "metrics.h"
#include "msg.h"

#define MAX_CONNECTIONS 512u     /* epoll: no FD_SETSIZE bound */
#define MAX_PER_ADDRESS 8u       /* one client cannot take them all */
#define IDLE_TIMEOUT_S  10u
#define LISTEN_BACKLOG  SOMAXCONN   /* as the library listens */

struct ct_metrics_http {
	struct MHD_Daemon *daemon;
	struct ct_metrics *m;
	struct ct_deadlines *heads;
	_Atomic int serving;     /* 0 while starting: the library's words are kept */
	int listen_fd;           /* bound before the capture drops its privileges */
	int family;
	char start_error[160];
	char url[128];
};

static int conn_fd(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

/* The library's error log: while starting, its first line (a bind error)
 * for our own message; once serving, a count, never stderr. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct ct_metrics_http *h = cls;
	size_t n;

	if (atomic_load(&h->serving) || h->start_error[0]) {
		ct_metrics_http_event(h->m, CT_HTTP_ERROR);
		return;
	}
	vsnprintf(h->start_error, sizeof(h->start_error), fmt, ap);
	n = strlen(h->start_error);
	while (n && (h->start_error[n - 1] == '\n' || h->start_error[n - 1] == '.'))
		h->start_error[--n] = 0;
}

static void on_head_late(void *cls)
{
	struct ct_metrics_http *h = cls;

	ct_metrics_http_event(h->m, CT_HTTP_SLOW_HEAD);
}

/* A connection opens: its first request head is due; it closes: forget it
 * (before the library closes the socket, so its number is not reused yet). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct ct_metrics_http *h = cls;

	(void)socket_context;
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		ct_deadlines_arm(h->heads, conn_fd(conn));
	else
		ct_deadlines_disarm(h->heads, conn_fd(conn));
}

/* A request answered: on a kept-alive connection the next head is due. */
static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	struct ct_metrics_http *h = cls;

	(void)state;
	(void)toe;
	ct_deadlines_arm(h->heads, conn_fd(conn));
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								  MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **state)
{
	struct ct_metrics_http *h = cls;
	size_t len = 0;
	char *body;

	(void)version;
	(void)upload;
	/* The first call comes with the head: the deadline is met.  Answer on
	 * the second, when the library has read the whole request: an answer
	 * queued before makes it close the connection (no keep-alive). */
	if (!*state) {
		ct_deadlines_disarm(h->heads, conn_fd(conn));
		*state = h;
		return MHD_YES;
	}
	if (*upload_size)
		return MHD_NO;   /* a body: nothing here takes one */
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("GET /metrics\n"), 13,
			     "text/plain");
	if (strcmp(url, "/metrics")) {
		body = strdup("cudatrace serves /metrics\n");
		return reply(conn, MHD_HTTP_NOT_FOUND, body, body ? strlen(body) : 0,
			     "text/plain");
	}
	body = ct_metrics_render(h->m, &len);
	if (!body)
		return MHD_NO;
	return reply(conn, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

static struct MHD_Daemon *start_daemon(struct ct_metrics_http *h)
{
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG;

	if (h->family == AF_INET6)
		flags |= MHD_USE_IPv6;
	return MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				/* first, or the library logs some itself */
				MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
				MHD_OPTION_LISTEN_SOCKET, h->listen_fd,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_CONNECTION_LIMIT, MAX_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, MAX_PER_ADDRESS,
				MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, MHD_OPTION_END);
}

/* A socket listening on a, or -errno.  IPv6 only on an IPv6 address, as
 * the library's own socket would be. */
static int listen_on(const struct ct_metrics_addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), on = 1;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) ||
	    (a->ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on))) ||
	    bind(fd, (const struct sockaddr *)&a->ss, a->len) || listen(fd, LISTEN_BACKLOG)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

struct ct_metrics_http *ct_metrics_http_bind(struct ct_metrics *m, const char *addr)
{
	struct ct_metrics_http *h = calloc(1, sizeof(*h));
	struct ct_metrics_addr a;

	if (!h) {
		ct_err("out of memory\n");
		return NULL;
	}
	h->m = m;
	if (ct_metrics_addr_parse(addr, &a)) {
		ct_err("--metrics %s: not ADDR:PORT\n", addr);
		free(h);
		return NULL;
	}
	h->listen_fd = listen_on(&a);
	if (h->listen_fd < 0) {
		ct_err("--metrics %s: cannot listen there (%s); give another "
				"address or port\n", addr, strerror(-h->listen_fd));
		free(h);
		return NULL;
	}
	h->family = a.ss.ss_family;
	ct_metrics_addr_url(&a, bound_port(h->listen_fd), h->url, sizeof(h->url));
	return h;
}

int ct_metrics_http_serve(struct ct_metrics_http *h)
{
	h->heads = ct_deadlines_start(CT_METRICS_HEAD_DEADLINE_S * 1000, on_head_late, h);
	if (h->heads)
		h->daemon = start_daemon(h);
	if (!h->daemon) {
		ct_err("--metrics %s: the HTTP server did not start (%s)\n",
			h->url, !h->heads ? "out of memory" :
			h->start_error[0] ? h->start_error : "no reason given");
		return -1;
	}
	atomic_store(&h->serving, 1);
	return 0;
}

const char *ct_metrics_http_url(const struct ct_metrics_http *h)
{
	return h->url;
}

void ct_metrics_http_stop(struct ct_metrics_http *h)
{
	if (!h)
		return;
	if (h->daemon)
		MHD_stop_daemon(h->daemon);   /* closes the socket it was given */
	else
		close(h->listen_fd);
	ct_deadlines_stop(h->heads);
	free(h);
}
