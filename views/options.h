/* SPDX-License-Identifier: MIT */
#ifndef CT_OPTIONS_H
#define CT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "filter.h"

#define CT_MAX_PIDS 256
#define CT_GPU_WORK_HZ_DEFAULT 200   /* docs/GPUWORK.md: the measured cost */
#define CT_GPU_WORK_HZ_MAX     1000
#define CT_MAX_USER_DEVICES 64

struct ct_options {
	uint32_t pids[CT_MAX_PIDS];
	int npids;
	const char *devices[CT_MAX_USER_DEVICES];
	int ndevices;
	char **command;          /* -- COMMAND ARGS, NULL-terminated */
	const char *write_path;  /* -w */
	const char *cgroup;      /* --cgroup: a cgroup v2 directory */
	bool compress;           /* -z */
	uint64_t max_size;       /* --max-size: bytes per trace file, 0 = no limit */
	unsigned rotate;         /* --rotate N: keep N files FILE.0, FILE.1, ... */
	const char *read_path;   /* -r */
	bool allow_partial;      /* --allow-partial: a trace cut short (no trailer) exits 0 */
	const char *kernels_of;  /* --kernels-of */
	const char *out_path;    /* -o */
	FILE *out;               /* decoded output: stdout, or -o (close-on-exec) */
	bool json;
	int timestamps;          /* -t, -tt, -ttt */
	bool durations;          /* -T */
	int color;               /* --color: -1 auto, 0 never, 1 always */
	bool follow_forks;
	bool libbpf_debug;       /* -v also turns on libbpf's own output */
	int verbose;
	uint32_t nest_max;       /* -s */
	uint32_t ringbuf_mb;     /* -b */
	double duration;         /* -d, 0 = until stopped */
	const char *cmdline;     /* our own argv, for the trace header */
	const char *proc_root;   /* "/proc" */
	const char *dev_root;    /* "/dev" */
	int summary;             /* -c 1: the table alone, -C 2: events and the table */
	bool summary_by_pid;     /* --summary-by=pid */
	bool summary_by_gpu;     /* --summary-by=gpu */
	bool summary_by_kernel;  /* --summary-by=kernel: the kernels table even with no name */
	int summary_by_api;      /* --summary-by=api, caller (-k), py: enum ct_apisum_by */
	const char *perfetto_path;  /* --perfetto FILE */
	struct ct_filter *filter;   /* -e, --failed, --tid, --comm (filter.h); NULL: none */
	const char *sqlite_path;    /* --sqlite OUT.db */
	const char *host;           /* --host NAME: the host column of --sqlite */
	bool sqlite_again;          /* --sqlite-again: add a trace the database holds already */
	const char *metrics_addr;   /* --metrics ADDR:PORT */
	bool metrics_no_pid;        /* --metrics-no-pid */
	uint32_t metrics_max_series;   /* --metrics-max-series N */
	uint32_t metrics_kernels;      /* --metrics-kernels N */
	uint32_t stack_bytes;    /* -k[=BYTES]: user stack bytes per call, 0 = no stacks */
	uint32_t stack_main_bytes; /* ... of a main thread's, copied whole up to this deep:
				    * CT_STACK_MAIN, or BYTES where -k gives it */
	const char *api_lib;     /* --api-lib GLOB: the driver library for api/caller */
	bool py_stack;           /* --py-stack (and -k): the Python frames of each call */
	bool py_stack_asked;     /* --py-stack itself, not only -k: a run without CPython
				  * says so at the end */
	const char *py_user;     /* --py-user GLOB: the files that are the user's code */
	const char *compat;      /* --compat=gvisor[:VERSION] (views/compat/report.h) */
	const char *compat_caps; /* --compat-caps LIST */
	const char *run_as;      /* -u USER: the command runs as USER */
	uint32_t gpu_work_hz;    /* --gpu-work[=HZ]: ring polls per second, 0 = off */
};

/* The decoder's options (format, time stamps, colour) from the command line. */
struct ct_decode_opts ct_decode_opts_from(const struct ct_options *o);

#endif
