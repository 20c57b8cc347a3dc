// SPDX-License-Identifier: MIT
/*
 * Live capture (capture.h lists its files), top to bottom: a record's way
 * from the queue the reader thread fills (capture_reader.c) to the sink
 * (take_record), the record loop that drives it (run_loop), then the start
 * (BPF loaded, sink open, reader started, command let go) and the stop
 * (last records, counts, everything freed) around them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.h"
#include "clock.h"
#include "capture_run.h"
#include "capture_bpf.h"
#include "capture_signals.h"
#include "capture_sink.h"
#include "capture_status.h"
#include "capture_targets.h"
#include "gpuwork_reader.h"
#include "knames_live.h"
#include "metrics.h"
#include "privs.h"
#include "procinfo.h"
#include "python.h"
#include "capture_reader.h"
#include "record_queue.h"
#include "record.h"
#include "stack_tally.h"
#include "trace_file.h"
#include "unwind.h"
#include "msg.h"

/* --- a record's way: queue -> stacks, Python frames -> sink --------------- */

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

/* What kernel names held goes out (knames_live.h): as it would have. */
static void held_sink(void *ctx, const struct ct_rec *r)
{
	ct_sink_write(ctx, r);
}

/* The records that the unwinder and the Python frames make (record loop):
 * -k's summary counts them, then they go to the sink. */
static void unwind_sink(void *ctx, const struct ct_rec *r)
{
	struct ct_capture *c = ctx;

	ct_stack_tally_take(c->stack_tally, r);
	ct_sink_record(ctx, r);
}

/* The record loop's side: one record, in the order the reader queued it. */
static void take_record(struct ct_capture *c, const struct ct_rec *r)
{
	if (c->slow_record_us)   /* CT_TEST_SLOW_RECORD_US: a record loop slowed on purpose */
		usleep((useconds_t)c->slow_record_us);
	if (r->type != CT_REC_GPU_SEG && r->type != CT_REC_GPU_PUT)
		c->events_taken++;   /* the kernel's, not the GPU-work reader's */
	if (c->python && ct_python_take(c->python, r))
		return;
	if (c->knames)   /* kernel names: in the record loop (only copies' sources are
			  * kept by the reader's thread: copy_snaps.h) */
		ct_knames_learn(c->knames, r);
	if (c->unwinder && ct_unwinder_take(c->unwinder, r))
		return;
	switch (r->type) {
	case CT_REC_GPU_SEG:
	case CT_REC_GPU_PUT:
		if (c->knames) {   /* a launch's name goes before its segment */
			ct_knames_gpu(c->knames, r);
			return;
		}
		break;
	case CT_REC_IOCTL_ENTER: {
		const struct ct_ioctl *io = (const struct ct_ioctl *)r;

		name_new_device(c, r->pid, io->fd, io->dev, io->flags, io->ino);
		break;
	}
	case CT_REC_MMAP: {
		const struct ct_mmap *m = (const struct ct_mmap *)r;

		name_new_device(c, r->pid, m->fd, m->dev, m->flags, m->ino);
		break;
	}
	case CT_REC_PROC:
		/* Filter the environment in a copy (the queue's is the reader's). */
		memcpy(c->procbuf, r, r->size);
		ct_proc_filter_env((struct ct_proc *)c->procbuf);
		ct_sink_record(c, (struct ct_rec *)c->procbuf);
		return;
	}
	ct_sink_record(c, r);
}

/* --- the record loop -------------------------------------------------------- */

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

/* One record to the sink; false when the capture must stop taking records
 * (the sink failed, or the file is full and does not rotate). */
static bool sink_one(struct ct_capture *c, const struct ct_rec *r)
{
	take_record(c, r);
	if (c->sink_error)
		return false;
	/* --max-size: rotate, or stop */
	return !(ct_sink_file_at_max(c) && ct_sink_file_full(c));
}

/* Takes the queue's records until it is closed and empty (after
 * ct_reader_stop), or the sink stops. */
static int run_loop(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	uint64_t deadline = o->duration > 0 ?
		ct_now_ns(CLOCK_MONOTONIC) + (uint64_t)(o->duration * 1e9) : 0;
	uint64_t flushed = ct_now_ns(CLOCK_MONOTONIC), said = flushed, last_record = flushed;
	bool stopping = false, done = false, taking = true;

	while (!done) {
		/* short waits: the command's exit and Ctrl-C are seen within 10 ms */
		struct ct_rec *r = ct_rq_pop(c->queue, 10000000ull, &done);
		uint64_t now = ct_now_ns(CLOCK_MONOTONIC);

		if (r && taking && !sink_one(c, r)) {
			taking = false;   /* the reader may still queue: nothing more is taken */
			ct_rq_abandon(c->queue);
		}
		if (r)
			last_record = now;
		/* idle 100 ms (every ring polled by then, and a live line late by
		 * no more than the writer's flush): no upload is waited for longer */
		else if (c->knames && taking && now - last_record > 100000000ull)
			ct_knames_flush(c->knames);
		free(r);
		/* A killed capture loses at most 100 ms of records. */
		if (c->writer && (!r || now - flushed > 100000000ull)) {
			ct_writer_flush(c->writer);
			flushed = now;
		}
		if (now - said > 100000000ull) {   /* each rate-limits itself too */
			ct_status_line(c, false);
			ct_sink_update_lost(c, false);
			said = now;
		}
		if (!stopping && (ct_stop_signal() || !taking ||
				  __atomic_load_n(&c->reader_error, __ATOMIC_RELAXED) ||
				  capture_over(c, deadline))) {
			stopping = true;
			ct_reader_stop(c);
		}
	}
	if (c->knames && taking)
		ct_knames_flush(c->knames);
	ct_status_line(c, true);
	if (c->sink_error)   /* said already; stops the command */
		return -1;
	if (c->reader_error) {
		ct_err("reading the ring buffer failed: %s\n",
			strerror(-c->reader_error));
		return -1;
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
	if (o->gpu_work_hz && !(c->knames = ct_knames_new(o->proc_root, held_sink, c)))
		return -1;
	return ct_reader_setup(c);
}

/* Up to the moment calls are traced: BPF loaded, the sink open, the
 * command (if any) forked but still waiting on go_fd.  0, or -1 after
 * saying why. */
static int start_capture(struct ct_capture *c, int *go_fd)
{
	int err;

	if (ct_child_start(&c->child, c->o, go_fd))
		return -1;
	c->load_cpu_ns = ct_now_ns(CLOCK_THREAD_CPUTIME_ID);
	err = ct_bpf_load(&c->skel, c->o, &c->devs, c->child.pid);
	c->load_cpu_ns = ct_now_ns(CLOCK_THREAD_CPUTIME_ID) - c->load_cpu_ns;
	if (err)
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
		ct_err("cannot start the Python frames thread: %s\n",
			strerror(-err));
		return -1;
	}
	/* Before the drop: the reader raises its priority, then drops its own. */
	if (ct_reader_start(c))
		return -1;
	/* The command was forked before this: it keeps the privileges it had. */
	err = ct_drop_privileges();
	if (!err)
		err = c->reader_drop_err;
	if (err)
		ct_warn("could not drop privileges: %s\n",
			strerror(-err));
	return ct_sink_serve(c);
}

static const char *stop_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
}

/* Scripts wait for this line before making the calls to capture; a
 * command is let go only now, unless a stop came first. */
static int announce_and_go(struct ct_capture *c, int *go_fd)
{
	const struct ct_options *o = c->o;

	if (!o->command && o->npids)
		ct_err("tracing %d process%s; Ctrl-C to stop\n",
			o->npids, o->npids > 1 ? "es" : "");
	else if (!o->command)
		ct_err("tracing system-wide; Ctrl-C to stop\n");
	if (c->http)   /* after the line scripts wait for */
		ct_err("serving Prometheus metrics at %s\n",
			ct_metrics_http_url(c->http));
	if (c->gpuwork && !o->command) {   /* -p or system-wide: channels from before */
		ct_gpuwork_before_scan(&c->gw_before, o->proc_root, o->pids, o->npids,
				       (uint32_t)getpid(), &c->devs);
		ct_gpuwork_before_say(&c->gw_before, false);
	}
	switch (ct_child_go(&c->child, go_fd)) {
	case 0:
		return 0;
	case 1:   /* the capture goes on to its end, at once: a whole trace */
		ct_err("stopped by %s before %s was started: it did not run\n",
		       stop_signal_name(ct_stop_signal()), o->command[0]);
		return 0;
	default:
		ct_err("cannot start %s: %s\n", o->command[0], strerror(errno));
		return -1;
	}
}

/* --- stop ----------------------------------------------------------------- */

/* The trailer record and the closing lines: events captured and lost. */
static void report_counts(struct ct_capture *c)
{
	uint64_t lost = 0, lost_inflight = 0;

	ct_sink_update_lost(c, true);
	if (c->writer || c->decoder)
		ct_sink_trailer(c, &lost, &lost_inflight);
	if (c->unwinder)   /* -k: lines kept for the next capture, the cache under its bound */
		ct_unwinder_keep_cache(c->unwinder);
	if (c->output_closed)   /* | head: quiet, as strace is */
		return;
	ct_status_report(c, lost, lost_inflight);
	ct_reader_report(c);
}

/* Stops the command if the capture failed or was interrupted, frees
 * everything; the return code, which a file that failed to close makes 1. */
static int teardown(struct ct_capture *c, int go_fd, int rc)
{
	if (go_fd >= 0)
		close(go_fd);   /* the child sees EOF and exits */
	if (!c->timed_out)   /* -d ran out: the command goes on */
		ct_child_wait(&c->child, rc != 0 || ct_stop_signal());
	ct_reader_free(c);
	ct_unwinder_free(c->unwinder);
	ct_python_free(c->python);
	ct_stack_tally_free(c->stack_tally);
	ct_knames_free(c->knames);
	rc = ct_sink_close(c, rc);
	ct_bpf_unload(c->skel);
	free(c->procbuf);
	ct_pids_close(c->o, c->pidfds);
	return c->sink_error ? 1 : rc;
}

int ct_capture_run(const struct ct_options *o)
{
	struct ct_capture c = { .o = o, .child = { .pid = -1 } };
	int go_fd = -1, rc = 1;

	for (int i = 0; i < CT_MAX_PIDS; i++)
		c.pidfds[i] = -1;
	sem_init(&c.reader_started, 0, 0);
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
	ct_signals_catch(o->command != NULL);
	/* test hooks (docs/GPUWORK.md, "Test hooks") */
	if (getenv("CT_TEST_SLOW_RECORD_US"))
		c.slow_record_us = strtoull(getenv("CT_TEST_SLOW_RECORD_US"), NULL, 10);
	if (getenv("CT_TEST_SLOW_GPU_POLL_US"))
		c.slow_poll_us = strtoull(getenv("CT_TEST_SLOW_GPU_POLL_US"), NULL, 10);
	if (start_capture(&c, &go_fd) == 0 && announce_and_go(&c, &go_fd) == 0) {
		rc = run_loop(&c) == 0 ? 0 : 1;
		ct_reader_join(&c);
		report_counts(&c);
	} else {
		ct_reader_stop(&c);
		ct_reader_join(&c);
	}
	rc = teardown(&c, go_fd, rc);
	if (c.output_closed)   /* never "success": the shell's status for SIGPIPE */
		return 128 + SIGPIPE;
	return ct_child_exit_status(&c.child, rc, ct_stop_signal());
}
