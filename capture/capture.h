/* SPDX-License-Identifier: MIT */
/*
 * Inside the live capture: the state its files share.  main.c starts it
 * with ct_capture_run (capture_run.h); only capture/capture*.c include this.
 *
 *   capture.c          start, the record loop (queue -> stacks, Python
 *                      frames -> the sink), stop
 *   capture_reader.c   the reader thread: ring buffer -> record checks -> GPU
 *                      work -> the queue
 *   record_queue.c     the records between them, in order
 *   capture_sink.c     where records go: the trace file (-w: header,
 *                      --max-size, --rotate, trailer), the decoder, --metrics
 *   capture_status.c   what it says on stderr: the status line, the counts
 *   capture_targets.c  what is traced: device files, the command, -p, --cgroup
 *   capture_signals.c  stop signals, and the command's own dispositions
 *   capture_bpf.c      the BPF side: kernel checks, load, maps, counters
 */
#ifndef CT_CAPTURE_H
#define CT_CAPTURE_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "clock.h"

#include "capture_targets.h"
#include "devices.h"
#include "gpuwork_before.h"
#include "options.h"

struct ct_capture {
	const struct ct_options *o;
	struct cudatrace_bpf *skel;
	struct ring_buffer *rb;
	struct ct_devices devs;
	struct ct_writer *writer;
	struct ct_decoder *decoder;
	struct ct_unwinder *unwinder; /* -k */
	struct ct_python *python;     /* --py-stack (and -k): Python frames */
	struct ct_stack_tally *stack_tally; /* -k: why the stacks end, for the summary */
	struct ct_gpuwork *gpuwork;  /* --gpu-work */
	struct ct_knames *knames;    /* ... its kernel names */
	struct ct_gpuwork_before gw_before;  /* ... processes with channels it cannot follow */
	uint64_t events;             /* records received from the kernel (reader thread:
				      * read with __atomic_load_n elsewhere) */
	/* The reader thread (reader_main in capture.c) takes the kernel's
	 * records and reads the GPU work; the record loop, on the main
	 * thread, takes them from the queue.  Only the record loop calls the
	 * sink, the unwinder and the Python frames; only the reader thread
	 * touches the ring buffer and the GPU-work reader until it is joined. */
	uint64_t events_taken;       /* ... of which the record loop has taken (trailers) */
	struct ct_rq *queue;
	pthread_t reader;
	bool reader_running;
	int reader_wake;             /* eventfd: the record loop asks the reader to stop */
	int reader_error;            /* -errno: reading the ring buffer failed */
	sem_t reader_started;        /* it has its priority and dropped its privileges */
	int reader_drop_err;
	const char *reader_priority; /* "real time", "nice -10", "ordinary" */
	uint64_t slow_record_us;     /* CT_TEST_SLOW_RECORD_US: test hooks (docs/GPUWORK.md) */
	uint64_t slow_poll_us;       /* CT_TEST_SLOW_GPU_POLL_US */
	struct ct_reader_times {     /* CUDATRACE_GPUWORK_COSTS: where the reader's
				      * lateness comes from (reader thread only) */
		bool on;
		uint64_t oversleep_max_ns, oversleeps;   /* woke later than asked, 1 ms+ */
		uint64_t consume_max_ns, poll_max_ns;    /* the longest drain, poll */
	} rt;
	int gw_exit_fd;              /* --gpu-work: the BPF map of rings read at exit */
	int sink_error;              /* -errno from the writer or the output: stop */
	bool output_closed;          /* ... the output was a pipe, closed (| head) */
	unsigned char *procbuf;
	struct ct_child child;       /* -- COMMAND */
	bool timed_out;              /* -d ran out: leave the command running */
	int pidfds[CT_MAX_PIDS];     /* -p: each process itself, or -1 (no pidfd_open) */
	unsigned file_index;         /* --rotate: number of the file being written */
	uint64_t status_ns, status_events;  /* the status line's last update */
	struct ct_metrics *metrics;  /* --metrics: fed by the decoder, even with -w */
	struct ct_metrics_http *http;
	uint64_t lost_read_ns;       /* when the lost count was last given to it */
	uint64_t load_cpu_ns;        /* the BPF programs' load, on this thread's CPU clock:
	                              * nearly all of it the kernel's verifier */
};

#endif
