// SPDX-License-Identifier: MIT
/*
 * Records in, calls out.  An ioctl arrives as two records (entry, exit);
 * the entry waits in a per-thread map and the call is described, shown to
 * the views and printed at its exit, strace-style, with the buffers of
 * both.  decoder.h lists the files that do the rest.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "grow.h"
#include "record.h"
#include "special.h"

struct ct_decoder *ct_decoder_new(const struct ct_decode_opts *opts)
{
	struct ct_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->o = *opts;
	out_init(&d->out, opts->out);
	em_init(&d->em, &d->out, opts->json);
	d->objs = ct_objects_new();
	d->stacks = ct_stacks_new(opts->api_lib);
	d->pystacks = ct_pystacks_new(opts->py_user);
	if (!d->objs || !d->stacks || !d->pystacks) {   /* out of memory */
		ct_objects_free(d->objs);
		ct_stacks_free(d->stacks);
		ct_pystacks_free(d->pystacks);
		free(d);
		return NULL;
	}
	d->fp = (struct ct_field_printer){ &d->em, d->objs, opts->verbose };
	return d;
}

int ct_decoder_add_view(struct ct_decoder *d, const struct ct_view *v)
{
	struct ct_view *more;

	if (d->nviews == INT_MAX ||
	    !(more = ct_grow(d->views, &d->views_cap, (size_t)d->nviews + 1, sizeof(*more), 8)))
		return -1;
	d->views = more;
	d->views[d->nviews++] = *v;
	return 0;
}

/* Runs the views; true if the call is to be printed. */
static bool run_views(struct ct_decoder *d, const struct ct_call *c)
{
	int i;

	ct_gpuwork_note_call(d, c);   /* every call, whatever the filters show */
	for (i = 0; i < d->nviews; i++) {
		if (d->views[i].filter && !d->views[i].filter(d->views[i].ctx, c))
			return false;
		if (d->views[i].call)
			d->views[i].call(d->views[i].ctx, c);
	}
	d->st.shown++;
	if (d->o.quiet)
		return false;
	ct_proc_lines_before_call(d, c->pid);
	return true;
}

/* One call: en (entry) and/or ex (exit); at least one is set. */
static void show_ioctl(struct ct_decoder *d, const struct ct_ioctl *en,
		       const struct ct_ioctl *ex)
{
	struct ct_call c;

	ct_describe_ioctl(d, en, ex, &c);
	ct_stacks_describe(d->stacks, &c);
	ct_pystacks_describe(d->pystacks, &c);
	if (run_views(d, &c))
		ct_print_ioctl(d, &c);
}

static void show_unfinished(struct ct_decoder *d, struct ct_ioctl *en)
{
	show_ioctl(d, en, NULL);
	d->st.unfinished++;
	free(en);
}

static void on_ioctl_enter(struct ct_decoder *d, const struct ct_ioctl *r)
{
	struct ct_ioctl *copy = malloc(r->h.size);
	struct ct_ioctl *old;

	ct_comms_note(&d->comms, r->h.pid, r->h.tid, r->comm);
	if (!copy)
		return;
	memcpy(copy, r, r->h.size);
	old = idmap_put(&d->pending, r->h.tid, copy);
	if (old)   /* the previous call's exit never came */
		show_unfinished(d, old);
}

/* What a call that succeeded teaches: objects, GPUs. */
static void learn(struct ct_decoder *d, const struct ct_ioctl *ex)
{
	const struct ct_special *s;

	ct_objects_learn_created(d->objs, ex);
	if (IOC_TYPE(ex->cmd) != NV_IOCTL_MAGIC || ex->ret != 0)
		return;
	s = ct_special_find(IOC_NR(ex->cmd));
	if (s && s->learn)
		s->learn(d, ex);
}

static void on_ioctl_exit(struct ct_decoder *d, const struct ct_ioctl *r)
{
	struct ct_ioctl *en = idmap_del(&d->pending, r->h.tid);

	if (en && (en->ts_enter != r->ts_enter || en->cmd != r->cmd)) {
		show_unfinished(d, en);   /* an older call: its exit was lost */
		en = NULL;
	}
	if (!en)
		d->st.exits_no_enter++;
	ct_comms_note(&d->comms, r->h.pid, r->h.tid, r->comm);
	learn(d, r);
	show_ioctl(d, en, r);
	ct_objects_learn_freed(d->objs, r);
	d->st.ioctls++;
	free(en);
}

static void on_mmap(struct ct_decoder *d, const struct ct_mmap *m)
{
	struct ct_call c = { .kind = CT_CALL_MMAP, .mmap = m, .name = "mmap", .finished = true };

	ct_comms_note(&d->comms, m->h.pid, m->h.tid, m->comm);
	ct_describe_common(d, &c, &m->h, m->comm, m->fd, m->dev, m->flags, m->ino);
	c.ts_ns = m->ts_enter;
	c.duration_ns = m->h.ts_ns - m->ts_enter;
	c.ret = m->ret;
	c.failed = m->ret < 0 && m->ret > -4096;
	ct_stacks_describe(d->stacks, &c);
	ct_pystacks_describe(d->pystacks, &c);
	if (run_views(d, &c))
		ct_print_mmap(d, m, &c);
}

static void on_munmap(struct ct_decoder *d, const struct ct_munmap *m)
{
	struct ct_call c = { .kind = CT_CALL_MUNMAP, .munmap = m, .name = "munmap",
			     .finished = true };

	/* The record has no comm: its thread's, or its process's, as last seen. */
	ct_describe_common(d, &c, &m->h, ct_comms_find(&d->comms, m->h.pid, m->h.tid),
			   -1, 0, 0, 0);
	c.ts_ns = m->h.ts_ns;
	ct_stacks_describe(d->stacks, &c);
	ct_pystacks_describe(d->pystacks, &c);
	if (run_views(d, &c))
		ct_print_munmap(d, m, &c);
}

static void on_proc(struct ct_decoder *d, const struct ct_proc *p)
{
	/* A new image, or a process seen for the first time (perhaps under the
	 * pid of one that exited): fd numbers of before mean nothing now. */
	if (p->source != CT_PROC_ATTACH)
		ct_objects_forget_pid(d->objs, p->h.pid);
	ct_prognames_learn(&d->progs, p);
	ct_comms_proc(&d->comms, p);
	if (!d->o.quiet)   /* -c: the views speak, not the events */
		ct_proc_lines_add(d, p);
}

static void flush_unfinished(struct ct_decoder *d, uint32_t pid);

static void on_exit_rec(struct ct_decoder *d, const struct ct_rec *r)
{
	/* Calls the process never returned from (killed inside them). */
	flush_unfinished(d, r->pid);
	ct_objects_forget_pid(d->objs, r->pid);
	if (!d->o.quiet && ct_proc_lines_shown(d, r->pid))
		ct_print_exit(d, r);
	ct_proc_lines_exit(d, r->pid);
	ct_prognames_forget(&d->progs, r->pid);
	ct_comms_forget_pid(&d->comms, r->pid);
	gw_calls_forget(&d->calls, r->pid);
}

static void on_fdpath(struct ct_decoder *d, const struct ct_fdpath *f)
{
	ct_devnames_add(&d->devs, f->dev, f->flags & CT_F_REGFILE, f->ino,
			(const char *)(f + 1), f->path_size);
}

static void on_fileref(struct ct_decoder *d, const struct ct_fileref *f)
{
	ct_objects_learn_fileref(d->objs, f);
	if (!d->o.quiet)
		ct_print_fileref(d, f);
}

static void on_trailer(struct ct_decoder *d, const struct ct_trailer *t)
{
	d->st.have_trailer = true;
	d->st.trailer_events = t->events;
	d->st.trailer_lost = t->lost;
	d->st.trailer_lost_inflight = t->lost_inflight;
	if (!d->o.quiet)
		ct_print_trailer(d, t);
}

void ct_decoder_feed(struct ct_decoder *d, const struct ct_rec *r)
{
	int i;

	d->st.records++;
	for (i = 0; i < d->nviews; i++)
		if (d->views[i].record)
			d->views[i].record(d->views[i].ctx, r);
	switch (r->type) {
	case CT_REC_META:
		ct_on_meta(d, r);
		break;
	case CT_REC_IOCTL_ENTER:
		on_ioctl_enter(d, (const struct ct_ioctl *)r);
		break;
	case CT_REC_IOCTL_EXIT:
		on_ioctl_exit(d, (const struct ct_ioctl *)r);
		break;
	case CT_REC_MMAP:
		on_mmap(d, (const struct ct_mmap *)r);
		break;
	case CT_REC_MUNMAP:
		on_munmap(d, (const struct ct_munmap *)r);
		break;
	case CT_REC_PROC:
		on_proc(d, (const struct ct_proc *)r);
		break;
	case CT_REC_FORK:
		ct_prognames_fork(&d->progs, r->pid, ((const struct ct_fork *)r)->child_pid);
		if (!d->o.quiet && ct_proc_lines_shown(d, r->pid))
			ct_print_fork(d, (const struct ct_fork *)r);
		break;
	case CT_REC_PROC_EXIT:
		on_exit_rec(d, r);
		break;
	case CT_REC_FDPATH:
		on_fdpath(d, (const struct ct_fdpath *)r);
		break;
	case CT_REC_TRAILER:
		on_trailer(d, (const struct ct_trailer *)r);
		break;
	case CT_REC_FILEREF:
		on_fileref(d, (const struct ct_fileref *)r);
		break;
	case CT_REC_FRAMES:
		d->st.stacks++;
		ct_stacks_learn(d->stacks, (const struct ct_frames *)r);
		break;
	case CT_REC_PYFRAMES:
		ct_pystacks_learn(d->pystacks, (const struct ct_pyframes *)r);
		d->st.pystacks++;
		break;
	case CT_REC_STACK_END:
		ct_stacks_learn_end(d->stacks, (const struct ct_stack_end *)r);
		break;
	case CT_REC_GPU_SEG:
		ct_gpuwork_on_seg(d, (const struct ct_gpu_seg *)r);
		break;
	case CT_REC_GPU_PUT:
		ct_gpuwork_on_put(d, (const struct ct_gpu_put *)r);
		break;
	case CT_REC_KERNEL_NAME:
		ct_kname_learn(&d->knames, (const struct ct_kernel_name *)r);
		break;
	case CT_REC_MAPPING:
		if (!d->o.quiet)
			ct_print_mapping(d, (const struct ct_mapping *)r);
		break;
	}
	/* A record's lines reach the stream as they did with stdio alone:
	 * at once, for stdio's own buffering (a terminal's, line by line). */
	if (!d->o.batch_output)
		out_flush(&d->out);
}

static int by_entry_time(const void *a, const void *b)
{
	const struct ct_ioctl *x = *(const struct ct_ioctl *const *)a;
	const struct ct_ioctl *y = *(const struct ct_ioctl *const *)b;

	if (x->ts_enter != y->ts_enter)
		return x->ts_enter < y->ts_enter ? -1 : 1;
	return x->h.tid < y->h.tid ? -1 : x->h.tid > y->h.tid;
}

/*
 * Prints the calls still waiting for their exit, of process pid (0: all),
 * oldest first (the map's order is a hash's), as unfinished.
 */
static void flush_unfinished(struct ct_decoder *d, uint32_t pid)
{
	struct ct_ioctl **calls;
	size_t i, n = 0;

	if (!d->pending.used)
		return;
	calls = malloc(d->pending.used * sizeof(*calls));
	if (!calls)
		return;
	for (i = 0; i < d->pending.cap && n < d->pending.used; i++) {
		struct ct_ioctl *en = d->pending.keys[i] ? d->pending.vals[i] : NULL;

		if (en && (!pid || en->h.pid == pid))
			calls[n++] = en;
	}
	qsort(calls, n, sizeof(*calls), by_entry_time);
	for (i = 0; i < n; i++) {
		idmap_del(&d->pending, calls[i]->h.tid);
		show_unfinished(d, calls[i]);
	}
	free(calls);
}

void ct_decoder_finish(struct ct_decoder *d)
{
	int i;

	flush_unfinished(d, 0);
	out_flush(&d->out);   /* before the views print their tables */
	ct_gpuwork_finish(d);
	for (i = 0; i < d->nviews; i++)
		if (d->views[i].finish && d->views[i].finish(d->views[i].ctx))
			d->st.views_failed++;
	errno = 0;
	if (fflush(d->o.out) && !d->out.err)   /* for ct_decoder_out_error: ENOSPC, not EIO */
		d->out.err = errno ? errno : EIO;
}

const struct ct_decode_stats *ct_decoder_stats(const struct ct_decoder *d)
{
	return &d->st;
}

int ct_decoder_out_error(const struct ct_decoder *d)
{
	if (d->out.err)
		return d->out.err;
	return d->o.out && ferror(d->o.out) ? EIO : 0;
}

void ct_decoder_free(struct ct_decoder *d)
{
	if (!d)
		return;
	idmap_free_all(&d->pending);
	ct_gpuwork_decoder_free(d);
	ct_knames_table_free(&d->knames);
	gw_calls_free(&d->calls);
	ct_objects_free(d->objs);
	ct_stacks_free(d->stacks);
	ct_pystacks_free(d->pystacks);
	ct_devnames_free(&d->devs);
	ct_prognames_free(&d->progs);
	ct_comms_free(&d->comms);
	ct_proc_lines_free(d);
	ct_errtext_free(&d->errs);
	free(d->views);
	free(d);
}
