// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for everything that reads untrusted records.
 *
 * One binary, two ways in, chosen by the first byte of the input:
 *
 *   'C' (the "CUDATRCE" magic) or 0x28 (zstd's, as -z writes): the input
 *       is a whole trace file, plain or compressed.  It goes through
 *       ct_reader_open/ct_reader_next (via a memfd opened as
 *       /proc/self/fd/N, so the real stdio path is used) and every record
 *       it hands out goes through the decoder four times, set up as
 *       cudatrace -r sets it up (ct_decode_opts_from, ct_views_setup): plain
 *       text; text -vv -ttt -T --color -C --summary-by=pid --perfetto;
 *       --json -C; and -c --summary-by=kernel -e 'kernel=*k*' (--gpu-work's
 *       kernel names).  All output goes to /dev/null.  Covers: cudatrace -r.
 *
 *   anything else: the input is one raw record, as the ring buffer would
 *       hand it to on_record() in capture/capture.c: ct_record_check(), the
 *       environment filter for process records, then ct_decoder_feed()
 *       after a fixed META record (driver 580.159.04, a few device paths),
 *       with the views (-C, --perfetto) as live capture sets them up.
 *       An accepted ioctl entry is fed again as its own exit so that the
 *       entry+exit printing runs too.  Covers: live decoding.
 *
 * Build and run with `make fuzz` (tests/fuzz/fuzz.mk); see docs/RELIABILITY.md.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cudatrace.h"
#include "decode.h"
#include "filter.h"
#include "options.h"
#include "procinfo.h"
#include "record.h"
#include "trace_file.h"
#include "views.h"

static FILE *devnull;
static int memfd = -1;
static char memfd_path[64];

/* What a real capture on an H100 puts first (trimmed). */
static const char meta_text[] =
	"producer=cudatrace 0.1.0\n"
	"tables=580.142\n"
	"driver=NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
	"Release Build  (nixbld@)\n"
	"start_realtime_ns=1795329150271495313\n"
	"start_monotonic_ns=36672163713\n"
	"ncpu=16\n"
	"nest_max=8192\n"
	"major=195 nvidiactl\n"
	"device=0xee00000 0 0 /dev/nvidia-uvm\n"
	"device=0xc300000 0 0 /dev/nvidia0\n"
	"device=0xc3000ff 0 0 /dev/nvidiactl\n"
	"device=0x800001 4242 1 /tmp/fake\n";

static struct ct_rec *meta;
static struct ct_filter *kernel_filter;   /* -e kernel=*k* */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t n = sizeof(meta_text) - 1;

	(void)argc;
	(void)argv;
	devnull = fopen("/dev/null", "we");
	memfd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (!devnull || memfd < 0) {
		perror("fuzz_trace: setup");
		abort();
	}
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	if (ct_filter_parse(&kernel_filter, "-e", "kernel=*k*"))
		abort();
	meta = calloc(1, sizeof(*meta) + n);
	if (!meta)
		abort();
	meta->type = CT_REC_META;
	meta->size = (uint32_t)(sizeof(*meta) + n);
	memcpy(meta + 1, meta_text, n);
	return 0;
}

/* As ct_decode_file() in user/main.c does it. */
static struct ct_decoder *decoder_views(const struct ct_options *o)
{
	struct ct_decoder *d = ct_views_decoder_new(o);

	if (!d)
		abort();
	return d;
}

static void done(struct ct_decoder *d)
{
	ct_decoder_finish(d);
	(void)ct_decoder_stats(d);
	ct_decoder_free(d);
}

/* cudatrace -r: the whole input is a trace file. */
static void fuzz_file(const uint8_t *data, size_t size)
{
	static const struct ct_options modes[] = {
		{ .color = 0 },
		{ .verbose = 2, .timestamps = 3, .durations = true, .color = 1, .summary = 2,
		  .summary_by_pid = true, .perfetto_path = "/dev/null" },
		{ .json = true, .color = -1, .summary = 2 },
		{ .summary = 1, .summary_by_kernel = true },   /* + -e kernel= (below) */
	};
	size_t m;

	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct ct_options o = modes[m];
		struct ct_decoder *d;
		struct ct_reader *r;
		enum ct_read_status s;
		const void *rec;
		size_t len;
		char err[512];

		r = ct_reader_open(memfd_path, err, sizeof(err));
		if (!r) {
			if (!err[0])
				abort();   /* a failed open must say why */
			return;
		}
		o.out = devnull;
		if (o.summary_by_kernel)
			o.filter = kernel_filter;
		d = decoder_views(&o);
		while ((s = ct_reader_next(r, &rec, &len)) == CT_READ_OK) {
			/* What the reader hands out has been checked: check again. */
			if (ct_record_check(rec, len) || ((const struct ct_rec *)rec)->size != len)
				abort();
			ct_decoder_feed(d, rec);
		}
		if (s == CT_READ_ERROR && !ct_reader_error(r)[0])
			abort();   /* an error must say what */
		/* Sticky: once in error (or at the end), it stays there. */
		if (s == CT_READ_ERROR && ct_reader_next(r, &rec, &len) != CT_READ_ERROR)
			abort();
		(void)ct_reader_offset(r);
		done(d);
		ct_reader_close(r);
	}
}

/* The live path: one record as the ring buffer hands it over. */
static void fuzz_record(const uint8_t *data, size_t size)
{
	static const struct ct_options modes[] = {
		{ .verbose = 2, .timestamps = 2, .durations = true, .summary = 2,
		  .perfetto_path = "/dev/null" },
		{ .json = true, .summary = 2, .summary_by_pid = true },
	};
	unsigned char *rec;
	size_t m;

	/* An exact-size heap copy, 8-aligned like ring buffer data: ASan sees
	 * any read or write past the record. */
	rec = malloc(size ? size : 1);
	if (!rec)
		abort();
	memcpy(rec, data, size);
	if (ct_record_check(rec, size)) {
		free(rec);
		return;
	}
	if (((struct ct_rec *)rec)->type == CT_REC_PROC) {
		/* on_record() filters a copy; the filter must not grow it. */
		ct_proc_filter_env((struct ct_proc *)rec);
		if (ct_record_check(rec, ((struct ct_rec *)rec)->size))
			abort();
	}
	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct ct_options o = modes[m];
		struct ct_decoder *d;

		o.out = devnull;
		d = decoder_views(&o);
		ct_decoder_feed(d, meta);
		ct_decoder_feed(d, (struct ct_rec *)rec);
		if (((struct ct_rec *)rec)->type == CT_REC_IOCTL_ENTER) {
			((struct ct_rec *)rec)->type = CT_REC_IOCTL_EXIT;
			ct_decoder_feed(d, (struct ct_rec *)rec);
			((struct ct_rec *)rec)->type = CT_REC_IOCTL_ENTER;
		}
		done(d);
	}
	free(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && (data[0] == 'C' || data[0] == 0x28))
		fuzz_file(data, size);
	else
		fuzz_record(data, size);
	return 0;
}
