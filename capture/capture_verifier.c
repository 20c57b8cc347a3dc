// SPDX-License-Identifier: MIT
/*
 * The verifier's figures for each program loaded (capture_verifier.h).
 * Every capture pays the verifier before the traced command starts: a
 * change that makes a program's walk of its paths grow shows here first,
 * and at the limit the program does not load at all.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "capture_verifier.h"
#include "msg.h"

#define STATS_ENV "CT_BPF_VERIFIER_STATS"
#define LOG_STATS 4      /* BPF_LOG_STATS: the summary lines, no instructions */
#define LOG_BYTES 1024   /* a summary is a few hundred bytes */

struct ct_verifier_logs {
	size_t n;
	char (*log)[LOG_BYTES];   /* one a program, in the object's order */
};

static size_t count_programs(struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, obj)
		n++;
	return n;
}

struct ct_verifier_logs *ct_verifier_stats_ask(struct bpf_object *obj)
{
	const char *env = getenv(STATS_ENV);
	struct ct_verifier_logs *l;
	struct bpf_program *p;
	size_t i = 0;

	if (!env || strcmp(env, "1") != 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (l) {
		l->n = count_programs(obj);
		l->log = calloc(l->n ? l->n : 1, sizeof(*l->log));
	}
	if (!l || !l->log) {
		ct_err("%s: out of memory; the load goes on without them\n", STATS_ENV);
		free(l);
		return NULL;
	}
	bpf_object__for_each_program(p, obj) {
		bpf_program__set_log_level(p, LOG_STATS);
		bpf_program__set_log_buf(p, l->log[i++], LOG_BYTES);
	}
	return l;
}

/* The number after key in log, or -1 where the log does not say it. */
static long long figure_after(const char *log, const char *key)
{
	const char *at = strstr(log, key);

	return at ? strtoll(at + strlen(key), NULL, 10) : -1;
}

void ct_verifier_stats_print(struct ct_verifier_logs *l, struct bpf_object *obj)
{
	struct bpf_program *p;
	size_t i = 0;

	if (!l)
		return;
	bpf_object__for_each_program(p, obj) {
		const char *log = l->log[i++];

		if (!bpf_program__autoload(p) || !log[0])
			continue;   /* not loaded: another way of doing its job is */
		fprintf(stderr, "cudatrace: verifier: %s: %lld instructions processed "
			"(limit %lld), %lld us\n", bpf_program__name(p),
			figure_after(log, "processed "), figure_after(log, "(limit "),
			figure_after(log, "verification time "));
	}
	free(l->log);
	free(l);
}
