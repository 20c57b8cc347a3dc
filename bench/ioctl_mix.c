// SPDX-License-Identifier: MIT
/*
 * ioctl_mix: the load generator of `make bench` (bench/run.sh).  Issues
 * NVIDIA-shaped ioctls (x86-64, driver 580 ABI) on stand-in files, as fast
 * as it can or at a set rate, and says how long each one took.  On a
 * regular file every ioctl fails with ENOTTY after the kernel has looked
 * the request up; a tracer sees and copies the same bytes as on a GPU.
 *
 * usage: ioctl_mix -f CTL [-u UVM] [--rate R --seconds S] control|mix|getppid [N]
 *   getppid      no ioctl: a system call cudatrace does not trace (its tax on them)
 *   -f CTL       stand-in for /dev/nvidiactl (created if missing)
 *   -u UVM       stand-in for /dev/nvidia-uvm (default: the -f file)
 *   --rate R     paced: R ioctls per second (0: as fast as possible) for
 *   --seconds S  S seconds, in 1 ms slices (N is then not given)
 * workloads:
 *   control N    N x NV_ESC_RM_CONTROL (NVOS54, 32 bytes) whose params
 *                pointer names a 64-byte buffer: the same call as
 *                `nvfake burst` (hClient 0xc1d00000, hObject 0x0b0b0000,
 *                cmd 0xcafe0200)
 *   mix N        N calls cycling through the steady state of a cudaMalloc/
 *                cudaFree loop as seen on an H100 (traces/h100-malloc_loop):
 *                  RM_ALLOC (NVOS64, 48 bytes; pAllocParms 56 bytes)
 *                  RM_CONTROL (params 64 bytes)       on CTL
 *                  UVM_CREATE_EXTERNAL_RANGE (24 bytes)
 *                  UVM_MAP_EXTERNAL_ALLOCATION (9264 bytes)
 *                  UVM_FREE (24 bytes)                on UVM
 *                  RM_CONTROL (params 64 bytes)
 *                  RM_FREE (NVOS00, 16 bytes)         on CTL
 * Output, one line on stdout:
 *   sent N ns_per_ioctl X cpu_ns_per_ioctl C seconds S rate R maxrss_kb K
 * ns_per_ioctl: wall-clock time of the loop / N; cpu_ns_per_ioctl: this
 * process's CPU time (user + system, where a BPF tracer's in-kernel work
 * is charged) / N, which other load on the machine disturbs less (with
 * --rate the first includes the pauses, the second does not).  maxrss_kb: this process's peak RSS (an
 * LD_PRELOAD logger's memory is in it; after exec Linux keeps the peak of
 * the image it replaced, so under `bpftrace -c` it shows bpftrace's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NV_IOCTL_MAGIC    'F'
#define NV_ESC_RM_FREE    0x29
#define NV_ESC_RM_CONTROL 0x2a
#define NV_ESC_RM_ALLOC   0x2b
#define NV_REQ(nr, size)  _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, nr, size)

#define UVM_MAP_EXTERNAL_ALLOCATION 0x21ul
#define UVM_FREE                    0x22ul
#define UVM_CREATE_EXTERNAL_RANGE   0x49ul

struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct nvos64 {
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms, pRightsRequested;
	uint32_t paramsSize, flags, status, _pad;
};
struct nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
_Static_assert(sizeof(struct nvos54) == 32, "NVOS54");
_Static_assert(sizeof(struct nvos64) == 48, "NVOS64");
_Static_assert(sizeof(struct nvos00) == 16, "NVOS00");

static int ctl_fd, uvm_fd;
static int mix, getppid_only;   /* getppid: a system call cudatrace does not trace */

/* The calls, built once; each round only rewrites what a real caller would. */
static unsigned char ctl_params[64], alloc_params[56];
static struct nvos54 ctl;
static struct nvos64 alloc;
static struct nvos00 rmfree;
static unsigned char uvm_range[24], uvm_map[9264], uvm_free[24];
static unsigned long req_ctl, req_alloc, req_free;
static uint64_t seq;

static void fill(void *buf, size_t n, uint32_t seed)
{
	unsigned char *b = buf;
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)((seed << 24 | (uint32_t)(i / 4)) >> (8 * (i % 4)));
}

static void setup(void)
{
	fill(ctl_params, sizeof(ctl_params), 0xb0);
	fill(alloc_params, sizeof(alloc_params), 0xb1);
	fill(uvm_range, sizeof(uvm_range), 0xb2);
	fill(uvm_map, sizeof(uvm_map), 0xb3);
	fill(uvm_free, sizeof(uvm_free), 0xb4);
	ctl = (struct nvos54){ 0xc1d00000, 0x0b0b0000, 0xcafe0200, 0,
			       (uint64_t)(uintptr_t)ctl_params, sizeof(ctl_params), 0 };
	alloc = (struct nvos64){ 0xc1d00000, 0x0b0b0000, 0x0e170000, 0x0000003e,
				 (uint64_t)(uintptr_t)alloc_params, 0, sizeof(alloc_params), 0, 0, 0 };
	rmfree = (struct nvos00){ 0xc1d00000, 0x0b0b0000, 0x0e170000, 0 };
	req_ctl = NV_REQ(NV_ESC_RM_CONTROL, sizeof(ctl));
	req_alloc = NV_REQ(NV_ESC_RM_ALLOC, sizeof(alloc));
	req_free = NV_REQ(NV_ESC_RM_FREE, sizeof(rmfree));
}

/* One call of the workload; ENOTTY from a stand-in is expected. */
static inline void one(void)
{
	if (getppid_only) {
		(void)syscall(SYS_getppid);
		return;
	}
	if (!mix) {
		(void)ioctl(ctl_fd, req_ctl, &ctl);
		return;
	}
	switch (seq++ % 7) {
	case 0:
		alloc.hObjectNew = 0x0e170000 + (uint32_t)(seq / 7 & 0xffff);
		(void)ioctl(ctl_fd, req_alloc, &alloc);
		break;
	case 1: case 5:
		(void)ioctl(ctl_fd, req_ctl, &ctl);
		break;
	case 2: (void)ioctl(uvm_fd, UVM_CREATE_EXTERNAL_RANGE, uvm_range); break;
	case 3: (void)ioctl(uvm_fd, UVM_MAP_EXTERNAL_ALLOCATION, uvm_map); break;
	case 4: (void)ioctl(uvm_fd, UVM_FREE, uvm_free); break;
	case 6:
		rmfree.hObjectOld = alloc.hObjectNew;
		(void)ioctl(ctl_fd, req_free, &rmfree);
		break;
	}
}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* CPU time of this process, user + system: what each call cost it, without
 * the time other work on a busy machine took from it. */
static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static long num(const char *s, const char *what)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*s == '\0' || *end != '\0' || errno || v < 0 || v > 1e12) {
		fprintf(stderr, "ioctl_mix: bad %s '%s'\n", what, s);
		exit(2);
	}
	return (long)v;
}

static int open_standin(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: ioctl_mix -f CTL [-u UVM] control|mix|getppid N\n"
			"       ioctl_mix -f CTL [-u UVM] --rate R --seconds S control|mix\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ctl_path = NULL, *uvm_path = NULL, *work = NULL;
	long n = -1, rate = -1, seconds = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-f") && i + 1 < argc)
			ctl_path = argv[++i];
		else if (!strcmp(argv[i], "-u") && i + 1 < argc)
			uvm_path = argv[++i];
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = num(argv[++i], "rate");
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = num(argv[++i], "seconds");
		else if (!work && (!strcmp(argv[i], "control") || !strcmp(argv[i], "mix") ||
				  !strcmp(argv[i], "getppid")))
			work = argv[i];
		else if (work && n < 0)
			n = num(argv[i], "count");
		else
			usage();
	}
	int paced = rate >= 0 || seconds >= 0;
	if (!ctl_path || !work || (paced ? (rate < 0 || seconds <= 0 || n >= 0) : n < 0))
		usage();
	mix = !strcmp(work, "mix");
	getppid_only = !strcmp(work, "getppid");
	ctl_fd = open_standin(ctl_path);
	uvm_fd = uvm_path ? open_standin(uvm_path) : ctl_fd;
	setup();

	long sent = 0;
	double c0 = cpu_ns(), t0 = now_ns(), t1;
	if (!paced) {
		for (long i = 0; i < n; i++)
			one();
		sent = n;
		t1 = now_ns();
	} else {
		/* 1 ms slices: each slice sends what the rate owes by its end,
		 * then sleeps to the next slice; a slow slice is caught up. */
		double end = t0 + seconds * 1e9;
		struct timespec next;
		clock_gettime(CLOCK_MONOTONIC, &next);
		for (;;) {
			double t = now_ns();
			if (t >= end)
				break;
			long owed = rate ? (long)((t - t0 + 1e6) * 1e-9 * rate) - sent : 256;
			for (long i = 0; i < owed; i++)
				one();
			sent += owed > 0 ? owed : 0;
			if (rate) {
				struct timespec cur;
				clock_gettime(CLOCK_MONOTONIC, &cur);
				if (cur.tv_sec > next.tv_sec ||
				    (cur.tv_sec == next.tv_sec && cur.tv_nsec > next.tv_nsec))
					next = cur;   /* behind: slices restart from now */
				next.tv_nsec += 1000000;
				if (next.tv_nsec >= 1000000000) {
					next.tv_nsec -= 1000000000;
					next.tv_sec++;
				}
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
			}
		}
		t1 = now_ns();
	}
	double c1 = cpu_ns();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double secs = (t1 - t0) / 1e9;
	printf("sent %ld ns_per_ioctl %.1f cpu_ns_per_ioctl %.1f seconds %.3f rate %.0f "
	       "maxrss_kb %ld\n", sent, sent ? (t1 - t0) / sent : 0.0,
	       sent ? (c1 - c0) / sent : 0.0, secs, secs > 0 ? sent / secs : 0.0, ru.ru_maxrss);
	return 0;
}
