/* SPDX-License-Identifier: MIT */
/*
 * Records as the capture makes them, for the C decoder tests: a trace
 * header, ioctl entry/exit pairs on /dev/nvidiactl, and a decoder that
 * prints into memory.  Header-only: each test is one program.
 */
#ifndef CT_TEST_RECORDS_H
#define CT_TEST_RECORDS_H

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "decode.h"
#include "layouts.h"
#include "record.h"

#define REQ(nr, size) (0xc0000000u | (size) << 16 | 'F' << 8 | (nr))
#define DEV_CTL (195u << 20 | 255)

static unsigned char recbuf[1 << 20];
static uint32_t cur_pid = 4242;   /* the process the next records come from */

/* A trace header naming a driver ("580.159.04"), with /dev/nvidiactl and
 * any further key=value lines. */
__attribute__((unused))
static const struct ct_rec *meta_lines(const char *driver, const char *extra)
{
	struct ct_rec *r = (struct ct_rec *)recbuf;
	int n = snprintf((char *)(r + 1), sizeof(recbuf) - sizeof(*r),
			 "start_monotonic_ns=1000000000\n"
			 "driver=NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  "
			 "Release Build\n"
			 "device=0xc3000ff 0 0 /dev/nvidiactl\n%s", driver, extra);

	memset(r, 0, sizeof(*r));
	r->type = CT_REC_META;
	r->size = (uint32_t)(sizeof(*r) + (size_t)n);
	return r;
}

__attribute__((unused))
static const struct ct_rec *meta_driver(const char *driver)
{
	return meta_lines(driver, "");
}

__attribute__((unused))
static const struct ct_rec *meta(void)
{
	return meta_driver("580.159.04");
}

/* Writes v into the field called name of a struct of layout l (by name, as
 * the decoder reads it); aborts if there is no such field. */
__attribute__((unused))
static void put_field(const struct ct_layout *l, unsigned char *buf, const char *name,
		      uint64_t v)
{
	if (ct_write_u64(l, buf, l ? l->size : 0, name, v))
		return;
	fprintf(stderr, "cannot write %s of %s\n", name, l ? l->name : "(no layout)");
	abort();
}

/* An ioctl record (type enter or exit) with the given argument and nested bytes. */
static const struct ct_rec *ioctl_rec(uint32_t type, uint64_t ts, uint32_t cmd, const void *arg,
				      uint32_t alen, const void *nest, uint32_t nlen, int64_t ret)
{
	struct ct_ioctl *r = (struct ct_ioctl *)recbuf;

	memset(r, 0, sizeof(*r));
	r->h.type = type;
	r->h.size = (uint32_t)(sizeof(*r) + alen + nlen);
	r->h.ts_ns = type == CT_REC_IOCTL_EXIT ? ts + 5000 : ts;
	r->h.pid = r->h.tid = cur_pid;
	r->ts_enter = ts;
	memcpy(r->comm, "app", 4);
	r->fd = 3;
	r->dev = DEV_CTL;
	r->cmd = cmd;
	r->arg = 0x7ffd00001000;
	r->ret = type == CT_REC_IOCTL_EXIT ? ret : 0;
	r->nest_ptr = nlen ? 0x7ffd00002000 : 0;
	r->arg_size = r->arg_want = alen;
	r->nest_size = r->nest_want = nlen;
	r->size_src = CT_SIZE_IOC;
	memcpy(r + 1, arg, alen);
	if (nlen)
		memcpy((unsigned char *)(r + 1) + alen, nest, nlen);
	return &r->h;
}

/* An ioctl's entry and exit (ret 0), checked as the readers check them. */
__attribute__((unused))
static void call(struct ct_decoder *d, uint64_t ts, uint32_t cmd, const void *arg, uint32_t alen,
		 const void *nest, uint32_t nlen)
{
	const struct ct_rec *r = ioctl_rec(CT_REC_IOCTL_ENTER, ts, cmd, arg, alen, nest, nlen, 0);

	if (ct_record_check(r, r->size))
		abort();
	ct_decoder_feed(d, r);
	r = ioctl_rec(CT_REC_IOCTL_EXIT, ts, cmd, arg, alen, nest, nlen, 0);
	if (ct_record_check(r, r->size))
		abort();
	ct_decoder_feed(d, r);
}

/* A decoder that prints into memory: start, feed, then end for the text. */
struct mem_decoder {
	struct ct_decoder *d;
	FILE *out;
	char *buf;
	size_t len;
};

__attribute__((unused))
static struct ct_decoder *mem_start(struct mem_decoder *m, struct ct_decode_opts o)
{
	memset(m, 0, sizeof(*m));
	m->out = open_memstream(&m->buf, &m->len);
	o.out = m->out;
	m->d = ct_decoder_new(&o);
	if (!m->out || !m->d)
		abort();
	return m->d;
}

/* The decoded output (malloc'd, the caller frees it). */
__attribute__((unused))
static char *mem_end(struct mem_decoder *m)
{
	ct_decoder_finish(m->d);
	ct_decoder_free(m->d);
	fclose(m->out);
	return m->buf;
}

/* Line i (from 0) of text, in a static buffer. */
__attribute__((unused))
static char *line(const char *text, int i)
{
	static char out[4096];
	const char *p = text;

	while (i-- > 0 && p)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (!p)
		return strcpy(out, "(no such line)");
	snprintf(out, sizeof(out), "%.*s", (int)strcspn(p, "\n"), p);
	return out;
}

#endif
