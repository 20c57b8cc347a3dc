// SPDX-License-Identifier: MIT
/* What every printed line starts with: time, pid/tid, command, fd and path. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "decoder.h"

const char *ct_color(const struct ct_decoder *d, const char *c)
{
	return d->o.color ? c : "";
}

/* "S.UUUUUU ": secs, then the microseconds of ns within its second. */
static void secs_us(struct ct_out *o, int64_t secs, uint64_t ns)
{
	out_i64(o, secs);
	out_putc(o, '.');
	out_u64_pad(o, (ns % 1000000000u) / 1000u, 6);
	out_putc(o, ' ');
}

/* Text time stamps: seconds since the start, or strace's -t, -tt, -ttt. */
void ct_print_ts(struct ct_decoder *d, uint64_t ts)
{
	uint64_t rel = ts >= d->start_mono ? ts - d->start_mono : 0;
	uint64_t real = d->start_real + rel;
	time_t secs = (time_t)(real / 1000000000u);
	struct tm tm;
	char hms[16];

	if (d->o.timestamps == 0) {
		secs_us(&d->out, (int64_t)(rel / 1000000000u), rel);
		return;
	}
	if (d->o.timestamps == 3) {
		secs_us(&d->out, secs, real);
		return;
	}
	localtime_r(&secs, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (d->o.timestamps == 1)
		out_printf(&d->out, "%s ", hms);
	else
		out_printf(&d->out, "%s.%06" PRIu64 " ", hms, (real % 1000000000u) / 1000u);
}

/* -T: the time spent in the call, strace's <seconds>. */
void ct_print_duration(struct ct_decoder *d, uint64_t ns)
{
	if (d->o.durations)
		out_printf(&d->out, " <%.6f>", (double)ns / 1e9);
}

void ct_print_head(struct ct_decoder *d, const char *type, uint64_t ts,
		   const struct ct_rec *h, const char *comm)
{
	if (d->o.json) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", type);
		em_u64(&d->em, "ts_ns", ts);
		em_u64(&d->em, "pid", h->pid);
		em_u64(&d->em, "tid", h->tid);
		if (comm)
			em_strn(&d->em, "comm", comm, CT_COMM_LEN);
		return;
	}
	ct_print_ts(d, ts);
	out_u64(&d->out, h->pid);
	out_putc(&d->out, '/');
	out_u64(&d->out, h->tid);
	out_putc(&d->out, ' ');
	if (comm)
		em_text(&d->out, comm, strnlen(comm, CT_COMM_LEN));
	out_putc(&d->out, ' ');
}

void ct_end_line(struct ct_decoder *d)
{
	if (d->o.json)
		em_close(&d->em);
	out_putc(&d->out, '\n');
}

void ct_end_call_line(struct ct_decoder *d, const struct ct_call *c)
{
	if (d->o.json) {
		ct_stack_emit_json(&d->em, c);
		ct_end_line(d);
		return;
	}
	ct_stack_print_tag(&d->out, c);
	out_putc(&d->out, '\n');
	ct_stack_print_frames(&d->out, c);
}

void ct_print_fd_path(struct ct_decoder *d, int fd, uint32_t kdev, uint32_t flags,
		      uint64_t ino)
{
	const char *path = ct_devnames_find(&d->devs, kdev, flags & CT_F_REGFILE, ino);
	char fallback[64];

	if (!path) {
		snprintf(fallback, sizeof(fallback), "char %u:%u", kdev >> 20, kdev & 0xfffff);
		path = fallback;
	}
	if (d->o.json) {
		em_i64(&d->em, "fd", fd);
		em_str(&d->em, "path", path);
	} else {
		out_i64(&d->out, fd);
		out_putc(&d->out, '<');
		em_text(&d->out, path, strlen(path));
		out_putc(&d->out, '>');
	}
}

void ct_hexdump(struct ct_out *out, const char *title, const unsigned char *p, uint32_t n)
{
	uint32_t i, j;

	out_printf(out, "    %s (%u bytes):\n", title, n);
	for (i = 0; i < n; i += 16) {
		out_write(out, "      ", 6);
		out_hex_pad(out, i, 4);
		out_putc(out, ':');
		for (j = i; j < i + 16 && j < n; j++) {
			out_putc(out, ' ');
			out_hex_pad(out, p[j], 2);
		}
		out_putc(out, '\n');
	}
}
