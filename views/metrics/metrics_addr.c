// SPDX-License-Identifier: MIT
/*
 * --metrics ADDR:PORT (metrics.h): numeric addresses and "localhost" only,
 * read without getaddrinfo, so the static build needs no NSS library.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

int ct_metrics_addr_parse(const char *s, struct ct_metrics_addr *a)
{
	const char *colon = strrchr(s, ':');
	struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->ss;
	char host[64];
	size_t hl;
	uint16_t port;

	memset(a, 0, sizeof(*a));
	if (!colon || parse_port(colon + 1, &port))
		return -1;
	hl = (size_t)(colon - s);
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		s++;
		hl -= 2;
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s, hl);
		host[hl] = 0;
		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			return -1;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		a->len = sizeof(*in6);
		return 0;
	}
	if (hl >= sizeof(host))
		return -1;
	memcpy(host, s, hl);
	host[hl] = 0;
	if (!hl)   /* ":PORT": every IPv4 address */
		in->sin_addr.s_addr = htonl(INADDR_ANY);
	else if (!strcmp(host, "localhost"))
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
		return -1;
	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	a->len = sizeof(*in);
	return 0;
}

void ct_metrics_addr_url(const struct ct_metrics_addr *a, uint16_t port, char *buf, size_t n)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&a->ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->ss;
	char host[INET6_ADDRSTRLEN] = "";

	/* A wildcard is no address to give a browser: name the loopback one. */
	if (a->ss.ss_family == AF_INET6 && IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		snprintf(buf, n, "http://[::1]:%u/metrics (and every other IPv6 address)", port);
	else if (a->ss.ss_family == AF_INET6)
		snprintf(buf, n, "http://[%s]:%u/metrics",
			 inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host)) ? host : "?",
			 port);
	else if (in->sin_addr.s_addr == htonl(INADDR_ANY))
		snprintf(buf, n, "http://127.0.0.1:%u/metrics (and every other IPv4 address)",
			 port);
	else
		snprintf(buf, n, "http://%s:%u/metrics",
			 inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host)) ? host : "?", port);
}
