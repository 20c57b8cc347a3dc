// SPDX-License-Identifier: MIT
/*
 * Every option of cudatrace, once: how it is spelled, what --help, the man
 * page and bash completion say about it, and what it does to the options.
 * To add an option, add a row (and, if it needs one, an apply function).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "apisum.h"
#include "cli_table.h"
#include "metrics.h"
#include "nvtables.h"
#include "version.h"
#include "msg.h"

enum { OPT_DEVICE = 256, OPT_NO_FOLLOW, OPT_COLOR, OPT_COLOUR, OPT_MAX_SIZE, OPT_ROTATE,
       OPT_CGROUP, OPT_SUMMARY_BY, OPT_PERFETTO, OPT_FAILED, OPT_TID, OPT_COMM,
       OPT_SQLITE, OPT_SQLITE_AGAIN, OPT_HOST, OPT_METRICS, OPT_METRICS_NO_PID, OPT_METRICS_MAX,
       OPT_API_LIB, OPT_PY_STACK, OPT_PY_USER, OPT_COMPAT, OPT_COMPAT_CAPS, OPT_GPU_WORK,
       OPT_KERNELS_OF, OPT_METRICS_KERNELS, OPT_ALLOW_PARTIAL };

const char ct_cli_usage[] =
"Usage: cudatrace [OPTIONS] [-- COMMAND [ARGS...]]\n"
"       cudatrace -r FILE [--json] [-v] [-c|-C] [--perfetto OUT.json] [--sqlite OUT.db]\n";

const char ct_cli_intro[] =
"Trace the ioctl and mmap calls that processes make on NVIDIA device nodes\n"
"(/dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm, ...) and decode them.\n"
"Live capture needs root (or CAP_BPF+CAP_PERFMON); -r needs neither.\n";

const char ct_cli_examples[] =
"  sudo cudatrace -- ./saxpy              # trace a CUDA program from its start\n"
"  sudo cudatrace -p 1234,1240            # attach to running processes\n"
"  sudo cudatrace -w gpu.trace -d 60      # whole machine for a minute, to a file\n"
"  cudatrace -r gpu.trace --json | jq .   # decode it later, anywhere, no root\n"
"  cudatrace -r gpu.trace -c              # where the time goes, per escape/control\n"
"  cudatrace -r gpu.trace -e esc=RM_ALLOC,RM_FREE -e 'class=NV01_DEVICE_0'\n"
"  sudo cudatrace --comm python3 --failed # failing calls of python3 processes\n"
"  sudo cudatrace --device /tmp/fake -- ./test   # trace a stand-in file\n"
"  sudo cudatrace -k -w t.ctrace -- ./app # with the call stack of every call\n"
"  cudatrace -r t.ctrace -c --summary-by=api     # per driver entry point\n";

const char *const ct_opt_group_titles[G_COUNT] = {
	[G_TRACE] = "What to trace",
	[G_OUTPUT] = "Output",
	[G_FILTER] = "Filters (with -r or live; all must match; docs/VIEWS.md)",
	[G_VIEW] = "Views (with -r or live; docs/VIEWS.md)",
	[G_STACK] = "Call stacks (docs/VIEWS.md)",
	[G_METRICS] = "Metrics (live capture, with or without -w; docs/CONTAINERS.md)",
	[G_CAPTURE] = "Capture",
	[G_OTHER] = "Other",
};

static int bad_arg(const char *what, const char *arg)
{
	ct_err("%s: %s\nTry 'cudatrace --help'.\n", what, arg);
	return -1;
}

static int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "500M", "2G", "4096": bytes, with K/M/G (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KkMmGg";
	const char *u;
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	if (*end) {
		u = strchr(units, *end);
		if (!u || end[1])
			return -1;
		shift = 10 * (unsigned)(1 + (u - units) / 2);
	}
	if (v == 0 || v > (~0ull >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int apply_str(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	*(const char **)((char *)o + opt->field) = arg;
	return 0;
}

/* "A,B": a comma-separated list, each item non-empty ("A,,B" or "A," is a slip). */
static int apply_list(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	size_t n = strlen(arg);

	if (!n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,")) {
		ct_err("--%s %s: an empty item in the list: give %s\n",
			opt->name, arg, opt->arg);
		return -1;
	}
	return apply_str(o, opt, arg);
}

/* --compat=gvisor[:VERSION]: "gvisor:" names no version. */
static int apply_compat(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	const char *colon = strchr(arg, ':');

	if (colon && !colon[1]) {
		ct_err("--compat=%s names no VERSION: give --compat=gvisor (the latest in the "
			"tables) or --compat=gvisor:VERSION\n", arg);
		return -1;
	}
	return apply_str(o, opt, arg);
}

static int apply_true(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)arg;
	*(bool *)((char *)o + opt->field) = true;
	return 0;
}

static int apply_pids(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

	(void)opt;
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t pid;

		if (parse_u32(tok, 1, INT_MAX, &pid) || o->npids >= CT_MAX_PIDS) {
			rc = bad_arg("Invalid PID", tok);
			break;
		}
		o->pids[o->npids++] = pid;
	}
	free(copy);
	return rc;
}

static int apply_device(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (o->ndevices >= CT_MAX_USER_DEVICES)
		return bad_arg("Too many --device options", arg);
	o->devices[o->ndevices++] = arg;
	return 0;
}

static int apply_no_follow(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt, (void)arg;
	o->follow_forks = false;
	return 0;
}

static int apply_duration(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	char *end;

	(void)opt;
	errno = 0;
	o->duration = strtod(arg, &end);
	if (errno || end == arg || *end || o->duration <= 0)
		return bad_arg("Invalid duration", arg);
	return 0;
}

static int apply_nest(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_u32(arg, 0, CT_NEST_MAX, &o->nest_max))
		return bad_arg("Invalid size (0 to 262144 bytes)", arg);
	return 0;
}

static int apply_buffer(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_u32(arg, 1, 4096, &o->ringbuf_mb) || (o->ringbuf_mb & (o->ringbuf_mb - 1)))
		return bad_arg("Invalid buffer size (a power of two, 1 to 4096 MiB)", arg);
	return 0;
}

static int apply_max_size(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_size(arg, &o->max_size))
		return bad_arg("Invalid --max-size (bytes, or with K, M, G)", arg);
	return 0;
}

static int apply_rotate(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	uint32_t n;

	(void)opt;
	if (parse_u32(arg, 1, 100000, &n))
		return bad_arg("Invalid --rotate (number of files to keep)", arg);
	o->rotate = n;
	return 0;
}

static int apply_timestamps(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt, (void)arg;
	if (o->timestamps < 3)
		o->timestamps++;
	return 0;
}

static int apply_color(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (strcmp(arg, "auto") == 0)
		o->color = -1;
	else if (strcmp(arg, "always") == 0)
		o->color = 1;
	else if (strcmp(arg, "never") == 0)
		o->color = 0;
	else
		return bad_arg("Invalid --color (auto, always or never)", arg);
	return 0;
}

static int apply_verbose(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt, (void)arg;
	o->verbose++;
	o->libbpf_debug = true;
	return 0;
}

/* -c: the table alone; -C: the events, then the table. */
static int apply_summary(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)arg;
	o->summary = opt->key == 'c' ? 1 : 2;
	return 0;
}

static int apply_summary_by(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (strcmp(arg, "pid") == 0)
		o->summary_by_pid = true;
	else if (strcmp(arg, "gpu") == 0)
		o->summary_by_gpu = true;
	else if (strcmp(arg, "api") == 0)
		o->summary_by_api = CT_SUM_BY_API;
	else if (strcmp(arg, "caller") == 0)
		o->summary_by_api = CT_SUM_BY_CALLER;
	else if (strcmp(arg, "py") == 0)
		o->summary_by_api = CT_SUM_BY_PY;
	else if (strcmp(arg, "kernel") == 0)
		o->summary_by_kernel = true;
	else
		return bad_arg("Invalid --summary-by (pid, gpu, api, caller, py or kernel)", arg);
	return 0;
}

/* -k[BYTES], --stack[=BYTES] */
static int apply_stack(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	o->stack_bytes = CT_STACK_DEFAULT;
	o->stack_main_bytes = CT_STACK_MAIN;
	o->py_stack = true;      /* where the process runs CPython: its frames too */
	if (arg && (parse_u32(arg[0] == '=' ? arg + 1 : arg, 64, CT_STACK_MAX, &o->stack_bytes) ||
		    (o->stack_bytes & 7)))
		return bad_arg("Invalid -k/--stack size (bytes, a multiple of 8, 64 to 65536)",
			       arg);
	if (arg)   /* BYTES given: it bounds every copy */
		o->stack_main_bytes = o->stack_bytes;
	return 0;
}

/* --py-stack: as -k's Python frames, and asked for by name */
static int apply_py_stack(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	(void)arg;
	o->py_stack = o->py_stack_asked = true;
	return 0;
}

/* --gpu-work[=HZ] */
static int apply_gpu_work(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	o->gpu_work_hz = CT_GPU_WORK_HZ_DEFAULT;
	if (arg && parse_u32(arg, 1, CT_GPU_WORK_HZ_MAX, &o->gpu_work_hz))
		return bad_arg("Invalid --gpu-work rate (polls per second, 1 to 1000)", arg);
	return 0;
}

static int apply_max_series(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_u32(arg, 1, 10000000, &o->metrics_max_series))
		return bad_arg("Invalid --metrics-max-series (1 to 10000000)", arg);
	return 0;
}

static int apply_metrics_kernels(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)opt;
	if (parse_u32(arg, 1, 10000, &o->metrics_kernels))
		return bad_arg("Invalid --metrics-kernels (1 to 10000)", arg);
	return 0;
}

static int apply_metrics(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	struct ct_metrics_addr a;

	(void)opt;
	if (ct_metrics_addr_parse(arg, &a))
		return bad_arg("Invalid --metrics (ADDR:PORT with a numeric address or localhost: "
			       "127.0.0.1:9400, localhost:9400, :9400 for every IPv4 address, "
			       "[::1]:9400)", arg);
	o->metrics_addr = arg;
	return 0;
}

/* -e, --failed, --tid, --comm: filter.c parses them, by their spelling. */
static int apply_filter(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	char spelling[32];

	if (opt->name)
		snprintf(spelling, sizeof(spelling), "--%s", opt->name);
	else
		snprintf(spelling, sizeof(spelling), "-%c", opt->key);
	return ct_filter_parse(&o->filter, spelling, arg);
}

static int apply_help(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)o, (void)opt;
	if (!arg || strcmp(arg, "text") == 0)
		ct_cli_help(stdout);
	else if (strcmp(arg, "man") == 0)
		ct_cli_man(stdout);
	else if (strcmp(arg, "bash") == 0)
		ct_cli_completion(stdout);
	else
		return bad_arg("Invalid --help format (text, man or bash)", arg);
	exit(0);
}

static int apply_version(struct ct_options *o, const struct ct_opt *opt, const char *arg)
{
	(void)o, (void)opt, (void)arg;
	printf("cudatrace %s (NVIDIA name tables from driver %s)\n", CUDATRACE_VERSION,
	       nv_tables_tag);
	exit(0);
}

/* The -s help states these numbers; change both together. */
_Static_assert(CT_NEST_DEFAULT == 8192 && CT_NEST_MAX == 262144, "update the -s help text");
_Static_assert(CT_STACK_DEFAULT == 32768 && CT_STACK_MAX == 65536 && CT_STACK_MAIN == 262144,
	       "update the -k help text");
_Static_assert(CT_KSTACK_FRAMES == 256 && CT_KSTACK_BYTES == 8u << 20, "update the -k help text");

#define FIELD(f) offsetof(struct ct_options, f)
#define REQ required_argument
#define NO no_argument

const struct ct_opt ct_opts[] = {
	{ "pid", 'p', REQ, "PID[,PID...]", NULL, G_TRACE,
	  "attach to running processes (repeatable); the capture ends when they have all exited",
	  C_PID, NULL, apply_pids, .live = 1, .repeat = 1 },
	{ NULL, 0, NO, NULL, "-- COMMAND [ARGS]", G_TRACE,
	  "start COMMAND and trace it from its first instruction (neither -p nor a command: "
	  "every process on the machine)" },
	{ "user", 'u', REQ, "USER", NULL, G_TRACE,
	  "run COMMAND as USER (a name or a uid), with USER's groups, as strace -u does",
	  C_NONE, NULL, apply_str, FIELD(run_as), .live = 1 },
	{ "no-follow", OPT_NO_FOLLOW, NO, NULL, NULL, G_TRACE,
	  "do not follow children of traced processes", C_NONE, NULL, apply_no_follow,
	  .live = 1 },
	{ "cgroup", OPT_CGROUP, REQ, "DIR", NULL, G_TRACE,
	  "only processes in this cgroup v2 directory (a container, a pod) or below it; "
	  "checked in the kernel", C_DIR, NULL, apply_str, FIELD(cgroup), .live = 1 },
	{ "device", OPT_DEVICE, REQ, "PATH", NULL, G_TRACE,
	  "also trace calls on PATH, a device node (matched by device number) or any file "
	  "(by inode); repeatable", C_FILE, NULL, apply_device, .live = 1, .repeat = 1 },
	{ "duration", 'd', REQ, "SECONDS", NULL, G_TRACE,
	  "stop after SECONDS (a command started by cudatrace goes on running)",
	  C_NONE, NULL, apply_duration, .live = 1 },

	{ "write", 'w', REQ, "FILE", NULL, G_OUTPUT,
	  "write a binary trace to FILE (created 0600: it holds process memory; a symbolic "
	  "link is refused); docs/FORMAT.md", C_FILE, NULL, apply_str, FIELD(write_path),
	  .live = 1 },
	{ NULL, 'z', NO, NULL, NULL, G_OUTPUT,
	  "compress the -w trace with zstd (-r reads both)",
	  C_NONE, NULL, apply_true, FIELD(compress), .live = 1 },
	{ "max-size", OPT_MAX_SIZE, REQ, "SIZE", NULL, G_OUTPUT,
	  "-w: stop when the file reaches SIZE bytes on disk (with -z, compressed ones; "
	  "suffix K, M or G) ...",
	  C_NONE, NULL, apply_max_size, .live = 1 },
	{ "rotate", OPT_ROTATE, REQ, "N", NULL, G_OUTPUT,
	  "... or go on in FILE.0, FILE.1, ..., keeping the last N; each file decodes on "
	  "its own", C_NONE, NULL, apply_rotate, .live = 1 },
	{ "kernels-of", OPT_KERNELS_OF, REQ, "FILE", NULL, G_OUTPUT,
	  "list the GPU functions in the fatbins of FILE (an executable or a library), as "
	  "--gpu-work's kernel names look them up: a line per file (functions, cubins, "
	  "architectures, what indexing them cost in time and memory); with -v a line per "
	  "function (architecture, bytes, name)", C_FILE, NULL, apply_str, FIELD(kernels_of) },
	{ "read", 'r', REQ, "FILE", NULL, G_OUTPUT,
	  "decode a saved trace, plain or compressed (\"-\" for stdin); a cut or damaged "
	  "file is decoded up to its last good record, then exits 1 (see --allow-partial); "
	  "options that change a capture (-k, "
	  "-z, -d, -s, -b, -p, --device, ...) are refused with it", C_FILE, NULL, apply_str,
	  FIELD(read_path) },
	{ "allow-partial", OPT_ALLOW_PARTIAL, NO, NULL, NULL, G_OUTPUT,
	  "-r: a trace without its trailer (the capture was killed, ran out of disk, or is "
	  "still writing) exits 0, not 1, wherever it ends (at a record or inside one); "
	  "what it lacks is still said. A damaged trace still exits 1",
	  C_NONE, NULL, apply_true, FIELD(allow_partial) },
	{ "output", 'o', REQ, "FILE", NULL, G_OUTPUT,
	  "write decoded output to FILE instead of stdout (\"-\": stdout); an output that "
	  "is the trace -r reads is refused",
	  C_FILE, NULL, apply_str, FIELD(out_path) },
	{ "json", 'j', NO, NULL, NULL, G_OUTPUT,
	  "JSON Lines, one object per event: the decoded fields as values, the raw buffers "
	  "(arg_in, arg_out, nested_in, nested_out) in hex", C_NONE, NULL, apply_true,
	  FIELD(json) },
	{ NULL, 't', NO, NULL, "-t, -tt, -ttt", G_OUTPUT,
	  "wall-clock time stamps, as strace prints them (default: seconds since the start "
	  "of the capture)", C_NONE, NULL, apply_timestamps },
	{ NULL, 'T', NO, NULL, NULL, G_OUTPUT, "show the time spent in each call",
	  C_NONE, NULL, apply_true, FIELD(durations) },
	{ "color", OPT_COLOR, REQ, "WHEN", "--color=WHEN", G_OUTPUT,
	  "colour the text: auto (a terminal), always, never",
	  C_WORDS, "auto always never", apply_color },
	{ "colour", OPT_COLOUR, REQ, "WHEN", NULL, G_OUTPUT, NULL,
	  C_WORDS, "auto always never", apply_color, 0, 1 },
	{ "verbose", 'v', NO, NULL, NULL, G_OUTPUT,
	  "text: also decode the nested params (RM control, allocation); -vv adds hex dumps "
	  "of every buffer; live: also show libbpf's own messages",
	  C_NONE, NULL, apply_verbose },

	{ NULL, 'e', REQ, "KEY=PAT[,PAT...]", NULL, G_FILTER,
	  "only calls whose KEY matches one PAT (a name, a shell pattern, or 0xHEX); "
	  "repeatable. KEY: esc (NV_ESC_*), ctrl (RM control), class (RM_ALLOC), uvm (UVM "
	  "request), syscall (ioctl, mmap, munmap), status (NV_STATUS written back, e.g. "
	  "'NV_ERR_*'), api and caller (traces taken with -k: the driver entry point, the "
	  "function that called it), kernel (--gpu-work: only launches of kernels whose name, "
	  "demangled or mangled, matches; no call, no other GPU work)", C_WORDS,
	  "esc= ctrl= class= uvm= syscall= status= api= caller= kernel=", apply_filter,
	  .repeat = 1 },
	{ "failed", OPT_FAILED, NO, NULL, NULL, G_FILTER,
	  "only failed calls (ret != 0 or NV_STATUS != NV_OK)", C_NONE, NULL, apply_filter },
	{ "tid", OPT_TID, REQ, "TID[,TID...]", NULL, G_FILTER,
	  "only these threads (-t is strace's time stamps)", C_NONE, NULL, apply_filter,
	  .repeat = 1 },
	{ "comm", OPT_COMM, REQ, "NAME[,NAME]", NULL, G_FILTER,
	  "only threads of this name (exact: also checked in the kernel; or a shell "
	  "pattern)", C_PNAME, NULL, apply_filter, .repeat = 1 },

	{ NULL, 'c', NO, NULL, NULL, G_VIEW,
	  "only a table, as strace -c: calls, errors, latency (total, mean, p50, p99, max) "
	  "per escape, RM control and UVM request, and mmap/munmap (JSON rows with -j); "
	  "then the device memory each process held per GPU and kind (video, system, "
	  "virtual): at the end, its peak and when, the largest allocations and the RM "
	  "objects that hold them", C_NONE, NULL, apply_summary },
	{ NULL, 'C', NO, NULL, NULL, G_VIEW, "the events, then the table (with -c: the last one given wins, and says so)",
	  C_NONE, NULL, apply_summary },
	{ "summary-by", OPT_SUMMARY_BY, REQ, "pid|gpu|api|caller|py|kernel",
	  "--summary-by=pid|gpu|api|caller|py|kernel", G_VIEW,
	  "one table per process, or per GPU (the device node, or the device that owns the "
	  "RM objects a call names); api, caller: one row per driver entry point, or per "
	  "function that called the driver library (traces taken with -k); py: one row per "
	  "line of the user's Python code (traces taken with -k or --py-stack); kernel: the "
	  "table of kernels launched (--gpu-work), even when no launch was named (it is "
	  "printed whenever one was)",
	  C_WORDS, "pid gpu api caller py kernel", apply_summary_by, .repeat = 1 },
	{ "perfetto", OPT_PERFETTO, REQ, "FILE", NULL, G_VIEW,
	  "also write FILE (\"-\": stdout, alone), a Perfetto/Chrome trace-event JSON "
	  "timeline (open it in ui.perfetto.dev, or offline in Chromium's DevTools: "
	  "Performance, Load trace), with a calls/s and a device memory counter per process; "
	  "written whole or not at all", C_FILE, NULL, apply_str, FIELD(perfetto_path) },
	{ "sqlite", OPT_SQLITE, REQ, "FILE", NULL, G_VIEW,
	  "also add every call (with its stack), process, RM object, mmap and the trace "
	  "header to the SQLite database FILE (created whole, or appended to: each trace "
	  "gets a new traces.id, every row a trace_id and a host; docs/SQLITE.md)", C_FILE, NULL, apply_str, FIELD(sqlite_path) },
	{ "sqlite-again", OPT_SQLITE_AGAIN, NO, NULL, NULL, G_VIEW,
	  "add the trace to --sqlite's database even if it holds it already (recognised by "
	  "its trace id; refused otherwise)", C_NONE, NULL, apply_true, FIELD(sqlite_again) },
	{ "host", OPT_HOST, REQ, "NAME", NULL, G_VIEW,
	  "the host column of --sqlite (default: the host name in the trace header)",
	  C_NONE, NULL, apply_str, FIELD(host) },

	{ "compat", OPT_COMPAT, REQ, "gvisor[:VERSION]", "--compat=gvisor[:VERSION]", G_VIEW,
	  "instead of the calls, a report: would they run under gVisor's nvproxy (runsc "
	  "--nvproxy)? One row per device, kind and number with nvproxy's verdict, against "
	  "the latest gVisor release in the tables or VERSION (a snapshot id or commit); "
	  "exit status 0 if clean, 1 if something would be refused (docs/COMPAT.md)",
	  C_WORDS, "gvisor", apply_compat, FIELD(compat) },
	{ "compat-caps", OPT_COMPAT_CAPS, REQ, "LIST", NULL, G_VIEW,
	  "the driver capabilities runsc would enable, for --compat (default nvproxy's: "
	  "compute,utility; e.g. compute,utility,video or all)",
	  C_WORDS, "compute utility graphics video all", apply_list, FIELD(compat_caps) },

	{ "metrics", OPT_METRICS, REQ, "ADDR:PORT", NULL, G_METRICS,
	  "serve Prometheus metrics at http://ADDR:PORT/metrics (a numeric address or "
	  "localhost; :9400 every IPv4 address, [::1]:9400 IPv6): calls, errors, latency, "
	  "device memory held since the capture began, events lost; by request, GPU, process "
	  "name, container and pod (from the cgroup)", C_NONE, NULL, apply_metrics, .live = 1 },
	{ "metrics-no-pid", OPT_METRICS_NO_PID, NO, NULL, NULL, G_METRICS,
	  "leave the pid label out of the device memory series",
	  C_NONE, NULL, apply_true, FIELD(metrics_no_pid), .live = 1 },
	{ "metrics-max-series", OPT_METRICS_MAX, REQ, "N", NULL, G_METRICS,
	  "at most N series (default 10000); updates beyond are counted in "
	  "cudatrace_metrics_series_dropped_total", C_NONE, NULL, apply_max_series, .live = 1 },
	{ "metrics-kernels", OPT_METRICS_KERNELS, REQ, "N", NULL, G_METRICS,
	  "with --gpu-work, also cudatrace_gpu_kernel_launches_total with a kernel label: the "
	  "first N kernels each process launches have their own series, the rest are summed "
	  "in kernel=\"(other)\" (a name per series would let kernels fill the store)",
	  C_NONE, NULL, apply_metrics_kernels, .live = 1 },

	{ "stack", 'k', optional_argument, "BYTES", "-k, --stack[=BYTES]", G_STACK,
	  "keep the call stack of each traced call: walked in the kernel from unwind "
	  "tables built from each file's CFI, to its end (at most 256 frames and 8 MiB "
	  "above the stack pointer, whatever BYTES); a stack through code the tables do "
	  "not cover yet is copied instead, BYTES of it from the stack pointer (at most "
	  "65536; without BYTES, 32768, and a main thread's stack whole where it is at "
	  "most 262144 deep), and unwound here; named on this machine and "
	  "stored in the trace: each call shows its frames, as strace -k, and [api <- "
	  "caller]; a stack that ends in the driver library says why ([cuInit <- stack "
	  "copy too short: -k65536], no CFI, bad stack read, frame limit, stack deeper "
	  "than 8 MiB, driver thread), and the end of the capture counts the stacks by "
	  "why they end",
	  C_NONE, NULL, apply_stack, .live = 1 },
	{ "api-lib", OPT_API_LIB, REQ, "GLOB[,GLOB]", NULL, G_STACK,
	  "the driver libraries whose exported function is a call's api (default "
	  "'libcuda.so*,libnvidia-ml.so*'); given at capture, it is kept in the trace and "
	  "holds at -r unless -r gives its own", C_NONE, NULL, apply_list, FIELD(api_lib) },
	{ "py-stack", OPT_PY_STACK, NO, NULL, NULL, G_STACK,
	  "keep the Python frames of each traced call of a process that runs CPython "
	  "3.10-3.14 (the calling thread's own frames, whether or not it holds the GIL), "
	  "named on this machine: file, line and function; without -k, no native stack "
	  "(cheaper). -k does this too", C_NONE, NULL, apply_py_stack,
	  .live = 1 },
	{ "py-user", OPT_PY_USER, REQ, "GLOB[,GLOB]", NULL, G_STACK,
	  "the Python files that are the user's code, for the Python frame a call is "
	  "charged to (default: any file not under site-packages, dist-packages or "
	  "lib/python3.X, and not <frozen ...>)", C_FILE, NULL, apply_list, FIELD(py_user) },

	{ "gpu-work", OPT_GPU_WORK, optional_argument, "HZ", "--gpu-work[=HZ]", G_CAPTURE,
	  "live: also read the work the traced processes give the GPU (kernel launches, "
	  "copies, semaphores) from their channels' GPFIFO rings and pushbuffers, through "
	  "/proc/PID/mem (docs/GPUWORK.md): an idle ring HZ times a second (default 200, at "
	  "most 1000), a busy one faster, up to 1000, before it can go round; the work put "
	  "last before a process exits is read by the kernel as it exits; "
	  "channels a process made before the capture began (-p) cannot be found and are "
	  "not followed, which the capture says",
	  C_NONE, NULL, apply_gpu_work },
	{ "size", 's', REQ, "BYTES", NULL, G_CAPTURE,
	  "capture at most BYTES of each nested buffer (RM control params, allocation "
	  "params, the buffer of NV_ESC_IOCTL_XFER_CMD; default 8192, at most 262144); cut "
	  "buffers are marked", C_NONE, NULL, apply_nest, .live = 1 },
	{ "buffer", 'b', REQ, "MB", NULL, G_CAPTURE,
	  "ring buffer size in MiB, a power of two (default 64); events that do not fit "
	  "are counted as lost, never dropped silently", C_NONE, NULL, apply_buffer, .live = 1 },

	{ "help", 'h', optional_argument, "FORMAT", "-h, --help[=FORMAT]", G_OTHER,
	  "this help; FORMAT man or bash prints the man page's options or a bash "
	  "completion script, made from the same table", C_WORDS, "text man bash",
	  apply_help },
	{ "version", 'V', NO, NULL, NULL, G_OTHER,
	  "version and the driver tag of the name tables", C_NONE, NULL, apply_version },
};

const size_t ct_nopts = sizeof(ct_opts) / sizeof(ct_opts[0]);
