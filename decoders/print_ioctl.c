// SPDX-License-Identifier: MIT
/*
 * An ioctl call, strace-style text or one JSON object, from the call that
 * describe.c parsed: the argument by its layout (or its special decoder),
 * the nested params, the result.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "decoder.h"
#include "labels.h"
#include "special.h"

/* The request, by the name describe.c found for it. */
static void print_request(struct ct_decoder *d, const struct ct_call *c)
{
	char buf[64];
	const char *name = ct_request_label(c->request, c->name, buf, sizeof(buf));

	if (d->o.json) {
		em_hex(&d->em, "request", c->request);
		em_str(&d->em, "name", name);
	} else {
		out_puts(&d->out, ct_color(d, CT_COLOR_NAME));
		out_puts(&d->out, name);
		out_puts(&d->out, ct_color(d, CT_COLOR_OFF));
	}
}

static struct ct_field_ctx arg_ctx(const struct ct_call *c)
{
	return (struct ct_field_ctx){ .esc_nr = c->esc_nr, .client = c->client,
				      .has_ctrl = c->has_ctrl, .ctrl = c->ctrl,
				      .ctrl_name = c->ctrl_name, .has_status = c->has_status,
				      .status = c->status, .status_name = c->status_name,
				      .not_written = !c->written_back };
}

/* The wrapped struct of IOCTL_XFER_CMD is named as its own escape. */
static struct ct_field_ctx nested_ctx(const struct ct_call *c)
{
	if (c->xfer_nr)
		return (struct ct_field_ctx){ .esc_nr = c->xfer_nr, .not_written = !c->written_back };
	return arg_ctx(c);
}

/* The argument: by its layout, else by its special decoder; false if neither. */
static bool print_arg(struct ct_decoder *d, const struct ct_call *c, const char *key)
{
	const struct ct_ioctl *r = c->rec;
	struct ct_field_ctx fc = arg_ctx(c);

	if (c->layout) {
		ct_print_struct(&d->fp, key, c->layout, ct_ioctl_arg(r), r->arg_size, &fc);
		return true;
	}
	return c->special && c->special->print_arg && c->special->print_arg(d, c);
}

static void print_nested(struct ct_decoder *d, const struct ct_call *c, const char *key)
{
	struct ct_field_ctx fc = nested_ctx(c);

	ct_print_struct(&d->fp, key, c->nested_layout, ct_ioctl_nested(c->rec),
			c->rec->nest_size, &fc);
}

/* The keys tools filter on: cmd of an RM control, hClass of an RM_ALLOC. */
static void print_key_fields(struct ct_decoder *d, const struct ct_call *c)
{
	if (c->has_ctrl)
		em_hex_named(&d->em, "cmd", c->ctrl, c->ctrl_name);
	else if (c->has_class)
		em_hex_named(&d->em, "hClass", c->hclass, c->class_name);
}

static void json_result(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *ex = c->ex;
	struct emit *e = &d->em;

	if (ex)
		em_i64(e, "ret", ex->ret);
	if (ex && ex->ret < 0 && ex->ret > -4096 && strerrorname_np((int)-ex->ret))
		em_str(e, "errno", strerrorname_np((int)-ex->ret));
	if (ex)
		em_u64(e, "duration_ns", c->duration_ns);
	else
		em_bool(e, "unfinished", true);
	if (!c->en)
		em_bool(e, "enter_lost", true);
	if (c->gpu >= 0)
		em_i64(e, "gpu", c->gpu);
}

/* The raw buffers, in and out, and what went wrong copying them. */
static void json_buffers(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *en = c->en, *ex = c->ex, *r = c->rec;
	struct emit *e = &d->em;

	if (en)
		em_bytes(e, "arg_in", ct_ioctl_arg(en), en->arg_size);
	if (ex)
		em_bytes(e, "arg_out", ct_ioctl_arg(ex), ex->arg_size);
	if (r->nest_ptr) {
		em_hex(e, "nested_ptr", r->nest_ptr);
		em_u64(e, "nested_size", r->nest_want);
		if (en)
			em_bytes(e, "nested_in", ct_ioctl_nested(en), en->nest_size);
		if (ex)
			em_bytes(e, "nested_out", ct_ioctl_nested(ex), ex->nest_size);
	}
	if (r->flags & (CT_F_ARG_TRUNC | CT_F_NEST_TRUNC))
		em_bool(e, "truncated", true);
	if (r->flags & (CT_F_ARG_FAULT | CT_F_NEST_FAULT))
		em_bool(e, "fault", true);
}

static void print_json(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;

	ct_print_head(d, "ioctl", r->ts_enter, &r->h, r->comm);
	ct_print_fd_path(d, r->fd, r->dev, r->flags, r->ino);
	em_str(&d->em, "syscall", "ioctl");
	print_request(d, c);
	json_result(d, c);
	print_key_fields(d, c);
	print_arg(d, c, "args");
	if (c->nested_layout)
		print_nested(d, c, c->nested_name + 1);
	json_buffers(d, c);
	ct_end_call_line(d, c);
}

/* The argument list after the request: the struct, -v its nested params. */
static void text_args(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	struct ct_out *out = &d->out;

	if (c->layout) {
		print_arg(d, c, NULL);
		out_puts(out, c->layout->nfields ? "" : "{}");
		if (c->nested_layout && d->o.verbose >= 1) {
			out_write(out, ", ", 2);
			em_open(&d->em, NULL);
			print_nested(d, c, c->nested_name);
			em_close(&d->em);
		}
	} else if (print_arg(d, c, NULL)) {
		/* printed by its special decoder */
	} else if (r->arg_size) {
		out_printf(out, "0x%" PRIx64 " [%u bytes, no layout for this size]",
			   (uint64_t)r->arg, r->arg_size);
	} else {
		out_printf(out, "0x%" PRIx64, (uint64_t)r->arg);
	}
	if (r->flags & CT_F_ARG_FAULT)
		out_puts(out, " <fault>");
}

/* " = ret", errno, a failed NV_STATUS, -T; or unfinished. */
static void text_result(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *ex = c->ex;
	struct ct_out *out = &d->out;
	const char *fail = c->failed ? CT_COLOR_ERROR : "", *off = c->failed ? CT_COLOR_OFF : "";

	if (!ex) {
		out_puts(out, " = ? <unfinished>");
		return;
	}
	out_write(out, " = ", 3);
	out_puts(out, ct_color(d, fail));
	out_i64(out, ex->ret);
	if (ex->ret < 0 && ex->ret > -4096 && strerrorname_np((int)-ex->ret)) {
		out_putc(out, ' ');
		out_puts(out, strerrorname_np((int)-ex->ret));
		out_write(out, " (", 2);
		out_puts(out, ct_errtext(&d->errs, (int)-ex->ret));
		out_putc(out, ')');
	}
	out_puts(out, ct_color(d, off));
	if (c->has_status && c->status)
		out_printf(out, " %s(%s)%s", ct_color(d, CT_COLOR_ERROR),
			   c->status_name ? c->status_name : "unknown NV_STATUS",
			   ct_color(d, CT_COLOR_OFF));
	ct_print_duration(d, c->duration_ns);
}

/* -v: nested buffers without a layout as hex; -vv: every buffer. */
static void text_hexdumps(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *en = c->en, *ex = c->ex;
	struct ct_out *out = &d->out;

	if (((d->o.verbose >= 1 && !c->nested_layout) || d->o.verbose >= 2) &&
	    c->rec->nest_ptr) {
		if (en)
			ct_hexdump(out, "nested in", ct_ioctl_nested(en), en->nest_size);
		if (ex)
			ct_hexdump(out, "nested out", ct_ioctl_nested(ex), ex->nest_size);
	}
	if (d->o.verbose >= 2) {
		if (en)
			ct_hexdump(out, "arg in", ct_ioctl_arg(en), en->arg_size);
		if (ex)
			ct_hexdump(out, "arg out", ct_ioctl_arg(ex), ex->arg_size);
	}
}

static void print_text(struct ct_decoder *d, const struct ct_call *c)
{
	const struct ct_ioctl *r = c->rec;
	struct ct_out *out = &d->out;

	ct_print_head(d, "ioctl", r->ts_enter, &r->h, r->comm);
	out_write(out, "ioctl(", 6);
	ct_print_fd_path(d, r->fd, r->dev, r->flags, r->ino);
	out_write(out, ", ", 2);
	print_request(d, c);
	out_write(out, ", ", 2);
	text_args(d, c);
	out_putc(out, ')');
	text_result(d, c);
	if (!c->en)
		out_puts(out, " <entry lost>");
	if (r->flags & CT_F_NEST_TRUNC)
		out_printf(out, " <nested %u of %u bytes>", r->nest_size, r->nest_want);
	ct_end_call_line(d, c);
	text_hexdumps(d, c);
}

void ct_print_ioctl(struct ct_decoder *d, const struct ct_call *c)
{
	if (d->o.json)
		print_json(d, c);
	else
		print_text(d, c);
}
