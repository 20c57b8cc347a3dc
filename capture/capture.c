// SPDX-License-Identifier: MIT
/*
 * Live capture (capture.h lists its files), top to bottom: a record's way
 * from the ring buffer to the sink (on_record), the poll loop that drives
 * it (run_loop), then the start (BPF loaded, sink open, command let go)
 * and the stop (last records, counts, everything freed) around them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "capture_run.h"
#include "capture_bpf.h"
#include "capture_sink.h"
#include "capture_status.h"
#include "capture_targets.h"
#include "gpuwork_reader.h"
#include "metrics.h"
#include "privs.h"
#include "procinfo.h"
#include "python.h"
#include "record.h"
#include "stack_tally.h"
#include "trace_file.h"
#include "unwind.h"

static volatile sig_atomic_t stop_requested;

/* Interrupts the ring buffer's poll when the command exits, so that the
 * capture ends then rather than at the poll's 100 ms timeout. */
static void on_child(int sig)
{
	(void)sig;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* --- a record's way: ring buffer -> checks -> producers -> sink ---------- */

/* A file the trace has not named yet: learn its path from /proc. */
static void name_new_device(struct ct_capture *c, uint32_t pid, int fd, uint32_t kdev,
			    uint32_t flags, uint64_t ino)
{
	struct {
		struct ct_fdpath f;
		char path[512];
	} rec;
	char link[64];
	ssize_t n;
	int i;

	for (i = 0; i < c->devs.ndevs; i++) {
		const struct ct_device *d = &c->devs.devs[i];

		if (d->kdev == kdev && d->regfile == !!(flags & CT_F_REGFILE) &&
		    (!d->regfile || d->ino == ino))
			return;
	}
	if (c->devs.ndevs >= CT_MAX_DEVICES)
		return;
	snprintf(link, sizeof(link), "%s/%u/fd/%d", c->o->proc_root, pid, fd);
	n = readlink(link, rec.path, sizeof(rec.path));
	if (n <= 0)
		n = snprintf(rec.path, sizeof(rec.path), "char %u:%u", kdev >> 20, kdev & 0xfffff);
	memset(&rec.f, 0, sizeof(rec.f));
	rec.f.h.type = CT_REC_FDPATH;
	rec.f.h.size = (uint32_t)(sizeof(rec.f) + (size_t)n);
	rec.f.h.ts_ns = ct_now_ns(CLOCK_MONOTONIC);
	rec.f.h.pid = pid;
	rec.f.dev = kdev;
	rec.f.flags = flags & CT_F_REGFILE;
	rec.f.ino = ino;
	rec.f.path_size = (uint32_t)n;
	/* Remember it so the next event does not ask again. */
	c->devs.devs[c->devs.ndevs].kdev = kdev;
	c->devs.devs[c->devs.ndevs].regfile = flags & CT_F_REGFILE;
	c->devs.devs[c->devs.ndevs].ino = (flags & CT_F_REGFILE) ? ino : 0;
	snprintf(c->devs.devs[c->devs.ndevs].path, sizeof(c->devs.devs[0].path), "%.*s",
		 (int)n, rec.path);
	c->devs.ndevs++;
	ct_sink_record(c, &rec.f.h);
}

#define FILE_FULL (-ECANCELED)   /* on_record's "the trace file is full" */

static int on_record(void *ctx, void *data, size_t len)
{
	struct ct_capture *c = ctx;
	const struct ct_rec *r = data;
	const char *bad = ct_record_check(data, len);

	if (bad) {
		fprintf(stderr, "cudatrace: dropping a malformed record from the kernel: %s\n", bad);
		return 0;
	}
	c->events++;
	if (c->python && ct_python_take(c->python, r))
		return c->sink_error ? -1 : 0;
	if (c->gpuwork)
		ct_gpuwork_learn(c->gpuwork, r);
	if (c->unwinder && ct_unwinder_take(c->unwinder, r))
		return c->sink_error ? -1 : 0;
	switch (r->type) {
	case CT_REC_IOCTL_ENTER: {
		const struct ct_ioctl *io = data;

		name_new_device(c, r->pid, io->fd, io->dev, io->flags, io->ino);
		break;
	}
	case CT_REC_MMAP: {
		const struct ct_mmap *m = data;

		name_new_device(c, r->pid, m->fd, m->dev, m->flags, m->ino);
		break;
	}
	case CT_REC_PROC:
		/* Ring buffer memory is read-only: filter the environment in a copy. */
		memcpy(c->procbuf, data, len);
		ct_proc_filter_env((struct ct_proc *)c->procbuf);
		ct_sink_record(c, (struct ct_rec *)c->procbuf);
		return c->sink_error ? -1 : 0;
	}
	ct_sink_record(c, r);
	if (c->sink_error)
		return -1;
	/* --max-size: stop this poll here, run_loop rotates or stops. */
	if (ct_sink_file_at_max(c))
		return FILE_FULL;
	return 0;
}

/* The records that the unwinder, the Python frames and the GPU work reader
 * make: -k's summary counts them, then they go to the sink. */
static void unwind_sink(void *ctx, const struct ct_rec *r)
{
	struct ct_capture *c = ctx;

	ct_stack_tally_take(c->stack_tally, r);
	ct_sink_record(ctx, r);
}

/* --- the poll loop -------------------------------------------------------- */

/* Whether the capture is over: the command or every -p process has
 * exited, or -d ran out. */
static bool capture_over(struct ct_capture *c, uint64_t deadline)
{
	const struct ct_options *o = c->o;

	if (ct_child_exited(&c->child) || (o->npids && !ct_pids_alive(o, c->pidfds)))
		return true;
	if (deadline && ct_now_ns(CLOCK_MONOTONIC) >= deadline) {
		c->timed_out = true;
		return true;
	}
	return false;
}

/* --gpu-work's drain (gpuwork_reader.h): the records the kernel has now,
 * unless the sink failed or the file is full and does not rotate. */
static void drain_kernel_records(void *ctx)
{
	struct ct_capture *c = ctx;

	if (!c->sink_error && (c->o->rotate || !ct_sink_file_at_max(c)))
		ring_buffer__consume(c->rb);
}

static int run_loop(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	uint64_t deadline = o->duration > 0 ?
		ct_now_ns(CLOCK_MONOTONIC) + (uint64_t)(o->duration * 1e9) : 0;
	int err;

	while (!stop_requested && !c->sink_error) {
		err = ring_buffer__poll(c->rb, c->gpuwork ? (int)(1000 / o->gpu_work_hz) : 100);
		/* The kernel wakes us only when a quarter of the buffer is
		 * full: a poll that timed out takes what is there, so live
		 * output and --metrics lag by at most its 100 ms. */
		if (err == 0)
			err = ring_buffer__consume(c->rb);
		if (err < 0 && err != -EINTR && err != FILE_FULL) {
			fprintf(stderr, "cudatrace: reading the ring buffer failed: %s\n",
				strerror(-err));
			return -1;
		}
		if (c->gpuwork && err >= 0)
			ct_gpuwork_poll(c->gpuwork, ct_now_ns(CLOCK_MONOTONIC));
		/* A killed capture loses at most one poll's worth of records. */
		if (c->writer)
			ct_writer_flush(c->writer);
		if (ct_sink_file_at_max(c) && ct_sink_file_full(c))
			break;
		ct_status_line(c, false);
		ct_sink_update_lost(c, false);
		if (capture_over(c, deadline))
			break;
	}
	ct_status_line(c, true);
	/* Everything the kernel produced before we stopped is still there
	 * (but a full file, unrotated, takes nothing more). */
	while (!c->sink_error && (o->rotate || !ct_sink_file_at_max(c))) {
		if (ring_buffer__consume(c->rb) != FILE_FULL || ct_sink_file_full(c))
			break;
	}
	return 0;
}

/* --- start ---------------------------------------------------------------- */

/* -p: the attach records, and each process's code and Python as it is now. */
static void emit_attach_records(struct ct_capture *c)
{
	int i;

	for (i = 0; i < c->o->npids; i++) {
		if (ct_proc_from_procfs(c->o->proc_root, c->o->pids[i], CT_PROC_ATTACH,
					ct_now_ns(CLOCK_MONOTONIC), c->procbuf) == 0)
			ct_sink_record(c, (struct ct_rec *)c->procbuf);
		if (c->unwinder)   /* -k: the code it has now; later code comes as it is mapped */
			ct_unwinder_refresh(c->unwinder, c->o->pids[i], ct_now_ns(CLOCK_MONOTONIC));
		if (c->python)
			ct_python_scan(c->python, (uint32_t)c->o->pids[i]);
	}
}

/* The ring's reader, and the readers whose records join it: the unwinder
 * (-k), the Python frames (--py-stack), the GPU work (--gpu-work).  0, or
 * -1. */
static int start_readers(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_bpf_fds fds = ct_bpf_fds(c->skel);

	if (o->stack_bytes && (!(c->stack_tally = ct_stack_tally_new(o->api_lib)) ||
			       !(c->unwinder = ct_unwinder_new(o->proc_root, unwind_sink, c)) ||
			       ct_unwinder_walk_in_kernel(c->unwinder, &fds.uw)))
		return -1;
	if (o->py_stack && !(c->python = ct_python_new(o->proc_root, fds.py_procs, fds.py_rb,
						       unwind_sink, c)))
		return -1;
	if (o->gpu_work_hz &&
	    !(c->gpuwork = ct_gpuwork_new(o->proc_root, CT_GPU_SEG_DEFAULT, unwind_sink, c)))
		return -1;
	c->rb = ring_buffer__new(fds.rb, on_record, c, NULL);
	if (!c->rb) {
		fprintf(stderr, "cudatrace: cannot set up the ring buffer: %s\n", strerror(errno));
		return -1;
	}
	if (c->gpuwork)
		ct_gpuwork_set_drain(c->gpuwork, drain_kernel_records, c);
	return 0;
}

/* Up to the moment calls are traced: BPF loaded, the sink open, the
 * command (if any) forked but still waiting on go_fd.  0, or -1 after
 * saying why. */
static int start_capture(struct ct_capture *c, int *go_fd)
{
	int err;

	if (ct_child_start(&c->child, c->o, go_fd))
		return -1;
	if (ct_bpf_load(&c->skel, c->o, &c->devs, c->child.pid))
		return -1;
	if (ct_sink_open(c))
		return -1;
	if (start_readers(c))
		return -1;
	/* -p: each process's code and Python found before its first call is
	 * traced (a call made before its Python was found had no frames). */
	emit_attach_records(c);
	if (ct_bpf_attach(c->skel))
		return -1;
	/* Before the drop: the thread raises its priority, then drops its own. */
	if (c->python && (err = ct_python_start(c->python))) {
		fprintf(stderr, "cudatrace: cannot start the Python frames thread: %s\n",
			strerror(-err));
		return -1;
	}
	/* The command was forked before this: it keeps the privileges it had. */
	err = ct_drop_privileges();
	if (err)
		fprintf(stderr, "cudatrace: warning: could not drop privileges: %s\n",
			strerror(-err));
	return ct_sink_serve(c);
}

/* Scripts wait for this line before making the calls to capture; a
 * command is let go only now. */
static int announce_and_go(struct ct_capture *c, int *go_fd)
{
	const struct ct_options *o = c->o;

	if (!o->command && o->npids)
		fprintf(stderr, "cudatrace: tracing %d process%s; Ctrl-C to stop\n",
			o->npids, o->npids > 1 ? "es" : "");
	else if (!o->command)
		fprintf(stderr, "cudatrace: tracing system-wide; Ctrl-C to stop\n");
	if (c->http)   /* after the line scripts wait for */
		fprintf(stderr, "cudatrace: serving Prometheus metrics at %s\n",
			ct_metrics_http_url(c->http));
	if (c->gpuwork && !o->command) {   /* -p or system-wide: channels from before */
		ct_gpuwork_before_scan(&c->gw_before, o->proc_root, o->pids, o->npids,
				       (uint32_t)getpid(), &c->devs);
		ct_gpuwork_before_say(&c->gw_before, false);
	}
	return ct_child_go(go_fd);
}

/* --- stop ----------------------------------------------------------------- */

/* The trailer record and the closing lines: events captured and lost. */
static void report_counts(struct ct_capture *c)
{
	uint64_t lost = 0, lost_inflight = 0;

	if (c->gpuwork)   /* what was put since the last poll */
		ct_gpuwork_poll(c->gpuwork, ct_now_ns(CLOCK_MONOTONIC));
	ct_sink_update_lost(c, true);
	if (c->writer || c->decoder)
		ct_sink_trailer(c, &lost, &lost_inflight);
	ct_status_report(c, lost, lost_inflight);
}

/* Stops the command if the capture failed or was interrupted, frees
 * everything; the return code, which a file that failed to close makes 1. */
static int teardown(struct ct_capture *c, int go_fd, int rc)
{
	if (go_fd >= 0)
		close(go_fd);   /* the child sees EOF and exits */
	if (!c->timed_out)   /* -d ran out: the command goes on */
		ct_child_wait(&c->child, rc != 0 || stop_requested);
	ring_buffer__free(c->rb);
	ct_unwinder_free(c->unwinder);
	ct_python_free(c->python);
	ct_stack_tally_free(c->stack_tally);
	ct_gpuwork_free(c->gpuwork);
	rc = ct_sink_close(c, rc);
	ct_bpf_unload(c->skel);
	free(c->procbuf);
	ct_pids_close(c->o, c->pidfds);
	return c->sink_error ? 1 : rc;
}

static void catch_signals(const struct ct_options *o)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o->command) {
		struct sigaction sc = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };

		sigaction(SIGCHLD, &sc, NULL);
	}
}

int ct_capture_run(const struct ct_options *o)
{
	struct ct_capture c = { .o = o, .child = { .pid = -1 } };
	int go_fd = -1, rc = 1;

	for (int i = 0; i < CT_MAX_PIDS; i++)
		c.pidfds[i] = -1;
	if (ct_bpf_check_kernel(o) || ct_pids_open(o, c.pidfds) ||
	    ct_targets_devices(&c.devs, o)) {
		ct_pids_close(o, c.pidfds);
		return 1;
	}
	c.procbuf = malloc(CT_PROC_BUF_SIZE);
	if (!c.procbuf) {
		ct_pids_close(o, c.pidfds);
		return 1;
	}
	catch_signals(o);
	if (start_capture(&c, &go_fd) == 0 && announce_and_go(&c, &go_fd) == 0) {
		rc = run_loop(&c) == 0 ? 0 : 1;
		report_counts(&c);
	}
	rc = teardown(&c, go_fd, rc);
	return ct_child_exit_status(&c.child, rc);
}
