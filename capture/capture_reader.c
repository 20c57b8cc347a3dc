// SPDX-License-Identifier: MIT
/*
 * The capture's reader thread (capture_reader.h; docs/GPUWORK.md, "A
 * reader nothing can starve"): it takes the kernel's records as they come,
 * shows each to the GPU-work reader, queues it for the record loop
 * (capture.c), and polls the rings that are due, queueing their records
 * behind the kernel's.  It owns the ring buffer, the GPU-work reader and
 * its BPF map until it is joined.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "capture.h"
#include "capture_bpf.h"
#include "capture_reader.h"
#include "gpuwork_reader.h"
#include "knames_live.h"
#include "privs.h"
#include "record.h"
#include "record_queue.h"
#include "msg.h"

/* The reader thread's side: every record the kernel hands over is checked,
 * shown to the GPU-work reader (channels, mappings, forks, exits: learned
 * now, not when the record loop gets to it) and queued. */
static void take_record(struct ct_capture *c, const void *data, size_t len)
{
	const struct ct_rec *r = data;
	const char *bad = ct_record_check(data, len);

	if (bad) {
		ct_err("dropping a malformed record from the kernel: %s\n", bad);
		return;
	}
	__atomic_add_fetch(&c->events, 1, __ATOMIC_RELAXED);
	if (c->gpuwork)
		ct_gpuwork_learn(c->gpuwork, r);
	if (c->knames)   /* while the process lives: the namer runs later */
		ct_knames_watch(c->knames, r, ct_now_ns(CLOCK_MONOTONIC));
	if (r->type != CT_REC_GPU_EXIT)   /* the reader's alone: it sent what it held */
		ct_rq_push(c->queue, r);
}

/* A sample of the ring: its records (a call's Python and native stacks
 * come in one), each checked and taken alone (ct_record_split). */
static int on_record(void *ctx, void *data, size_t len)
{
	const unsigned char *at = data;

	while (len) {
		size_t n = ct_record_split(at, len);

		take_record(ctx, at, n);
		at += n;
		len -= n;
	}
	return 0;
}

/* The GPU-work reader's records (reader thread): queued behind the
 * kernel's records it has taken so far. */
static void gpuwork_sink(void *ctx, const struct ct_rec *r)
{
	struct ct_capture *c = ctx;

	if (c->knames)   /* copies' sources read now: their buffers are reused */
		ct_knames_watch_gpu(c->knames, r);
	ct_rq_push(c->queue, r);
}

/* --gpu-work's drain (gpuwork_reader.h): the records the kernel has now. */
static void drain_kernel_records(void *ctx)
{
	struct ct_capture *c = ctx;

	ring_buffer__consume(c->rb);
}

/* How long the reader may sleep: until the next channel is due, or 100 ms
 * (the kernel wakes it when a quarter of the ring buffer is full, and for
 * the few records the capture acts on at once: a file mapped, a stack
 * copied for a table not built yet.  A sleep that timed out takes what is
 * there, so live output and --metrics lag by at most that). */
static uint64_t reader_sleep_ns(struct ct_capture *c)
{
	uint64_t now = ct_now_ns(CLOCK_MONOTONIC), due, most = 100000000ull;

	if (!c->gpuwork)
		return most;
	due = ct_gpuwork_next_due(c->gpuwork);
	return due <= now ? 0 : due - now < most ? due - now : most;
}

/* Sleeps until the kernel has records, the record loop says stop, or
 * `ns` pass; false once asked to stop. */
static bool reader_wait(struct ct_capture *c, uint64_t ns)
{
	struct pollfd p[2] = { { ring_buffer__epoll_fd(c->rb), POLLIN, 0 },
			       { c->reader_wake, POLLIN, 0 } };
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	if (ppoll(p, 2, &ts, NULL) < 0 && errno != EINTR)
		return true;
	return !(p[1].revents & POLLIN);
}

/*
 * The reader runs ahead of ordinary threads, as the Python prefetch thread
 * does (python.c says why): on a loaded machine a woken thread of ordinary
 * priority can wait longer than a busy ring takes to go round, or than a
 * short program lives.  It sleeps between polls, its work per poll is
 * bounded, and the kernel's real-time throttling bounds it anyway.  Where
 * real time is refused, a nice value of its own.
 */
#define READER_NICE (-10)

static void reader_priority(struct ct_capture *c)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_min(SCHED_FIFO) };

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
		c->reader_priority = "real time";
	else if (setpriority(PRIO_PROCESS, (id_t)gettid(), READER_NICE) == 0)
		c->reader_priority = "nice -10";
	else
		c->reader_priority = "ordinary";
	/* started before the capture drops its privileges: it drops its own */
	c->reader_drop_err = ct_drop_privileges();
	sem_post(&c->reader_started);
}

/* Where a late poll's time went: a wake-up later than asked (the
 * scheduler), or the reader's own drain or poll. */
static void reader_times(struct ct_reader_times *rt, uint64_t ask, uint64_t t0, uint64_t t1,
			 uint64_t t2, uint64_t t3)
{
	uint64_t over = t1 - t0 > ask ? t1 - t0 - ask : 0;

	rt->oversleeps += over >= 1000000ull;
	rt->oversleep_max_ns = over > rt->oversleep_max_ns ? over : rt->oversleep_max_ns;
	rt->consume_max_ns = t2 - t1 > rt->consume_max_ns ? t2 - t1 : rt->consume_max_ns;
	rt->poll_max_ns = t3 - t2 > rt->poll_max_ns ? t3 - t2 : rt->poll_max_ns;
}

static void *reader_main(void *arg)
{
	struct ct_capture *c = arg;
	int err = 0;

	reader_priority(c);

	for (;;) {
		uint64_t ask = reader_sleep_ns(c), t0 = ct_now_ns(CLOCK_MONOTONIC), t1, t2;

		if (!reader_wait(c, ask))
			break;
		t1 = ct_now_ns(CLOCK_MONOTONIC);
		err = ring_buffer__consume(c->rb);
		if (err < 0 && err != -EINTR) {
			__atomic_store_n(&c->reader_error, err, __ATOMIC_RELAXED);
			break;
		}
		t2 = ct_now_ns(CLOCK_MONOTONIC);
		if (c->gpuwork)
			ct_gpuwork_poll_due(c->gpuwork, t2);
		if (c->rt.on)
			reader_times(&c->rt, ask, t0, t1, t2, ct_now_ns(CLOCK_MONOTONIC));
		if (c->slow_poll_us)   /* CT_TEST_SLOW_GPU_POLL_US: a reader busy on purpose */
			usleep((useconds_t)c->slow_poll_us);
	}
	/* Everything the kernel produced before we stopped, and what every
	 * channel put since its last poll. */
	ring_buffer__consume(c->rb);
	if (c->gpuwork)
		ct_gpuwork_poll(c->gpuwork, ct_now_ns(CLOCK_MONOTONIC));
	ct_rq_close(c->queue);
	return NULL;
}

int ct_reader_start(struct ct_capture *c)
{
	sigset_t all, old;
	int err;

	c->reader_wake = eventfd(0, EFD_CLOEXEC);
	if (c->reader_wake < 0) {
		ct_err("cannot make an eventfd: %s\n", strerror(errno));
		return -1;
	}
	/* Signals (Ctrl-C, the command's exit) go to the record loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&c->reader, NULL, reader_main, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		ct_err("cannot start the reader thread: %s\n", strerror(err));
		return -1;
	}
	c->reader_running = true;
	sem_wait(&c->reader_started);
	return 0;
}

void ct_reader_stop(struct ct_capture *c)
{
	uint64_t one = 1;

	if (!c->reader_running)
		return;
	if (write(c->reader_wake, &one, sizeof(one)) != sizeof(one))
		ct_err("cannot wake the reader thread: %s\n", strerror(errno));
}

void ct_reader_join(struct ct_capture *c)
{
	if (c->reader_running)
		pthread_join(c->reader, NULL);
	c->reader_running = false;
}

/* --gpu-work's last look: the rings, in the BPF map the kernel reads at exit. */
static int gw_exit_publish_bpf(void *ctx, const struct ct_gx_key *k, const struct ct_gx_chan *v)
{
	struct ct_capture *c = ctx;

	return bpf_map_update_elem(c->gw_exit_fd, k, v, BPF_ANY) ? -errno : 0;
}

static void gw_exit_unpublish_bpf(void *ctx, const struct ct_gx_key *k)
{
	struct ct_capture *c = ctx;

	bpf_map_delete_elem(c->gw_exit_fd, k);
}

/* How much the queue between the threads may hold: the record loop may
 * fall this far behind (stacks of a busy start-up) before the reader
 * waits for it. */
static size_t queue_limit(const struct ct_options *o)
{
	size_t ring = (size_t)o->ringbuf_mb << 20;

	return ring * 4 > (size_t)256 << 20 ? ring * 4 : (size_t)256 << 20;
}

int ct_reader_setup(struct ct_capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_bpf_fds fds = ct_bpf_fds(c->skel);

	if (o->gpu_work_hz &&
	    !(c->gpuwork = ct_gpuwork_new(o->proc_root, CT_GPU_SEG_POLL, gpuwork_sink, c)))
		return -1;
	c->rt.on = c->gpuwork && ct_gpuwork_costs(c->gpuwork);
	if (!(c->queue = ct_rq_new(queue_limit(o)))) {
		ct_err("out of memory\n");
		return -1;
	}
	c->rb = ring_buffer__new(fds.rb, on_record, c, NULL);
	if (!c->rb) {
		ct_err("cannot set up the ring buffer: %s\n", strerror(errno));
		return -1;
	}
	if (c->gpuwork) {
		ct_gpuwork_set_rate(c->gpuwork, o->gpu_work_hz);
		ct_gpuwork_set_drain(c->gpuwork, drain_kernel_records, c);
		/* gpuwork_sink may be called from several threads at once: the
		 * queue and the kernel namer's copy snapshots take their locks */
		ct_gpuwork_set_workers(c->gpuwork, true);
		c->gw_exit_fd = fds.gw_exit;
		ct_gpuwork_set_exit_map(c->gpuwork, &(struct ct_gpuwork_exit_map){
			gw_exit_publish_bpf, gw_exit_unpublish_bpf, c });
	}
	return 0;
}

void ct_reader_free(struct ct_capture *c)
{
	ring_buffer__free(c->rb);
	c->rb = NULL;
	ct_gpuwork_free(c->gpuwork);
	c->gpuwork = NULL;
	ct_rq_free(c->queue);
	c->queue = NULL;
	if (c->reader_wake > 0)
		close(c->reader_wake);
	c->reader_wake = 0;
}

void ct_reader_report(struct ct_capture *c)
{
	struct ct_rq_stats q = ct_rq_stats(c->queue);

	if (q.waits)
		ct_err("the reader thread waited %llu times (%.1f ms in all) for the "
				"record loop, %llu MiB behind (stacks, Python names or the sink): "
				"meanwhile the kernel's records stayed in the ring buffer%s\n",
			(unsigned long long)q.waits, (double)q.wait_ns / 1e6,
			(unsigned long long)(q.max_bytes >> 20),
			c->gpuwork ? " and the rings were not polled" : "");
	if (q.dropped)
		ct_err("%llu records read after the capture stopped writing "
				"were not written\n", (unsigned long long)q.dropped);
	if (c->rt.on)
		ct_err("gpu-work costs: the reader woke 1 ms or more later than it asked %llu "
			"times, the latest by %.1f ms; its longest drain of the kernel's records "
			"%.1f ms, its longest poll of the rings %.1f ms\n",
			(unsigned long long)c->rt.oversleeps, c->rt.oversleep_max_ns / 1e6,
			c->rt.consume_max_ns / 1e6, c->rt.poll_max_ns / 1e6);
	if (c->gpuwork && c->reader_priority && strcmp(c->reader_priority, "real time"))
		ct_err("gpu-work: the reader thread ran at %s priority (real time "
				"was refused): on a loaded machine its polls may come late\n",
			c->reader_priority);
}
