// SPDX-License-Identifier: MIT
/* cudatrace: trace what programs say to the NVIDIA GPU driver. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudatrace.h"
#include "decode.h"
#include "nvtables.h"
#include "options.h"
#include "record.h"
#include "trace_file.h"
#include "version.h"
#include "views.h"

static const char usage[] =
"Usage: cudatrace [OPTIONS] [-- COMMAND [ARGS...]]\n"
"       cudatrace -r FILE [--json] [-v] [-c|-C] [--perfetto OUT.json]\n"
"\n"
"Trace the ioctl and mmap calls that processes make on NVIDIA device nodes\n"
"(/dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm, ...) and decode them.\n"
"Live capture needs root (or CAP_BPF+CAP_PERFMON); -r needs neither.\n"
"\n"
"What to trace:\n"
"  -p, --pid PID[,PID...]   attach to running processes (repeatable)\n"
"  -- COMMAND [ARGS]        start COMMAND and trace it from its first instruction\n"
"                           (neither: every process on the machine)\n"
"      --no-follow          do not follow children of traced processes\n"
"      --cgroup DIR         only processes in this cgroup v2 (a container, a\n"
"                           pod) or below it; checked in the kernel\n"
"      --device PATH        also trace calls on PATH (device node or any file;\n"
"                           repeatable)\n"
"Output:\n"
"  -w, --write FILE         write a binary trace to FILE (created 0600)\n"
"  -z                       compress the -w trace with zstd (-r reads both)\n"
"      --max-size SIZE      -w: stop when the file reaches SIZE (K, M, G) ...\n"
"      --rotate N           ... or go on in FILE.0, FILE.1, ..., keeping the last N\n"
"  -r, --read FILE          decode a saved trace (\"-\" for stdin)\n"
"  -o, --output FILE        write decoded output to FILE instead of stdout\n"
"  -j, --json               JSON Lines, one object per event\n"
"  -t, -tt, -ttt            wall-clock time stamps, as strace (default: seconds\n"
"                           since the start of the capture)\n"
"  -T                       show the time spent in each call\n"
"      --color=WHEN         colour the text: auto (a terminal), always, never\n"
"  -v, --verbose            text: also dump nested params; -vv every buffer;\n"
"                           live: also show libbpf's own messages\n"
"Filters (with -r or live; all must match; docs/VIEWS.md):\n"
"  -e KEY=PAT[,PAT...]      only calls whose KEY matches one PAT (a name, a\n"
"                           shell pattern, or 0xHEX); repeatable. KEY: esc\n"
"                           (NV_ESC_*), ctrl (RM control), class (RM_ALLOC),\n"
"                           uvm (UVM request), syscall (ioctl, mmap, munmap),\n"
"                           status (NV_STATUS written back, e.g. 'NV_ERR_*')\n"
"      --failed             only failed calls (ret != 0 or NV_STATUS != NV_OK)\n"
"      --tid TID[,TID...]   only these threads (-t is strace's time stamps)\n"
"      --comm NAME[,NAME]   only threads of this name (exact: also in the kernel;\n"
"                           or a shell pattern)\n"
"Views (with -r or live; docs/VIEWS.md):\n"
"  -c                       only a table, as strace -c: calls, errors, latency\n"
"                           (total, mean, p50, p99, max) per escape, RM control\n"
"                           and UVM request, and mmap/munmap (JSON rows with -j)\n"
"  -C                       the events, then the table\n"
"      --summary-by=pid|gpu one table per process, or per GPU\n"
"      --perfetto FILE      also write FILE, a Perfetto/Chrome trace-event JSON\n"
"                           (open it in ui.perfetto.dev or chrome://tracing)\n"
"Capture:\n"
"  -s, --size BYTES         capture at most BYTES of each nested buffer\n"
"                           (default %u, at most %u)\n"
"  -b, --buffer MB          ring buffer size in MiB, a power of two (default 64)\n"
"  -d, --duration SECONDS   stop after SECONDS\n"
"  -h, --help               this help\n"
"  -V, --version            version and the driver tag of the name tables\n"
"\n"
"Examples:\n"
"  sudo cudatrace -- ./saxpy              # trace a CUDA program from its start\n"
"  sudo cudatrace -p 1234,1240            # attach to running processes\n"
"  sudo cudatrace -w gpu.trace -d 60      # whole machine for a minute, to a file\n"
"  cudatrace -r gpu.trace --json | jq .   # decode it later, anywhere, no root\n"
"  cudatrace -r gpu.trace -c              # where the time goes, per escape/control\n"
"  cudatrace -r gpu.trace -e esc=RM_ALLOC,RM_FREE -e 'class=NV01_DEVICE_0'\n"
"  sudo cudatrace --comm python3 --failed # failing calls of python3 processes\n"
"  sudo cudatrace --device /tmp/fake -- ./test   # trace a stand-in file\n";

static void print_usage(FILE *f)
{
	fprintf(f, usage, CT_NEST_DEFAULT, CT_NEST_MAX);
}

static int bad_arg(const char *what, const char *arg)
{
	fprintf(stderr, "cudatrace: %s: %s\nTry 'cudatrace --help'.\n", what, arg);
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
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || s[0] == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	else if (*end)
		return -1;
	if (shift && end[1])
		return -1;
	if (v == 0 || v > (~0ull >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int parse_pids(struct ct_options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int rc = 0;

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

/* Our own command line, kept in the trace header. */
static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		strcat(s, argv[i]);
		if (i + 1 < argc)
			strcat(s, " ");
	}
	return s;
}

enum { OPT_DEVICE = 256, OPT_NO_FOLLOW, OPT_COLOR, OPT_MAX_SIZE, OPT_ROTATE, OPT_CGROUP,
       OPT_SUMMARY_BY, OPT_PERFETTO, OPT_FAILED, OPT_TID, OPT_COMM };

static int parse_args(int argc, char **argv, struct ct_options *o)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "write", required_argument, NULL, 'w' },
		{ "read", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "size", required_argument, NULL, 's' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "duration", required_argument, NULL, 'd' },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "cgroup", required_argument, NULL, OPT_CGROUP },
		{ "rotate", required_argument, NULL, OPT_ROTATE },
		{ "colour", required_argument, NULL, OPT_COLOR },
		{ "summary-by", required_argument, NULL, OPT_SUMMARY_BY },
		{ "perfetto", required_argument, NULL, OPT_PERFETTO },
		{ "failed", no_argument, NULL, OPT_FAILED },
		{ "tid", required_argument, NULL, OPT_TID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "+p:w:r:o:jvs:b:d:hVtTzcCe:", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_pids(o, optarg))
				return -1;
			break;
		case 'w':
			o->write_path = optarg;
			break;
		case 'r':
			o->read_path = optarg;
			break;
		case 'o':
			o->out_path = optarg;
			break;
		case 'z':
			o->compress = true;
			break;
		case 't':
			if (o->timestamps < 3)
				o->timestamps++;
			break;
		case 'T':
			o->durations = true;
			break;
		case OPT_CGROUP:
			o->cgroup = optarg;
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &o->max_size))
				return bad_arg("Invalid --max-size (bytes, or with K, M, G)", optarg);
			break;
		case OPT_ROTATE: {
			uint32_t n;

			if (parse_u32(optarg, 1, 100000, &n))
				return bad_arg("Invalid --rotate (number of files to keep)", optarg);
			o->rotate = n;
			break;
		}
		case OPT_COLOR:
			if (strcmp(optarg, "auto") == 0)
				o->color = -1;
			else if (strcmp(optarg, "always") == 0)
				o->color = 1;
			else if (strcmp(optarg, "never") == 0)
				o->color = 0;
			else
				return bad_arg("Invalid --color (auto, always or never)", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->verbose++;
			o->libbpf_debug = o->verbose >= 1;
			break;
		case 's':
			if (parse_u32(optarg, 0, CT_NEST_MAX, &o->nest_max))
				return bad_arg("Invalid size (0 to 262144 bytes)", optarg);
			break;
		case 'b':
			if (parse_u32(optarg, 1, 4096, &o->ringbuf_mb) ||
			    (o->ringbuf_mb & (o->ringbuf_mb - 1)))
				return bad_arg("Invalid buffer size (a power of two, 1 to 4096 MiB)",
					       optarg);
			break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || o->duration <= 0)
				return bad_arg("Invalid duration", optarg);
			break;
		case OPT_DEVICE:
			if (o->ndevices >= CT_MAX_USER_DEVICES)
				return bad_arg("Too many --device options", optarg);
			o->devices[o->ndevices++] = optarg;
			break;
		case OPT_NO_FOLLOW:
			o->follow_forks = false;
			break;
		case 'c':
			o->summary = 1;
			break;
		case 'C':
			o->summary = 2;
			break;
		case OPT_SUMMARY_BY:
			if (strcmp(optarg, "pid") == 0)
				o->summary_by_pid = true;
			else if (strcmp(optarg, "gpu") == 0)
				o->summary_by_gpu = true;
			else
				return bad_arg("Invalid --summary-by (pid or gpu)", optarg);
			break;
		case OPT_PERFETTO:
			o->perfetto_path = optarg;
			break;
		case 'e':
		case OPT_FAILED:
		case OPT_TID:
		case OPT_COMM:
			if (ct_filter_parse(&o->filter, c == 'e' ? "-e" : c == OPT_FAILED ? "--failed" :
					    c == OPT_TID ? "--tid" : "--comm", optarg))
				return -1;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		case 'V':
			printf("cudatrace %s (NVIDIA name tables from driver %s)\n",
			       CUDATRACE_VERSION, nv_tables_tag);
			exit(0);
		default:
			fprintf(stderr, "Try 'cudatrace --help'.\n");
			return -1;
		}
	}
	if (optind < argc)
		o->command = &argv[optind];
	if (o->read_path && (o->write_path || o->command || o->npids)) {
		fprintf(stderr, "cudatrace: -r decodes a saved trace; it does not go with "
				"-w, -p or a command\n");
		return -1;
	}
	if ((o->max_size || o->rotate) && !o->write_path) {
		fprintf(stderr, "cudatrace: --max-size and --rotate go with -w FILE\n");
		return -1;
	}
	if (o->rotate && !o->max_size) {
		fprintf(stderr, "cudatrace: --rotate needs --max-size (when to start the next file)\n");
		return -1;
	}
	if (ct_views_check(o))
		return -1;
	if (o->command && o->npids) {
		fprintf(stderr, "cudatrace: give -p PID or a command, not both\n");
		return -1;
	}
	return 0;
}

int ct_decode_file(const struct ct_options *o)
{
	const struct ct_decode_stats *st;
	struct ct_decoder *d;
	struct ct_reader *r;
	enum ct_read_status s;
	char skipped[160] = "";
	const void *rec;
	size_t len;
	char err[512];
	int rc = 0;

	r = ct_reader_open(o->read_path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "cudatrace: %s\n", err);
		return 1;
	}
	d = ct_views_decoder_new(o);
	if (!d) {
		ct_reader_close(r);
		return 1;
	}
	while ((s = ct_reader_next(r, &rec, &len)) == CT_READ_OK)
		ct_decoder_feed(d, rec);
	ct_decoder_finish(d);
	st = ct_decoder_stats(d);
	/* One line on stderr says how the read went; skipped records join it. */
	if (ct_reader_skipped(r))
		snprintf(skipped, sizeof(skipped), "; skipped %llu records of a type this "
			 "version does not know (written by a newer cudatrace?)",
			 (unsigned long long)ct_reader_skipped(r));
	if (fflush(o->out) || ferror(o->out)) {   /* disk full: say so, not exit 0 */
		fprintf(stderr, "cudatrace: writing %s failed: %s\n",
			o->out_path ? o->out_path : "the output", strerror(errno ? errno : EIO));
		rc = 1;
	}
	if (s == CT_READ_ERROR) {
		fprintf(stderr, "cudatrace: %s: %s; decoded the %llu records before it%s\n",
			o->read_path, ct_reader_error(r), (unsigned long long)st->records, skipped);
		rc = 1;
	} else if (!st->have_trailer) {
		fprintf(stderr, "cudatrace: %s has no trailer: the capture was cut short "
				"(killed or disk full); decoded all %llu complete records, "
				"lost counts unknown%s\n", o->read_path,
			(unsigned long long)st->records, skipped);
	} else if (st->trailer_lost || st->trailer_lost_inflight) {
		fprintf(stderr, "cudatrace: the capture lost %llu events (ring buffer full); "
				"rerun with a larger -b%s\n",
			(unsigned long long)(st->trailer_lost + st->trailer_lost_inflight), skipped);
	} else if (skipped[0]) {
		fprintf(stderr, "cudatrace: %s\n", skipped + 2);
	}
	ct_decoder_free(d);
	ct_reader_close(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct ct_options o = {
		.follow_forks = true,
		.nest_max = CT_NEST_DEFAULT,
		.ringbuf_mb = 64,
		.color = -1,
		.proc_root = "/proc",
		.dev_root = "/dev",
	};
	char *cmdline;
	int rc;

	if (parse_args(argc, argv, &o)) {
		ct_filter_free(o.filter);
		return 2;
	}
	/* Not dup'ed onto stdout: a traced command must not write into it. */
	o.out = o.out_path ? fopen(o.out_path, "we") : stdout;
	if (!o.out) {
		fprintf(stderr, "cudatrace: cannot write %s: %s\n", o.out_path, strerror(errno));
		ct_filter_free(o.filter);
		return 1;
	}
	if (o.read_path) {
		rc = ct_decode_file(&o);
		ct_filter_free(o.filter);
		return rc;
	}
	cmdline = join_args(argc, argv);
	o.cmdline = cmdline;
	rc = ct_capture_run(&o);
	free(cmdline);
	ct_filter_free(o.filter);
	return rc;
}
