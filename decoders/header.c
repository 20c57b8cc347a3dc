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

