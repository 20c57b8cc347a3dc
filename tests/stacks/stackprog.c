// SPDX-License-Identifier: MIT
/*
 * The program for the -k tests: resolves the stand-in driver's entry points
 * with dlsym and calls them from named static functions.
 *   stackprog LIB FILE [wait]   wait: read a line from stdin before dlopen
 *   stackprog LIB FILE loop N [MS]  N calls of fakeCtxSync; prints ns per call
 *                               (MS: first 100 calls, then a pause of MS ms:
 *                               -k's tables are built in it)
 *   stackprog LIB FILE deep N [MS]  the same, below DEEP_LEVELS frames of
 *                               deep_frames (112 KiB: deeper than -k's
 *                               largest copy)
 *   stackprog LIB FILE many N [MS]  the same, below MANY_LEVELS of them
 *                               (over 128 frames, 2.3 MiB)
 *   stackprog LIB FILE tall N [MS]  the same, below TALL_LEVELS small frames
 *                               (of 64 to 448 bytes: a C++ library's
 *                               call chain, as PyTorch's 100-odd frames)
 *   stackprog LIB FILE huge N [MS]  the same, on a thread of 16 MiB of
 *                               stack, below a frame of HUGE_FRAME bytes
 *                               (past the kernel's walk's bound, 8 MiB)
 *   stackprog LIB FILE gaps N US  N calls through via_a, US apart, then N
 *                               through via_d and via_b, on one CPU (-k's walk past
 *                               a frame without a table)
 *   stackprog LIB FILE thread   one call from a thread the library starts
 *   stackprog LIB FILE holes    one ioctl from a thread of ours, below a
 *                               frame whose pages were never touched
 * Makes 3 calls to fakeMemAlloc (from alloc_buffers), 2 to fakeCtxSync (from
 * sync_device), and one ioctl of its own (from poke_directly), then exits
 * at once (_exit, no clean-up).
 */
#define _GNU_SOURCE   /* sched_setaffinity */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NO_TAIL(x) ({ int r_ = (x); __asm__ volatile("" : "+r"(r_)); r_; })

typedef int (*alloc_fn)(int, uint32_t);
typedef int (*sync_fn)(int);

static NOINLINE int alloc_buffers(alloc_fn f, int fd)
{
	return NO_TAIL(f(fd, 3));
}

static NOINLINE int sync_device(sync_fn f, int fd)
{
	return NO_TAIL(f(fd)) | NO_TAIL(f(fd));
}

static NOINLINE int poke_directly(int fd)
{
	char params[32] = { 0 };

	return NO_TAIL(ioctl(fd, _IOWR('F', 0x2a, char[32]), params));
}

/* A frame of pages never written: the kernel's one read of the whole
 * stack faults there, and the stack must be read page by page. */
#define UNTOUCHED_BYTES (3 * 4096)

static NOINLINE void *beyond_untouched_pages(void *fdp)
{
	char untouched[UNTOUCHED_BYTES];

	__asm__ volatile("" : : "r"(untouched) : "memory");
	return (void *)(intptr_t)NO_TAIL(poke_directly(*(int *)fdp));
}

/* On a stack of our own: fresh pages, and no huge page that one touch
 * would fill whole. */
static int call_below_untouched_pages(int fd)
{
	size_t size = 256 * 1024;
	void *stack = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pthread_attr_t attr;
	pthread_t th;

	if (stack == MAP_FAILED || madvise(stack, size, MADV_NOHUGEPAGE))
		return 1;
	pthread_attr_init(&attr);
	if (pthread_attr_setstack(&attr, stack, size) ||
	    pthread_create(&th, &attr, beyond_untouched_pages, &fd))
		return 1;
	return pthread_join(th, NULL) != 0;
}

/* 100 calls, then a pause of ms: -k's tables are built in it. */
static inline __attribute__((always_inline)) void warm_up(sync_fn f, int fd, long ms)
{
	for (int i = 0; i < 100; i++)
		f(fd);
	usleep((useconds_t)ms * 1000);
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The cost of one call through the stand-in driver (one ioctl each): wall
 * time, and this process's CPU time (which holds the BPF programs' time,
 * and not the waits for a CPU on a busy machine). */
static NOINLINE int loop(sync_fn f, int fd, long n)
{
	double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);

	for (long i = 0; i < n; i++)
		f(fd);
	printf("stackprog loop n %ld ns_per_call %.1f cpu_ns_per_call %.1f\n", n,
	       (now_ns(CLOCK_MONOTONIC) - t0) / (double)n,
	       (now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / (double)n);
	return 0;
}

/* Frames of 16 KiB (a CFA offset the kernel's tables hold), 7 of them
 * between main and the loop: a stack deeper than -k's largest copy, as
 * XLA's and CPython's are.  Each frame is written whole, so that its
 * pages are there to read. */
#define DEEP_FRAME (16 * 1024)
#define DEEP_LEVELS 7
#define MANY_LEVELS 150

static NOINLINE int deep_frames(int level, sync_fn f, int fd, long n, long ms)
{
	char frame[DEEP_FRAME];

	memset(frame, level, sizeof(frame));
	__asm__ volatile("" : : "r"(frame) : "memory");
	if (level > 1)
		return NO_TAIL(deep_frames(level - 1, f, fd, n, ms));
	if (ms)
		warm_up(f, fd, ms);
	return NO_TAIL(loop(f, fd, n));
}

/* Small frames of three sizes in turn, TALL_LEVELS of them: the shape of
 * PyTorch's native stacks (about 100 frames in 20 KiB), which -k's walk
 * reads frame by frame. */
#define TALL_LEVELS 96

static NOINLINE int tall_frames(int level, sync_fn f, int fd, long n, long ms)
{
	volatile char frame[64 + 192 * (level % 3)];

	frame[0] = level;
	__asm__ volatile("" : : "r"(frame) : "memory");
	if (level > 1)
		return NO_TAIL(tall_frames(level - 1, f, fd, n, ms));
	if (ms)
		warm_up(f, fd, ms);
	return NO_TAIL(loop(f, fd, n));
}

/* Calls by way of three chains in turn, through one call site: via_a and
 * via_b have frames of one size (their callees' frames lie at the same sp,
 * the return address into each differs), via_c calls via_a (one frame
 * more: every frame below it lies lower).  A walk that meets the thread's
 * last walk finds a word changed, and goes on by the rules to the frame
 * where the two chains meet again (mixed's). */
typedef int (*via_fn)(sync_fn, int);

static NOINLINE int via_a(sync_fn f, int fd)
{
	volatile char frame[48];

	frame[0] = 'a';
	__asm__ volatile("" : : "r"(frame) : "memory");
	return NO_TAIL(f(fd));
}

static NOINLINE int via_b(sync_fn f, int fd)
{
	volatile char frame[48];

	frame[0] = 'b';
	__asm__ volatile("" : : "r"(frame) : "memory");
	return NO_TAIL(f(fd));
}

static NOINLINE int via_c(sync_fn f, int fd)
{
	volatile char frame[80];

	frame[0] = 'c';
	__asm__ volatile("" : : "r"(frame) : "memory");
	return NO_TAIL(via_a(f, fd));
}

static NOINLINE int mixed(sync_fn f, int fd, long n, long ms)
{
	static via_fn const via[] = { via_a, via_b, via_c };

	if (ms)
		warm_up(f, fd, ms);
	for (long i = 0; i < n; i++)
		NO_TAIL(via[i % 3](f, fd));
	return 0;
}

/* via_b by way of a frame of its own: the two frames a gap holds. */
static NOINLINE int via_d(sync_fn f, int fd)
{
	volatile char frame[112];

	frame[0] = 'd';
	__asm__ volatile("" : : "r"(frame) : "memory");
	return NO_TAIL(via_b(f, fd));
}

/* Calls through via, n of them us apart. */
static NOINLINE int paced(via_fn via, sync_fn f, int fd, long n, long us)
{
	for (long i = 0; i < n; i++) {
		NO_TAIL(via(f, fd));
		usleep((useconds_t)us);
	}
	return 0;
}

/* -k's walk past a frame without a table (kwalk.bpf.h, kw_gap): n calls
 * through via_a, paced, which the kernel walks once their tables are
 * built; then n through via_d and via_b, whose frames (a lazy file's FDEs
 * not built yet) the first of them cannot step, but whose caller's frame
 * is the last walk's, where it was.  On one CPU: the last walk is kept by
 * CPU. */
static NOINLINE int gaps(sync_fn f, int fd, long n, long us)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	NO_TAIL(paced(via_a, f, fd, n, us));
	return NO_TAIL(paced(via_d, f, fd, n, us));
}

/* A frame of 9 MiB (a variable-length array: its CFA is rbp's, which a
 * table holds at any size), on a thread whose stack holds it. */
#define HUGE_FRAME (9l << 20)
#define HUGE_STACK (16l << 20)

struct huge_args {
	sync_fn f;
	int fd;
	long n, ms, bytes;
};

static NOINLINE void *below_huge_frame(void *p)
{
	struct huge_args *a = p;
	char frame[a->bytes];

	memset(frame, 1, sizeof(frame));
	__asm__ volatile("" : : "r"(frame) : "memory");
	if (a->ms)
		warm_up(a->f, a->fd, a->ms);
	return (void *)(intptr_t)NO_TAIL(loop(a->f, a->fd, a->n));
}

static int on_huge_stack(struct huge_args *a)
{
	pthread_attr_t attr;
	pthread_t th;

	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, HUGE_STACK) ||
	    pthread_create(&th, &attr, below_huge_frame, a))
		return 1;
	return pthread_join(th, NULL) != 0;
}

int main(int argc, char **argv)
{
	char line[16];
	void *lib;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: stackprog LIB FILE [wait]\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	if (argc > 3 && strcmp(argv[3], "wait") == 0 && !fgets(line, sizeof(line), stdin))
		return 1;
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (argc > 4 && strcmp(argv[3], "loop") == 0) {
		sync_fn f = (sync_fn)dlsym(lib, "fakeCtxSync");

		if (argc > 5)
			warm_up(f, fd, atol(argv[5]));
		return loop(f, fd, atol(argv[4]));
	}
	if (argc > 4 && strcmp(argv[3], "huge") == 0) {
		struct huge_args a = { (sync_fn)dlsym(lib, "fakeCtxSync"), fd, atol(argv[4]),
				       argc > 5 ? atol(argv[5]) : 0, HUGE_FRAME };

		return on_huge_stack(&a);
	}
	if (argc > 4 && (strcmp(argv[3], "deep") == 0 || strcmp(argv[3], "many") == 0))
		return deep_frames(argv[3][0] == 'd' ? DEEP_LEVELS : MANY_LEVELS,
				   (sync_fn)dlsym(lib, "fakeCtxSync"), fd, atol(argv[4]),
				   argc > 5 ? atol(argv[5]) : 0);
	if (argc > 4 && strcmp(argv[3], "tall") == 0)
		return tall_frames(TALL_LEVELS, (sync_fn)dlsym(lib, "fakeCtxSync"), fd,
				   atol(argv[4]), argc > 5 ? atol(argv[5]) : 0);
	if (argc > 5 && strcmp(argv[3], "gaps") == 0)
		return gaps((sync_fn)dlsym(lib, "fakeCtxSync"), fd, atol(argv[4]), atol(argv[5]));
	if (argc > 4 && strcmp(argv[3], "mixed") == 0)
		return mixed((sync_fn)dlsym(lib, "fakeCtxSync"), fd, atol(argv[4]),
			     argc > 5 ? atol(argv[5]) : 0);
	if (argc > 3 && strcmp(argv[3], "holes") == 0)
		_exit(call_below_untouched_pages(fd));
	if (argc > 3 && strcmp(argv[3], "thread") == 0)
		_exit(((sync_fn)dlsym(lib, "fakeStartWorker"))(fd) == 0 ? 0 : 1);
	alloc_buffers((alloc_fn)dlsym(lib, "fakeMemAlloc"), fd);
	sync_device((sync_fn)dlsym(lib, "fakeCtxSync"), fd);
	poke_directly(fd);
	_exit(0);
}
