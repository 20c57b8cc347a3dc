// SPDX-License-Identifier: MIT
/*
 * The /metrics endpoint, served by libmicrohttpd from its own thread
 * (MHD_USE_INTERNAL_POLLING_THREAD): the capture loop never waits for it.
 */
#define _GNU_SOURCE
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "metrics.h"

#ifdef CT_NO_MICROHTTPD

struct ct_metrics_http *ct_metrics_http_start(struct ct_metrics *m, const char *addr)
{
	(void)m;
	fprintf(stderr, "cudatrace: --metrics %s: this build has no HTTP server (the static "
			"build leaves libmicrohttpd out: Debian's static archive needs "
			"p11-kit's, which Debian does not ship); use the dynamic build\n", addr);
	return NULL;
}

void ct_metrics_http_stop(struct ct_metrics_http *h)
{
	(void)h;
}

#else
#include <microhttpd.h>

struct ct_metrics_http {
	struct MHD_Daemon *daemon;
	struct ct_metrics *m;
};

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
	(void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("GET /metrics\n"), 13,
			     "text/plain");
	if (*upload_size)
		return MHD_NO;
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

/* "HOST:PORT", ":PORT" or "[V6]:PORT" -> a socket address. */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
				  .ai_socktype = SOCK_STREAM }, *res;
	const char *colon = strrchr(addr, ':');
	char host[256];
	size_t hl;

	if (!colon || !colon[1])
		return -1;
	hl = (size_t)(colon - addr);
	if (hl >= 2 && addr[0] == '[' && addr[hl - 1] == ']') {
		addr++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, addr, hl);
	host[hl] = 0;
	if (getaddrinfo(hl ? host : NULL, colon + 1, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sslen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

struct ct_metrics_http *ct_metrics_http_start(struct ct_metrics *m, const char *addr)
{
	struct ct_metrics_http *h = calloc(1, sizeof(*h));
	struct sockaddr_storage ss;
	socklen_t sslen;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (!h)
		return NULL;
	if (parse_addr(addr, &ss, &sslen)) {
		fprintf(stderr, "cudatrace: --metrics %s: not ADDR:PORT (e.g. 127.0.0.1:9400, "
				":9400 for every address, [::1]:9400)\n", addr);
		free(h);
		return NULL;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h->m = m;
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_CONNECTION_LIMIT, 64u,
				     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!h->daemon) {
		fprintf(stderr, "cudatrace: --metrics %s: cannot listen there (in use? "
				"another address or port)\n", addr);
		free(h);
		return NULL;
	}
	return h;
}

void ct_metrics_http_stop(struct ct_metrics_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	free(h);
}
#endif
