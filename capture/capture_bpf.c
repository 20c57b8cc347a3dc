// SPDX-License-Identifier: MIT
/*
 * The BPF side of a live capture (capture_bpf.h): check what the kernel
 * offers, open the programs and tell them the options and the running
 * driver's layouts, load them, fill their maps, attach them; read their
 * counters while they run, detach them at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

/* The skeleton names struct ct_bpf_layout: its header first. */
#include "bpf_layout.h"
#include "cudatrace.skel.h"
#include "capture_bpf.h"
#include "capture_targets.h"
#include "capture_verifier.h"
#include "detach.h"
#include "devices.h"
#include "heap_prefault.h"
#include "nvtables.h"
#include "options.h"
#include "msg.h"
#include "unwind.h"
#include "unwind_tables.h"

#define CAP_SYS_ADMIN 21
#define CAP_PERFMON   38
#define CAP_BPF       39

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
	ct_err("no syscall tracepoints under /sys/kernel/tracing "
			"(mount tracefs there; the kernel needs CONFIG_FTRACE_SYSCALLS=y)\n");
	return -1;
}

int ct_bpf_check_kernel(const struct ct_options *o)
{
	struct stat st;

	if (!has_caps()) {
		ct_err("live capture needs root or CAP_BPF+CAP_PERFMON "
				"(try sudo); reading a saved trace with -r needs neither\n");
		return -1;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st)) {
		ct_err("this kernel has no BTF (/sys/kernel/btf/vmlinux); "
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

/* The running driver's struct offsets into the program's read-only data,
 * by field name from the layout tables (no driver: the newest layouts). */
static int set_layout(struct cudatrace_bpf *s, const struct ct_options *o)
{
	struct ct_bpf_layout l;
	uint32_t drv = ct_running_driver(o->proc_root);
	char err[200];

	if (ct_bpf_layout_fill(&l, drv, err, sizeof(err))) {
		ct_err("the layout tables cannot serve driver %u: %s "
				"(rebuild with decoders/layouts imported for it, docs/LAYOUTS.md)\n",
			drv, err);
		return -1;
	}
	memcpy((void *)&s->rodata->nvl, &l, sizeof(l));
	return 0;
}

/* --device: which kinds of file the programs must look at beyond the
 * NVIDIA char devices. */
static void set_user_files(struct cudatrace_bpf *s, const struct ct_devices *devs)
{
	s->rodata->user_chr_files = s->rodata->user_reg_files = false;
	for (int j = 0; j < devs->ndevs; j++) {
		if (devs->devs[j].user && devs->devs[j].regfile)
			s->rodata->user_reg_files = true;
		else if (devs->devs[j].user)
			s->rodata->user_chr_files = true;
	}
}

/* -k: walked in the kernel from the capture's tables unless CT_STACK_COPY
 * asks for the copy; the tables' maps sized only then. */
static void set_stack_walk(struct cudatrace_bpf *s, const struct ct_options *o)
{
	s->rodata->stack_walk = o->stack_bytes && ct_stack_walk_in_kernel();
	s->rodata->stack_check = s->rodata->stack_walk && ct_unwind_check_on();
	if (!s->rodata->stack_walk)
		return;
	bpf_map__set_max_entries(s->maps.uw_procs, CT_UW_PROCS_MAX);
	bpf_map__set_max_entries(s->maps.uw_files, CT_UW_FILES_MAX);
	bpf_map__set_max_entries(s->maps.uw_rows, CT_UW_ROWS_MAX);
}

/* Before the load: what the programs are told (read-only data), which of
 * them load, and the sizes of their maps. */
static int configure(struct cudatrace_bpf *s, const struct ct_options *o,
		     const struct ct_devices *devs, int ncpu)
{
	uint64_t rb_bytes = (uint64_t)o->ringbuf_mb << 20, key;

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
	set_user_files(s, devs);
	s->rodata->filter_cgroup = o->cgroup != NULL;
	s->rodata->filter_comm = ct_filter_kernel_comms(o->filter, NULL) > 0;
	if (set_layout(s, o))
		return -1;
	s->rodata->stack_bytes = o->stack_bytes;
	s->rodata->stack_main_bytes = o->stack_main_bytes < CT_STACK_RECORD_MAX ?
				      o->stack_main_bytes : CT_STACK_RECORD_MAX;
	s->rodata->gpu_work = o->gpu_work_hz != 0;
	if (!o->gpu_work_hz)
		bpf_map__set_max_entries(s->maps.gw_exit, 1);
	set_stack_walk(s, o);
	s->rodata->py_frames = o->py_stack;
	/* Without Python frames the per-CPU cache of code objects' checks
	 * (180 KiB a CPU) and the prefetch ring are never used. */
	if (!o->py_stack) {
		bpf_map__set_max_entries(s->maps.py_code_cache, 1);
		bpf_map__set_max_entries(s->maps.py_rb, (uint32_t)getpagesize());
	}
	return 0;
}

static size_t btf_bytes(void)
{
	struct stat st;

	return stat("/sys/kernel/btf/vmlinux", &st) ? 0 : (size_t)st.st_size;
}

/* The NVIDIA majors and the --device files. */
static int fill_devices(struct cudatrace_bpf *s, const struct ct_devices *devs)
{
	uint8_t one = 1;
	int j, err = 0;

	for (j = 0; j < devs->nmajors; j++)
		err |= bpf_map__update_elem(s->maps.nv_majors, &devs->majors[j].major, 4,
					    &devs->majors[j].kind, 1, BPF_ANY);
	for (j = 0; j < devs->ndevs; j++) {
		const struct ct_device *d = &devs->devs[j];
		struct { uint32_t dev, regfile; uint64_t ino; } key = {
			d->kdev, d->regfile, d->regfile ? d->ino : 0 };

		if (d->user)
			err |= bpf_map__update_elem(s->maps.extra_files, &key, sizeof(key), &one,
						    1, BPF_ANY);
	}
	return err;
}

/* The sizes of the parameters that the numbers alone do not give: UVM
 * ioctls and RM_ALLOC's by class. */
static int fill_sizes(struct cudatrace_bpf *s)
{
	size_t i;
	int err = 0;

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
	return err;
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

/* -p, the command, and the names --comm lets through in the kernel. */
static int fill_processes(struct cudatrace_bpf *s, const struct ct_options *o, pid_t child)
{
	const char (*comms)[CT_COMM_LEN];
	uint8_t one = 1;
	size_t i;
	int j, err = 0;

	for (j = 0; j < o->npids; j++)
		err |= trace_pid(s, o->pids[j]);
	if (child > 0)
		err |= trace_pid(s, (uint32_t)child);
	for (i = 0; i < ct_filter_kernel_comms(o->filter, &comms); i++)
		err |= bpf_map__update_elem(s->maps.traced_comms, comms[i], CT_COMM_LEN, &one, 1,
					    BPF_ANY);
	return err;
}

static int fill_maps(struct cudatrace_bpf *s, const struct ct_options *o,
		     const struct ct_devices *devs, pid_t child)
{
	int err;

	err = fill_devices(s, devs);
	err |= fill_sizes(s);
	err |= fill_processes(s, o, child);
	if (err)
		ct_err("cannot fill the BPF filter maps\n");
	return err ? -1 : 0;
}

/* --cgroup: the directory's fd into the map the programs check it by. */
static int fill_cgroup(struct cudatrace_bpf *s, const char *path)
{
	uint32_t zero = 0;
	int err, fd = ct_cgroup_open(path);

	if (fd < 0)
		return -1;
	err = bpf_map__update_elem(s->maps.cgroup_map, &zero, 4, &fd, 4, BPF_ANY);
	close(fd);
	if (err) {
		ct_err("--cgroup %s: %s\n", path, strerror(-err));
		return -1;
	}
	return 0;
}

int ct_bpf_load(struct cudatrace_bpf **skel, const struct ct_options *o,
		const struct ct_devices *devs, pid_t child)
{
	struct cudatrace_bpf *s;
	struct ct_verifier_logs *vlogs;
	int err, ncpu = libbpf_num_possible_cpus();

	libbpf_set_print(o->libbpf_debug ? libbpf_print : libbpf_quiet);
	s = cudatrace_bpf__open();
	if (!s) {
		ct_err("cannot open the BPF object: %s\n", strerror(errno));
		return -1;
	}
	*skel = s;
	if (configure(s, o, devs, ncpu))
		return -1;
	/* libbpf parses the kernel's BTF in there: about 3x its size. */
	ct_heap_prefault(btf_bytes() * 3);
	vlogs = ct_verifier_stats_ask(s->obj);
	err = cudatrace_bpf__load(s);
	ct_verifier_stats_print(vlogs, s->obj);
	ct_heap_release();
	if (err) {
		ct_err("cannot load the BPF programs: %s "
				"(run with -v to see the verifier's log)\n", strerror(-err));
		return -1;
	}
	if (fill_maps(s, o, devs, child) || (o->cgroup && fill_cgroup(s, o->cgroup)))
		return -1;
	return 0;
}

int ct_bpf_attach(struct cudatrace_bpf *s)
{
	int err = cudatrace_bpf__attach(s);

	if (err) {
		ct_err("cannot attach to the syscall tracepoints: %s\n",
			strerror(-err));
		return -1;
	}
	return 0;
}

struct ct_bpf_fds ct_bpf_fds(const struct cudatrace_bpf *s)
{
	return (struct ct_bpf_fds){ .rb = bpf_map__fd(s->maps.rb),
				    .py_procs = bpf_map__fd(s->maps.py_procs),
				    .py_rb = bpf_map__fd(s->maps.py_rb),
				    .gw_exit = bpf_map__fd(s->maps.gw_exit),
				    .uw = { .procs = s->rodata->stack_walk ?
							     bpf_map__fd(s->maps.uw_procs) : -1,
					    .files = bpf_map__fd(s->maps.uw_files),
					    .rows = bpf_map__fd(s->maps.uw_rows),
					    .gen = bpf_map__fd(s->maps.uw_gen) } };
}

uint64_t ct_bpf_counter(const struct cudatrace_bpf *s, uint32_t which, uint64_t *percpu,
			int ncpu)
{
	uint64_t total = 0;
	int i;

	memset(percpu, 0, sizeof(uint64_t) * (size_t)ncpu);
	if (bpf_map__lookup_elem(s->maps.counters, &which, 4, percpu,
				 sizeof(uint64_t) * (size_t)ncpu, 0))
		return 0;
	for (i = 0; i < ncpu; i++)
		total += percpu[i];
	return total;
}

uint64_t ct_bpf_counter_total(const struct cudatrace_bpf *s, uint32_t which)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *percpu, total;

	if (ncpu <= 0 || !(percpu = calloc((size_t)ncpu, sizeof(*percpu))))
		return 0;
	total = ct_bpf_counter(s, which, percpu, ncpu);
	free(percpu);
	return total;
}

void ct_bpf_unload(struct cudatrace_bpf *s)
{
	/* Everything is written: the kernel's slow detaching of perf
	 * tracepoints (system-wide) need not delay our exit (detach.c). */
	if (s) {
		struct bpf_link **links = (struct bpf_link **)&s->links;
		int n = sizeof(s->links) / sizeof(struct bpf_link *);

		if (ct_detach_in_background(links, n))
			ct_detach_links(links, n);
	}
	cudatrace_bpf__destroy(s);
}
