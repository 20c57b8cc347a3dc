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

/*
 * Consecutive calls mostly come from one thread on one file: the text of
 * the thread ("pid/tid comm ") and of the file ("fd<path>") is kept with
 * what it was made from, and copied when the next line has the same
 * (formatting them was a tenth of a line's cost).
 */
static bool memo_print(struct ct_out *o, const struct ct_text_memo *m, const void *key,
		       size_t n)
{
	if (!m->len || m->key_len != n || memcmp(m->key, key, n) != 0)
		return false;
	out_write(o, m->text, m->len);
	return true;
}

/* Keeps what was printed since (flushes, start), if the buffer still has it. */
static void memo_keep(struct ct_text_memo *m, const struct ct_out *o, uint64_t flushes,
		      size_t start, const void *key, size_t n)
{
	m->len = 0;
	if (o->flushes != flushes || o->len - start > CT_MEMO_TEXT_MAX || n > CT_MEMO_KEY_MAX)
		return;
	memcpy(m->key, key, n);
	m->key_len = n;
	memcpy(m->text, o->buf + start, o->len - start);
	m->len = o->len - start;
}

static void print_who(struct ct_decoder *d, const struct ct_rec *h, const char *comm)
{
	if (d->o.json) {
		em_u64(&d->em, "pid", h->pid);
		em_u64(&d->em, "tid", h->tid);
		if (comm)
			em_strn(&d->em, "comm", comm, CT_COMM_LEN);
		return;
	}
	out_u64(&d->out, h->pid);
	out_putc(&d->out, '/');
	out_u64(&d->out, h->tid);
	out_putc(&d->out, ' ');
	if (comm)
		em_text(&d->out, comm, strnlen(comm, CT_COMM_LEN));
	out_putc(&d->out, ' ');
}

void ct_print_head(struct ct_decoder *d, const char *type, uint64_t ts,
		   const struct ct_rec *h, const char *comm)
{
	unsigned char key[9 + CT_COMM_LEN] = { comm != NULL };
	uint64_t flushes;
	size_t start;

	comm = ct_prognames_comm(&d->progs, h->pid, comm);
	memcpy(key + 1, &h->pid, 4);
	memcpy(key + 5, &h->tid, 4);
	if (comm)
		memcpy(key + 9, comm, CT_COMM_LEN);
	if (d->o.json) {
		em_open(&d->em, NULL);
		em_str(&d->em, "type", type);
		em_u64(&d->em, "ts_ns", ts);
	} else {
		ct_print_ts(d, ts);
	}
	if (memo_print(&d->out, &d->who, key, sizeof(key)))
		return;
	flushes = d->out.flushes;
	start = d->out.len;
	print_who(d, h, comm);
	memo_keep(&d->who, &d->out, flushes, start, key, sizeof(key));
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

static void print_file(struct ct_decoder *d, int fd, uint32_t kdev, uint32_t flags,
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

void ct_print_fd_path(struct ct_decoder *d, int fd, uint32_t kdev, uint32_t flags,
		      uint64_t ino)
{
	/* The path of a file can change when a later record names it. */
	uint64_t names = d->devs.n, flushes = d->out.flushes;
	unsigned char key[4 + 4 + 1 + 8 + 8] = { 0 };
	size_t start = d->out.len;

	memcpy(key, &fd, 4);
	memcpy(key + 4, &kdev, 4);
	key[8] = (flags & CT_F_REGFILE) != 0;
	memcpy(key + 9, &ino, 8);
	memcpy(key + 17, &names, 8);
	if (memo_print(&d->out, &d->file, key, sizeof(key)))
		return;
	print_file(d, fd, kdev, flags, ino);
	memo_keep(&d->file, &d->out, flushes, start, key, sizeof(key));
}

void ct_hexdump(struct ct_out *out, const char *title, const unsigned char *p, uint32_t n)
{
	uint32_t i, j;

	out_printf(out, "    %s (%u bytes):\n", title, n);
	for (i = 0; i < n; i += 16) {
		out_write(out, "      ", 6);
		out_hex_pad(out, i, 4);
		out_putc(out, ':');
		for (j = i; j < i + 16; j++) {
			if (j < n) {
				out_putc(out, ' ');
				out_hex_pad(out, p[j], 2);
			} else {
				out_write(out, "   ", 3);
			}
		}
		/* As hexdump -C: the printable bytes, '.' for the rest. */
		out_write(out, "  |", 3);
		for (j = i; j < i + 16 && j < n; j++)
			out_putc(out, p[j] >= 0x20 && p[j] < 0x7f ? (char)p[j] : '.');
		out_write(out, "|\n", 2);
	}
}
