// SPDX-License-Identifier: MIT
/*
 * views/metrics/container.c and views/metrics/metrics.c: container ids and pod uids from the
 * cgroup paths of docker, containerd, CRI-O and Kubernetes (both cgroup
 * drivers); label values escaped as the Prometheus text format wants; the
 * series cap and its counter; the histogram's buckets add up to its count.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "container.h"
#include "metrics.h"
#include "tap.h"


#define ID "4f8c2e0d9a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d"
#define UID "6a1e9c42-5b7f-4d3e-9a0c-1b2d3e4f5a6b"
#define UID_ "6a1e9c42_5b7f_4d3e_9a0c_1b2d3e4f5a6b"

static void check_path(const char *path, const char *id, const char *pod, const char *what)
{
	struct ct_container c;

	ct_container_from_path(path, &c);
	ok(!strcmp(c.id, id) && !strcmp(c.pod, pod), what);
	if (strcmp(c.id, id) || strcmp(c.pod, pod))
		printf("#   got id '%s' pod '%s'\n", c.id, c.pod);
}

static char *render(struct ct_metrics *m)
{
	size_t len;
	char *s = ct_metrics_render(m, &len);

	return s && strlen(s) == len ? s : NULL;
}

static void call(struct ct_view *v, const char *comm, uint32_t ctrl, uint64_t ns)
{
	struct ct_call c = { .kind = CT_CALL_IOCTL, .pid = 1, .tid = 1, .gpu = 0,
			     .name = "NV_ESC_RM_CONTROL", .has_ctrl = true, .ctrl = ctrl,
			     .finished = true, .duration_ns = ns, .request = 0xc020462a };

	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	v->call(v->ctx, &c);
}

static void escaped(const char *in, const char *want, const char *what)
{
	char buf[64];
	size_t pos = 0;
	bool fit = ct_metrics_escape(buf, sizeof(buf), &pos, in);

	ok(fit && !strcmp(buf, want) && pos == strlen(want), what);
	if (!fit || strcmp(buf, want))
		printf("#   got '%s'\n", fit ? buf : "(did not fit)");
}

#define FFFD "\xef\xbf\xbd"

/* Label values are UTF-8: what a kernel cut or a process's own name makes
 * invalid becomes U+FFFD, one per byte; valid characters pass. */
static void utf8_labels(void)
{
	/* "обучение_модели" cut by the kernel at 15 bytes (TASK_COMM_LEN 16). */
	escaped("\xd0\xbe\xd0\xb1\xd1\x83\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd0",
		"\xd0\xbe\xd0\xb1\xd1\x83\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8" FFFD,
		"a comm cut mid-character: the cut byte becomes U+FFFD");
	escaped("\xff", FFFD, "0xff, never UTF-8: U+FFFD");
	escaped("a\x80" "b", "a" FFFD "b", "a stray continuation byte: U+FFFD, the rest kept");
	escaped("\xc0\xaf", FFFD FFFD, "an overlong '/' (C0 AF): U+FFFD for each byte");
	escaped("\xe0\x80\xaf", FFFD FFFD FFFD, "an overlong 3-byte form: refused");
	escaped("\xed\xa0\x80", FFFD FFFD FFFD, "a surrogate (U+D800): refused");
	escaped("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD, "above U+10FFFF: refused");
	escaped("\xe2\x82", FFFD FFFD, "a 3-byte character cut at the end: refused");
	escaped("\xf0\x9f\x98\x80 \xe2\x82\xac \xc3\xa9 \xf4\x8f\xbf\xbf",
		"\xf0\x9f\x98\x80 \xe2\x82\xac \xc3\xa9 \xf4\x8f\xbf\xbf",
		"valid 4-, 3- and 2-byte characters and U+10FFFF pass unchanged");
	escaped("\xff\"\n", FFFD "\\\"\\n", "U+FFFD and the escapes together");
}

/* One pass over a label value: the length of what is left is known, not
 * measured again at each character (that was quadratic: 1 MiB took
 * seconds).  Thread CPU time, so a busy machine does not fail it. */
static void long_label(void)
{
	size_t n = 1024 * 1024, pos = 0;
	char *v = malloc(n + 1), *buf = malloc(2 * n + 8);
	struct timespec t0, t1;
	double s;
	bool fit;

	if (!v || !buf) {
		ok(false, "a 1 MiB label value: no memory");
		free(v);
		free(buf);
		return;
	}
	memset(v, 'a', n);
	v[n] = 0;
	v[n / 2] = '"';
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	fit = ct_metrics_escape(buf, 2 * n + 8, &pos, v);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(fit && pos == n + 1 && buf[n / 2] == '\\' && buf[n / 2 + 1] == '"' && s < 0.25,
	   "a 1 MiB label value escaped in one pass (%.3f s of CPU)", s);
	free(v);
	free(buf);
}

/* --metrics ADDR:PORT: numeric or localhost; the URL announced opens. */
static void addresses(void)
{
	static const char *const bad[] = { "localhost", "1.2.3:80", "example.org:9400", ":http",
					   ":65536", "[::1]", "[zz]:1", "127.0.0.1:", ":-1" };
	struct ct_metrics_addr a;
	char url[128];
	size_t i, refused = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused += ct_metrics_addr_parse(bad[i], &a) != 0;
	ok(refused == sizeof(bad) / sizeof(bad[0]), "no port, a name, a port out of range or "
	   "not a number, a bad IPv6 address: refused");
	ok(!ct_metrics_addr_parse(":9400", &a) && a.ss.ss_family == AF_INET &&
	   (ct_metrics_addr_url(&a, 9400, url, sizeof(url)),
	    !strcmp(url, "http://127.0.0.1:9400/metrics (and every other IPv4 address)")),
	   ":9400: every IPv4 address, announced by the loopback one");
	ok(!ct_metrics_addr_parse("localhost:9465", &a) &&
	   (ct_metrics_addr_url(&a, 9465, url, sizeof(url)),
	    !strcmp(url, "http://127.0.0.1:9465/metrics")), "localhost:9465 is 127.0.0.1");
	ok(!ct_metrics_addr_parse("[::]:9400", &a) && a.ss.ss_family == AF_INET6 &&
	   (ct_metrics_addr_url(&a, 9400, url, sizeof(url)),
	    !strcmp(url, "http://[::1]:9400/metrics (and every other IPv6 address)")),
	   "[::]:9400: every IPv6 address, announced by [::1]");
	ok(!ct_metrics_addr_parse("10.1.2.3:0", &a) &&
	   (ct_metrics_addr_url(&a, 40123, url, sizeof(url)),
	    !strcmp(url, "http://10.1.2.3:40123/metrics")), "port 0: the URL has the port bound");
}

int main(void)
{
	struct ct_metrics_opts mo = { .proc_root = "/nonexistent", .max_series = 3 };
	struct ct_metrics *m;
	struct ct_view v;
	char buf[64], *s;
	size_t pos = 0;

	check_path("/system.slice/docker-" ID ".scope", ID, "", "docker (systemd driver)");
	check_path("/docker/" ID, ID, "", "docker (cgroupfs driver)");
	check_path("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		   ".slice/cri-containerd-" ID ".scope", ID, UID, "Kubernetes, containerd, systemd");
	check_path("/kubepods/besteffort/pod" UID "/" ID, ID, UID, "Kubernetes, cgroupfs");
	check_path("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope", ID, UID,
		   "Kubernetes, CRI-O");
	check_path("/user.slice/user-1000.slice/session-3.scope", "", "", "a host process: none");
	check_path("/docker/" ID "0", "", "", "65 hex digits are not an id");
	check_path("/kubepods/pod6a1e9c42-5b7f-4d3e-9a0c", "", "", "a cut pod uid is none");

	ok(ct_metrics_escape(buf, sizeof(buf), &pos, "a\"b\\c\nd") &&
	   !strcmp(buf, "a\\\"b\\\\c\\nd"), "label values: \\ \" and newline escaped");
	utf8_labels();
	long_label();
	addresses();
	pos = 60;
	ok(!ct_metrics_escape(buf, sizeof(buf), &pos, "\"\"\"\""), "an escape that does not fit "
	   "is refused");

	m = ct_metrics_new(&mo);
	v = ct_metrics_view(m);
	call(&v, "py\"thon", 0x20800110, 3000);   /* 1 calls series + 1 histogram */
	call(&v, "py\"thon", 0x20800110, 2000000);
	call(&v, "other", 0x20800110, 1000);      /* a third series: the cap */
	call(&v, "third", 0x20800110, 1000);      /* dropped */
	s = render(m);
	ok(s && strstr(s, "comm=\"py\\\"thon\"") != NULL, "comm escaped in the exposition");
	ok(s && strstr(s, ",comm=\"py\\\"thon\",container=\"\",pod=\"\"} 2\n") != NULL,
	   "two calls of one series count 2");
	ok(s && !strstr(s, "comm=\"third\"") &&
	   strstr(s, "cudatrace_metrics_series_dropped_total 1\n") != NULL,
	   "past --metrics-max-series: not a new series, counted as dropped");
	/* 1 us, 1 us (le is inclusive), 3 us, 2 ms; the histogram series is
	 * per request only, so the fourth call (dropped from calls) is in it. */
	ok(s && strstr(s, "cudatrace_call_duration_seconds_bucket{request=\"NV_ESC_RM_CONTROL\","
		       "le=\"1e-06\"} 2\n") &&
	   strstr(s, "le=\"5e-06\"} 3\n") && strstr(s, "le=\"0.001\"} 3\n") &&
	   strstr(s, "le=\"0.0025\"} 4\n") && strstr(s, "le=\"+Inf\"} 4\n") &&
	   strstr(s, "cudatrace_call_duration_seconds_count{request=\"NV_ESC_RM_CONTROL\"} 4\n") &&
	   strstr(s, "cudatrace_call_duration_seconds_sum{request=\"NV_ESC_RM_CONTROL\"} "
		  "0.002005000\n"),
	   "histogram: cumulative buckets (le inclusive), +Inf equals the count, sum in seconds");
	ok(s && strstr(s, "# TYPE cudatrace_device_memory_bytes gauge") &&
	   strstr(s, "since the capture began"), "device memory: a gauge whose HELP says "
	   "it counts since the capture began");
	free(s);
	ct_metrics_free(m);
	return tap_done();
}
