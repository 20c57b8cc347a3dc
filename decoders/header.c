// SPDX-License-Identifier: MIT
/*
 * The trace header (CT_REC_META): what the decoder needs from it (driver
 * version, start time, GPUs, device paths) and, in JSON, the header line.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "meta.h"

/* Header keys that come once per GPU, major or device: lists in JSON. */
static const char *const meta_lists[] = { "gpu", "major", "device" };

static bool is_meta_list(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(meta_lists) / sizeof(meta_lists[0]); i++)
		if (strcmp(key, meta_lists[i]) == 0)
			return true;
	return false;
}

struct meta_list_ctx {
	struct ct_decoder *d;
	const char *key;
};

static void meta_list_item(const char *key, const char *val, void *ctx)
{
	struct meta_list_ctx *c = ctx;

	if (strcmp(key, c->key) == 0)
		em_str_list_item(&c->d->em, val, strlen(val));
}

/* The capture's --api-lib holds when the trace is read, unless -r gave its own. */
static void use_capture_api_lib(struct ct_decoder *d, const char *glob)
{
	struct ct_stacks *s;

	if (d->o.api_lib || !*glob || !(s = ct_stacks_new(glob)))
		return;
	ct_stacks_free(d->stacks);
	d->stacks = s;
}

static void use_api_lib_word(struct ct_decoder *d, const char *p, size_t n)
{
	char glob[512];

	if (n >= sizeof(glob))
		return;
	memcpy(glob, p, n);
	glob[n] = 0;
	use_capture_api_lib(d, glob);
}

/* Traces older than the api_lib key: --api-lib from the options line,
 * cudatrace's own options (up to "--", where the command's begin). */
static void api_lib_from_options(struct ct_decoder *d, const char *options)
{
	static const char opt[] = "--api-lib";
	const size_t olen = sizeof(opt) - 1;
	const char *p;
	bool next = false;
	size_t n;

	for (p = options; *p; p += n + (p[n] == ' ')) {
		n = strcspn(p, " ");
		if (next) {
			use_api_lib_word(d, p, n);
			return;
		}
		if (n == 2 && strncmp(p, "--", 2) == 0)
			return;
		if (n == olen && strncmp(p, opt, olen) == 0)
			next = true;
		else if (n > olen && strncmp(p, opt, olen) == 0 && p[olen] == '=') {
			use_api_lib_word(d, p + olen + 1, n - olen - 1);
			return;
		}
	}
}

static void meta_line(const char *key, const char *val, void *ctx)
{
	struct ct_decoder *d = ctx;
	unsigned int kdev, regfile;
	unsigned long long ino;
	int pos = 0;

	if (strcmp(key, "gpu") == 0)
		ct_gpus_meta(&d->gpus, val);
	else if (strcmp(key, "driver") == 0) {
		d->driver = ct_driver_version(val);
		/* The structs are read through the layouts of this driver. */
		ct_objects_set_driver(d->objs, d->driver);
		d->gpus.driver = d->driver;
	}
	else if (strcmp(key, "start_monotonic_ns") == 0)
		d->start_mono = strtoull(val, NULL, 10);
	else if (strcmp(key, "start_realtime_ns") == 0)
		d->start_real = strtoull(val, NULL, 10);
	else if (strcmp(key, "device") == 0 &&
		 sscanf(val, "%x %llu %u %n", &kdev, &ino, &regfile, &pos) == 3 && pos > 0)
		ct_devnames_add(&d->devs, kdev, regfile != 0, ino, val + pos,
				strlen(val + pos));
	else if (strcmp(key, "options") == 0)
		api_lib_from_options(d, val);
	else if (strcmp(key, "api_lib") == 0)
		use_capture_api_lib(d, val);
	if (d->o.json && !d->o.quiet && !is_meta_list(key))
		em_str(&d->em, key, val);
}

void ct_on_meta(struct ct_decoder *d, const struct ct_rec *r)
{
	bool show = d->o.json && !d->o.quiet;

	if (show) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", "meta");
	}
	ct_meta_foreach(r, meta_line, d);
	if (show) {
		size_t i;

		for (i = 0; i < sizeof(meta_lists) / sizeof(meta_lists[0]); i++) {
			struct meta_list_ctx c = { d, meta_lists[i] };

			em_str_list_begin(&d->em, meta_lists[i]);
			ct_meta_foreach(r, meta_list_item, &c);
			em_str_list_end(&d->em);
		}
		em_close(&d->em);
		out_putc(&d->out, '\n');
	}
}

