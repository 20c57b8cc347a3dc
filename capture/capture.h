/* SPDX-License-Identifier: MIT */
/*
 * Inside the live capture: the state its files share.  main.c starts it
 * with ct_capture_run (capture_run.h); only capture/capture*.c include this.
 *
 *   capture.c          start, the poll loop, stop: ring buffer -> record
 *                      checks -> stacks, Python frames, GPU work -> the sink
 *   capture_sink.c     where records go: the trace file (-w: header,
 *                      --max-size, --rotate, trailer), the decoder, --metrics
 *   capture_status.c   what it says on stderr: the status line, the counts
 *   capture_targets.c  what is traced: device files, the command, -p, --cgroup
 *   capture_bpf.c      the BPF side: kernel checks, load, maps, counters
 */
#ifndef CT_CAPTURE_H
#define CT_CAPTURE_H

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
	uint64_t events;             /* records received from the kernel */
	int sink_error;              /* -errno from the writer: stop */
	unsigned char *procbuf;
	struct ct_child child;       /* -- COMMAND */
	bool timed_out;              /* -d ran out: leave the command running */
	int pidfds[CT_MAX_PIDS];     /* -p: each process itself, or -1 (no pidfd_open) */
	unsigned file_index;         /* --rotate: number of the file being written */
	uint64_t status_ns, status_events;  /* the status line's last update */
	struct ct_metrics *metrics;  /* --metrics: fed by the decoder, even with -w */
	struct ct_metrics_http *http;
	uint64_t lost_read_ns;       /* when the lost count was last given to it */
};

#endif
