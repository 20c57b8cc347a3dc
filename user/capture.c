// SPDX-License-Identifier: MIT
/*
 * Live capture: check what the kernel offers, load and fill the BPF side,
 * start or attach to the traced processes, then move records from the ring
 * buffer to the sink (trace file or decoder) until told to stop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

/* The skeleton names struct ct_bpf_layout: its header first. */
#include "bpf_layout.h"
#include "cudatrace.skel.h"
#include "decode.h"
#include "detach.h"
#include "devices.h"
#include "gpuwork_reader.h"
#include "heap_prefault.h"
#include "meta_build.h"
#include "nvtables.h"
#include "metrics.h"
#include "options.h"
#include "privs.h"
#include "procinfo.h"
#include "record.h"
#include "run_as.h"
#include "stack_tally.h"
#include "trace_file.h"
#include "python.h"
#include "unwind.h"
#include "views.h"

#define CAP_SYS_ADMIN 21
#define CAP_PERFMON   38
#define CAP_BPF       39

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

struct capture {
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
	uint64_t events;             /* records received from the kernel */
	int sink_error;              /* -errno from the writer: stop */
	unsigned char *procbuf;
	pid_t child;
	int child_status;
	bool child_done;
	bool timed_out;              /* -d ran out: leave the command running */
	int pidfds[CT_MAX_PIDS];     /* -p: each process itself, or -1 (no pidfd_open) */
	unsigned file_index;         /* --rotate: number of the file being written */
	uint64_t status_ns, status_events;  /* the status line's last update */
	struct ct_metrics *metrics;  /* --metrics: fed by the decoder, even with -w */
	struct ct_metrics_http *http;
	uint64_t lost_read_ns;       /* when the lost count was last given to it */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sink(struct capture *c, const struct ct_rec *r)
{
	int err;

	if (c->writer) {
		err = ct_writer_add(c->writer, r);
		if (err && !c->sink_error) {
			c->sink_error = err;
			fprintf(stderr, "cudatrace: writing %s failed: %s; stopping capture\n",
				c->o->write_path, strerror(-err));
		}
	}
	if (c->decoder)   /* no -w, or -w with --metrics */
		ct_decoder_feed(c->decoder, r);
}

/* Effective capabilities from /proc/self/status, no libcap needed. */
static bool has_caps(void)
{
	unsigned long long eff = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	if (eff & (1ull << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ull << CAP_BPF)) && (eff & (1ull << CAP_PERFMON));
}

/* A command or -p: only their processes are traced. */
static bool system_wide(const struct ct_options *o)
{
	return o->npids == 0 && !o->command;
}

/* System-wide captures exit through the syscall tracepoints, which need
 * tracefs (bpf/cudatrace.bpf.c says why). */
static int check_tracefs(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/events/syscalls", &st) ||
	    !stat("/sys/kernel/debug/tracing/events/syscalls", &st))
		return 0;
	/* tracefs may just not be mounted */
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!stat("/sys/kernel/tracing/events/syscalls", &st))
		return 0;
	fprintf(stderr, "cudatrace: no syscall tracepoints under /sys/kernel/tracing "
			"(mount tracefs there; the kernel needs CONFIG_FTRACE_SYSCALLS=y)\n");
	return -1;
}

static int check_kernel(const struct ct_options *o)
{
	struct stat st;

	if (!has_caps()) {
		fprintf(stderr, "cudatrace: live capture needs root or CAP_BPF+CAP_PERFMON "
				"(try sudo); reading a saved trace with -r needs neither\n");
		return -1;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st)) {
		fprintf(stderr, "cudatrace: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
				"cudatrace needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n");
		return -1;
	}
	return system_wide(o) ? check_tracefs() : 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	return vfprintf(stderr, fmt, args);
}

/* Without -v libbpf stays quiet: our own messages say what failed. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	(void)fmt;
	(void)args;
	return 0;
}

static int setup_devices(struct capture *c)
{
	const struct ct_options *o = c->o;
	char err[512];
	int i;

	ct_read_nvidia_majors(&c->devs, "/proc/devices");
	ct_scan_dev_nodes(&c->devs, o->dev_root);
	for (i = 0; i < o->ndevices; i++) {
		if (ct_add_user_device(&c->devs, o->devices[i], err, sizeof(err))) {
			fprintf(stderr, "cudatrace: %s\n", err);
			return -1;
		}
	}
	if (c->devs.nmajors == 0 && c->devs.nuser == 0) {
		fprintf(stderr, "cudatrace: no NVIDIA device nodes found (no nvidia* entry in "
				"/proc/devices: is the driver loaded?); use --device PATH to "
				"trace another device or file\n");
		return -1;
	}
	return 0;
}

/* Marks pid traced in the BPF side's bitmap (before attach: no race with
 * the fork hook, which sets bits of the same words). */
static int trace_pid(struct cudatrace_bpf *s, uint32_t pid)
{
	uint32_t word = pid / 64;
	uint64_t bits = 0;

	if (pid >= CT_PID_LIMIT)
		return -1;
	bpf_map__lookup_elem(s->maps.traced_pids, &word, 4, &bits, 8, 0);
	bits |= 1ULL << (pid % 64);
	return bpf_map__update_elem(s->maps.traced_pids, &word, 4, &bits, 8, BPF_ANY);
}

static int fill_maps(struct capture *c)
{
	struct cudatrace_bpf *s = c->skel;
	const char (*comms)[CT_COMM_LEN];
	uint8_t one = 1;
	size_t i;
	int j, err = 0;

	for (j = 0; j < c->devs.nmajors; j++)
		err |= bpf_map__update_elem(s->maps.nv_majors, &c->devs.majors[j].major, 4,
					    &c->devs.majors[j].kind, 1, BPF_ANY);
	for (j = 0; j < c->devs.ndevs; j++) {
		const struct ct_device *d = &c->devs.devs[j];
		struct { uint32_t dev, regfile; uint64_t ino; } key = {
			d->kdev, d->regfile, d->regfile ? d->ino : 0 };

		if (d->user)
			err |= bpf_map__update_elem(s->maps.extra_files, &key, sizeof(key), &one,
						    1, BPF_ANY);
	}
	for (i = 0; i < uvm_ioctl_count(); i++) {
		const struct uvm_ioctl_info *u = uvm_ioctl_at(i);

		if (u->size)
			err |= bpf_map__update_elem(s->maps.uvm_sizes, &u->cmd, 4, &u->size, 4,
						    BPF_ANY);
	}
	for (i = 0; i < nv_class_count(); i++) {
		const struct nv_class_info *k = nv_class_at(i);

		if (k->params_size)
			err |= bpf_map__update_elem(s->maps.class_sizes, &k->id, 4,
						    &k->params_size, 4, BPF_ANY);
	}
	for (j = 0; j < c->o->npids; j++)
		err |= trace_pid(s, c->o->pids[j]);
	if (c->child > 0)
		err |= trace_pid(s, (uint32_t)c->child);
	for (i = 0; i < ct_filter_kernel_comms(c->o->filter, &comms); i++)
		err |= bpf_map__update_elem(s->maps.traced_comms, comms[i], CT_COMM_LEN, &one, 1,
					    BPF_ANY);
	if (err)
		fprintf(stderr, "cudatrace: cannot fill the BPF filter maps\n");
	return err ? -1 : 0;
}

#define CGROUP2_SUPER_MAGIC 0x63677270

/* --cgroup: an open cgroup v2 directory, or -1 with the reason said. */
static int open_cgroup(const char *path)
{
	struct statfs fs;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "cudatrace: --cgroup %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "cudatrace: --cgroup %s: not a cgroup v2 directory (look under "
				"/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system)\n",
			path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The running driver's struct offsets into the program's read-only data,
 * by field name from the layout tables (no driver: the newest layouts). */
static int set_layout(struct cudatrace_bpf *s, const struct ct_options *o)
{
	struct ct_bpf_layout l;
	uint32_t drv = ct_running_driver(o->proc_root);
	char err[200];

	if (ct_bpf_layout_fill(&l, drv, err, sizeof(err))) {
		fprintf(stderr, "cudatrace: the layout tables cannot serve driver %u: %s "
				"(rebuild with decoders/layouts imported for it, docs/LAYOUTS.md)\n",
			drv, err);
		return -1;
	}
	memcpy((void *)&s->rodata->nvl, &l, sizeof(l));
	return 0;
}

static size_t btf_bytes(void)
{
	struct stat st;

	return stat("/sys/kernel/btf/vmlinux", &st) ? 0 : (size_t)st.st_size;
}

static int load_bpf(struct capture *c)
{
	const struct ct_options *o = c->o;
	struct cudatrace_bpf *s;
	uint64_t rb_bytes = (uint64_t)o->ringbuf_mb << 20, key;
	int err, ncpu = libbpf_num_possible_cpus();

	libbpf_set_print(o->libbpf_debug ? libbpf_print : libbpf_quiet);
	s = cudatrace_bpf__open();
	if (!s) {
		fprintf(stderr, "cudatrace: cannot open the BPF object: %s\n", strerror(errno));
		return -1;
	}
	c->skel = s;
	s->rodata->self_tgid = (uint32_t)getpid();
	s->rodata->filter_pids = !system_wide(o);
	/* One way out of a system call (bpf/cudatrace.bpf.c): */
	bpf_program__set_autoload(s->progs.sys_exit, !system_wide(o));
	bpf_program__set_autoload(s->progs.sys_exit_ioctl, system_wide(o));
	bpf_program__set_autoload(s->progs.sys_exit_mmap, system_wide(o));
	s->rodata->follow_forks = o->follow_forks;
	s->rodata->nest_max = o->nest_max;
	/* Wake the reader when a quarter of the buffer is full; it also polls. */
	s->rodata->wakeup_bytes = rb_bytes / 4;
	/* Any value works; a random one keeps kernel addresses out of files. */
	if (getrandom(&key, sizeof(key), GRND_NONBLOCK) != sizeof(key))
		key = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	s->rodata->file_id_key = key;
	bpf_map__set_max_entries(s->maps.rb, (uint32_t)rb_bytes);
	bpf_map__set_max_entries(s->maps.scratch_map, ncpu > 0 ? (uint32_t)ncpu : 1);
	/* Only a system-wide capture describes processes as it meets them; the
	 * preallocated LRU map costs start-up time (~1.6 ms at 16,384). */
	if (s->rodata->filter_pids)
		bpf_map__set_max_entries(s->maps.described, 1);
	s->rodata->user_chr_files = s->rodata->user_reg_files = false;
	for (int j = 0; j < c->devs.ndevs; j++) {
		if (c->devs.devs[j].user && c->devs.devs[j].regfile)
			s->rodata->user_reg_files = true;
		else if (c->devs.devs[j].user)
			s->rodata->user_chr_files = true;
	}
	s->rodata->filter_cgroup = o->cgroup != NULL;
	s->rodata->filter_comm = ct_filter_kernel_comms(o->filter, NULL) > 0;
	if (set_layout(s, o))
		return -1;
	s->rodata->stack_bytes = o->stack_bytes;
	s->rodata->py_frames = o->py_stack;
	/* libbpf parses the kernel's BTF in there: about 3x its size. */
	ct_heap_prefault(btf_bytes() * 3);
	err = cudatrace_bpf__load(s);
	ct_heap_release();
	if (err) {
		fprintf(stderr, "cudatrace: cannot load the BPF programs: %s "
				"(run with -v to see the verifier's log)\n", strerror(-err));
		return -1;
	}
	if (fill_maps(c))
		return -1;
	if (o->cgroup) {
		uint32_t zero = 0;
		int fd = open_cgroup(o->cgroup);

		if (fd < 0)
			return -1;
		err = bpf_map__update_elem(s->maps.cgroup_map, &zero, 4, &fd, 4, BPF_ANY);
		close(fd);
		if (err) {
			fprintf(stderr, "cudatrace: --cgroup %s: %s\n", o->cgroup, strerror(-err));
			return -1;
		}
	}
	err = cudatrace_bpf__attach(s);
	if (err) {
		fprintf(stderr, "cudatrace: cannot attach to the syscall tracepoints: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

/* A file the trace has not named yet: learn its path from /proc. */
static void name_new_device(struct capture *c, uint32_t pid, int fd, uint32_t kdev,
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
	rec.f.h.ts_ns = now_ns(CLOCK_MONOTONIC);
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
	sink(c, &rec.f.h);
}

#define FILE_FULL (-ECANCELED)   /* on_record's "the trace file is full" */

static int on_record(void *ctx, void *data, size_t len)
{
	struct capture *c = ctx;
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
		sink(c, (struct ct_rec *)c->procbuf);
		return c->sink_error ? -1 : 0;
	}
	sink(c, r);
	if (c->sink_error)
		return -1;
	/* --max-size: stop this poll here, run_loop rotates or stops. */
	if (c->o->max_size && c->writer && ct_writer_bytes(c->writer) >= c->o->max_size)
		return FILE_FULL;
	return 0;
}

/* Reads the per-CPU counters the BPF side keeps. */
static uint64_t read_counter(struct capture *c, uint32_t which, uint64_t *percpu, int ncpu)
{
	uint64_t total = 0;
	int i;

	memset(percpu, 0, sizeof(uint64_t) * (size_t)ncpu);
	if (bpf_map__lookup_elem(c->skel->maps.counters, &which, 4, percpu,
				 sizeof(uint64_t) * (size_t)ncpu, 0))
		return 0;
	for (i = 0; i < ncpu; i++)
		total += percpu[i];
	return total;
}

static void write_trailer(struct capture *c, uint64_t *lost, uint64_t *lost_inflight)
{
	int ncpu = libbpf_num_possible_cpus();
	size_t size = sizeof(struct ct_trailer) + sizeof(uint64_t) * (size_t)ncpu;
	struct ct_trailer *t = calloc(1, size);
	uint64_t *scratch = calloc((size_t)ncpu, sizeof(uint64_t));

	if (!t || !scratch) {
		free(t);
		free(scratch);
		return;
	}
	*lost = read_counter(c, CT_CNT_LOST, (uint64_t *)(t + 1), ncpu);
	*lost_inflight = read_counter(c, CT_CNT_INFLIGHT_FULL, scratch, ncpu);
	t->h.type = CT_REC_TRAILER;
	t->h.size = (uint32_t)size;
	t->h.ts_ns = now_ns(CLOCK_MONOTONIC);
	t->events = c->events;
	t->lost = *lost;
	t->lost_inflight = *lost_inflight;
	t->ncpu = (uint32_t)ncpu;
	sink(c, &t->h);
	free(t);
	free(scratch);
}

/* The name of trace file number i: FILE, or FILE.i with --rotate. */
static void trace_file_name(const struct ct_options *o, unsigned i, char *buf, size_t len)
{
	if (o->rotate)
		snprintf(buf, len, "%s.%u", o->write_path, i);
	else
		snprintf(buf, len, "%s", o->write_path);
}

/* Opens the next trace file and writes its header: every file stands alone. */
/* The header record every capture and every rotated file starts with. */
static int sink_meta(struct capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_meta_in mi = {
		.devs = &c->devs, .options = o->cmdline, .nest_max = o->nest_max,
		.start_realtime_ns = now_ns(CLOCK_REALTIME),
		.start_monotonic_ns = now_ns(CLOCK_MONOTONIC), .proc_root = o->proc_root,
		.api_lib = o->api_lib,
	};
	struct ct_rec *meta = ct_meta_build(&mi);

	if (!meta)
		return -1;
	sink(c, meta);
	free(meta);
	return 0;
}

/* Under sudo the file is the user's, as the README promises: -r needs no
 * root.  A file system that refuses (NFS with root squashed) costs a warning. */
static void give_to_sudo_user(struct ct_writer *w, const char *path)
{
	uid_t uid;
	gid_t gid;
	int err;

	if (ct_sudo_owner(&uid, &gid) && (err = ct_writer_chown(w, uid, gid)))
		fprintf(stderr, "cudatrace: warning: cannot give %s to the sudo user (uid %u): "
				"%s; it stays root's\n", path, (unsigned)uid, strerror(-err));
}

static int open_trace_file(struct capture *c)
{
	const struct ct_options *o = c->o;
	char path[4096];

	trace_file_name(o, c->file_index, path, sizeof(path));
	c->writer = ct_writer_open(path, o->compress);
	if (!c->writer) {
		fprintf(stderr, "cudatrace: cannot create %s: %s%s\n", path, strerror(errno),
			errno == ELOOP ? " (it is a symbolic link; refusing to follow it)" : "");
		return -1;
	}
	give_to_sudo_user(c->writer, path);
	if (o->rotate && c->file_index >= o->rotate) {
		trace_file_name(o, c->file_index - o->rotate, path, sizeof(path));
		unlink(path);
	}
	return sink_meta(c);
}

/*
 * --max-size: the trace file is full.  With --rotate, close it (trailer
 * and all) and go on in the next; without, stop the capture.
 */
static int file_full(struct capture *c)
{
	uint64_t lost, lost_inflight;
	int err;

	if (!c->o->rotate) {
		fprintf(stderr, "\ncudatrace: %s reached --max-size; stopping\n", c->o->write_path);
		return 1;
	}
	write_trailer(c, &lost, &lost_inflight);
	err = ct_writer_close(c->writer);
	c->writer = NULL;
	if (err) {
		fprintf(stderr, "cudatrace: writing %s failed: %s\n", c->o->write_path,
			strerror(-err));
		c->sink_error = err;
		return 1;
	}
	c->file_index++;
	return open_trace_file(c) ? 1 : 0;
}

/* With -w on a terminal: events, rate, bytes and losses, once a second. */
static void status_line(struct capture *c, bool last)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), scratch[1024];
	int ncpu = libbpf_num_possible_cpus();
	double secs = (double)(now - c->status_ns) / 1e9;
	uint64_t lost;

	if (!c->writer || !isatty(STDERR_FILENO) || ncpu > 1024)
		return;
	if (last) {
		fputs("\r\033[K", stderr);
		return;
	}
	if (secs < 1.0)
		return;
	lost = read_counter(c, CT_CNT_LOST, scratch, ncpu);
	fprintf(stderr, "\r\033[Kcudatrace: %llu events, %.0f/s, %.1f MB written, %llu lost",
		(unsigned long long)c->events, (double)(c->events - c->status_events) / secs,
		(double)ct_writer_bytes(c->writer) / 1e6, (unsigned long long)lost);
	c->status_ns = now;
	c->status_events = c->events;
}

/*
 * Forks the command stopped on a pipe, so its pid can enter the filter
 * before it runs a single instruction of the new program.
 */
static pid_t spawn_stopped(char **argv, const struct ct_run_as *ra, int *go_fd)
{
	int p[2], err;
	pid_t pid;
	char b;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(127);   /* cudatrace went away before starting us */
		close(p[0]);
		if (ra && (err = ct_run_as_enter(ra))) {   /* -u: strace's order, then exec */
			fprintf(stderr, "cudatrace: -u: cannot become uid %u: %s\n",
				(unsigned)ra->uid, strerror(-err));
			_exit(127);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cudatrace: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	*go_fd = p[1];
	return pid;
}

/*
 * Each -p process is held by a pidfd: it names that process and no other,
 * so a new process that gets the pid after it exits is not taken for it.
 * Without pidfd_open (before Linux 5.3, or a thread id) /proc is asked.
 */
static int check_pids(struct capture *c)
{
	const struct ct_options *o = c->o;
	int i;

	for (i = 0; i < o->npids; i++) {
		c->pidfds[i] = (int)syscall(SYS_pidfd_open, (pid_t)o->pids[i], 0);
		if ((c->pidfds[i] < 0 && errno == ESRCH) ||
		    (kill((pid_t)o->pids[i], 0) && errno == ESRCH)) {
			fprintf(stderr, "cudatrace: no such process: %u\n", o->pids[i]);
			return -1;
		}
	}
	return 0;
}

static void close_pidfds(struct capture *c)
{
	int i;

	for (i = 0; i < c->o->npids; i++)
		if (c->pidfds[i] >= 0)
			close(c->pidfds[i]);
}

static void emit_attach_records(struct capture *c)
{
	int i;

	for (i = 0; i < c->o->npids; i++) {
		if (ct_proc_from_procfs(c->o->proc_root, c->o->pids[i], CT_PROC_ATTACH,
					now_ns(CLOCK_MONOTONIC), c->procbuf) == 0)
			sink(c, (struct ct_rec *)c->procbuf);
		if (c->unwinder)   /* -k: the code it has now; later code comes as it is mapped */
			ct_unwinder_refresh(c->unwinder, c->o->pids[i], now_ns(CLOCK_MONOTONIC));
		if (c->python)
			ct_python_scan(c->python, (uint32_t)c->o->pids[i]);
	}
}

static void unwind_sink(void *ctx, const struct ct_rec *r)
{
	struct capture *c = ctx;

	ct_stack_tally_take(c->stack_tally, r);
	sink(ctx, r);
}

/* --metrics: the series and the HTTP server, started while we still may
 * bind any port. */
static int start_metrics(struct capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_metrics_opts mo = { .proc_root = o->proc_root, .no_pid = o->metrics_no_pid,
				      .max_series = o->metrics_max_series };

	c->metrics = ct_metrics_new(&mo);
	if (!c->metrics) {
		fprintf(stderr, "cudatrace: out of memory\n");
		return -1;
	}
	c->http = ct_metrics_http_start(c->metrics, o->metrics_addr);
	if (!c->http)
		return -1;
	return 0;
}

/* Gives the kernel's lost count to the metrics, at most 5 times a second. */
static void update_lost(struct capture *c, bool now)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC), scratch[1024];
	int ncpu = libbpf_num_possible_cpus();

	if (!c->metrics || ncpu > 1024 || (!now && t - c->lost_read_ns < 200000000ull))
		return;
	c->lost_read_ns = t;
	ct_metrics_set_lost(c->metrics, read_counter(c, CT_CNT_LOST, scratch, ncpu) +
			    read_counter(c, CT_CNT_INFLIGHT_FULL, scratch, ncpu));
}

static int open_sink(struct capture *c)
{
	const struct ct_options *o = c->o;
	struct ct_view mv;

	if (!o->metrics_addr) {
		if (o->write_path)
			return open_trace_file(c);
		c->decoder = ct_views_decoder_new(o);
		return c->decoder ? sink_meta(c) : -1;
	}
	/* --metrics: its view first, so it counts every call whatever the
	 * filters keep; with -w it is the decoder's only view. */
	if (start_metrics(c))
		return -1;
	mv = ct_metrics_view(c->metrics);
	c->decoder = ct_views_decoder_new_with(o, &mv);
	if (!c->decoder)
		return -1;
	return o->write_path ? open_trace_file(c) : sink_meta(c);
}

static void reap_child(struct capture *c)
{
	int status;

	if (c->child > 0 && !c->child_done && waitpid(c->child, &status, WNOHANG) == c->child) {
		c->child_done = true;
		c->child_status = status;
	}
}

/* Like strace -p: the capture ends when every named process has exited. */
static bool any_pid_alive(const struct capture *c)
{
	const struct ct_options *o = c->o;
	int i;

	for (i = 0; i < o->npids; i++) {
		struct pollfd pfd = { .fd = c->pidfds[i], .events = POLLIN };
		char path[64], buf[256], *rp;
		int fd, n;

		/* Readable once the process has exited (a zombie included). */
		if (pfd.fd >= 0) {
			if (poll(&pfd, 1, 0) != 1)
				return true;   /* not yet (or EINTR: ask again later) */
			continue;
		}
		snprintf(path, sizeof(path), "%s/%u/stat", o->proc_root, o->pids[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = (int)read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		/* A zombie has made its last call: count it as gone. */
		rp = strrchr(buf, ')');
		if (rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X')
			return true;
	}
	return false;
}

static int run_loop(struct capture *c)
{
	const struct ct_options *o = c->o;
	uint64_t deadline = o->duration > 0 ?
		now_ns(CLOCK_MONOTONIC) + (uint64_t)(o->duration * 1e9) : 0;
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
			ct_gpuwork_poll(c->gpuwork, now_ns(CLOCK_MONOTONIC));
		/* A killed capture loses at most one poll's worth of records. */
		if (c->writer)
			ct_writer_flush(c->writer);
		if (o->max_size && c->writer && ct_writer_bytes(c->writer) >= o->max_size &&
		    file_full(c))
			break;
		status_line(c, false);
		update_lost(c, false);
		reap_child(c);
		if (c->child_done || (o->npids && !any_pid_alive(c)))
			break;
		if (deadline && now_ns(CLOCK_MONOTONIC) >= deadline) {
			c->timed_out = true;
			break;
		}
	}
	status_line(c, true);
	/* Everything the kernel produced before we stopped is still there
	 * (but a full file, unrotated, takes nothing more). */
	while (!c->sink_error && !(o->max_size && !o->rotate && c->writer &&
				   ct_writer_bytes(c->writer) >= o->max_size)) {
		if (ring_buffer__consume(c->rb) != FILE_FULL || file_full(c))
			break;
	}
	return 0;
}

/* Up to the moment calls are traced: BPF loaded, the sink open, the
 * command (if any) forked but still waiting on go_fd.  0, or -1 after
 * saying why. */
static int start_capture(struct capture *c, int *go_fd)
{
	const struct ct_options *o = c->o;
	struct ct_run_as ra;
	int err;

	if (o->run_as && ct_run_as_lookup(o->run_as, &ra))
		return -1;
	if (o->command) {
		c->child = spawn_stopped(o->command, o->run_as ? &ra : NULL, go_fd);
		if (c->child < 0) {
			fprintf(stderr, "cudatrace: cannot start %s: %s\n", o->command[0],
				strerror(errno));
			return -1;
		}
	}
	if (load_bpf(c))
		return -1;
	if (open_sink(c))
		return -1;
	if (o->stack_bytes && (!(c->stack_tally = ct_stack_tally_new(o->api_lib)) ||
			       !(c->unwinder = ct_unwinder_new(o->proc_root, unwind_sink, c))))
		return -1;
	if (o->py_stack && !(c->python = ct_python_new(o->proc_root,
						       bpf_map__fd(c->skel->maps.py_procs),
						       bpf_map__fd(c->skel->maps.py_rb),
						       unwind_sink, c)))
		return -1;
	if (o->gpu_work_hz &&
	    !(c->gpuwork = ct_gpuwork_new(o->proc_root, CT_GPU_SEG_DEFAULT, unwind_sink, c)))
		return -1;
	c->rb = ring_buffer__new(bpf_map__fd(c->skel->maps.rb), on_record, c, NULL);
	if (!c->rb) {
		fprintf(stderr, "cudatrace: cannot set up the ring buffer: %s\n", strerror(errno));
		return -1;
	}
	emit_attach_records(c);
	/* The command was forked before this: it keeps the privileges it had. */
	err = ct_drop_privileges();
	if (err)
		fprintf(stderr, "cudatrace: warning: could not drop privileges: %s\n",
			strerror(-err));
	if (c->python && (err = ct_python_start(c->python))) {
		fprintf(stderr, "cudatrace: cannot start the Python frames thread: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

/* Scripts wait for this line before making the calls to capture; a
 * command is let go only now. */
static int announce_and_go(struct capture *c, int *go_fd)
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
	if (*go_fd >= 0) {
		if (write(*go_fd, "g", 1) != 1)
			return -1;
		close(*go_fd);
		*go_fd = -1;
	}
	return 0;
}

/* The trailer record and the closing line: events captured and lost. */
static void report_counts(struct capture *c)
{
	uint64_t lost = 0, lost_inflight = 0;

	if (c->gpuwork)   /* what was put since the last poll */
		ct_gpuwork_poll(c->gpuwork, now_ns(CLOCK_MONOTONIC));
	update_lost(c, true);
	if (c->writer || c->decoder)
		write_trailer(c, &lost, &lost_inflight);
	fprintf(stderr, "cudatrace: %llu events captured, %llu lost",
		(unsigned long long)c->events, (unsigned long long)(lost + lost_inflight));
	if (lost_inflight)
		fprintf(stderr, " (%llu exits lost: in-flight table full)",
			(unsigned long long)lost_inflight);
	fputc('\n', stderr);
	if (c->gpuwork)
		ct_gpuwork_report(c->gpuwork);
	if (c->unwinder) {
		const struct ct_unwind_stats *us = ct_unwinder_stats(c->unwinder);

		fprintf(stderr, "cudatrace: unwound %llu stacks (%llu frames) in %.1f ms of CPU\n",
			(unsigned long long)us->stacks, (unsigned long long)us->frames,
			(double)us->cpu_ns / 1e6);
		if (us->holes)
			fprintf(stderr, "cudatrace: %llu stacks held pages never touched, "
				"read page by page (as zeros)\n", (unsigned long long)us->holes);
		ct_stack_tally_print(c->stack_tally, stderr);
	}
	if (c->python) {
		const struct ct_python_stats *ps = ct_python_stats(c->python);

		fprintf(stderr, "cudatrace: Python: %llu process%s, %llu stacks (%llu frames, %llu "
				"unnamed; %llu calls from threads without Python; %llu new stacks "
				"read at once) named in %.1f ms of CPU\n",
			(unsigned long long)ps->procs, ps->procs == 1 ? "" : "es",
			(unsigned long long)ps->stacks, (unsigned long long)ps->frames,
			(unsigned long long)ps->unnamed, (unsigned long long)ps->no_tstate,
			(unsigned long long)ps->prefetched, (double)ps->cpu_ns / 1e6);
	}
}

/* Stops the command if the capture failed or was interrupted, frees
 * everything; the return code, which a file that failed to close makes 1. */
static int teardown(struct capture *c, int go_fd, int rc)
{
	int err;

	if (go_fd >= 0)
		close(go_fd);   /* the child sees EOF and exits */
	if (c->child > 0 && !c->child_done && !c->timed_out) {
		if (rc != 0 || stop_requested)
			kill(c->child, SIGTERM);
		if (waitpid(c->child, &c->child_status, 0) == c->child)
			c->child_done = true;
	}
	ring_buffer__free(c->rb);
	ct_unwinder_free(c->unwinder);
	ct_python_free(c->python);
	ct_stack_tally_free(c->stack_tally);
	ct_gpuwork_free(c->gpuwork);
	if (c->decoder) {
		ct_decoder_finish(c->decoder);
		if (ct_decoder_stats(c->decoder)->views_failed)
			rc = 1;   /* --perfetto, --sqlite: each said why */
		ct_decoder_free(c->decoder);
	}
	ct_metrics_http_stop(c->http);   /* before the series it reads go */
	ct_metrics_free(c->metrics);
	if (c->writer) {
		err = ct_writer_close(c->writer);
		if (err && !c->sink_error) {
			fprintf(stderr, "cudatrace: writing %s failed: %s\n", c->o->write_path,
				strerror(-err));
			rc = 1;
		}
	}
	/* Everything is written: the kernel's slow detaching of perf
	 * tracepoints (system-wide) need not delay our exit (detach.c). */
	if (c->skel) {
		struct bpf_link **links = (struct bpf_link **)&c->skel->links;
		int n = sizeof(c->skel->links) / sizeof(struct bpf_link *);

		if (ct_detach_in_background(links, n))
			ct_detach_links(links, n);
	}
	cudatrace_bpf__destroy(c->skel);
	free(c->procbuf);
	close_pidfds(c);
	return c->sink_error ? 1 : rc;
}

/* strace's convention: the traced command's exit status is ours. */
static int exit_status(const struct capture *c, int rc)
{
	if (rc == 0 && c->child_done) {
		if (WIFEXITED(c->child_status))
			return WEXITSTATUS(c->child_status);
		if (WIFSIGNALED(c->child_status))
			return 128 + WTERMSIG(c->child_status);
	}
	return rc;
}

int ct_capture_run(const struct ct_options *o)
{
	struct capture c = { .o = o, .child = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	int go_fd = -1, rc = 1;

	for (int i = 0; i < CT_MAX_PIDS; i++)
		c.pidfds[i] = -1;
	if (check_kernel(o) || check_pids(&c) || setup_devices(&c)) {
		close_pidfds(&c);
		return 1;
	}
	c.procbuf = malloc(CT_PROC_BUF_SIZE);
	if (!c.procbuf) {
		close_pidfds(&c);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (o->command) {
		struct sigaction sc = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };

		sigaction(SIGCHLD, &sc, NULL);
	}
	if (start_capture(&c, &go_fd) == 0 && announce_and_go(&c, &go_fd) == 0) {
		rc = run_loop(&c) == 0 ? 0 : 1;
		report_counts(&c);
	}
	rc = teardown(&c, go_fd, rc);
	return exit_status(&c, rc);
}
