// SPDX-License-Identifier: MIT
/*
 * gpfifo_fake: a stand-in for a CUDA process's channel, for --gpu-work
 * tests without a GPU.  It lays out a GPFIFO ring, a USERD and pushbuffers
 * in its own memory, announces them to the tracer the way libcuda does
 * (RM_ALLOC of HOPPER_CHANNEL_GPFIFO_A naming the ring and the USERD
 * memory object, RM_MAP_MEMORY of that object, then an mmap of the same
 * fd: the USERD page is a shared page of the stand-in file), and then
 * submits work as the hardware would read it: segments of methods, ring
 * entries pointing at them, and GPPut in the USERD.  The ioctls fail with
 * ENOTTY on the stand-in file; the tracer records them all the same.
 *
 * usage: gpfifo_fake -f PATH work N M [SEED]
 *          N launches of distinct grid sizes, M copies of distinct sizes,
 *          a host semaphore release after each; prints what it sent, one
 *          line each: "launch GX GY GZ BX BY BZ SMEM QMD", "copy BYTES SRC DST",
 *          "release ADDR PAYLOAD", "control OPCODE OPERAND" (a ring entry
 *          of length 0: after the set-up, a NOP and an extended base of
 *          0), then "done ENTRIES"
 *        gpfifo_fake -f PATH late N
 *          sets up, prints "ready PID", then after 300 ms N launches 20 ms
 *          apart: for a capture attached (-p) after its channel was made
 *        gpfifo_fake -f PATH tie N
 *          N launches, each 30 ms after a driver call ("call CMD TID": an
 *          RM_CONTROL of a command no table names; every third from another
 *          thread) and 30 ms before the next, then one launch with a call
 *          right after it; prints the calls and launches in program order
 *        gpfifo_fake -f PATH burst N
 *          N copies of distinct sizes at once, no pause: more than the ring
 *          holds laps it between two polls; prints them, then "done ENTRIES"
 *        gpfifo_fake -f PATH cluster
 *          one launch of a QMD with a cluster shape (GRID_GPC_CGA): grid
 *          (362,2,1) of clusters (2,1,1); prints "launch 724 2 1 128 1 1
 *          cluster 2 1 1" (the grid in blocks)
 *        gpfifo_fake -f PATH graph K R
 *          a stand-in CUDA graph of K kernels launched R times, as CUDA
 *          12-13 does it on Hopper: K node QMDs uploaded, each SCHEDULEing
 *          the next (REQUIRE_SCHEDULING_PCAS), sent once (not launches),
 *          and a head QMD of grid 0 SCHEDULEing the first, sent R times;
 *          prints "graph N" before each launch of it and "launch GX 1 1 BX 1 1
 *          graph N" for each kernel it starts, then a head whose
 *          first dependent was never uploaded: "unseen QMD"
 *        gpfifo_fake -f PATH graph-join R
 *          a stand-in fork-join graph launched R times (its head is a
 *          kernel that SCHEDULEs two branches, each DECREMENT_DEPENDENCEs
 *          the join, which waits for 2); prints "graph N" and its four
 *          kernels as "graph" does; then a head with one branch only:
 *          "waiting ADDR", the join that never starts
 *        gpfifo_fake -f PATH kernel-late CODE
 *        gpfifo_fake -f PATH kernel-later CODE
 *        gpfifo_fake -f PATH kernel-churn CODE N
 *          a kernel's code uploaded by copy engine on a second channel
 *          right after its launch on the first: the launch is read first
 *          (the kernel-names hold); prints "kernel-late PROGRAM"
 *        gpfifo_fake -f PATH big N
 *          after 300 ms, a segment of N dwords (an inline upload) that a
 *          poll reads, then a launch: prints "launch 4243 ..." and "big N"
 *        gpfifo_fake -f PATH big-exit
 *          after 300 ms, a segment of 6000 dwords (longer than the bound)
 *          and a launch, then exit at once: prints "launch 4242 ..." and
 *          "big 6000"
 *        gpfifo_fake -f PATH burst-exit N [kill]
 *          sets up, waits 300 ms (a poller has read the set-up), then puts
 *          N launches of distinct grids at once and exits within a
 *          millisecond (with `kill`: SIGKILL to itself instead); prints
 *          the launches first.  N < 64: the ring holds them
 *          (big-exit and burst-exit: GPFIFO_FAKE_SETTLE_MS for the 300 ms;
 *          every mode: GPFIFO_FAKE_START_MS, a pause before the set-up)
 *        gpfifo_fake -f PATH rate R N
 *          after 300 ms, N launches at R a second at most, evenly
 *          (slept to each one's time; late, it goes on from then without
 *          catching up),
 *          then "done ENTRIES": a steady burst to measure the poller by
 *        gpfifo_fake -f PATH kernel CODE
 *          a kernel's code (the bytes of a cubin's .text.<name>, in file
 *          CODE) uploaded inline to a program address and launched there,
 *          then the same code copied by copy engine from a staging buffer
 *          of this process to another address and launched there, then
 *          uploaded twice in a row (a module, as eager loading uploads
 *          one) and launched at the second copy; prints "kernel-inline
 *          PROGRAM", "kernel-copy PROGRAM", "kernel-module PROGRAM" (kernel
 *          names: tests/live/kernel_names.py)
 *        gpfifo_fake -f PATH kernel-staged CODE_A CODE_B REGS_B
 *          two kernels' code copied through one staging buffer, reused for
 *          each upload (then a module of both in two chunks) as eager
 *          loading does, then launched: the buffer holds other code by
 *          the launches; then B's copy overwritten with A's code at once,
 *          launched with REGS_B registers; prints "staged-a PROGRAM",
 *          "staged-b PROGRAM", "staged-module-a PROGRAM", "staged-module-b
 *          PROGRAM", "staged-fast PROGRAM"
 *        gpfifo_fake -f PATH hostile
 *          rings a reader must survive: segments past the end of their
 *          mapping or unmapped, longer than any bound, headers of garbage,
 *          counts past the end, control entries ILLEGAL and of no known
 *          opcode, a segment under an extended base where nothing is
 *          mapped, a GPPut outside the ring; prints "done"
 *
 * Numbers are NVIDIA's (clc86f.h: GPFIFO entries, USERD GPPut at 0x8c;
 * clc76f.h: method headers; clcbc0.h, clcbc0qmd.h QMD V04_00; clc8b5.h),
 * written here by hand on purpose: the test checks the tracer's tables
 * against an independent copy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NV_IOCTL_MAGIC        'F'
#define NV_ESC_RM_CONTROL     0x2a
#define NV_ESC_RM_ALLOC       0x2b
#define NV_ESC_RM_MAP_MEMORY  0x4e
#define NV_REQ(nr, size)      _IOC(_IOC_READ | _IOC_WRITE, NV_IOCTL_MAGIC, nr, size)

#define HOPPER_CHANNEL_GPFIFO_A 0xc86f
#define HOPPER_COMPUTE_A        0xcbc0
#define HOPPER_DMA_COPY_A       0xc8b5
#define CHANNEL_PARAMS_SIZE     368     /* NV_CHANNEL_ALLOC_PARAMS, 570..595 */

#define CLIENT   0xc1d0f1f0u
#define CHANNEL  0x5c00f01cu
#define USERD    0x5c00f017u
#define USERD_OFF 0x200u
#define GPPUT_OFF 0x8cu
#define ENTRIES  64u

/* method header opcodes (bits 31:29) */
#define OP_INC    1u
#define OP_NONINC 3u
#define OP_IMMD   4u

struct nvos64 {
	uint32_t hRoot, hObjectParent, hObjectNew, hClass;
	uint64_t pAllocParms, pRightsRequested;
	uint32_t paramsSize, flags, status, _pad;
};
struct nvos54 {
	uint32_t hClient, hObject, cmd, flags;
	uint64_t params;
	uint32_t paramsSize, status;
};
struct nvos33_fd {
	uint32_t hClient, hDevice, hMemory, _pad;
	uint64_t offset, length, pLinearAddress;
	uint32_t status, flags;
	int32_t fd;
	uint32_t _pad2;
};
_Static_assert(sizeof(struct nvos33_fd) == 56, "nv_ioctl_nvos33_parameters_with_fd");

static int nv_fd;
static uint64_t *ring;
static volatile uint32_t *userd;
static uint32_t *pb, pb_used, pb_size = 1 << 20;
static uint32_t put;
static uint64_t entries_sent;
static long pace_us = 2000;   /* after each entry: well inside a 1 kHz poller's pace */

static void die(const char *what)
{
	fprintf(stderr, "gpfifo_fake: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pause_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static uint32_t hdr(uint32_t op, uint32_t count, uint32_t subch, uint32_t method)
{
	return op << 29 | count << 16 | subch << 13 | method >> 2;
}

static uint32_t *seg_start;

static void seg_begin(void)
{
	if (pb_used + 4096 > pb_size / 4)
		pb_used = 0;   /* reuse the pushbuffer from the start, like a real one */
	seg_start = pb + pb_used;
}

static void w(uint32_t v)
{
	pb[pb_used++] = v;
}

/* Puts entry e on the ring and moves GPPut. */
static void submit_entry(uint64_t e)
{
	ring[put] = e;
	put = (put + 1) % ENTRIES;
	__atomic_store_n(&userd[GPPUT_OFF / 4], put, __ATOMIC_RELEASE);
	entries_sent++;
	if (pace_us)
		pause_us(pace_us);
}

/* A segment entry at SUBROUTINE level (GP_ENTRY1_LEVEL, bit 9), as CUDA
 * puts every one on the H100 (580.159.04). */
static void submit_raw(uint64_t va, uint32_t ndw)
{
	submit_entry((uint64_t)((uint32_t)va & ~3u) |
		     ((uint64_t)(((va >> 32) & 0xff) | 1u << 9 | (ndw & 0x1fffff) << 10) << 32));
}

/* A control entry: length 0, GP_ENTRY1_OPCODE 7:0, GP_ENTRY0 the operand. */
static void submit_control(uint32_t opcode, uint32_t operand)
{
	submit_entry((uint64_t)opcode << 32 | operand);
	printf("control %u 0x%x\n", opcode, operand);
}

static void submit(void)
{
	submit_raw((uint64_t)(uintptr_t)seg_start, (uint32_t)(pb + pb_used - seg_start));
}

/* Allocates channel `handle` on the current ring, its USERD (hMemory
 * `userd_h`) at byte userd_off of the stand-in's mapped page. */
static void announce_channel(uint32_t handle, uint32_t userd_h, uint64_t userd_off)
{
	unsigned char params[CHANNEL_PARAMS_SIZE] = { 0 };
	uint64_t ring_va = (uint64_t)(uintptr_t)ring;
	uint32_t entries = ENTRIES, hmem = userd_h;
	struct nvos64 a = { .hRoot = CLIENT, .hObjectParent = 0x5c00f015, .hObjectNew = handle,
			    .hClass = HOPPER_CHANNEL_GPFIFO_A, .pAllocParms = (uintptr_t)params };
	struct nvos33_fd m = { .hClient = CLIENT, .hDevice = 0x5c00f003, .hMemory = userd_h,
			       .length = 4096, .fd = nv_fd };
	void *page;

	memcpy(params + 8, &ring_va, 8);     /* gpFifoOffset */
	memcpy(params + 16, &entries, 4);    /* gpFifoEntries */
	memcpy(params + 32, &hmem, 4);       /* hUserdMemory[0] */
	memcpy(params + 64, &userd_off, 8);  /* userdOffset[0] */
	ioctl(nv_fd, NV_REQ(NV_ESC_RM_ALLOC, sizeof(a)), &a);
	ioctl(nv_fd, NV_REQ(NV_ESC_RM_MAP_MEMORY, sizeof(m)), &m);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, nv_fd, 0);
	if (page == MAP_FAILED)
		die("mmap of the stand-in");
	userd = (volatile uint32_t *)((char *)page + userd_off);
}

static void announce(void)
{
	announce_channel(CHANNEL, USERD, USERD_OFF);
}

/* GPFIFO_FAKE_<name>_MS from the environment, else `ms` (tests that must
 * place the stand-in's steps against a reader slowed on purpose). */
static long env_us(const char *name, long ms)
{
	const char *v = getenv(name);

	return (v && *v ? atol(v) : ms) * 1000;
}

static void setup(const char *path)
{
	pause_us(env_us("GPFIFO_FAKE_START_MS", 0));
	nv_fd = open(path, O_RDWR | O_CREAT, 0600);
	if (nv_fd < 0 || ftruncate(nv_fd, 4096))
		die(path);
	ring = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* A GPFIFO entry holds 40 address bits: pushbuffers live low, as on a GPU. */
	pb = mmap((void *)0x2c0000000ull, pb_size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (ring == MAP_FAILED || pb == MAP_FAILED)
		die("mmap");
	announce();
	/* SET_OBJECT: compute on subchannel 1, copy on 4, as libcuda binds them */
	seg_begin();
	w(hdr(OP_INC, 1, 1, 0x0));
	w(HOPPER_COMPUTE_A);
	w(hdr(OP_INC, 1, 4, 0x0));
	w(HOPPER_DMA_COPY_A);
	submit();
	/* control entries: a NOP, and SET_PB_SEGMENT_EXTENDED_BASE (4) of 0 */
	submit_control(0, 0);
	submit_control(4, 0);
}

/* A QMD V04_00 (clcbc0qmd.h): version, grid, block, shared memory. */
static void launch(uint32_t gx, uint32_t bx, uint32_t smem, uint64_t qmd)
{
	uint32_t q[96] = { 0 };

	q[18] = 4u << 4 | (smem & 0x3ffff) << 8;   /* QMD_MAJOR_VERSION 583:580, SHARED_MEMORY_SIZE 601:584 */
	q[32] = gx;                                  /* GRID_WIDTH 1055:1024 */
	q[33] = 1;                                   /* GRID_HEIGHT 1071:1056 */
	q[34] = 1;                                   /* GRID_DEPTH 1103:1088 */
	q[36] = bx | 1u << 16;                       /* CTA_THREAD_DIMENSION0/1 */
	q[37] = 1;                                   /* CTA_THREAD_DIMENSION2 */
	seg_begin();
	w(hdr(OP_INC, 4, 1, 0x180));                 /* LINE_LENGTH_IN, LINE_COUNT, OFFSET_OUT_UPPER, OFFSET_OUT */
	w(sizeof(q));
	w(1);
	w((uint32_t)(qmd >> 32));
	w((uint32_t)qmd);
	w(hdr(OP_INC, 1, 1, 0x1b0));                 /* LAUNCH_DMA */
	w(0x41);
	w(hdr(OP_NONINC, 96, 1, 0x1b4));             /* LOAD_INLINE_DATA */
	for (int i = 0; i < 96; i++)
		w(q[i]);
	w(hdr(OP_INC, 1, 1, 0x2b4));                 /* SEND_PCAS_A */
	w((uint32_t)(qmd >> 8));
	w(hdr(OP_INC, 1, 1, 0x2c0));                 /* SEND_SIGNALING_PCAS2_B */
	w(0xa);                                      /* INVALIDATE_PREFETCH_COPY_SCHEDULE */
	w(hdr(OP_IMMD, 0x55, 1, 0x3ff0));            /* a method no table names */
	submit();
	printf("launch %u 1 1 %u 1 1 %u 0x%" PRIx64 "\n", gx, bx, smem, qmd);
}

static void copy(uint32_t bytes, uint64_t src, uint64_t dst)
{
	seg_begin();
	w(hdr(OP_INC, 4, 4, 0x400));                 /* OFFSET_IN_UPPER .. OFFSET_OUT_LOWER */
	w((uint32_t)(src >> 32));
	w((uint32_t)src);
	w((uint32_t)(dst >> 32));
	w((uint32_t)dst);
	w(hdr(OP_INC, 1, 4, 0x418));                 /* LINE_LENGTH_IN */
	w(bytes);
	w(hdr(OP_INC, 1, 4, 0x300));                 /* LAUNCH_DMA: NON_PIPELINED, pitch, flush */
	w(0x186);
	submit();
	printf("copy %u 0x%" PRIx64 " 0x%" PRIx64 "\n", bytes, src, dst);
}

static void release(uint64_t addr, uint32_t payload)
{
	seg_begin();
	w(hdr(OP_INC, 5, 0, 0x5c));                  /* SEM_ADDR_LO, _HI, PAYLOAD_LO, _HI, EXECUTE */
	w((uint32_t)addr);
	w((uint32_t)(addr >> 32));
	w(payload);
	w(0);
	w(1);                                        /* OPERATION_RELEASE */
	submit();
	printf("release 0x%" PRIx64 " 0x%x\n", addr, payload);
}

static int bool_in(const uint32_t *v, int n, uint32_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* n distinct values in [lo, hi) */
static void distinct(uint32_t *v, int n, uint32_t lo, uint32_t hi)
{
	for (int i = 0; i < n; i++) {
		do
			v[i] = lo + (uint32_t)(rand() % (int)(hi - lo));
		while (bool_in(v, i, v[i]));
	}
}

static void work(int n, int m, unsigned seed)
{
	uint32_t grids[4096], sizes[4096];
	uint32_t payload = 0;
	int i;

	srand(seed);
	distinct(grids, n, 1, 65536);
	distinct(sizes, m, 4, 1 << 24);
	for (i = 0; i < n || i < m; i++) {
		if (i < n)
			launch(grids[i], 32 * (1 + (uint32_t)i % 32), 1024 * ((uint32_t)i % 48),
			       0x204e00000ull + 0x200ull * (uint64_t)i);
		if (i < m)
			copy(sizes[i], 0x7f0000000000ull + (uint64_t)i * 0x1000000,
			     0x205000000ull + (uint64_t)i * 0x1000000);
		release(0x204f00010ull, ++payload);
	}
}

/* A driver call: an RM_CONTROL of a command no table names, cmd (it
 * fails on the stand-in file; the tracer records it all the same). */
static void call(uint32_t cmd)
{
	struct nvos54 c = { .hClient = CLIENT, .hObject = CLIENT, .cmd = cmd };

	ioctl(nv_fd, NV_REQ(NV_ESC_RM_CONTROL, sizeof(c)), &c);
	printf("call 0x%08x %ld\n", cmd, (long)syscall(SYS_gettid));
}

static void *call_thread(void *cmd)
{
	call((uint32_t)(uintptr_t)cmd);
	return NULL;
}

/* n launches, each 30 ms after a driver call and 30 ms before the next,
 * every third call made by another thread; then a launch with a call
 * right after it (inside the same poll's window, most likely). */
static void tie(int n)
{
	pthread_t t;
	int i;

	pause_us(100000);
	for (i = 0; i < n; i++) {
		uint32_t cmd = 0x00f00001u + (uint32_t)i;

		if (i % 3 == 2) {
			pthread_create(&t, NULL, call_thread, (void *)(uintptr_t)cmd);
			pthread_join(t, NULL);
		} else {
			call(cmd);
		}
		fflush(stdout);
		pause_us(30000);
		launch(100 + (uint32_t)i, 32, 0, 0x204e00000ull + 0x200ull * (uint64_t)i);
		pause_us(30000);
	}
	pace_us = 0;
	launch(99, 32, 0, 0x204e10000ull);
	call(0x00f0ffffu);
	pace_us = 2000;
}

/* Set up, say "ready", then n launches 20 ms apart after 300 ms: a
 * capture attached (-p) after "ready" sees the channel's work but not
 * the calls that made it. */
static void late(int n)
{
	printf("ready %ld\n", (long)getpid());
	fflush(stdout);
	pause_us(300000);
	for (int i = 0; i < n; i++) {
		launch(200 + (uint32_t)i, 32, 0, 0x204e00000ull + 0x200ull * (uint64_t)i);
		pause_us(20000);
	}
}

/* n copies as fast as they can be put: the ring (ENTRIES) goes round */
static void burst(int n)
{
	pause_us(300000);   /* the poller has read the set-up */
	pace_us = 0;
	for (int i = 0; i < n; i++)
		copy(1000 + (uint32_t)i, 0x7f0000000000ull, 0x205000000ull);
	pace_us = 2000;
}

/* --- clusters and graphs: QMD V04_00 fields by hand (clcbc0qmd.h) --------- */

#define QMD_TYPE_GRID_CTA     2u   /* QMD_TYPE 25:23 */
#define QMD_TYPE_GRID_GPC_CGA 3u
#define QMD_ACTION_SCHEDULE   1u   /* DEPENDENT_QMD_ACTION_QMD_SCHEDULE */
#define QMD_ACTION_DECREMENT  4u   /* DEPENDENT_QMD_ACTION_QMD_DECREMENT_DEPENDENCE */

/* A QMD V04_00: type, grid, block bx, shared memory 0. */
static void qmd_v04(uint32_t *q, uint32_t type, uint32_t gx, uint32_t gy, uint32_t bx)
{
	memset(q, 0, 96 * 4);
	q[0] = type << 23;                           /* QMD_TYPE 25:23 */
	q[18] = 4u << 4;                             /* QMD_MAJOR_VERSION 583:580, minor 0 */
	q[32] = gx;                                  /* GRID_WIDTH 1055:1024 */
	q[33] = gy;                                  /* GRID_HEIGHT 1071:1056 */
	q[34] = 1;                                   /* GRID_DEPTH 1103:1088 */
	q[36] = bx | 1u << 16;                       /* CTA_THREAD_DIMENSION0/1 */
	q[37] = 1;                                   /* CTA_THREAD_DIMENSION2 */
}

/* When q ends, the GPU does action to the QMD at next (DEPENDENT_QMD i). */
static void qmd_dep(uint32_t *q, int i, uint32_t action, uint64_t next)
{
	/* ENABLE(i) 368+5i, ACTION(i) 371+5i:369+5i, PREFETCH(i) 372+5i */
	q[11] |= (1u | action << 1 | 1u << 4) << (16 + 5 * i);
	q[14 + i] = (uint32_t)(next >> 8);           /* DEPENDENT_QMD0/1_POINTER 479:448, 511:480 */
}

/* When q ends, the GPU SCHEDULEs the QMD at next (DEPENDENT_QMD0). */
static void qmd_then(uint32_t *q, uint64_t next)
{
	qmd_dep(q, 0, QMD_ACTION_SCHEDULE, next);
}

/* Methods that upload q to addr inline, into the current segment. */
static void put_qmd(const uint32_t *q, uint64_t addr)
{
	w(hdr(OP_INC, 4, 1, 0x180));                 /* LINE_LENGTH_IN, LINE_COUNT, OFFSET_OUT_UPPER, OFFSET_OUT */
	w(96 * 4);
	w(1);
	w((uint32_t)(addr >> 32));
	w((uint32_t)addr);
	w(hdr(OP_INC, 1, 1, 0x1b0));                 /* LAUNCH_DMA */
	w(0x41);
	w(hdr(OP_NONINC, 96, 1, 0x1b4));             /* LOAD_INLINE_DATA */
	for (int i = 0; i < 96; i++)
		w(q[i]);
}

static void send_qmd(uint64_t addr)
{
	w(hdr(OP_INC, 1, 1, 0x2b4));                 /* SEND_PCAS_A */
	w((uint32_t)(addr >> 8));
	w(hdr(OP_INC, 1, 1, 0x2c0));                 /* SEND_SIGNALING_PCAS2_B */
	w(0xa);                                      /* INVALIDATE_PREFETCH_COPY_SCHEDULE */
}

static void cluster_launch(void)
{
	uint32_t q[96];

	qmd_v04(q, QMD_TYPE_GRID_GPC_CGA, 362, 2, 128);
	q[67] = 2u | 1u << 8 | 1u << 16;             /* GPC_CGA_WIDTH 2149:2144, HEIGHT 2157:2152, DEPTH 2165:2160 */
	seg_begin();
	put_qmd(q, 0x204e00000ull);
	send_qmd(0x204e00000ull);
	submit();
	printf("launch 724 2 1 128 1 1 cluster 2 1 1\n");
}

/* k kernels (grids 100 + i, block 32 * (i + 1)), launched r times. */
static void graph(int k, int r)
{
	const uint64_t head = 0x204c00000ull, node0 = head + 0x200;
	uint32_t q[96];
	int i, n;

	if (k < 1 || k > 64)
		k = 3;
	seg_begin();
	for (i = k - 1; i >= 0; i--) {   /* the last node first, as CUDA sends them */
		qmd_v04(q, QMD_TYPE_GRID_CTA, 100 + (uint32_t)i, 1, 32 * (uint32_t)(i + 1));
		q[0] |= 1u << 30;                    /* REQUIRE_SCHEDULING_PCAS 30 */
		if (i + 1 < k)
			qmd_then(q, node0 + 0x200ull * (uint64_t)(i + 1));
		put_qmd(q, node0 + 0x200ull * (uint64_t)i);
		send_qmd(node0 + 0x200ull * (uint64_t)i);
		submit();
		seg_begin();
	}
	qmd_v04(q, QMD_TYPE_GRID_CTA, 0, 0, 1);
	qmd_then(q, node0);
	put_qmd(q, head);
	for (n = 1; n <= r; n++) {
		send_qmd(head);
		submit();
		printf("graph %d\n", n);
		for (i = 0; i < k; i++)
			printf("launch %u 1 1 %u 1 1 graph %d\n", 100 + i, 32 * (i + 1), n);
		seg_begin();
	}
	/* a head whose first dependent was never uploaded */
	qmd_then(q, 0x204d00000ull);
	put_qmd(q, head + 0x10000);
	send_qmd(head + 0x10000);
	submit();
	printf("unseen 0x204d00000\n");
}

/* A graph's node: loaded and sent, which does not start it. */
static void put_node(uint32_t *q, uint64_t addr)
{
	q[0] |= 1u << 30;                            /* REQUIRE_SCHEDULING_PCAS 30 */
	seg_begin();
	put_qmd(q, addr);
	send_qmd(addr);
	submit();
}

/*
 * A fork-join graph as CUDA 13 makes one on Hopper (H200, graph_probe
 * part B): the head is the first node, a kernel of its own, SCHEDULEing
 * two branches; each branch DECREMENT_DEPENDENCEs the join node, which
 * waits for 2 (DEPENDENCE_COUNTER).  Launched r times; then a head whose
 * join waits for a branch that is not in the graph: it never starts.
 */
static void graph_join(int r)
{
	const uint64_t head = 0x204c00800ull, b = head + 0x200, c = head + 0x400, d = head + 0x600;
	uint32_t q[96];
	int n;

	qmd_v04(q, QMD_TYPE_GRID_CTA, 404, 1, 64);
	q[0] |= 2;                                   /* DEPENDENCE_COUNTER 15:0 */
	put_node(q, d);
	qmd_v04(q, QMD_TYPE_GRID_CTA, 403, 1, 128);
	qmd_dep(q, 0, QMD_ACTION_DECREMENT, d);
	put_node(q, c);
	qmd_v04(q, QMD_TYPE_GRID_CTA, 402, 1, 256);
	qmd_dep(q, 0, QMD_ACTION_DECREMENT, d);
	put_node(q, b);
	qmd_v04(q, QMD_TYPE_GRID_CTA, 401, 1, 256);
	qmd_dep(q, 0, QMD_ACTION_SCHEDULE, b);
	qmd_dep(q, 1, QMD_ACTION_SCHEDULE, c);
	seg_begin();
	put_qmd(q, head);
	submit();
	for (n = 1; n <= r; n++) {
		seg_begin();
		send_qmd(head);
		submit();
		printf("graph %d\n", n);
		printf("launch 401 1 1 256 1 1 graph %d\n", n);
		printf("launch 402 1 1 256 1 1 graph %d\n", n);
		printf("launch 403 1 1 128 1 1 graph %d\n", n);
		printf("launch 404 1 1 64 1 1 graph %d\n", n);
	}
	/* one branch only: the join (waits for 2) gets 1 */
	qmd_v04(q, QMD_TYPE_GRID_CTA, 411, 1, 32);
	qmd_then(q, b);
	seg_begin();
	put_qmd(q, head + 0x10000);
	send_qmd(head + 0x10000);
	submit();
	printf("launch 411 1 1 32 1 1 graph 1\n");
	printf("launch 402 1 1 256 1 1 graph 1\n");
	printf("waiting 0x%llx\n", (unsigned long long)d);
}

/* One segment of n dwords from the pushbuffer's start: LOAD_INLINE_DATA
 * of n - 1 dwords, as an inline upload of code. */
static void put_long_segment(uint32_t n)
{
	pb_used = 0;
	seg_start = pb;
	w(hdr(OP_NONINC, n - 1, 1, 0x1b4));         /* LOAD_INLINE_DATA, n - 1 dwords */
	for (uint32_t i = 1; i < n; i++)
		w(i);
	submit();
}

/* A segment longer than the capture's bound (CT_GPU_SEG_DEFAULT dwords),
 * then a launch, put at once and gone: the last look's records of a
 * segment cut at the bound. */
static void big_exit(void)
{
	const uint32_t n = 6000;

	pause_us(env_us("GPFIFO_FAKE_SETTLE_MS", 300));
	pace_us = 0;
	put_long_segment(n);
	launch(4242, 64, 0, 0x204e00000ull);
	printf("big %u\n", n);
	fflush(stdout);
	_exit(0);
}

/* A segment of n dwords (LOAD_INLINE_DATA, as libcuda's own kernels are
 * uploaded at context creation) that a poll reads, then a launch. */
static void big_segment(uint32_t n)
{
	if (n < 2 || n > 60000)
		die("big: 2 to 60000 dwords");
	pause_us(300000);
	put_long_segment(n);
	pause_us(300000);
	launch(4243, 64, 0, 0x204e00000ull);
	printf("big %u\n", n);
	fflush(stdout);
	pause_us(300000);
}

/* n launches put at once, then gone: exit, or SIGKILL */
static void burst_exit(int n, int kill_self)
{
	uint32_t grids[64];

	if (n < 1 || n > (int)ENTRIES - 1)
		n = (int)ENTRIES - 1;
	srand((unsigned)getpid());
	distinct(grids, n, 1, 65536);
	pause_us(env_us("GPFIFO_FAKE_SETTLE_MS", 300));
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);   /* printed in one write, after the work */
	pace_us = 0;
	for (int i = 0; i < n; i++)
		launch(grids[i], 64, 0, 0x204e00000ull + 0x200ull * (uint64_t)i);
	fflush(stdout);
	if (kill_self)
		raise(SIGKILL);
	_exit(0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until_ns(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* n launches at r a second: a steady burst */
static void rate(int r, int n)
{
	uint64_t t0, gap = 1000000000ull / (uint64_t)(r > 0 ? r : 1);

	pause_us(300000);
	pace_us = 0;
	/* Sleep to each launch's time, to the nanosecond (the default slack
	 * of 50 us would halve the rate): a spinning writer, several at once,
	 * starved the tracer's reader on a small CI machine, which is not what
	 * the burst is here to measure. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	t0 = now_ns();
	for (int i = 0; i < n; i++) {
		uint64_t t;

		while ((t = now_ns()) < t0)
			sleep_until_ns(t0);
		/* late (this process was not running): go on from now, no catching up */
		t0 = (t > t0 + gap ? t : t0) + gap;
		launch(1 + (uint32_t)i, 32, 0, 0x204e00000ull);
	}
	pace_us = 2000;
}

static void hostile(void)
{
	uint32_t i;

	/* unmapped, and longer than any bound */
	submit_raw(0x10, 0x1fffff);
	/* runs past the end of the pushbuffer mapping */
	submit_raw((uint64_t)(uintptr_t)(pb + pb_size / 4 - 8), 4096);
	/* garbage headers: a reserved opcode, then counts past the end */
	seg_begin();
	w(6u << 29 | 0x1234);
	submit();
	seg_begin();
	w(hdr(OP_INC, 0x1fff, 1, 0x1b4));
	w(1);
	submit();
	seg_begin();
	w(hdr(OP_NONINC, 0x1fff, 1, 0x1b4));
	submit();
	/* random dwords */
	srand(7);
	for (i = 0; i < 8; i++) {
		seg_begin();
		for (int j = 0; j < 512; j++)
			w((uint32_t)rand() << 1 ^ (uint32_t)rand());
		submit();
	}
	/* an upload that claims far more than it sends, then a launch */
	seg_begin();
	w(hdr(OP_INC, 4, 1, 0x180));
	w(0xffffffff); w(0xffffffff); w(0); w(0x1000);
	w(hdr(OP_INC, 1, 1, 0x1b0)); w(0);
	w(hdr(OP_NONINC, 3, 1, 0x1b4)); w(1); w(2); w(3);
	w(hdr(OP_INC, 1, 1, 0x2b4)); w(0x10);
	w(hdr(OP_INC, 1, 1, 0x2c0)); w(0xa);
	submit();
	/* SET_OBJECT of garbage classes */
	seg_begin();
	for (i = 0; i < 8; i++) {
		w(hdr(OP_INC, 1, i, 0));
		w(0xdead0000u + i);
	}
	submit();
	/* control entries: ILLEGAL, an opcode no header has, and a segment
	 * under the largest extended base (bits 56:40 all set: unmapped) */
	submit_control(1, 0x12345678);
	submit_control(0x7f, 0x1);
	submit_control(4, 0x1ffffu << 8);
	seg_begin();
	w(hdr(OP_INC, 1, 4, 0x418));
	w(1);
	submit();
	submit_control(4, 0);
	/* Time for the reader to take the entries above (it polls about once
	 * a millisecond): what follows makes it stop reading this ring. */
	pause_us(300000);
	/* a GPPut outside the ring: the reader must stop following it */
	__atomic_store_n(&userd[GPPUT_OFF / 4], ENTRIES + 5, __ATOMIC_RELEASE);
	pause_us(20000);
}

/* --- kernel names: code uploads ------------------------------------------- */

/* A QMD V04_00 as launch() makes, with PROGRAM_ADDRESS_LOWER 1247:1216 and
 * _UPPER 1272:1248 (dwords 38, 39) and REGISTER_COUNT 1208:1200 (0: none
 * said). */
static void launch_regs(uint32_t gx, uint64_t qmd, uint64_t program, uint32_t regs)
{
	uint32_t q[96] = { 0 };

	q[18] = 4u << 4;
	q[32] = gx;
	q[33] = 1;
	q[34] = 1;
	q[36] = 128 | 1u << 16;
	q[37] = 1 | (regs & 0x1ff) << 16;
	q[38] = (uint32_t)program;
	q[39] = (uint32_t)(program >> 32);
	seg_begin();
	w(hdr(OP_INC, 4, 1, 0x180));
	w(sizeof(q));
	w(1);
	w((uint32_t)(qmd >> 32));
	w((uint32_t)qmd);
	w(hdr(OP_INC, 1, 1, 0x1b0));
	w(0x41);
	w(hdr(OP_NONINC, 96, 1, 0x1b4));
	for (int i = 0; i < 96; i++)
		w(q[i]);
	w(hdr(OP_INC, 1, 1, 0x2b4));
	w((uint32_t)(qmd >> 8));
	w(hdr(OP_INC, 1, 1, 0x2c0));
	w(0xa);
	submit();
}

static void launch_program(uint32_t gx, uint64_t qmd, uint64_t program)
{
	launch_regs(gx, qmd, program, 0);
}

/* n bytes of code to dst, inline on the compute subchannel (LINE_LENGTH_IN,
 * LINE_COUNT, OFFSET_OUT_UPPER, OFFSET_OUT, LAUNCH_DMA, LOAD_INLINE_DATA). */
static void upload_inline(const uint32_t *code, uint32_t n, uint64_t dst)
{
	seg_begin();
	w(hdr(OP_INC, 4, 1, 0x180));
	w(n);
	w(1);
	w((uint32_t)(dst >> 32));
	w((uint32_t)dst);
	w(hdr(OP_INC, 1, 1, 0x1b0));
	w(0x41);
	w(hdr(OP_NONINC, n / 4, 1, 0x1b4));
	for (uint32_t i = 0; i < n / 4; i++)
		w(code[i]);
	submit();
}

static void kernel(const char *path)
{
	static uint32_t code[4096], module[8192];
	uint64_t inline_at = 0x7f2c537a0000ull, copy_at = 0x7f2c53800000ull;
	uint64_t module_at = 0x7f2c53900000ull;
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(code, 1, sizeof(code), f) : 0;
	uint32_t *staging;

	if (!f || !n || n % 16)
		die(path);
	fclose(f);
	upload_inline(code, (uint32_t)n, inline_at);
	launch_program(7, 0x204e0c000ull, inline_at);
	printf("kernel-inline 0x%" PRIx64 "\n", inline_at);
	/* the staging buffer stays as it is: the tracer reads it back */
	staging = malloc(n);
	if (!staging)
		die("malloc");
	memcpy(staging, code, n);
	copy((uint32_t)n, (uint64_t)(uintptr_t)staging, copy_at);
	launch_program(9, 0x204e0c800ull, copy_at);
	printf("kernel-copy 0x%" PRIx64 "\n", copy_at);
	memcpy(module, code, n);
	memcpy((char *)module + n, code, n);
	upload_inline(module, 2 * (uint32_t)n, module_at);
	launch_program(11, 0x204e0d000ull, module_at + n);
	printf("kernel-module 0x%" PRIx64 "\n", module_at + n);
	pause_us(300000);
	free(staging);
}

/*
 * Code uploaded once, then N launches of other code, each writing its QMD
 * to one of four places (as CUDA reuses its QMD slots), then the first
 * code launched: past the namer's 512 kept uploads unless rewrites of a
 * place take its slot.  Prints "kernel-churn PROGRAM".
 */
static void kernel_churn(const char *path, int n)
{
	static uint32_t code[4096];
	const uint64_t first = 0x7f2c537a0000ull, other = 0x7f2c53a00000ull;
	FILE *f = fopen(path, "rb");
	size_t len = f ? fread(code, 1, sizeof(code), f) : 0;

	if (!f || !len || len % 16 || n < 1)
		die(path);
	fclose(f);
	pace_us = 500;
	upload_inline(code, (uint32_t)len, first);
	upload_inline(code, (uint32_t)len, other);
	for (int i = 0; i < n; i++)
		launch_program(1, 0x204e0c000ull + 0x800ull * (uint64_t)(i % 4), other);
	launch_program(5, 0x204e0e000ull, first);
	printf("kernel-churn 0x%" PRIx64 "\n", first);
	fflush(stdout);
	pause_us(300000);
}

/* A channel's ring as the producer sees it: the current one is in the
 * globals ring, userd and put. */
struct chan_state { uint64_t *ring; volatile uint32_t *userd; uint32_t put; };

static void switch_channel(struct chan_state *save, const struct chan_state *to)
{
	*save = (struct chan_state){ ring, userd, put };
	ring = to->ring;
	userd = to->userd;
	put = to->put;
}

/*
 * A launch read before its upload: the launch on the compute channel, then
 * the copy engine upload of its code on a second channel allocated after
 * it, both put at once (the reader polls the rings in the order they were
 * made, so it reads the launch first), as CUDA's eager loading does on
 * Hopper.  Launched once.  Prints "kernel-late PROGRAM".  later: a driver
 * call 20 ms after the launch and the copy 20 ms after that, so that the
 * reader reads the launch, the call and the copy in that order, in
 * different polls (a ring not due when the launch's was: JAX on an H200).
 */
static void kernel_late(const char *path, bool later)
{
	static uint32_t code[4096];
	const uint64_t at = 0x7f2c53a00000ull;
	struct chan_state compute, copy_chan;
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(code, 1, sizeof(code), f) : 0;
	uint32_t *staging = malloc(sizeof(code));

	if (!f || !n || n % 16 || !staging)
		die(path);
	fclose(f);
	memcpy(staging, code, n);
	/* the second channel: its own ring, its USERD further in the page */
	switch_channel(&compute, &(struct chan_state){ NULL, NULL, 0 });
	ring = mmap(NULL, ENTRIES * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED)
		die("mmap");
	announce_channel(CHANNEL + 0x10, USERD + 0x10, USERD_OFF + 0x400);
	seg_begin();
	w(hdr(OP_INC, 1, 4, 0x0));                   /* SET_OBJECT: copy on subchannel 4 */
	w(HOPPER_DMA_COPY_A);
	submit();
	switch_channel(&copy_chan, &compute);
	pause_us(300000);   /* a poller has read both set-ups */
	pace_us = 0;
	launch_program(13, 0x204e0e000ull, at);
	if (later) {   /* the launch read first, then the call, then the copy */
		pause_us(20000);
		call(0xdead0001);
		pause_us(20000);
	}
	switch_channel(&compute, &copy_chan);
	copy((uint32_t)n, (uint64_t)(uintptr_t)staging, at);
	switch_channel(&copy_chan, &compute);
	printf("kernel-late 0x%" PRIx64 "\n", at);
	fflush(stdout);
	pace_us = 2000;
	pause_us(300000);
	free(staging);
}

static size_t read_code(const char *path, uint32_t *code, size_t room)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(code, 1, room, f) : 0;

	if (!f || !n || n % 16 || n == room)
		die(path);
	fclose(f);
	return n;
}

/* Copies n bytes of code through the staging buffer to dst, then waits for
 * the copy to be done (a poller has read it) before the buffer is reused. */
static void stage(uint8_t *staging, const void *code, size_t n, uint64_t dst)
{
	memcpy(staging, code, n);
	copy((uint32_t)n, (uint64_t)(uintptr_t)staging, dst);
	pause_us(100000);
}

/*
 * Code uploaded through one staging buffer reused for each upload, as
 * eager loading does (a module copied in chunks): A's code, then B's,
 * then a module [A B] in two chunks, B across them; then each launched.
 * At the launches the buffer holds the module's second chunk.  Then B's
 * code copied and A's written over it at once (read after, the copy of B
 * holds A), launched with B's registers, fewer than A needs.  Prints
 * "staged-a PROGRAM", "staged-b PROGRAM", "staged-module-a PROGRAM",
 * "staged-module-b PROGRAM", "staged-fast PROGRAM".
 */
static void kernel_staged(const char *path_a, const char *path_b, uint32_t regs_b)
{
	static uint32_t a[1024], b[1024], module[2048];
	const uint64_t at_a = 0x7f2c53b00000ull, at_b = 0x7f2c53b10000ull;
	const uint64_t at_m = 0x7f2c53b20000ull, at_fast = 0x7f2c53b30000ull;
	size_t na = read_code(path_a, a, sizeof(a)), nb = read_code(path_b, b, sizeof(b));
	size_t first = na + (nb / 2 & ~(size_t)15);
	uint8_t *staging = malloc(na + nb);

	if (!staging)
		die("malloc");
	memcpy(module, a, na);
	memcpy((uint8_t *)module + na, b, nb);
	stage(staging, a, na, at_a);
	stage(staging, b, nb, at_b);
	stage(staging, module, first, at_m);
	stage(staging, (uint8_t *)module + first, na + nb - first, at_m + first);
	launch_program(15, 0x204e0f000ull, at_a);
	launch_program(17, 0x204e0f800ull, at_b);
	launch_program(19, 0x204e10000ull, at_m);
	launch_program(21, 0x204e10800ull, at_m + na);
	memcpy(staging, b, nb);
	pace_us = 0;   /* reused before any poller can read it */
	copy((uint32_t)nb, (uint64_t)(uintptr_t)staging, at_fast);
	memcpy(staging, a, na);
	pace_us = 2000;
	pause_us(100000);
	launch_regs(23, 0x204e11000ull, at_fast, regs_b);
	printf("staged-a 0x%" PRIx64 "\nstaged-b 0x%" PRIx64 "\nstaged-module-a 0x%" PRIx64
	       "\nstaged-module-b 0x%" PRIx64 "\nstaged-fast 0x%" PRIx64 "\n", at_a, at_b, at_m,
	       at_m + na, at_fast);
	pause_us(300000);
	free(staging);
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "work")) {
		setup(argv[2]);
		work(atoi(argv[4]), argc > 5 ? atoi(argv[5]) : 0, argc > 6 ? (unsigned)atoi(argv[6]) : 1);
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "late")) {
		setup(argv[2]);
		late(atoi(argv[4]));
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "tie")) {
		setup(argv[2]);
		tie(atoi(argv[4]));
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "burst")) {
		setup(argv[2]);
		burst(atoi(argv[4]));
	} else if (argc == 4 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "cluster")) {
		setup(argv[2]);
		cluster_launch();
	} else if (argc == 5 && !strcmp(argv[1], "-f") && (!strcmp(argv[3], "kernel-late") ||
							   !strcmp(argv[3], "kernel-later"))) {
		setup(argv[2]);
		kernel_late(argv[4], !strcmp(argv[3], "kernel-later"));
	} else if (argc == 6 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "kernel-churn")) {
		setup(argv[2]);
		kernel_churn(argv[4], atoi(argv[5]));
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "big")) {
		setup(argv[2]);
		big_segment((uint32_t)atoi(argv[4]));
	} else if (argc == 4 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "big-exit")) {
		setup(argv[2]);
		big_exit();
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "graph-join")) {
		setup(argv[2]);
		graph_join(atoi(argv[4]));
	} else if (argc == 6 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "graph")) {
		setup(argv[2]);
		graph(atoi(argv[4]), atoi(argv[5]));
	} else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "-f") &&
		   !strcmp(argv[3], "burst-exit")) {
		setup(argv[2]);
		burst_exit(atoi(argv[4]), argc == 6 && !strcmp(argv[5], "kill"));
	} else if (argc == 6 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "rate")) {
		setup(argv[2]);
		rate(atoi(argv[4]), atoi(argv[5]));
	} else if (argc == 5 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "kernel")) {
		setup(argv[2]);
		kernel(argv[4]);
	} else if (argc == 7 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "kernel-staged")) {
		setup(argv[2]);
		kernel_staged(argv[4], argv[5], (uint32_t)atoi(argv[6]));
	} else if (argc == 4 && !strcmp(argv[1], "-f") && !strcmp(argv[3], "hostile")) {
		setup(argv[2]);
		hostile();
	} else {
		fprintf(stderr, "usage: gpfifo_fake -f PATH work N M [SEED] | -f PATH burst N | -f PATH tie N | "
				"-f PATH late N | -f PATH cluster | -f PATH graph K R | -f PATH graph-join R | -f PATH big-exit | -f PATH kernel-late[r] CODE | -f PATH kernel-churn CODE N | "
				"-f PATH burst-exit N [kill] | -f PATH rate R N | -f PATH kernel CODE | "
				"-f PATH kernel-staged CODE_A CODE_B REGS_B | "
				"-f PATH hostile\n");
		return 2;
	}
	pause_us(200000);   /* let a poller read the last entries */
	printf("done %" PRIu64 "\n", entries_sent);
	return 0;
}
